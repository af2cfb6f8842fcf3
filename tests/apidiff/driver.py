#!/usr/bin/env python3
"""The differential API suite's driver: runs the corpus (corpus.py) against one API server and
writes every answer, raw, to a JSON file. The same corpus runs against `dglsim serve` and against
kube-apiserver; normalize.py and compare.py turn the two files into the report.

The Python standard library only (http.client, ssl, json), so that it runs wherever python3 does.

Usage:
  driver.py --server URL [--token T] [--ca FILE] [--insecure] --label NAME --out FILE
  driver.py --kubeconfig FILE --label NAME --out FILE   (server, token and CA read from the file)

Every request carries `Authorization: Bearer TOKEN` (a placeholder token when none is given: the
fake allows everything by default, kube-apiserver needs the admin token of the kubeconfig).

The output: {"label": NAME, "server": URL, "records": [RECORD...]}, one RECORD per corpus step,
in corpus order: {"name", "request": {"method", "path", "contentType"}, "status", "headers":
{selected, lower-case names}, "body": parsed JSON (else text), "events": [watch events] for watches,
"vars": {saved values, for the normalizer's named resourceVersions}, "attempts": polls of `until`}.
Exit codes: 0 the corpus ran (whatever the answers), 2 bad arguments or an unreachable server.
"""
import argparse
import base64
import http.client
import json
import os
import queue
import re
import ssl
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import corpus  # noqa: E402  (a module of plain data, beside this file)

SELECTED_HEADERS = ("content-type", "warning")
BODY_TEXT_LIMIT = 4000  # a non-JSON body is kept up to this many characters


def read_kubeconfig(path):
    """(server, token, ca file) from a kubeconfig of one cluster and one user, as
    scripts/control-plane.sh writes it. A line reader, not YAML: `key: value` lines only."""
    server = token = ca_file = None
    ca_data = None
    with open(path) as f:
        for line in f:
            m = re.match(r"^\s*-?\s*([A-Za-z-]+):\s*(.*?)\s*$", line)
            if not m:
                continue
            key, value = m.group(1), m.group(2).strip("'\"")
            if key == "server" and server is None:
                server = value
            elif key == "token" and token is None:
                token = value
            elif key == "certificate-authority" and ca_file is None:
                ca_file = value if os.path.isabs(value) else os.path.join(os.path.dirname(path), value)
            elif key == "certificate-authority-data" and ca_data is None:
                ca_data = value
    if ca_data and not ca_file:
        fd, ca_file = tempfile.mkstemp(suffix=".crt")
        with os.fdopen(fd, "wb") as f:
            f.write(base64.b64decode(ca_data))
    if not server:
        raise SystemExit("%s: no server in the kubeconfig" % path)
    return server, token, ca_file


class Server:
    """One API server: a new connection per request (watches hold theirs)."""

    def __init__(self, url, token, ca_file, insecure):
        u = urllib.parse.urlsplit(url)
        self.https = u.scheme == "https"
        self.host, self.port = u.hostname, u.port or (443 if self.https else 80)
        self.token = token or "differential-suite"
        self.ctx = None
        if self.https:
            self.ctx = ssl.create_default_context(cafile=ca_file) if ca_file else ssl.create_default_context()
            if insecure:
                self.ctx.check_hostname = False
                self.ctx.verify_mode = ssl.CERT_NONE

    def connect(self, timeout):
        if self.https:
            return http.client.HTTPSConnection(self.host, self.port, timeout=timeout, context=self.ctx)
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def start(self, method, path, body=None, content_type=None, accept=None, timeout=30):
        conn = self.connect(timeout)
        headers = {"Authorization": "Bearer " + self.token, "Accept": accept or "application/json"}
        data = None
        if body is not None:
            data = body if isinstance(body, (bytes, str)) else json.dumps(body)
            data = data.encode() if isinstance(data, str) else data
            headers["Content-Type"] = content_type or "application/json"
        conn.request(method, path, body=data, headers=headers)
        return conn, conn.getresponse()

    def request(self, method, path, body=None, content_type=None, accept=None):
        conn, resp = self.start(method, path, body, content_type, accept)
        try:
            raw = resp.read()
        finally:
            conn.close()
        return resp.status, headers_of(resp), decode(raw)


def headers_of(resp):
    return {h: resp.getheader(h) for h in SELECTED_HEADERS if resp.getheader(h) is not None}


def decode(raw):
    text = raw.decode("utf-8", "replace")
    try:
        return json.loads(text) if text.strip() else None
    except ValueError:
        return text[:BODY_TEXT_LIMIT]


class Watch:
    """A watch stream read by a thread of its own: one JSON event per line, queued."""

    def __init__(self, server, path, accept=None, read_timeout=30):
        self.events = queue.Queue()
        self.conn, self.resp = server.start("GET", path, accept=accept, timeout=read_timeout)
        self.status, self.headers = self.resp.status, headers_of(self.resp)
        self.body = None
        if self.status != 200:
            self.body = decode(self.resp.read())
            self.conn.close()
            return
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for line in self.resp:
                if line.strip():
                    self.events.put(decode(line))
        except Exception:  # noqa: BLE001 - a closed or timed-out stream ends the watch
            pass
        self.events.put(None)

    def take(self, count, timeout):
        """Up to `count` events within `timeout` seconds; fewer if the stream ends."""
        got, deadline = [], time.monotonic() + timeout
        while len(got) < count:
            try:
                e = self.events.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if e is None:
                self.events.put(None)
                break
            got.append(e)
        return got

    def close(self):
        try:
            self.conn.sock and self.conn.sock.shutdown(2)
        except OSError:
            pass
        self.conn.close()


def substitute(value, variables):
    """${name} in strings (a whole-string ${name} keeps the saved value's type)."""
    if isinstance(value, str):
        m = re.fullmatch(r"\$\{(\w+)\}", value)
        if m and m.group(1) in variables:
            return variables[m.group(1)]
        return re.sub(r"\$\{(\w+)\}", lambda m: str(variables.get(m.group(1), m.group(0))), value)
    if isinstance(value, list):
        return [substitute(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, variables) for k, v in value.items()}
    return value


def lookup(body, path):
    """A dotted path into a JSON value (`items.0.metadata.name`); None when absent."""
    cur = body
    for part in path.split(".") if path else []:
        if isinstance(cur, list) and re.fullmatch(r"-?\d+", part) and -len(cur) <= int(part) < len(cur):
            cur = cur[int(part)]
        elif isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return None
    return cur


def until_met(cond, status, body):
    if "status" in cond and status != cond["status"]:
        return False
    # "path" is one dotted path or a list of them, each of which must meet the condition.
    paths = cond.get("path", [])
    for path in paths if isinstance(paths, list) else [paths]:
        value = lookup(body, path)
        if "equals" in cond and value != cond["equals"]:
            return False
        if "count" in cond and (not isinstance(value, list) or len(value) != cond["count"]):
            return False
        if cond.get("absent") and value is not None:
            return False
    return True


def query_path(step, variables):
    path = substitute(step["path"], variables)
    if step.get("query"):
        q = substitute(step["query"], variables)
        path += ("&" if "?" in path else "?") + urllib.parse.urlencode(q)
    return path


def run_step(server, step, variables, watches):
    path = query_path(step, variables) if "path" in step else None
    record = {"name": step["name"], "request": {"method": step.get("method", "GET"), "path": path}}
    if step.get("contentType"):
        record["request"]["contentType"] = step["contentType"]
    if "watchOpen" in step:  # a watch held open while later steps write; watchRead takes its events
        w = Watch(server, path, step.get("accept"))
        watches[step["watchOpen"]] = w
        record.update(status=w.status, headers=w.headers, body=w.body)
        return record
    if "watchRead" in step:
        w = watches[step["watchRead"]]
        record.update(status=w.status, headers=w.headers, body=w.body,
                      events=w.take(step.get("events", 1), step.get("timeout", 5)) if w.status == 200 else [])
        if step.get("close", True):
            w.close()
        return record
    if "watch" in step:  # opened, read, closed
        w = Watch(server, path, step.get("accept"), read_timeout=step["watch"].get("timeout", 5) + 5)
        events = w.take(step["watch"].get("events", 1), step["watch"].get("timeout", 5)) if w.status == 200 else []
        w.close()
        record.update(status=w.status, headers=w.headers, body=w.body, events=events)
        return record
    body = substitute(step.get("body"), variables)
    if isinstance(body, str) and step.get("rawBody"):
        body = body.encode()
    cond, attempts = step.get("until"), 0
    deadline = time.monotonic() + (cond or {}).get("timeout", 0)
    while True:
        attempts += 1
        status, headers, answer = server.request(record["request"]["method"], path, body, step.get("contentType"),
                                                 step.get("accept"))
        if not cond or until_met(cond, status, answer) or time.monotonic() >= deadline:
            break
        time.sleep(cond.get("every", 0.5))  # polling an asynchronous controller, with a deadline
    record.update(status=status, headers=headers, body=answer)
    if cond:
        record["attempts"] = attempts
        record["untilMet"] = until_met(cond, status, answer)
    return record


def run(server, label):
    variables, watches, records = dict(corpus.VARIABLES), {}, []
    for step in corpus.STEPS:
        if step.get("only") and step["only"] != label:
            continue
        try:
            record = run_step(server, step, variables, watches)
        except (OSError, http.client.HTTPException) as e:
            record = {"name": step["name"], "request": {"method": step.get("method", "GET"), "path": step.get("path")},
                      "status": 0, "headers": {}, "body": "transport error: %s: %s" % (type(e).__name__, e)}
        for var, where in step.get("save", {}).items():
            value = lookup(record.get("body"), where) if not where.startswith("events.") else lookup(
                record.get("events"), where[len("events."):])
            if value is not None:
                variables[var] = value
        record["vars"] = {k: v for k, v in variables.items() if k not in corpus.VARIABLES}
        records.append(record)
    for w in watches.values():
        w.close()
    return records


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--server")
    p.add_argument("--token")
    p.add_argument("--ca")
    p.add_argument("--kubeconfig")
    p.add_argument("--insecure", action="store_true")
    p.add_argument("--label", required=True, help="fake or real: steps marked only for the other are skipped")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    if a.kubeconfig:
        server_url, token, ca = read_kubeconfig(a.kubeconfig)
    elif a.server:
        server_url, token, ca = a.server, a.token, a.ca
    else:
        p.error("--server or --kubeconfig is required")
    server = Server(server_url, a.token or token, a.ca or ca, a.insecure)
    try:
        _, _, version = server.request("GET", "/version")
    except OSError as e:
        print("driver: %s does not answer: %s" % (server_url, e), file=sys.stderr)
        return 2
    started = time.monotonic()
    records = run(server, a.label)
    with open(a.out, "w") as f:
        json.dump({"label": a.label, "server": server_url, "records": records,
                   "version": (version or {}).get("gitVersion", "?") if isinstance(version, dict) else "?"}, f, indent=1, sort_keys=True)
    print("driver: %d interactions with %s in %.1f s -> %s" % (len(records), server_url, time.monotonic() - started, a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
