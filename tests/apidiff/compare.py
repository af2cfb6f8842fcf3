#!/usr/bin/env python3
"""Compares the differential API suite's answers of `dglsim serve` with kube-apiserver's, field by
field after normalization (normalize.py), and writes the report.

Usage:
  compare.py --fake FAKE.json --real REAL.json --report reports/api-conformance.md
             --json reports/api-conformance.json [--docs docs/api-departures.md] [--check]
  compare.py --fake FAKE.json --recorded reports/api-conformance.json [--check]
      (the fake's answers against the real server's as recorded in an earlier report: no Go needed)

--real: driver.py's output for kube-apiserver; --recorded: the normalized real answers from a
report's JSON. --docs rewrites the section "## Measured by the differential suite" of that file
(created when absent). --check: exit 1 when identical/total is below departures.IDENTICAL_AT_LEAST
or when a difference is not a stated departure (departures.py).

Admission steps (corpus `admission: True`, the manifests our DGLJob admission refuses) are not
counted in identical/total: they measure which refusals kube-apiserver's CRD schema makes too, and
are listed in a table of their own.
Exit codes: 0 compared (and --check passed), 1 --check failed, 2 bad input.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import corpus  # noqa: E402
import departures  # noqa: E402
import normalize  # noqa: E402

DOCS_HEADING = "## Measured by the differential suite"
TRIM_LINES = 40


def diff(a, b, path="", out=None, limit=20):
    """The paths where a and b differ ("" the whole value), at most `limit`."""
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            sub = "%s.%s" % (path, k) if path else str(k)
            if k not in a:
                out.append((sub, "(absent)", b[k]))
            elif k not in b:
                out.append((sub, a[k], "(absent)"))
            else:
                diff(a[k], b[k], sub, out, limit)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, "%s[%d]" % (path, i), out, limit)
    elif a != b:
        out.append((path or "(whole)", a, b))
    return out


def comparable(record):
    return {k: record.get(k) for k in ("status", "headers", "body", "events") if k in record}


def admission_class(fake, real):
    """What kube-apiserver, with deploy/crd.yaml only, does with a manifest our admission refuses."""
    if real["status"] in (400, 422):
        fields = sorted(c.get("field", "") for c in ((real.get("body") or {}).get("details") or {}).get("causes") or [])
        ours = sorted(c.get("field", "") for c in ((fake.get("body") or {}).get("details") or {}).get("causes") or [])
        same = [f for f in ours if f in fields]
        return "refused by the CRD schema" + (" at the same field" if same else " (elsewhere: %s)" % ", ".join(fields))
    if real["status"] == 201:
        return "admitted: only our webhook refuses it"
    return "answered %s" % real["status"]


def compare(fake_records, real_records):
    steps = {s["name"]: s for s in corpus.STEPS}
    fake = {r["name"]: r for r in fake_records}
    real = {r["name"]: r for r in real_records}
    results = []
    for s in corpus.STEPS:
        if s.get("compare") is False or s.get("only"):
            continue
        f, r = fake.get(s["name"]), real.get(s["name"])
        entry = {"name": s["name"], "request": "%s %s" % (s.get("method", "GET"), s.get("path", "(watch read)"))}
        if f is None or r is None:
            entry.update(result="missing", fake=comparable(f or {}), real=comparable(r or {}))
        else:
            d = diff(comparable(f), comparable(r))
            entry.update(result="identical" if not d else "different", fake=comparable(f), real=comparable(r),
                         paths=[p for p, _, _ in d])
        if s.get("admission"):
            entry["admission"] = admission_class(f or {}, r or {"status": None})
        pattern, reason = departures.departure_of(s["name"])
        if reason and entry["result"] != "identical":
            entry.update(departure=reason, departurePattern=pattern)
        results.append(entry)
    return results


def summary(results):
    counted = [e for e in results if "admission" not in e]
    identical = sum(e["result"] == "identical" for e in counted)
    unlisted = [e["name"] for e in counted if e["result"] != "identical" and "departure" not in e]
    return {"total": len(counted), "identical": identical,
            "share": identical / len(counted) if counted else 0.0,
            "stated": sum(e["result"] != "identical" and "departure" in e for e in counted),
            "unlisted": unlisted, "admission": len(results) - len(counted)}


def trimmed(value):
    text = json.dumps(value, indent=1, sort_keys=True)
    lines = text.splitlines()
    return "\n".join(lines[:TRIM_LINES] + (["... (%d more lines)" % (len(lines) - TRIM_LINES)] if len(lines) > TRIM_LINES else []))


def md_cell(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def report_md(results, s, meta):
    out = ["# API conformance: `dglsim serve` against kube-apiserver", "",
           "Generated by `bash scripts/api-conformance.sh` (tests/apidiff/: the corpus, the driver, the "
           "normalization rules in normalize.py, the stated departures in departures.py); do not edit.", "",
           "- kube-apiserver: %s; dglsim serve: %s" % (meta.get("real", "?"), meta.get("fake", "?")),
           "- **%d of %d interactions identical (%.1f %%)** after normalization; %d differ as stated departures, "
           "%d differ unlisted%s." % (s["identical"], s["total"], 100 * s["share"], s["stated"], len(s["unlisted"]),
                                      (": " + ", ".join("`%s`" % n for n in s["unlisted"])) if s["unlisted"] else ""),
           "- %d manifests our DGLJob admission refuses, sent to both (not counted above): see the last table." % s["admission"],
           "", "## Every interaction", "", "| # | interaction | request | result |", "|---|---|---|---|"]
    for i, e in enumerate(results, 1):
        if "admission" in e:
            continue
        res = "identical" if e["result"] == "identical" else (
            "stated departure" if "departure" in e else "**different**")
        if e["result"] != "identical":
            res += " ([below](#d%d))" % i
        out.append("| %d | %s | `%s` | %s |" % (i, md_cell(e["name"]), md_cell(e["request"]), res))
    out += ["", "## Differences", ""]
    for i, e in enumerate(results, 1):
        if e["result"] == "identical" or "admission" in e:
            continue
        out += ['<a id="d%d"></a>' % i, "### %d. %s" % (i, e["name"]), "",
                "`%s`; differs at: %s" % (e["request"], ", ".join("`%s`" % p for p in e.get("paths", [])[:10]) or "-"), ""]
        if "departure" in e:
            out += ["Stated departure: %s" % e["departure"], ""]
        out += ["dglsim serve:", "", "```json", trimmed(e["fake"]), "```", "", "kube-apiserver:", "", "```json",
                trimmed(e["real"]), "```", ""]
    out += ["## The manifests our DGLJob admission refuses, on kube-apiserver with deploy/crd.yaml", "",
            "| manifest | dglsim serve | kube-apiserver | |", "|---|---|---|---|"]
    for e in results:
        if "admission" not in e:
            continue
        fields = lambda rec: ", ".join(sorted({c.get("field", "") for c in (((rec.get("body") or {}).get("details") or {})
                                                                          .get("causes") or [])}))
        out.append("| %s | %s %s | %s %s | %s |" % (md_cell(e["name"][len("admission/"):]), e["fake"].get("status"),
                                                     md_cell(fields(e["fake"])), e["real"].get("status"),
                                                     md_cell(fields(e["real"])), e["admission"]))
    return "\n".join(out) + "\n"


def docs_section(results, s):
    lines = [DOCS_HEADING, "",
             "The differential API suite (tests/apidiff/) sends one corpus of API interactions to `dglsim serve` "
             "and to a real kube-apiserver with kube-controller-manager (scripts/control-plane.sh), normalizes "
             "the answers (tests/apidiff/normalize.py: uids, times, generated names, resourceVersions by their "
             "order, continue tokens, the Content-Type's parameters) and compares them field by field, status "
             "codes and Status bodies included. `bash scripts/api-conformance.sh` regenerates "
             "reports/api-conformance.md (every interaction, and both answers where they differ), "
             "reports/api-conformance.json and this section, from tests/apidiff/departures.py and the run. "
             "CTest: `realk8s.api_conformance` (the whole suite; skipped without Go or the built control plane) "
             "and `apidiff.fake_vs_recorded` (the fake against kube-apiserver's recorded answers, no Go needed) "
             "fail below the committed share of identical answers or on a difference not listed here.", "",
             "Last measured: %d of %d interactions identical (%.1f %%); each difference is one of these stated "
             "departures, followed by the interactions that show it:"
             % (s["identical"], s["total"], 100 * s["share"]), ""]
    by_reason = {}
    for e in results:
        if "departure" in e and "admission" not in e:
            by_reason.setdefault(e["departure"], []).append(e["name"])
    for reason, names in by_reason.items():
        lines.append("- %s: %s." % (reason[0].upper() + reason[1:], ", ".join("`%s`" % n for n in names)))
    refused_too = sum(e["admission"].startswith("refused") for e in results if "admission" in e)
    lines += ["", "DGLJob admission: of the %d manifests our admission refuses in the project's tests, kube-apiserver "
              "with deploy/crd.yaml alone refuses %d by its schema; the others need a validating webhook "
              "(reports/api-conformance.md, last table)." % (s["admission"], refused_too), ""]
    return "\n".join(lines)


def write_docs(path, section):
    text = open(path).read() if os.path.exists(path) else "# The fake API server and its departures from kube-apiserver\n\n"
    start = text.find(DOCS_HEADING)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + len(DOCS_HEADING))
        text = text[:start] + section + ("\n" + text[end + 1:] if end >= 0 else "")
    with open(path, "w") as f:
        f.write(text)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--fake", required=True)
    p.add_argument("--real")
    p.add_argument("--recorded")
    p.add_argument("--report")
    p.add_argument("--json")
    p.add_argument("--docs")
    p.add_argument("--check", action="store_true")
    a = p.parse_args()
    steps = {s["name"]: s for s in corpus.STEPS}
    try:
        fake_run = json.load(open(a.fake))
        fake = normalize.normalize(fake_run["records"], steps)
        if a.real:
            real_run = json.load(open(a.real))
            real = normalize.normalize(real_run["records"], steps)
            meta = {"fake": fake_run.get("version", "?"), "real": real_run.get("version", "?")}
        elif a.recorded:
            rec = json.load(open(a.recorded))
            real = [dict(e["real"], name=e["name"]) for e in rec["interactions"]]
            meta = rec.get("versions", {})
        else:
            p.error("--real or --recorded is required")
    except (OSError, ValueError, KeyError) as e:
        print("compare: %s" % e, file=sys.stderr)
        return 2
    results = compare(fake, real)
    s = summary(results)
    if a.report:
        with open(a.report, "w") as f:
            f.write(report_md(results, s, meta))
    if a.json:
        with open(a.json, "w") as f:
            # The fake's answer only where it differs: kube-apiserver's are what a later run compares with.
            slim = [{k: v for k, v in e.items() if k != "fake" or e["result"] != "identical"} for e in results]
            json.dump({"summary": s, "versions": meta, "interactions": slim}, f, indent=1, sort_keys=True)
            f.write("\n")
    if a.docs:
        write_docs(a.docs, docs_section(results, s))
    print("compare: %d of %d identical (%.1f %%), %d stated departures, %d unlisted differences, %d admission cases"
          % (s["identical"], s["total"], 100 * s["share"], s["stated"], len(s["unlisted"]), s["admission"]))
    for name in s["unlisted"]:
        print("  unlisted difference: %s" % name)
    if a.check:
        floor = departures.IDENTICAL_AT_LEAST
        if s["share"] + 1e-9 < floor:
            print("compare: FAIL: %.4f identical, below the committed %.4f" % (s["share"], floor))
            return 1
        if s["unlisted"]:
            print("compare: FAIL: %d differences are not stated departures (tests/apidiff/departures.py)"
                  % len(s["unlisted"]))
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
