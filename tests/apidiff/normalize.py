"""The normalization rules of the differential API suite, all of them, in one place.

Two API servers answering the same requests legitimately differ in values that are unique to a run:
these are replaced by placeholders that keep what a client can rely on (which object a uid names,
which of two versions is newer) and drop what it cannot (the value itself). Everything else is
compared as answered. The rules, applied to each record's status, selected headers, body and watch
events (driver.py's output):

 1. uid: every uid is replaced by `<uid NAMESPACE/NAME>` of the object that carried it first in the
    run (`#2`, `#3` when an object of the same namespace and name is created again), wherever it
    appears: metadata.uid, ownerReferences, Status details, inside messages, and inside keys
    (managedFields' `k:{"uid":...}`). A uid no answer
    carried as an object's own (one the corpus made up) stays as it is.
 2. Generated names: a name the server generated from metadata.generateName becomes
    `GENERATENAME<generated>`, wherever it appears.
 3. Timestamps: every string that is an RFC 3339 time (creationTimestamp, deletionTimestamp,
    managedFields' time, conditions' lastTransitionTime, ...) becomes `<time>`; so do the Age cells
    of Table rows (`5s`, `2m`) -> `<age>`. Times the corpus sent (2001-02-03...) are kept.
 4. resourceVersion: an object's resourceVersion equal to one the corpus saved (`save`) becomes
    `<rv NAME>`; any other becomes `<rv k>`, k its rank among the distinct values of the same
    record (so "newer than" survives). A list's resourceVersion (ListMeta) and a BOOKMARK event's
    become `<list rv>`/`<bookmark rv>`: on kube-apiserver they are etcd's current revision, which
    the controllers' own writes (leases, events) move. Numbers inside the messages that quote
    resource versions ("too old resource version: 1 (2345)", "Too large resource version", a delete's
    failed precondition "the ResourceVersion in the precondition (7) does not match ... (9)") become
    `<rv>`.
 5. continue tokens: a non-empty metadata.continue becomes `<continue>` (opaque; both encode where
    the next page starts and the list's version).
 5b. OpenAPI v3's index: the `?hash=` of each serverRelativeURL becomes `?hash=<hash>` (an opaque
    digest of the served document, for caching).
 6. Headers: only Content-Type and Warning are recorded; Content-Type is compared by its media
    type, lower-cased, parameters dropped: the fake says `application/json; charset=utf-8` (the
    parameter keeps its HTTP library from gzipping watch streams), kube-apiserver
    `application/json`; JSON is UTF-8 by definition (RFC 8259), so both say the same.
 7. selectedByStep: a step's `select` keeps only the named parts of its body (normalized first).
 8. The root CA bundle: `data["ca.crt"]` of a kube-root-ca.crt ConfigMap becomes `<ca bundle>`: it
    is each server's own certificate authority (kube-apiserver's; empty for `dglsim serve`, which
    serves plain HTTP).
Nothing else is changed: field order does not matter (JSON objects compare as maps), list order does.
"""
import copy
import re

TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
CORPUS_TIME = re.compile(r"^2001-02-03T")  # times the corpus itself sends: compared as they are
UID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
AGE = re.compile(r"^(\d+[smhdy])+$|^<invalid>$")
RV_MESSAGES = [
    (re.compile(r"(too old resource version: )\d+( \()\d+(\))"), r"\1<rv>\2<rv>\3"),
    (re.compile(r"(Too large resource version: )\d+(, current: )\d+"), r"\1<rv>\2<rv>"),
    (re.compile(r"(resourceVersion[\" :=]+)\d+"), r"\1<rv>"),
    (re.compile(r"(ResourceVersion in precondition: )\d+(, ResourceVersion in object meta: )\d+"), r"\1<rv>\2<rv>"),
    (re.compile(r"(ResourceVersion in the precondition \()\d+(\) does not match the ResourceVersion in record \()\d+"),
     r"\1<rv>\2<rv>"),
]


def objects(value):
    """Every dict with a metadata dict, depth first, in document order."""
    if isinstance(value, dict):
        if isinstance(value.get("metadata"), dict):
            yield value
        for v in value.values():
            yield from objects(v)
    elif isinstance(value, list):
        for v in value:
            yield from objects(v)


def parts_of(record):
    return [record.get("body"), record.get("events")]


class Run:
    """The run-wide maps (uids, generated names) of one server's records."""

    def __init__(self, records):
        self.uids, self.generated = {}, {}
        seen_keys = {}
        for record in records:
            for obj in objects(parts_of(record)):
                meta = obj["metadata"]
                uid, name = meta.get("uid"), meta.get("name")
                if isinstance(uid, str) and uid and uid not in self.uids and name:
                    key = "%s/%s" % (meta.get("namespace", ""), name)
                    seen_keys[key] = seen_keys.get(key, 0) + 1
                    self.uids[uid] = "<uid %s%s>" % (key, "" if seen_keys[key] == 1 else "#%d" % seen_keys[key])
                gen = meta.get("generateName")
                if gen and isinstance(name, str) and name.startswith(gen) and name != gen:
                    self.generated[name] = gen + "<generated>"

    def string(self, s):
        if UID.search(s):
            s = UID.sub(lambda m: self.uids.get(m.group(0), m.group(0)), s)
        for name, placeholder in self.generated.items():
            if name in s:
                s = re.sub(r"\b%s\b" % re.escape(name), placeholder, s)
        return s


def rv_tokens(record):
    """resourceVersion value -> placeholder, for this record."""
    named = {}
    for var, value in (record.get("vars") or {}).items():
        if var.startswith("rv_") and isinstance(value, str):
            named.setdefault(value, "<rv %s>" % var[3:])
    values = set()

    def collect(v):
        if isinstance(v, dict):
            if v.get("type") == "BOOKMARK":
                return
            meta = v.get("metadata")
            if isinstance(meta, dict) and isinstance(meta.get("resourceVersion"), str):
                if not ("items" in v or "rows" in v):
                    values.add(meta["resourceVersion"])
            for k, x in v.items():
                collect(x)
        elif isinstance(v, list):
            for x in v:
                collect(x)

    collect(parts_of(record))
    unnamed = sorted((x for x in values if x not in named), key=lambda x: (len(x), x))
    tokens = dict(named)
    for i, x in enumerate(unnamed, start=1):
        tokens[x] = "<rv %d>" % i
    return tokens


def normalize_value(value, run, tokens, events=False):
    def fix(v):
        if isinstance(v, dict):
            out = {}
            is_list = "items" in v or "rows" in v
            for k, x in v.items():
                if k == "metadata" and isinstance(x, dict):
                    meta = fix(x)
                    if "resourceVersion" in x and isinstance(x["resourceVersion"], str):
                        rv = x["resourceVersion"]
                        if is_list:
                            meta["resourceVersion"] = "<list rv>" if rv else rv
                        else:
                            meta["resourceVersion"] = tokens.get(rv, rv)
                    if is_list and x.get("continue"):
                        meta["continue"] = "<continue>"
                    out[k] = meta
                else:
                    out[run.string(k) if UID.search(k) else k] = fix(x)
            if "rows" in out and "columnDefinitions" in out:
                out["rows"] = age_cells(out)
            meta = v.get("metadata")
            if isinstance(meta, dict) and meta.get("name") == "kube-root-ca.crt" and isinstance(out.get("data"), dict) \
                    and "ca.crt" in out["data"]:
                out["data"] = dict(out["data"], **{"ca.crt": "<ca bundle>"})
            return out
        if isinstance(v, list):
            return [fix(x) for i, x in enumerate(v)]
        if isinstance(v, str):
            if TIME.match(v) and not CORPUS_TIME.match(v):
                return "<time>"
            v = run.string(v)
            if v.startswith("/openapi/v3/") and "?hash=" in v:
                v = v.split("?hash=")[0] + "?hash=<hash>"
            for pattern, repl in RV_MESSAGES:
                v = pattern.sub(repl, v)
            return v
        return v

    if events and isinstance(value, list):
        fixed = [fix(e) for e in value]
        for e in fixed:
            if isinstance(e, dict) and e.get("type") == "BOOKMARK":
                meta = (e.get("object") or {}).get("metadata")
                if isinstance(meta, dict) and "resourceVersion" in meta:
                    meta["resourceVersion"] = "<bookmark rv>"
        return fixed
    return fix(value)


def age_cells(table):
    """Table rows' cells under a column named Age: `<age>`."""
    cols = [c.get("name") for c in table.get("columnDefinitions") or []]
    rows = []
    for row in table.get("rows") or []:
        if isinstance(row, dict) and isinstance(row.get("cells"), list):
            row = dict(row)
            row["cells"] = ["<age>" if i < len(cols) and cols[i] == "Age" and isinstance(c, str) and AGE.match(c) else c
                            for i, c in enumerate(row["cells"])]
        rows.append(row)
    return rows


def select(body, paths):
    """{path: value} of the selected parts (absent parts as None)."""
    out = {}
    for p in paths:
        parts = p if isinstance(p, list) else p.split(".")
        cur = body
        for part in parts:
            if isinstance(cur, list) and "=" in part:
                key, want = part.split("=", 1)
                cur = next((x for x in cur if isinstance(x, dict) and x.get(key) == want), None)
            elif isinstance(cur, dict):
                cur = cur.get(part)
            else:
                cur = None
        out[p if isinstance(p, str) else ".".join(parts)] = cur
    return out


def normalize(records, steps_by_name):
    """The records, normalized (a new list; the input is left as it is)."""
    run = Run(records)
    out = []
    for record in records:
        tokens = rv_tokens(record)
        r = {"name": record["name"], "status": record.get("status"),
             "headers": {k: v.split(";")[0].strip().lower() if k == "content-type" else run.string(v)
                         for k, v in (record.get("headers") or {}).items()}}
        body = normalize_value(copy.deepcopy(record.get("body")), run, tokens)
        step = steps_by_name.get(record["name"], {})
        if step.get("select") and isinstance(body, dict) and record.get("status") == 200:
            body = select(body, step["select"])
        r["body"] = body
        if "events" in record:
            r["events"] = normalize_value(copy.deepcopy(record["events"]), run, tokens, events=True)
        out.append(r)
    return out
