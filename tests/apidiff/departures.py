"""The differential API suite's stated departures: the answers of `dglsim serve` that differ from
kube-apiserver's by design, each with its reason. compare.py fails on a difference no entry here
covers; docs/api-departures.md's section "Measured by the differential suite" is generated from
this file and the last measurement.

DEPARTURES: (step name, or a prefix of names ending in "*", reason). The first matching entry wins.
IDENTICAL_AT_LEAST: the measured share of identical interactions, rounded down; the suite fails
below it.
"""

IDENTICAL_AT_LEAST = 0.58

MESSAGE = ("the same status code, reason and fields; the message's words differ (the fake words what "
           "it checks itself, kube-apiserver passes on its decoder's, storage's or validator's text)")
NO_ROOT_CA = ("no kube-root-ca.crt ConfigMap in every namespace: the fake runs no root-CA publisher "
              "(kube-controller-manager's), so an unselected watch or list of ConfigMaps lacks it")
POD_DEFAULTS = ("pods are defaulted as far as the simulation reads them (restartPolicy, dnsPolicy, "
                "schedulerName, serviceAccountName, imagePullPolicy, terminationGracePeriodSeconds); "
                "kube-apiserver's defaulting and admission plugins also set terminationMessagePath and "
                "-Policy, resources, enableServiceLinks, securityContext, priority, default tolerations, "
                "metadata.generation, and a status write may change labels")
JOB_DEFAULTS = ("our DGLJob admission defaults more than deploy/crd.yaml's schema can (numServers from the "
                "launcher's arguments, slotsPerWorker, runPolicy, the Partitioner from the Worker template) "
                "and does not prune unknown fields; on a real cluster the operator fills these in memory "
                "and the schema prunes (a validating and mutating webhook would close the gap)")
TABLE_DESCRIPTIONS = ("Table column definitions carry no descriptions (kube-apiserver copies the OpenAPI "
                      "field descriptions) and ConfigMap's Data column is typed integer, not string")
VALIDATION = "validation kube-apiserver does that the fake does not (no controller of this project sends it)"

DEPARTURES = [
    ("crud/update with a changed uid: 409", MESSAGE),
    ("crud/create invalid name: 422", "validation messages omit kube-apiserver's example and regular expression"),
    ("crud/create namespace differs from the path: 400", MESSAGE),
    ("crud/create wrong kind in body: 400", MESSAGE),
    ("crud/create malformed JSON: 400", MESSAGE),
    ("crud/delete with a stale resourceVersion precondition: 409", MESSAGE + "; kube-apiserver names the kind there"),
    ("crud/delete with a wrong uid precondition: 409", MESSAGE + "; kube-apiserver names the kind there"),
    ("crud/dry-run with an unknown value: 422", MESSAGE),
    ("crud/create invalid data key: 422", VALIDATION + ": ConfigMap keys"),
    ("crud/create with resourceVersion set: 500", VALIDATION + ": a create carrying a resourceVersion "
     "(kube-apiserver: 500 from its storage layer)"),
    ("crud/create dry-run", "a dry-run create answers without the uid the object would get"),
    ("apply/dry-run create", "a dry-run create answers without the uid the object would get"),
    ("crud/unknown resource: 404", "404 and 405 Statuses carry no empty `details`"),
    ("crud/method not allowed on a collection: 405", "404 and 405 Statuses carry no empty `details`"),
    ("status/status of a configmap (no such subresource): 404", "404 and 405 Statuses carry no empty `details`"),
    ("crud/unknown group: 404", "an unknown API group is a 404 Status; kube-apiserver answers its mux's "
     "text `404 page not found`"),
    ("discovery/unknown group version: 404", "an unknown API group is a 404 Status; kube-apiserver answers its "
     "mux's text `404 page not found`"),
    ("list/labelSelector !tier", NO_ROOT_CA),
    ("watch/resourceVersion=0 (state first)", NO_ROOT_CA),
    ("watch/resourceVersion unset (state first)", NO_ROOT_CA),
    ("watch/sendInitialEvents*", NO_ROOT_CA),
    ("watch/Table stream", NO_ROOT_CA + "; " + TABLE_DESCRIPTIONS),
    ("watch/from resourceVersion 1 (before the history)", NO_ROOT_CA),
    # kube-controller-manager publishes kube-root-ca.crt into the new namespace at a moment of its
    # own: before or after the resourceVersion these watches start from, so on some runs it shows.
    ("watch/bookmarks allowed, nothing happens, timeoutSeconds=2", NO_ROOT_CA + " (when it lands after the watch's start)"),
    ("watch/timeoutSeconds=1 ends the stream", NO_ROOT_CA + " (when it lands after the watch's start)"),
    ("list/labelSelector invalid: 400", MESSAGE),
    ("list/fieldSelector unsupported field: 400", MESSAGE),
    ("list/continue token invalid: 400", MESSAGE),
    ("list/resourceVersion not a number", "a list with an unparsable resourceVersion is answered as "
     "kube-apiserver 1.32 does, 500 (kubernetes/kubernetes#101350); 1.34 answers a list 400 BadRequest "
     "and a watch still 500"),
    ("list/limit=2 with resourceVersion=0", "a list at resourceVersion 0 with a limit is paged; "
     "kube-apiserver 1.34 serves it whole from its watch cache"),
    ("list/Table*", TABLE_DESCRIPTIONS),
    ("crd/Table with the printer columns", TABLE_DESCRIPTIONS),
    ("list/Accept only an unknown type: 406", MESSAGE),
    ("status/*", POD_DEFAULTS),
    ("patch/merge that is not an object: 400", MESSAGE),
    ("patch/merge making the object invalid: 422", VALIDATION + ": ConfigMap keys"),
    ("patch/json patch*", MESSAGE + "; the ConfigMap key the fake let through earlier shows in later answers"),
    ("patch/strategic merge*", "the ConfigMap key the fake let through earlier shows in later answers"),
    ("patch/get after the patches", "the ConfigMap key the fake let through earlier shows in later answers"),
    ("patch/unsupported patch type: 415", MESSAGE),
    ("apply/bob conflicts on a field alice owns: 409", MESSAGE),
    ("apply/body without kind: 400", MESSAGE),
    ("finalizers/a new finalizer while deleting: 422", MESSAGE),
    ("gc/propagationPolicy unknown: 422", MESSAGE),
    ("gc/Orphan: the dependents stay, their ownerReferences removed", "writes made inside the fake (here its "
     "garbage collector removing the ownerReferences) carry no field manager, so managedFields keep "
     "attributing the removed fields to their creator"),
    ("gc/orphanDependents and propagationPolicy together: 422", VALIDATION + ": DeleteOptions with both "
     "orphanDependents and propagationPolicy (the fake looks the object up first: 404)"),
    ("namespace-delete/delete the namespace", "a deleted namespace says deletionGracePeriodSeconds: 0"),
    ("namespace-delete/new content is refused: 403", MESSAGE),
    ("namespace-delete/default cannot be deleted: 403", VALIDATION + ": the default namespace may be deleted"),
    ("lease/invalid duration: 422", VALIDATION + ": Lease durations"),
    ("lease/list", "the Lease with a zero duration the fake let through earlier is listed too"),
    ("event/events.k8s.io without eventTime: 422", VALIDATION + ": events.k8s.io/v1 Events without eventTime"),
    ("event/core v1 without involvedObject namespace: 422", VALIDATION + ": an Event about an object of "
     "another namespace"),
    ("event/*", "core v1 Events as stored: without the null eventTime and empty reportingComponent and "
     "reportingInstance kube-apiserver adds, and events.k8s.io's deprecated fields not filled from the core ones"),
    ("discovery/*", "discovery documents leave storageVersionHash out (kube-apiserver: a digest of the "
     "storage version), namespaces list deletecollection, and pods and services no `all` category"),
    ("openapi/*", "the OpenAPI documents are generated from the fake's own schemas: fewer descriptions, "
     "and the v3 index is served as application/json (kube-apiserver: text/plain)"),
    ("crd/discovery of kubeflow.org/v1alpha1", "discovery leaves storageVersionHash out and lists a custom "
     "resource's verbs in the built-in order"),
    ("crd/create with a string replicas: 422", "our DGLJob admission reports the causes in its own words and "
     "fields; kube-apiserver reports the schema's"),
    ("crd/create with an invalid name: 422", "our DGLJob admission reports the causes in its own words and "
     "fields; kube-apiserver reports the schema's"),
    ("crd/*", JOB_DEFAULTS),
]


def departure_of(name):
    for pattern, reason in DEPARTURES:
        if pattern == name or (pattern.endswith("*") and name.startswith(pattern[:-1])):
            return pattern, reason
    return None, None
