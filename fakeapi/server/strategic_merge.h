// Strategic merge patch (application/strategic-merge-patch+json) as far as kubectl's patches of
// built-in kinds need it, without the Go structs' patch tags: a merge patch in which lists whose
// elements all carry a merge key (name, containerPort, port, mountPath, devicePath, ip, type)
// merge element by element, elements with "$patch": "delete" are removed, "$patch": "replace"
// replaces, "$deleteFromPrimitiveList/<field>" removes values, and the other "$" directives
// ($setElementOrder, $retainKeys, a "$patch" that is not a string) are ignored; every other list is
// replaced. Any patch on any document: never throws.
//
// Recursive: callers bound the nesting of what they pass (see json_bounds.h).
#pragma once

#include "fakeapi/client/json.h"
#include "fakeapi/client/resource.h"

namespace fakeapi {

// Applies `patch` to `target` in place.
void ApplyStrategicPatch(kube::Json& target, const kube::Json& patch);

// The key that identifies the elements of both lists (every element an object that has it), or
// nullptr when they are not lists of keyed objects.
const char* MergeKeyOf(const kube::Json& patch_list, const kube::Json& target_list);

// Whether kube-apiserver takes strategic merge patches for the kind: built-in kinds (core and
// *.k8s.io groups) do; custom resources answer 415 and take merge patches only.
bool TakesStrategicMerge(const kube::ResourceType& type);

}  // namespace fakeapi
