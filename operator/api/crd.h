// The DGLJob CustomResourceDefinition. Its openAPIV3Schema is built from the same enums, minimums,
// maximums, defaults and required fields that validation enforces (operator/api/types.h), with CEL
// rules (x-kubernetes-validations) for the cross-field ones, so schema and admission cannot drift.
// Rules a schema cannot say (the name budget that keeps pod names within 63 characters,
// minAvailable <= the job's pod count, dglrun's --num-partitions against the pods that hold a
// partition, what a LauncherInit partitioner's template may set) stay admission-only.
#pragma once

#include "fakeapi/client/json.h"
namespace dgl {

// The openAPIV3Schema of the DGLJob CRD (structural, apiextensions.k8s.io/v1).
kube::Json DGLJobOpenApiSchema();
// The whole CustomResourceDefinition dgljobs.kubeflow.org (v1alpha1, namespaced, status
// subresource, short name dgl, printer columns) carrying DGLJobOpenApiSchema(). deploy/crd.yaml is
// this object as `dgl-operator crd` prints it.
kube::Json DGLJobCrd();

}  // namespace dgl
