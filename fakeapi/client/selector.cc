// Label and field selector parsing and matching, following k8s.io/apimachinery/pkg/labels and
// pkg/fields. Input comes straight from query strings and manifests, so every path returns a
// Status instead of throwing, and nothing indexes past the end of the text.
#include "fakeapi/client/selector.h"

#include <algorithm>
#include <map>

namespace kube {

namespace {

using json = kube::Json;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// A label value, or the name part of a key: at most 63 characters of [-_.A-Za-z0-9], beginning
// and ending alphanumeric. Values may also be empty.
bool IsLabelName(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  if (!IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool IsLabelValue(std::string_view s) { return s.empty() || IsLabelName(s); }

// A DNS-1123 subdomain, the optional prefix of a key ("training.kubeflow.org").
bool IsDnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  if (!IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return IsLowerAlnum(c) || c == '-' || c == '.'; });
}

bool IsLabelKey(std::string_view key) {
  size_t slash = key.find('/');
  if (slash == std::string_view::npos) return IsLabelName(key);
  return IsDnsSubdomain(key.substr(0, slash)) && IsLabelName(key.substr(slash + 1));
}

Status InvalidKey(std::string_view key) {
  return Status::BadRequest("unable to parse requirement: invalid label key \"" + std::string(key) +
                            "\": a qualified name must be at most 63 characters of [-_.A-Za-z0-9], beginning and "
                            "ending alphanumeric, with an optional DNS subdomain prefix and '/'");
}

Status InvalidValue(std::string_view key, std::string_view value) {
  return Status::BadRequest("unable to parse requirement: invalid label value \"" + std::string(value) +
                            "\" for key \"" + std::string(key) +
                            "\": a valid label must be empty or at most 63 characters of [-_.A-Za-z0-9], beginning "
                            "and ending alphanumeric");
}

// The lexer of labels.Parse: identifiers are runs of anything but whitespace and the operator
// characters; "in" and "notin" are keywords only where an operator is expected.
class LabelLexer {
 public:
  enum class Kind { kEnd, kIdentifier, kEquals, kDoubleEquals, kNotEquals, kBang, kOpenParen, kCloseParen, kComma,
                    kError };
  struct Token {
    Kind kind;
    std::string text;
  };

  explicit LabelLexer(std::string_view text) : text_(text) {}

  Token Next() {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
    if (pos_ >= text_.size()) return {Kind::kEnd, ""};
    char c = text_[pos_];
    auto two = [&](char second) { return pos_ + 1 < text_.size() && text_[pos_ + 1] == second; };
    switch (c) {
      case '(': ++pos_; return {Kind::kOpenParen, "("};
      case ')': ++pos_; return {Kind::kCloseParen, ")"};
      case ',': ++pos_; return {Kind::kComma, ","};
      case '=':
        if (two('=')) { pos_ += 2; return {Kind::kDoubleEquals, "=="}; }
        ++pos_;
        return {Kind::kEquals, "="};
      case '!':
        if (two('=')) { pos_ += 2; return {Kind::kNotEquals, "!="}; }
        ++pos_;
        return {Kind::kBang, "!"};
      case '<':
      case '>':
        // Gt/Lt exist only for node selector terms, not for label selectors.
        ++pos_;
        return {Kind::kError, std::string(1, c)};
      default: break;
    }
    size_t start = pos_;
    while (pos_ < text_.size() && !IsSpace(text_[pos_]) && std::string_view("=!(),<>").find(text_[pos_]) ==
                                                                 std::string_view::npos) {
      ++pos_;
    }
    return {Kind::kIdentifier, std::string(text_.substr(start, pos_ - start))};
  }

  Token Peek() {
    size_t saved = pos_;
    Token t = Next();
    pos_ = saved;
    return t;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

Status Unexpected(std::string_view text, const LabelLexer::Token& found, const char* expected) {
  // As k8s.io/apimachinery's labels parser words it (the literal is empty at the end of the string;
  // only the '(' message has no comma).
  (void)text;
  const std::string lit = found.kind == LabelLexer::Kind::kEnd ? "" : found.text;
  return Status::BadRequest("unable to parse requirement: found '" + lit + "'" +
                            (std::string_view(expected) == "'('" ? " expected: " : ", expected: ") + expected);
}

bool HasLabel(const json& labels, const std::string& key, std::string* value) {
  if (!labels.is_object()) return false;
  auto it = labels.find(key);
  if (it == labels.end()) return false;
  *value = it->is_string() ? it->get<std::string>() : it->dump();
  return true;
}

std::string OpText(LabelSelector::Op op) {
  switch (op) {
    case LabelSelector::Op::kEquals: return "=";
    case LabelSelector::Op::kNotEquals: return "!=";
    case LabelSelector::Op::kIn: return " in ";
    case LabelSelector::Op::kNotIn: return " notin ";
    case LabelSelector::Op::kExists:
    case LabelSelector::Op::kDoesNotExist: return "";
  }
  return "";
}

// Fields each resource lets clients select on, beyond metadata.name and metadata.namespace
// (the sets registered by kube-apiserver's field label conversion functions).
const std::map<std::string, std::set<std::string>, std::less<>>& ExtraFields() {
  static const auto* fields = new std::map<std::string, std::set<std::string>, std::less<>>{
      {"pods",
       {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "status.phase",
        "status.podIP", "status.nominatedNodeName"}},
      {"events",
       {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
        "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
        "reportingComponent", "source", "type"}},
      {"nodes", {"spec.unschedulable"}},
      {"namespaces", {"status.phase"}},
  };
  return *fields;
}

// Splits a field selector on commas that are not escaped with a backslash.
std::vector<std::string> SplitTerms(std::string_view text) {
  std::vector<std::string> terms;
  std::string current;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      current += text[i];
      current += text[++i];
    } else if (text[i] == ',') {
      terms.push_back(std::move(current));
      current.clear();
    } else {
      current += text[i];
    }
  }
  terms.push_back(std::move(current));
  return terms;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

Result<LabelSelector> LabelSelector::Parse(std::string_view text) {
  LabelSelector selector;
  LabelLexer lexer(text);
  if (lexer.Peek().kind == LabelLexer::Kind::kEnd) return selector;  // "" selects everything
  while (true) {
    Requirement req;
    LabelLexer::Token t = lexer.Next();
    bool negated = false;
    if (t.kind == LabelLexer::Kind::kBang) {
      negated = true;
      t = lexer.Next();
    }
    if (t.kind != LabelLexer::Kind::kIdentifier) return Unexpected(text, t, "!, identifier");
    req.key = t.text;
    if (!IsLabelKey(req.key)) return InvalidKey(req.key);

    LabelLexer::Token op = lexer.Peek();
    if (negated || op.kind == LabelLexer::Kind::kEnd || op.kind == LabelLexer::Kind::kComma) {
      if (negated && op.kind != LabelLexer::Kind::kEnd && op.kind != LabelLexer::Kind::kComma) {
        lexer.Next();
        return Unexpected(text, op, "',' or end of string");
      }
      req.op = negated ? Op::kDoesNotExist : Op::kExists;
    } else {
      op = lexer.Next();
      if (op.kind == LabelLexer::Kind::kEquals || op.kind == LabelLexer::Kind::kDoubleEquals ||
          op.kind == LabelLexer::Kind::kNotEquals) {
        req.op = op.kind == LabelLexer::Kind::kNotEquals ? Op::kNotEquals : Op::kEquals;
        // "key=" compares against the empty value, as in Kubernetes.
        LabelLexer::Token v = lexer.Peek();
        if (v.kind == LabelLexer::Kind::kIdentifier) {
          lexer.Next();
          req.values.insert(v.text);
        } else if (v.kind == LabelLexer::Kind::kEnd || v.kind == LabelLexer::Kind::kComma) {
          req.values.insert("");
        } else {
          lexer.Next();
          return Unexpected(text, v, "identifier");
        }
      } else if (op.kind == LabelLexer::Kind::kIdentifier && (op.text == "in" || op.text == "notin")) {
        req.op = op.text == "in" ? Op::kIn : Op::kNotIn;
        LabelLexer::Token open = lexer.Next();
        if (open.kind != LabelLexer::Kind::kOpenParen) return Unexpected(text, open, "'('");
        // Values separated by commas; an empty item between commas is the empty value.
        bool expect_value = true;
        while (true) {
          LabelLexer::Token v = lexer.Next();
          if (v.kind == LabelLexer::Kind::kIdentifier && expect_value) {
            req.values.insert(v.text);
            expect_value = false;
          } else if (v.kind == LabelLexer::Kind::kComma) {
            if (expect_value) req.values.insert("");
            expect_value = true;
          } else if (v.kind == LabelLexer::Kind::kCloseParen) {
            // "(a,)" ends with the empty value, and "()" is the empty value alone, as in
            // apimachinery's parser (and what ToString prints for it).
            if (expect_value) req.values.insert("");
            break;
          } else {
            return Unexpected(text, v, expect_value ? "identifier, ',' or ')'" : "',' or ')'");
          }
        }
      } else {
        return Unexpected(text, op, "=, ==, !=, in, notin");
      }
      for (const std::string& v : req.values) {
        if (!IsLabelValue(v)) return InvalidValue(req.key, v);
      }
    }
    selector.requirements_.push_back(std::move(req));

    LabelLexer::Token sep = lexer.Next();
    if (sep.kind == LabelLexer::Kind::kEnd) break;
    if (sep.kind != LabelLexer::Kind::kComma) return Unexpected(text, sep, "',' or end of string");
  }
  // Kubernetes keeps requirements sorted by key, which makes ToString canonical.
  std::stable_sort(selector.requirements_.begin(), selector.requirements_.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
  return selector;
}

Result<LabelSelector> LabelSelector::FromJson(const json& selector) {
  LabelSelector out;
  // A null selector is treated as empty; callers that need "null selects nothing" check first.
  if (selector.is_null()) return out;
  if (!selector.is_object()) return Status::BadRequest("label selector must be an object, got " + selector.dump());
  auto labels = selector.find("matchLabels");
  if (labels != selector.end() && !labels->is_null()) {
    if (!labels->is_object()) return Status::BadRequest("matchLabels must be an object, got " + labels->dump());
    for (const auto& [key, value] : labels->items()) {
      if (!IsLabelKey(key)) return InvalidKey(key);
      if (!value.is_string()) return InvalidValue(key, value.dump());
      const std::string v = value.get<std::string>();
      if (!IsLabelValue(v)) return InvalidValue(key, v);
      out.requirements_.push_back(Requirement{key, Op::kEquals, {v}});
    }
  }
  auto exprs = selector.find("matchExpressions");
  if (exprs != selector.end() && !exprs->is_null()) {
    if (!exprs->is_array()) return Status::BadRequest("matchExpressions must be a list, got " + exprs->dump());
    for (const json& e : *exprs) {
      if (!e.is_object()) return Status::BadRequest("matchExpressions item must be an object, got " + e.dump());
      auto key_it = e.find("key");
      auto op_it = e.find("operator");
      if (key_it == e.end() || !key_it->is_string()) return Status::BadRequest("matchExpressions item needs a key: " + e.dump());
      if (op_it == e.end() || !op_it->is_string()) {
        return Status::BadRequest("matchExpressions item needs an operator: " + e.dump());
      }
      Requirement req;
      req.key = key_it->get<std::string>();
      if (!IsLabelKey(req.key)) return InvalidKey(req.key);
      const std::string op = op_it->get<std::string>();
      if (op == "In") {
        req.op = Op::kIn;
      } else if (op == "NotIn") {
        req.op = Op::kNotIn;
      } else if (op == "Exists") {
        req.op = Op::kExists;
      } else if (op == "DoesNotExist") {
        req.op = Op::kDoesNotExist;
      } else {
        return Status::BadRequest("\"" + op + "\" is not a valid label selector operator");
      }
      auto values_it = e.find("values");
      if (values_it != e.end() && !values_it->is_null()) {
        if (!values_it->is_array()) return Status::BadRequest("values must be a list, got " + values_it->dump());
        for (const json& v : *values_it) {
          if (!v.is_string()) return InvalidValue(req.key, v.dump());
          const std::string s = v.get<std::string>();
          if (!IsLabelValue(s)) return InvalidValue(req.key, s);
          req.values.insert(s);
        }
      }
      const bool needs_values = req.op == Op::kIn || req.op == Op::kNotIn;
      if (needs_values && req.values.empty()) {
        return Status::BadRequest("values: Required value: must be specified when `operator` is 'In' or 'NotIn' (key \"" +
                                  req.key + "\")");
      }
      if (!needs_values && !req.values.empty()) {
        return Status::BadRequest("values: Forbidden: may not be specified when `operator` is 'Exists' or "
                                  "'DoesNotExist' (key \"" + req.key + "\")");
      }
      out.requirements_.push_back(std::move(req));
    }
  }
  std::stable_sort(out.requirements_.begin(), out.requirements_.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
  return out;
}

bool LabelSelector::Matches(const json& labels) const {
  for (const Requirement& r : requirements_) {
    std::string value;
    const bool has = HasLabel(labels, r.key, &value);
    bool ok = false;
    switch (r.op) {
      case Op::kEquals:
      case Op::kIn: ok = has && r.values.count(value) > 0; break;
      case Op::kNotEquals:
      case Op::kNotIn: ok = !has || r.values.count(value) == 0; break;
      case Op::kExists: ok = has; break;
      case Op::kDoesNotExist: ok = !has; break;
    }
    if (!ok) return false;
  }
  return true;
}

std::optional<std::string> LabelSelector::ExactValue(std::string_view key) const {
  for (const Requirement& r : requirements_) {
    if (r.key != key || r.values.size() != 1) continue;
    if (r.op == Op::kEquals || r.op == Op::kIn) return *r.values.begin();
  }
  return std::nullopt;
}

std::string LabelSelector::ToString() const {
  std::string out;
  for (const Requirement& r : requirements_) {
    if (!out.empty()) out += ",";
    if (r.op == Op::kDoesNotExist) out += "!";
    out += r.key + OpText(r.op);
    if (r.op == Op::kEquals || r.op == Op::kNotEquals) {
      out += r.values.empty() ? "" : *r.values.begin();
    } else if (r.op == Op::kIn || r.op == Op::kNotIn) {
      out += "(";
      bool first = true;
      for (const std::string& v : r.values) {
        if (!first) out += ",";
        out += v;
        first = false;
      }
      out += ")";
    }
  }
  return out;
}

Result<FieldSelector> FieldSelector::Parse(std::string_view text, std::string_view plural) {
  FieldSelector selector;
  for (const std::string& raw : SplitTerms(text)) {
    std::string_view term = Trim(raw);
    if (term.empty()) continue;  // "a=b," is accepted, as by fields.ParseSelector
    // The first unescaped operator splits the term; "!=" and "==" are tried before "=".
    size_t op_pos = std::string_view::npos;
    size_t op_len = 0;
    bool equals = true;
    for (size_t i = 0; i < term.size(); ++i) {
      if (term[i] == '\\') {
        ++i;
        continue;
      }
      if (term.substr(i, 2) == "!=") {
        op_pos = i, op_len = 2, equals = false;
        break;
      }
      if (term.substr(i, 2) == "==") {
        op_pos = i, op_len = 2;
        break;
      }
      if (term[i] == '=') {
        op_pos = i, op_len = 1;
        break;
      }
    }
    if (op_pos == std::string_view::npos) {
      return Status::BadRequest("invalid selector: '" + std::string(text) + "'; can't understand '" +
                                std::string(term) + "'");
    }
    const std::string field(Trim(term.substr(0, op_pos)));
    if (field.empty()) {
      return Status::BadRequest("invalid selector: '" + std::string(text) + "'; missing field name in '" +
                                std::string(term) + "'");
    }
    std::string_view escaped = Trim(term.substr(op_pos + op_len));
    std::string value;
    for (size_t i = 0; i < escaped.size(); ++i) {
      if (escaped[i] == '=' || escaped[i] == ',') {
        // "a=b=c": an operator character in a value must be escaped.
        return Status::BadRequest("invalid field selector value: unescaped '" + std::string(1, escaped[i]) +
                                  "' in '" + std::string(term) + "'");
      }
      if (escaped[i] != '\\') {
        value += escaped[i];
        continue;
      }
      if (i + 1 >= escaped.size() || std::string_view("\\,=").find(escaped[i + 1]) == std::string_view::npos) {
        return Status::BadRequest("invalid field selector value: invalid escape sequence in '" +
                                  std::string(escaped) + "'");
      }
      value += escaped[++i];
    }
    if (!Supported(plural, field)) {
      // Built-in kinds without field selectors of their own refuse in the generic conversion's
      // words; the others (pods, events, nodes, namespaces, custom resources) in their own.
      static const std::set<std::string, std::less<>> kGeneric = {"configmaps", "serviceaccounts", "leases", "roles",
                                                                  "rolebindings", "clusterroles", "clusterrolebindings"};
      if (!kGeneric.count(plural)) return Status::BadRequest("field label not supported: " + field);
      return Status::BadRequest("\"" + field + "\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
    }
    selector.requirements_.push_back(Requirement{field, equals, std::move(value)});
  }
  return selector;
}

bool FieldSelector::Matches(const json& object) const {
  for (const Requirement& r : requirements_) {
    if ((FieldValue(object, r.field) == r.value) != r.equals) return false;
  }
  return true;
}

std::optional<std::string> FieldSelector::ExactValue(std::string_view field) const {
  for (const Requirement& r : requirements_) {
    if (r.equals && r.field == field) return r.value;
  }
  return std::nullopt;
}

std::string FieldSelector::FieldValue(const json& object, std::string_view field) {
  // An event's "source" is its source.component; a node's spec.unschedulable defaults to false,
  // exactly as the API server's field sets print them.
  std::string path(field);
  if (field == "source" && object.is_object() && object.contains("source") && object["source"].is_object()) {
    path = "source.component";
  }
  const json* cur = &object;
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    if (dot == std::string::npos) dot = path.size();
    const std::string part = path.substr(start, dot - start);
    if (!cur->is_object()) return field == "spec.unschedulable" ? "false" : "";
    auto it = cur->find(part);
    if (it == cur->end()) return field == "spec.unschedulable" ? "false" : "";
    cur = &*it;
    start = dot + 1;
  }
  if (cur->is_string()) return cur->get<std::string>();
  if (cur->is_boolean()) return cur->get<bool>() ? "true" : "false";
  if (cur->is_null()) return field == "spec.unschedulable" ? "false" : "";
  if (cur->is_number()) return cur->dump();
  return cur->dump();
}

bool FieldSelector::Supported(std::string_view plural, std::string_view field) {
  if (field == "metadata.name" || field == "metadata.namespace") return true;
  const auto& extra = ExtraFields();
  auto it = extra.find(plural);
  return it != extra.end() && it->second.count(std::string(field)) > 0;
}

}  // namespace kube
