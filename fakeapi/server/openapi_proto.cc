// See openapi_proto.h. Protobuf wire format: each field a key (number << 3 | wire type) then a
// varint (type 0), eight little-endian bytes (type 1) or a length-prefixed payload (type 2).
#include "fakeapi/server/openapi_proto.h"

#include "fakeapi/server/wire.h"

#include <cstdint>
#include <cstring>

namespace fakeapi {
namespace {

using json = kube::Json;

class ProtoWriter {
 public:
  void Varint(int field, std::uint64_t value) {
    Key(field, 0);
    Raw(value);
  }
  void Bool(int field, bool value) {
    if (value) Varint(field, 1);
  }
  void Double(int field, double value) {
    Key(field, 1);
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  }
  void String(int field, const std::string& value) {
    if (value.empty()) return;
    Bytes(field, value);
  }
  void Message(int field, const ProtoWriter& message) { Bytes(field, message.out_); }
  const std::string& bytes() const { return out_; }

 private:
  void Key(int field, int type) { Raw(static_cast<std::uint64_t>(field) << 3 | static_cast<std::uint64_t>(type)); }
  void Raw(std::uint64_t v) {
    do {
      char byte = static_cast<char>(v & 0x7f);
      v >>= 7;
      if (v) byte = static_cast<char>(byte | 0x80);
      out_.push_back(byte);
    } while (v);
  }
  void Bytes(int field, const std::string& value) {
    Key(field, 2);
    Raw(value.size());
    out_ += value;
  }
  std::string out_;
};

// openapi.v2.Any {yaml = 2}; JSON text is YAML.
ProtoWriter AnyOf(const json& value) {
  ProtoWriter any;
  any.String(2, wire::Dump(value));
  return any;
}

// repeated NamedAny vendor_extension: every "x-" member.
void VendorExtensions(ProtoWriter& out, int field, const json& object) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (it.key().rfind("x-", 0) != 0) continue;
    ProtoWriter named;
    named.String(1, it.key());
    named.Message(2, AnyOf(it.value()));
    out.Message(field, named);
  }
}

std::string Str(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

void SchemaScalars(ProtoWriter& s, const json& schema) {
  s.String(1, Str(schema, "$ref"));
  s.String(2, Str(schema, "format"));
  s.String(3, Str(schema, "title"));
  s.String(4, Str(schema, "description"));
  if (schema.contains("default")) s.Message(5, AnyOf(schema["default"]));
  if (schema.contains("maximum") && schema["maximum"].is_number()) s.Double(7, schema["maximum"].get<double>());
  if (schema.contains("minimum") && schema["minimum"].is_number()) s.Double(9, schema["minimum"].get<double>());
  const std::pair<const char*, int> ints[] = {{"maxLength", 11}, {"minLength", 12}, {"maxItems", 14}, {"minItems", 15}};
  for (const auto& [key, field] : ints)
    if (schema.contains(key) && schema[key].is_number_integer()) s.Varint(field, schema[key].get<std::uint64_t>());
  s.String(13, Str(schema, "pattern"));
}

ProtoWriter Schema(const json& schema) {
  ProtoWriter s;
  if (!schema.is_object()) return s;
  SchemaScalars(s, schema);
  if (schema.contains("required") && schema["required"].is_array())
    for (const json& r : schema["required"])
      if (r.is_string()) s.String(19, r.get<std::string>());
  if (schema.contains("enum") && schema["enum"].is_array())
    for (const json& e : schema["enum"]) s.Message(20, AnyOf(e));
  if (schema.contains("additionalProperties")) {
    ProtoWriter item;
    const json& ap = schema["additionalProperties"];
    if (ap.is_boolean()) item.Varint(2, ap.get<bool>() ? 1 : 0);
    else item.Message(1, Schema(ap));
    s.Message(21, item);
  }
  if (schema.contains("type") && schema["type"].is_string()) {
    ProtoWriter type;
    type.String(1, schema["type"].get<std::string>());
    s.Message(22, type);
  }
  if (schema.contains("items")) {
    ProtoWriter items;
    items.Message(1, Schema(schema["items"]));
    s.Message(23, items);
  }
  if (schema.contains("properties") && schema["properties"].is_object()) {
    ProtoWriter properties;
    for (auto it = schema["properties"].begin(); it != schema["properties"].end(); ++it) {
      ProtoWriter named;
      named.String(1, it.key());
      named.Message(2, Schema(it.value()));
      properties.Message(1, named);
    }
    s.Message(25, properties);
  }
  VendorExtensions(s, 31, schema);
  return s;
}

// A query parameter: ParametersItem{parameter: Parameter{non_body_parameter:
// NonBodyParameter{query_parameter_sub_schema: QueryParameterSubSchema}}}.
ProtoWriter Parameter(const json& p) {
  ProtoWriter query;
  query.Bool(1, p.value("required", false));
  query.String(2, Str(p, "in"));
  query.String(3, Str(p, "description"));
  query.String(4, Str(p, "name"));
  query.String(6, Str(p, "type"));
  query.Bool(20, p.value("uniqueItems", false));
  ProtoWriter non_body, parameter, item;
  non_body.Message(3, query);
  parameter.Message(2, non_body);
  item.Message(1, parameter);
  return item;
}

ProtoWriter OperationMessage(const json& op) {
  ProtoWriter o;
  o.String(3, Str(op, "description"));
  o.String(5, Str(op, "operationId"));
  if (op.contains("parameters"))
    for (const json& p : op["parameters"]) o.Message(8, Parameter(p));
  ProtoWriter responses;
  if (op.contains("responses") && op["responses"].is_object())
    for (auto it = op["responses"].begin(); it != op["responses"].end(); ++it) {
      ProtoWriter response, value, named;
      response.String(1, Str(it.value(), "description"));
      value.Message(1, response);
      named.String(1, it.key());
      named.Message(2, value);
      responses.Message(1, named);
    }
  o.Message(9, responses);
  VendorExtensions(o, 13, op);
  return o;
}

ProtoWriter PathItem(const json& item) {
  ProtoWriter p;
  const std::pair<const char*, int> methods[] = {{"get", 2}, {"put", 3}, {"post", 4}, {"delete", 5}, {"patch", 8}};
  for (const auto& [method, field] : methods)
    if (item.contains(method)) p.Message(field, OperationMessage(item[method]));
  return p;
}

}  // namespace

std::string OpenApiV2Protobuf(const json& swagger) {
  ProtoWriter doc;
  doc.String(1, Str(swagger, "swagger"));
  ProtoWriter info;
  if (swagger.contains("info")) {
    info.String(1, Str(swagger["info"], "title"));
    info.String(2, Str(swagger["info"], "version"));
  }
  doc.Message(2, info);
  ProtoWriter paths;
  if (swagger.contains("paths") && swagger["paths"].is_object())
    for (auto it = swagger["paths"].begin(); it != swagger["paths"].end(); ++it) {
      ProtoWriter named;
      named.String(1, it.key());
      named.Message(2, PathItem(it.value()));
      paths.Message(2, named);
    }
  doc.Message(8, paths);
  ProtoWriter definitions;
  if (swagger.contains("definitions") && swagger["definitions"].is_object())
    for (auto it = swagger["definitions"].begin(); it != swagger["definitions"].end(); ++it) {
      ProtoWriter named;
      named.String(1, it.key());
      named.Message(2, Schema(it.value()));
      definitions.Message(1, named);
    }
  doc.Message(9, definitions);
  return doc.bytes();
}

}  // namespace fakeapi
