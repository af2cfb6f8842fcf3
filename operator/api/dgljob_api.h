// The DGLJob API (kubeflow.org/v1alpha1), one concept per header:
//   types.h        group/version/kind, partition modes, the spec's enumerations and defaults, and
//                  typed accessors of a defaulted job;
//   vocabulary.h   phases, conditions, labels, replica types and object names;
//   conversion.h   the original qihoo.net/v1alpha1 manifests, converted;
//   defaulting.h   what admission fills in;
//   validation.h   what admission refuses, with a field path per problem;
//   crd.h          the CRD's openAPIV3Schema, built from the same rules;
//   command_line.h flags read from a container's command line (--num-servers, ...).
// Admission in the fake API server runs defaulting and validation (operator/admission/). This
// header includes them all. The contract is docs/dgljob-api.md.
#pragma once

#include "operator/api/command_line.h"
#include "operator/api/conversion.h"
#include "operator/api/crd.h"
#include "operator/api/defaulting.h"
#include "operator/api/types.h"
#include "operator/api/validation.h"
#include "operator/api/vocabulary.h"
