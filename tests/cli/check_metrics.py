#!/usr/bin/env python3
"""Parses a Prometheus text exposition (format 0.0.4) strictly and checks what a scrape of dgl-operator
(or of `dglsim serve`'s /metrics, or `dglsim run --metrics`) must hold. A small parser of its own
(promtool is not in the CI image): every sample line, HELP and TYPE for every family before its
samples, label syntax and escaping, numbers, histograms whole (_bucket with le ascending and
cumulative, +Inf equal to _count, _sum present), and no series twice.

usage: check_metrics.py SCRAPE_FILE [EXPECTATION]...
  EXPECTATION is one of
    family=NAME:TYPE:label1,label2     the family exists with that type and exactly those labels
    value=NAME{a="x",b="y"}OP NUMBER    a sample's value compares so (OP: ==, >=, >, <=)
    absent=NAME                         no such family
Prints what it found and exits 0, or 1 with each failure.
"""
import math
import re
import sys

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"


class ParseError(Exception):
    pass


def parse_labels(text, pos):
    """Parses {a="x",...} from text[pos] == '{'; returns (dict, position after '}')."""
    labels = {}
    pos += 1
    while True:
        if text[pos] == "}":
            return labels, pos + 1
        m = re.compile(LABEL).match(text, pos)
        if not m:
            raise ParseError("bad label name at %r" % text[pos:])
        name = m.group(0)
        pos = m.end()
        if text[pos : pos + 2] != '="':
            raise ParseError("expected =\" after label %s" % name)
        pos += 2
        value = []
        while text[pos] != '"':
            if text[pos] == "\\":
                nxt = text[pos + 1]
                if nxt not in 'n"\\':
                    raise ParseError("bad escape \\%s in label %s" % (nxt, name))
                value.append({"n": "\n", '"': '"', "\\": "\\"}[nxt])
                pos += 2
            elif text[pos] == "\n":
                raise ParseError("raw newline in label %s" % name)
            else:
                value.append(text[pos])
                pos += 1
        if name in labels:
            raise ParseError("label %s twice" % name)
        labels[name] = "".join(value)
        pos += 1
        if text[pos] == ",":
            pos += 1
        elif text[pos] != "}":
            raise ParseError("expected , or } after label %s" % name)


def parse_value(text):
    if text in ("+Inf", "Inf"):
        return math.inf
    if text == "-Inf":
        return -math.inf
    if text == "NaN":
        return math.nan
    return float(text)  # raises ValueError


def parse(text):
    """{family: {"type", "help", "samples": [(name, labels, value)]}}"""
    families = {}
    current = None
    if text and not text.endswith("\n"):
        raise ParseError("the exposition must end with a newline")
    for number, line in enumerate(text.split("\n")[:-1], 1):
        try:
            if line.startswith("# HELP ") or line.startswith("# TYPE "):
                parts = line.split(" ", 3)
                if len(parts) < 4 or not re.fullmatch(NAME, parts[2]):
                    raise ParseError("bad %s line" % parts[1])
                fam = families.setdefault(parts[2], {"type": None, "help": None, "samples": []})
                if fam["samples"]:
                    raise ParseError("%s for %s after its samples" % (parts[1], parts[2]))
                if parts[1] == "TYPE":
                    if fam["type"] is not None:
                        raise ParseError("second TYPE for %s" % parts[2])
                    if parts[3] not in ("counter", "gauge", "histogram", "summary", "untyped"):
                        raise ParseError("unknown type %s" % parts[3])
                    fam["type"] = parts[3]
                else:
                    if fam["help"] is not None:
                        raise ParseError("second HELP for %s" % parts[2])
                    fam["help"] = parts[3]
                current = parts[2]
                continue
            if line.startswith("#") or not line.strip():
                continue
            m = re.compile(NAME).match(line)
            if not m:
                raise ParseError("bad metric name")
            name, pos = m.group(0), m.end()
            labels = {}
            if pos < len(line) and line[pos] == "{":
                labels, pos = parse_labels(line, pos)
            if line[pos] != " ":
                raise ParseError("expected a space before the value")
            fields = line[pos + 1 :].split(" ")
            if len(fields) not in (1, 2):
                raise ParseError("expected a value and an optional timestamp")
            value = parse_value(fields[0])
            family = current
            if family is None or not (name == family or (families[family]["type"] == "histogram" and
                                                          name in (family + "_bucket", family + "_sum", family + "_count"))):
                raise ParseError("sample %s outside its family's HELP/TYPE block (current %s)" % (name, family))
            families[family]["samples"].append((name, labels, value))
        except (ParseError, ValueError, IndexError) as e:
            raise ParseError("line %d: %s: %r" % (number, e, line))
    return families


def check_family(name, fam):
    problems = []
    if fam["type"] is None or fam["help"] is None:
        problems.append("%s: missing HELP or TYPE" % name)
    seen = set()
    for sname, labels, value in fam["samples"]:
        k = (sname, tuple(sorted(labels.items())))
        if k in seen:
            problems.append("%s: series %s twice" % (name, k))
        seen.add(k)
        if fam["type"] == "counter" and not value >= 0:
            problems.append("%s: counter %s is %s" % (name, labels, value))
    if fam["type"] == "histogram":
        series = {}
        for sname, labels, value in fam["samples"]:
            base = tuple(sorted((k, v) for k, v in labels.items() if k != "le"))
            s = series.setdefault(base, {"buckets": [], "sum": None, "count": None})
            if sname.endswith("_bucket"):
                if "le" not in labels:
                    problems.append("%s: bucket without le" % name)
                    continue
                s["buckets"].append((parse_value(labels["le"]), value))
            elif sname.endswith("_sum"):
                s["sum"] = value
            else:
                s["count"] = value
        for base, s in series.items():
            les = [le for le, _ in s["buckets"]]
            counts = [c for _, c in s["buckets"]]
            if not les or les[-1] != math.inf:
                problems.append("%s%s: no +Inf bucket" % (name, base))
            if les != sorted(les) or len(set(les)) != len(les):
                problems.append("%s%s: le not strictly ascending" % (name, base))
            if counts != sorted(counts):
                problems.append("%s%s: buckets not cumulative" % (name, base))
            if s["sum"] is None or s["count"] is None:
                problems.append("%s%s: no _sum or _count" % (name, base))
            elif counts and counts[-1] != s["count"]:
                problems.append("%s%s: +Inf bucket %s != _count %s" % (name, base, counts[-1], s["count"]))
    return problems


def sample_value(families, spec):
    m = re.fullmatch(r"(%s)(\{.*\})?" % NAME, spec)
    if not m:
        raise ParseError("bad sample selector %s" % spec)
    name = m.group(1)
    want = parse_labels(m.group(2), 0)[0] if m.group(2) else {}
    for fam in families.values():
        for sname, labels, value in fam["samples"]:
            if sname == name and labels == want:
                return value
    return None


def main():
    with open(sys.argv[1]) as f:
        text = f.read()
    try:
        families = parse(text)
    except ParseError as e:
        print("FAIL: %s: %s" % (sys.argv[1], e))
        return 1
    problems = []
    for name, fam in sorted(families.items()):
        problems += check_family(name, fam)
    for spec in sys.argv[2:]:
        kind, _, arg = spec.partition("=")
        if kind == "family":
            name, ftype, labels = arg.split(":")
            fam = families.get(name)
            if fam is None:
                problems.append("no family %s" % name)
                continue
            if fam["type"] != ftype:
                problems.append("%s is a %s, not a %s" % (name, fam["type"], ftype))
            want = set(labels.split(",")) if labels else set()
            for sname, slabels, _ in fam["samples"]:
                got = set(slabels) - {"le"}
                if got != want:
                    problems.append("%s: labels %s, expected %s" % (sname, sorted(got), sorted(want)))
                    break
        elif kind == "value":
            m = re.fullmatch(r"(.*?)(==|>=|<=|>)(-?[0-9.e+]+)", arg)
            sel, op, number = m.group(1), m.group(2), float(m.group(3))
            got = sample_value(families, sel)
            ok = got is not None and {"==": got == number, ">=": got >= number, "<=": got <= number, ">": got > number}[op]
            if not ok:
                problems.append("%s: got %s" % (arg, got))
        elif kind == "absent":
            if arg in families:
                problems.append("family %s should be absent" % arg)
        else:
            problems.append("unknown expectation %s" % spec)
    for p in problems:
        print("FAIL:", p)
    if problems:
        return 1
    print("ok: %d families, %d samples" % (len(families), sum(len(f["samples"]) for f in families.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
