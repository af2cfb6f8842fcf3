// DGLJob admission for the fake API server: DefaultDGLJob and ValidateDGLJob (operator/api) run as
// the server's defaulting and validation for dgljobs, as a CRD's structural defaults and an
// admission webhook do on a real cluster. Invalid jobs are refused with 422 and one cause per
// problem. The operator itself never links this: it is how a simulated or served API server
// learns the DGLJob rules.
#pragma once

namespace fakeapi {
class Store;
}  // namespace fakeapi

namespace dgl {

// Registers defaulting and validation as admission for dgljobs in the store. Status writes are
// neither defaulted nor re-validated.
void RegisterDGLJobAdmission(fakeapi::Store& store);

}  // namespace dgl
