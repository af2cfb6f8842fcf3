#include "operator/admission/dgljob_admission.h"

#include "fakeapi/server/store.h"
#include "operator/api/dgljob_api.h"

namespace dgl {

void RegisterDGLJobAdmission(fakeapi::Store& store) {
  // Status writes come from the operator and do not touch the spec: neither defaulted nor
  // re-validated, so a stricter rule can never lock an existing job out of its status updates.
  store.AddDefaulter("dgljobs", [](fakeapi::AdmissionRequest& request) {
    if (request.object == nullptr || !request.subresource.empty()) return;
    if (request.operation == fakeapi::Operation::kCreate || request.operation == fakeapi::Operation::kUpdate) {
      DefaultDGLJob(*request.object);
    }
  });
  store.AddValidator("dgljobs", [](const fakeapi::AdmissionRequest& request) -> std::vector<kube::StatusCause> {
    if (request.object == nullptr || !request.subresource.empty() ||
        request.operation == fakeapi::Operation::kDelete) {
      return {};
    }
    return ValidateDGLJob(*request.object);
  });
}

}  // namespace dgl
