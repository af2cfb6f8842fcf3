// Field ownership for server-side apply, kept in metadata.managedFields the way kube-apiserver
// keeps it: one entry per manager and operation (Apply or Update, and the subresource written),
// each with the set of fields it owns in the FieldsV1 format ({"f:spec":{"f:replicas":{}}},
// list items as "k:{\"name\":\"c\"}" with ".", set members as "v:\"x\"").
//
// - Update (create, PUT and every patch but apply): the fields the write added or changed become
//   the writer's (its Update entry), and every other manager loses the fields the write changed or
//   removed. A write that changes nothing leaves managedFields as they were.
// - Apply: the applied configuration's fields. A field the configuration sets to a different value
//   than the object has is a conflict when another manager owns it: 409 listing each conflict
//   (field and manager; an Update manager named with its API version and time, as kube-apiserver
//   words it), unless `force`, which takes the field over. Fields the applier applied
//   before and leaves out now are removed from the object when no other manager owns them. An
//   object that has no managedFields yet is first given a "before-first-apply" Update entry owning
//   everything it has, as kube-apiserver does.
//
// A map, or a list of items, that a write adds is owned in itself too ("."), as kube-apiserver
// records it; metadata, and a built-in kind's spec and status, are not (they are always there).
// Not tracked, as in kube-apiserver: apiVersion, kind and the server's metadata (name, namespace,
// uid, resourceVersion, generation, timestamps, managedFields); the status of a kind that has a
// status subresource on writes of the main resource, and everything but the status on writes of
// /status (but a built-in kind's labels and annotations, which its status writes may change). An
// Event's involvedObject, regarding and related are atomic; a built-in kind's Go structs are not
// owned in themselves, its Go maps are. Lists whose elements carry a merge key (name, containerPort, port, ...) are keyed for
// built-in kinds; other lists, and every list of a custom resource, are atomic (one field).
// metadata.finalizers is a set; metadata.ownerReferences is keyed by uid, each item atomic.
//
// Departure: writes made inside the simulation (the in-process actors) are not attributed; their
// changes are seen only when an HTTP write next compares old and new.
#pragma once

#include "fakeapi/client/json.h"
#include "fakeapi/client/resource.h"
#include "fakeapi/client/status.h"

#include <string>

namespace fakeapi {

struct FieldWrite {
  const kube::ResourceType* type = nullptr;
  std::string manager;       // fieldManager
  std::string subresource;   // "" or "status"
  std::string time;          // RFC 3339, for the entry's "time"
};

// Sets `after`'s managedFields for an Update-operation write of `before` (nullptr: a create).
void RecordUpdate(const kube::Json* before, kube::Json& after, const FieldWrite& write);

// Server-side apply of `applied` to `current` (nullptr: the object does not exist yet): the object
// to store, with its managedFields, or 409 Conflict naming every conflicting field.
kube::Result<kube::Json> Apply(const kube::Json* current, const kube::Json& applied, bool force,
                                   const FieldWrite& write);

// The fields an object holds, in FieldsV1 form, as a write of `write.subresource` would own them.
kube::Json FieldsOf(const kube::Json& object, const FieldWrite& write);

}  // namespace fakeapi
