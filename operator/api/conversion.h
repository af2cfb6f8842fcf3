// Conversion of the original operator's qihoo.net/v1alpha1 DGLJobs to kubeflow.org/v1alpha1, as the
// scenario loader and `dglsim validate` apply it to manifests before admission.
#pragma once

#include "fakeapi/client/json.h"

#include <string>
#include <vector>

namespace dgl {

// Rewrites a qihoo.net/v1alpha1 DGLJob in place as kubeflow.org/v1alpha1 (apiVersion, top-level
// spec.cleanPodPolicy moved to spec.runPolicy.cleanPodPolicy). Returns one warning line per
// conversion made; empty when the object was already current. Tolerates any input.
std::vector<std::string> ConvertLegacy(kube::Json& job);

}  // namespace dgl
