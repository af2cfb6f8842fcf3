// The part of kube-apiserver's default RBAC policy (its bootstrap ClusterRoles and
// ClusterRoleBindings) that the simulated cluster's own components and its clients need, under their
// real names, written here as data:
//   cluster-admin                  everything; bound to group system:masters
//   system:discovery               GET of /api, /apis, /openapi, /version, /healthz...; system:authenticated
//   system:public-info-viewer      GET of /healthz, /livez, /readyz, /version; every caller
//   system:basic-user              self subject access/rules reviews; system:authenticated
//   system:kube-scheduler          the scheduler's reads, bindings, pod status; user system:kube-scheduler
//   system:node                    a kubelet's nodes, pods, pod status, config maps...; group system:nodes
//   system:controller:node-controller  nodes, node status, pod status, pod deletion; service account
//                                  kube-system/node-controller
//   system:controller:pod-garbage-collector  pod deletion, pod status, node reads; service account
//                                  kube-system/pod-garbage-collector
// Departures, each because the simulation has no second mechanism behind it:
// - system:node is bound to group system:nodes (kube-apiserver binds it to nobody and lets the Node
//   authorizer grant each kubelet only its own node's objects): every kubelet may act on every node.
// - system:controller:node-controller may also list and watch nodes and pods, and
//   system:controller:pod-garbage-collector watch nodes: in kube-controller-manager the shared
//   informers do that under the manager's own identity.
// - scheduler-plugins-scheduler (the scheduler-plugins project's role for coscheduling's PodGroups)
//   is bound to user system:kube-scheduler, as the simulated scheduler gang-schedules.
#pragma once

#include "fakeapi/server/rbac.h"

namespace fakeapi::rbac {

// The identities of the simulated cluster's components.
inline constexpr const char* kSchedulerUser = "system:kube-scheduler";
UserInfo SchedulerUser();
UserInfo NodeControllerUser();  // system:serviceaccount:kube-system:node-controller
UserInfo PodGcUser();           // system:serviceaccount:kube-system:pod-garbage-collector

// The roles and bindings above, as rbac.authorization.k8s.io/v1 objects.
std::vector<kube::Json> BootstrapObjects();
// A Policy holding them.
Policy BootstrapPolicy();

}  // namespace fakeapi::rbac
