#!/usr/bin/env python3
"""deploy/ as a kustomize base: `kubectl kustomize deploy/` renders exactly the objects of the files
kustomization.yaml lists (parsed YAML compared object by object, not text), the list holds every
operator manifest of deploy/ and not the sweep's Job, and the Deployment, its probes, its ports and
the metrics Service agree with each other and with the flags dgl-operator takes.

usage: kustomize_test.py DEPLOY_DIR [DGL_OPERATOR]
Exit 0 pass, 1 fail, 77 skipped (no kubectl, or no PyYAML).
"""
import os
import shutil
import subprocess
import sys

try:
    import yaml
except ImportError:
    print("SKIP: python3-yaml is not installed")
    sys.exit(77)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def key(obj):
    meta = obj.get("metadata", {})
    return (obj.get("apiVersion"), obj.get("kind"), meta.get("namespace", ""), meta.get("name"))


def load_docs(text):
    return [d for d in yaml.safe_load_all(text) if d is not None]


def main():
    deploy = sys.argv[1]
    operator = sys.argv[2] if len(sys.argv) > 2 else None
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        print("SKIP: kubectl is not on PATH")
        return 77
    rendered = subprocess.run([kubectl, "kustomize", deploy], capture_output=True, text=True)
    check(rendered.returncode == 0, "kubectl kustomize %s failed: %s" % (deploy, rendered.stderr.strip()))
    if rendered.returncode != 0:
        return 1
    with open(os.path.join(deploy, "kustomization.yaml")) as f:
        kustomization = yaml.safe_load(f)
    resources = kustomization.get("resources", [])

    # Every operator manifest is in the base; the sweep's Job is not.
    manifests = sorted(n for n in os.listdir(deploy) if n.endswith(".yaml") and n != "kustomization.yaml")
    jobs = ("sweep-job.yaml", "chaos-job.yaml")  # the harness's Indexed Jobs, not the operator's install
    check(not any(j in resources for j in jobs), "the sweep's and the chaos campaign's Jobs must stay out of the operator's base")
    check(sorted(resources) == [n for n in manifests if n not in jobs],
          "kustomization.yaml lists %s, deploy/ has %s" % (sorted(resources), manifests))

    # The rendering is the files' objects, one for one.
    from_files = {}
    for name in resources:
        with open(os.path.join(deploy, name)) as f:
            for doc in load_docs(f.read()):
                check(key(doc) not in from_files, "%s: %s is defined twice" % (name, key(doc)))
                from_files[key(doc)] = doc
    out = {key(d): d for d in load_docs(rendered.stdout)}
    check(sorted(out) == sorted(from_files),
          "rendered objects %s differ from the files' %s" % (sorted(out), sorted(from_files)))
    for k, doc in from_files.items():
        check(out.get(k) == doc, "%s renders differently from its file" % (k,))

    # The Deployment, its probes and ports, the metrics Service.
    deployment = out.get(("apps/v1", "Deployment", "dgl-operator", "dgl-operator"))
    service = out.get(("v1", "Service", "dgl-operator", "dgl-operator-metrics"))
    check(deployment is not None, "no Deployment dgl-operator/dgl-operator")
    check(service is not None, "no Service dgl-operator/dgl-operator-metrics")
    if deployment is None or service is None:
        return 1
    pod = deployment["spec"]["template"]
    container = pod["spec"]["containers"][0]
    args = container["args"]
    ports = {p["name"]: p["containerPort"] for p in container.get("ports", [])}

    def flag(name):
        return args[args.index(name) + 1] if name in args else None

    check(flag("--metrics-bind-address") == ":%s" % ports.get("metrics"),
          "--metrics-bind-address %s is not the metrics port %s" % (flag("--metrics-bind-address"), ports.get("metrics")))
    check(flag("--health-probe-bind-address") == ":%s" % ports.get("health"),
          "--health-probe-bind-address is not the health port")
    check(flag("--log-format") == "json", "the Deployment does not log JSON")
    check("--leader-elect" in args, "the Deployment does not run with --leader-elect")
    live, ready = container.get("livenessProbe", {}), container.get("readinessProbe", {})
    check(live.get("httpGet", {}).get("path") == "/healthz" and live["httpGet"].get("port") == "health",
          "livenessProbe is not GET /healthz on the health port")
    check(ready.get("httpGet", {}).get("path") == "/readyz" and ready["httpGet"].get("port") == "health",
          "readinessProbe is not GET /readyz on the health port")
    sport = service["spec"]["ports"][0]
    check(sport.get("targetPort") == "metrics", "the Service does not target the metrics port")
    labels = pod["metadata"]["labels"]
    check(all(labels.get(k) == v for k, v in service["spec"]["selector"].items()),
          "the Service's selector does not select the operator's pods")
    check(pod["metadata"].get("annotations", {}).get("prometheus.io/port") == str(ports.get("metrics")),
          "the prometheus.io/port annotation is not the metrics port")

    # The binary takes every flag the Deployment passes.
    if operator:
        helptext = subprocess.run([operator, "--help"], capture_output=True, text=True).stdout
        for a in args:
            if a.startswith("--"):
                check(a in helptext, "dgl-operator --help does not know %s" % a)

    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok: kubectl kustomize %s renders the %d objects of %s" % (deploy, len(out), ", ".join(resources)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
