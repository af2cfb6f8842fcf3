# What operator_test.sh compares between the simulator (dglsim serve) and the real control plane:
# what the operator decides, without what differs by nature (uids, timestamps, resourceVersions,
# IPs, node names, the intermediate phases a job was observed in) or what the server adds on its own (defaults of pod specs, the service-account
# token volume, managedFields). Input: {jobs: [DGLJob...], pods: [...], configmaps: [...],
# services: [...], serviceaccounts: [...], roles: [...], rolebindings: [...]}, all of one job.
def owners: [(.metadata.ownerReferences // [])[] | {apiVersion, kind, name, controller, blockOwnerDeletion}];
def meta: {name: .metadata.name, labels: (.metadata.labels // {}), owners: owners};
def container: {name, image, command, args, env: [(.env // [])[] | {name, value, valueFrom}],
                ports: [(.ports // [])[] | {containerPort, name}]};
# An IP at the start of a line (ipconfig, hostfile, partfile, leadfile) becomes IP.
def unip: gsub("(?m)^[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+ "; "IP ");
{
  job: (.jobs[0] | {phase: .status.phase, restartCount: (.status.restartCount // 0),
         # The conditions that hold at the end. Which intermediate phases a job is seen in (and so
         # has a False condition for) depends on timing: KWOK's init containers are a stand-in for
         # the launcher's watcher loops, and an operator on a loaded machine may not observe a
         # state that lasts a few seconds; operator_test.sh checks their order separately.
         conditions: [(.status.conditions // [])[] | select(.status == "True") | {type, status, reason}],
         replicaStatuses: (.status.replicaStatuses // {})}),
  pods: [.pods[] | meta + {phase: .status.phase, restartPolicy: .spec.restartPolicy,
           serviceAccountName: .spec.serviceAccountName, hostname: .spec.hostname,
           subdomain: .spec.subdomain,
           containers: [.spec.containers[] | container],
           initContainers: [(.spec.initContainers // [])[] | container],
           volumes: [(.spec.volumes // [])[] | select(.name | startswith("kube-api-access-") | not) | .name]}]
        | sort_by(.name),
  configmaps: [.configmaps[] | meta + {data: ((.data // {}) | map_values(unip))}] | sort_by(.name),
  services: [.services[] | meta + {clusterIP: .spec.clusterIP, selector: .spec.selector,
               publishNotReadyAddresses: .spec.publishNotReadyAddresses,
               ports: [(.spec.ports // [])[] | {name, port, targetPort, protocol}]}] | sort_by(.name),
  serviceaccounts: [.serviceaccounts[] | meta] | sort_by(.name),
  roles: [.roles[] | meta + {rules}] | sort_by(.name),
  rolebindings: [.rolebindings[] | meta + {roleRef, subjects}] | sort_by(.name)
}
