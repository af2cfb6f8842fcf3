// Validation of DGLJobs: every problem of a defaulted job with its field path, in the wording of
// the Kubernetes API, so admission can refuse it with HTTP 422 and one cause per problem.
#pragma once

#include "fakeapi/client/json.h"
#include "fakeapi/client/status.h"

#include <vector>

namespace dgl {

// Every problem with a (defaulted) DGLJob, each with its field path. Never throws.
std::vector<kube::StatusCause> ValidateDGLJob(const kube::Json& job);

}  // namespace dgl
