#include "sim/harness/config/yaml_json.h"

#include "sim/kernel/input_file.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>

namespace harness {
namespace {

using json = kube::Json;

bool IsIdentifier(std::string_view key) {
  if (key.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!alpha(key[0])) return false;
  for (char c : key) {
    if (!alpha(c) && !digit(c) && c != '-') return false;
  }
  return true;
}

void AppendKey(std::string& path, std::string_view key) {
  if (IsIdentifier(key)) {
    if (!path.empty()) path += '.';
    path += key;
  } else {
    path += '[';
    path += key;
    path += ']';
  }
}

void AppendIndex(std::string& path, std::size_t index) {
  path += '[';
  path += std::to_string(index);
  path += ']';
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

SourcePos FromMark(const YAML::Mark& mark) {
  if (mark.is_null() || mark.line < 0 || mark.column < 0) return {};
  return {mark.line + 1, mark.column + 1};
}

// yaml-cpp quotes the offending character in some messages; keep binary input off the terminal.
std::string Printable(std::string_view message) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : message) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out;
}

// --- YAML 1.2 core schema resolution of plain scalars ----------------------------------------

bool IsNull(std::string_view s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

std::optional<bool> AsBool(std::string_view s) {
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  return std::nullopt;
}

// [-+]?[0-9]+, 0o[0-7]+ or 0x[0-9a-fA-F]+. Values beyond int64 become uint64, then (decimal only)
// double, as Kubernetes' YAML decoder does.
std::optional<json> AsInteger(std::string_view s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
    const int base = s[1] == 'x' ? 16 : 8;
    std::string_view digits = s.substr(2);
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    if (value <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return json(static_cast<std::int64_t>(value));
    }
    return json(value);
  }
  std::string_view digits = s;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (!AllDigits(digits)) return std::nullopt;
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;  // "08": a string, not octal
  std::string text(negative ? "-" : "");
  text += digits;
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc() && end == text.data() + text.size()) return json(value);
  if (!negative) {
    std::uint64_t unsigned_value = 0;
    auto [uend, uec] = std::from_chars(text.data(), text.data() + text.size(), unsigned_value);
    if (uec == std::errc() && uend == text.data() + text.size()) return json(unsigned_value);
  }
  double d = 0;
  auto [dend, dec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (dec == std::errc() && dend == text.data() + text.size()) return json(d);
  return std::nullopt;
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, [-+]?.inf, .nan (three capitalisations).
std::optional<json> AsFloat(std::string_view s) {
  std::string_view rest = s;
  bool negative = false;
  if (!rest.empty() && (rest[0] == '-' || rest[0] == '+')) {
    negative = rest[0] == '-';
    rest.remove_prefix(1);
  }
  if (rest == ".inf" || rest == ".Inf" || rest == ".INF") {
    const double inf = std::numeric_limits<double>::infinity();
    return json(negative ? -inf : inf);
  }
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return json(std::numeric_limits<double>::quiet_NaN());

  std::size_t i = 0;
  auto digits = [&] {
    std::size_t start = i;
    while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9') ++i;
    return i - start;
  };
  std::size_t mantissa = digits();
  if (i < rest.size() && rest[i] == '.') {
    ++i;
    std::size_t fraction = digits();
    if (mantissa == 0 && fraction == 0) return std::nullopt;
  } else if (mantissa == 0) {
    return std::nullopt;
  }
  if (i < rest.size() && (rest[i] == 'e' || rest[i] == 'E')) {
    ++i;
    if (i < rest.size() && (rest[i] == '-' || rest[i] == '+')) ++i;
    if (digits() == 0) return std::nullopt;
  }
  if (i != rest.size()) return std::nullopt;
  // from_chars accepts neither '+' nor a bare leading '.', so hand it a normalised copy.
  std::string text(negative ? "-" : "");
  if (!rest.empty() && rest[0] == '.') text += '0';
  text += rest;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (end != text.data() + text.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Overflow gives +-inf, underflow 0, as strtod would.
    value = std::strtod(text.c_str(), nullptr);
  } else if (ec != std::errc()) {
    return std::nullopt;
  }
  return json(value);
}

// "08", "-0755": decimal digits with a leading zero. The core schema reads them as decimal, YAML 1.1
// as octal; keeping them strings avoids silently picking one.
bool IsLeadingZeroInteger(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return s.size() > 1 && s[0] == '0' && AllDigits(s);
}

json ResolvePlainScalar(const std::string& s) {
  if (IsNull(s)) return nullptr;
  if (auto b = AsBool(s)) return *b;
  if (IsLeadingZeroInteger(s)) return s;
  if (auto i = AsInteger(s)) return *i;
  if (auto f = AsFloat(s)) return *f;
  return s;
}

json ResolveScalar(const YAML::Node& node) {
  const std::string& tag = node.Tag();
  const std::string& text = node.Scalar();
  // yaml-cpp tags plain scalars "?" and quoted or block scalars "!" (always strings).
  if (tag == "!" || tag == "tag:yaml.org,2002:str") return text;
  if (tag == "tag:yaml.org,2002:null") return nullptr;
  if (tag == "tag:yaml.org,2002:bool") {
    if (auto b = AsBool(text)) return *b;
  }
  if (tag == "tag:yaml.org,2002:int") {
    if (auto i = AsInteger(text)) return *i;
  }
  if (tag == "tag:yaml.org,2002:float") {
    if (auto i = AsInteger(text)) return json(i->get<double>());
    if (auto f = AsFloat(text)) return *f;
  }
  // Untagged plain scalars, and any tag we do not know, resolve by the core schema.
  return ResolvePlainScalar(text);
}

// --- Node -> JSON ------------------------------------------------------------------------------

struct ConversionError {
  SourcePos pos;
  std::string message;
};

class Converter {
 public:
  // The value count runs across every document of a file, hence one Converter per file.
  explicit Converter(const YamlLimits& limits) : limits_(limits) {}
  void set_positions(SourceMap* positions) { positions_ = positions; }

  // REQUIRES: `key_pos` is the position of the key this node is the value of (unknown for the
  // document root and sequence items).
  json Convert(const YAML::Node& node, std::string& path, SourcePos key_pos, int depth) {
    if (++values_ > limits_.max_values) {
      throw ConversionError{FromMark(node.Mark()), "file too large: more than " +
                                                      std::to_string(limits_.max_values) +
                                                      " values (after expanding aliases)"};
    }
    if (depth > limits_.max_depth) {
      throw ConversionError{FromMark(node.Mark()),
                            "nested deeper than " + std::to_string(limits_.max_depth) +
                                " levels (or an alias refers to itself)"};
    }
    const SourcePos own = FromMark(node.Mark());
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        positions_->AddCanonical(path, key_pos.known() ? key_pos : own);
        return nullptr;
      case YAML::NodeType::Scalar:
        positions_->AddCanonical(path, own.known() ? own : key_pos);
        return ResolveScalar(node);
      case YAML::NodeType::Sequence: {
        positions_->AddCanonical(path, key_pos.known() ? key_pos : own);
        json array = json::array();
        std::size_t index = 0;
        for (const YAML::Node& item : node) {
          const std::size_t length = path.size();
          AppendIndex(path, index++);
          array.push_back(Convert(item, path, SourcePos{}, depth + 1));
          path.resize(length);
        }
        return array;
      }
      case YAML::NodeType::Map: {
        positions_->AddCanonical(path, key_pos.known() ? key_pos : own);
        json object = json::object();
        // Not `it->first`: yaml-cpp's operator-> returns a proxy, so a reference into it dangles.
        // operator* returns the pair by value; the range-for keeps it alive for the body.
        for (const auto& entry : node) {
          const YAML::Node& key = entry.first;
          const SourcePos pos = FromMark(key.Mark());
          std::string name;
          if (key.IsScalar()) {
            name = key.Scalar();
          } else if (key.IsNull()) {
            name = "null";
          } else {
            throw ConversionError{pos, "a mapping key must be a scalar, not a sequence or mapping"};
          }
          if (object.contains(name)) {
            throw ConversionError{pos, "mapping key \"" + name + "\" already defined"};
          }
          const std::size_t length = path.size();
          AppendKey(path, name);
          object[name] = Convert(entry.second, path, pos, depth + 1);
          path.resize(length);
        }
        return object;
      }
    }
    return nullptr;
  }

 private:
  YamlLimits limits_;
  SourceMap* positions_ = nullptr;
  std::size_t values_ = 0;
};

// What keeps `s` from being text every part of dglsim can carry, or nullptr: bytes that are not
// well-formed UTF-8 (stray continuation bytes, overlong forms, surrogates, code points past
// U+10FFFF), which yaml-cpp passes through and JSON cannot write; or a Unicode noncharacter (U+FDD0
// to U+FDEF, U+FFFE, U+FFFF and the last two of every plane), which yaml-cpp's emitter replaces,
// so JsonToYaml could not write it back.
const char* TextProblem(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t extra = 0;
    std::uint32_t code = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      extra = 1, code = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      extra = 2, code = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      extra = 3, code = c & 0x07;
    } else {
      return "bytes that are not UTF-8";
    }
    if (i + extra >= s.size()) return "bytes that are not UTF-8";
    for (std::size_t k = 1; k <= extra; ++k) {
      const auto next = static_cast<unsigned char>(s[i + k]);
      if ((next & 0xC0) != 0x80) return "bytes that are not UTF-8";
      code = (code << 6) | (next & 0x3F);
    }
    if ((extra == 2 && (code < 0x800 || (code >= 0xD800 && code <= 0xDFFF))) || (extra == 3 && (code < 0x10000 || code > 0x10FFFF)))
      return "bytes that are not UTF-8";
    if ((code >= 0xFDD0 && code <= 0xFDEF) || (code & 0xFFFE) == 0xFFFE) return "a Unicode noncharacter such as U+FFFF";
    i += extra + 1;
  }
  return nullptr;
}

// Counts the values of a text as the parser reads it, before yaml-cpp builds its tree of nodes
// (some hundred bytes each): a file of short list items past max_values is refused while its
// memory is still that of its text. An alias counts once here; the Converter counts what it expands to.
// Scalars (keys included) that are not Unicode text (TextProblem) are refused here too.
class ValueCounter : public YAML::EventHandler {
 public:
  explicit ValueCounter(std::size_t limit) : limit_(limit) {}
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { Count(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { Count(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string& value) override {
    Count(mark);
    if (const char* problem = TextProblem(value)) throw ConversionError{FromMark(mark), std::string("a scalar holding ") + problem};
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    Count(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    Count(mark);
  }
  void OnMapEnd() override {}

 private:
  void Count(const YAML::Mark& mark) {
    if (++count_ > limit_)
      throw ConversionError{FromMark(mark), "file too large: more than " + std::to_string(limit_) + " values"};
  }
  std::size_t limit_;
  std::size_t count_ = 0;
};

// Throws ConversionError past limits.max_values and YAML::Exception on bad YAML.
void CountValues(std::string_view text, const YamlLimits& limits) {
  std::istringstream in{std::string(text)};
  YAML::Parser parser(in);
  ValueCounter counter(limits.max_values);
  while (parser.HandleNextDocument(counter)) {
  }
}

}  // namespace

// --- Field paths -------------------------------------------------------------------------------

std::vector<PathSegment> ParseFieldPath(std::string_view path) {
  std::vector<PathSegment> segments;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      const std::size_t close = path.find(']', i + 1);
      if (close == std::string_view::npos) {
        segments.emplace_back(std::string(path.substr(i + 1)));
        break;
      }
      std::string_view inner = path.substr(i + 1, close - i - 1);
      std::size_t index = 0;
      auto [end, ec] = std::from_chars(inner.data(), inner.data() + inner.size(), index);
      if (AllDigits(inner) && ec == std::errc() && end == inner.data() + inner.size()) {
        segments.emplace_back(index);
      } else {
        segments.emplace_back(std::string(inner));
      }
      i = close + 1;
      continue;
    }
    std::size_t end = path.find_first_of(".[", i);
    if (end == std::string_view::npos) end = path.size();
    segments.emplace_back(std::string(path.substr(i, end - i)));
    i = end;
  }
  return segments;
}

std::string JoinFieldPath(std::string_view base, std::string_view path) {
  std::vector<PathSegment> segments = ParseFieldPath(base);
  for (PathSegment& s : ParseFieldPath(path)) segments.push_back(std::move(s));
  return FormatFieldPath(segments);
}

std::string FormatFieldPath(const std::vector<PathSegment>& segments) {
  std::string path;
  for (const PathSegment& segment : segments) {
    if (const auto* key = std::get_if<std::string>(&segment)) {
      AppendKey(path, *key);
    } else {
      AppendIndex(path, std::get<std::size_t>(segment));
    }
  }
  return path;
}

std::string FieldPathFromPointer(std::string_view json_pointer) {
  std::vector<PathSegment> segments;
  std::size_t i = 0;
  while (i < json_pointer.size()) {
    if (json_pointer[i] != '/') {
      ++i;
      continue;
    }
    std::size_t end = json_pointer.find('/', i + 1);
    if (end == std::string_view::npos) end = json_pointer.size();
    std::string token;
    for (std::size_t k = i + 1; k < end; ++k) {
      if (json_pointer[k] == '~' && k + 1 < end && (json_pointer[k + 1] == '0' || json_pointer[k + 1] == '1')) {
        token += json_pointer[k + 1] == '0' ? '~' : '/';
        ++k;
      } else {
        token += json_pointer[k];
      }
    }
    std::size_t index = 0;
    auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), index);
    if (AllDigits(token) && ec == std::errc() && ptr == token.data() + token.size()) {
      segments.emplace_back(index);
    } else {
      segments.emplace_back(std::move(token));
    }
    i = end;
  }
  return FormatFieldPath(segments);
}

void SourceMap::Add(std::string_view field_path, SourcePos pos) {
  positions_.insert_or_assign(FormatFieldPath(ParseFieldPath(field_path)), pos);
}

SourcePos SourceMap::Locate(std::string_view field_path) const {
  std::vector<PathSegment> segments = ParseFieldPath(field_path);
  for (std::size_t n = segments.size() + 1; n-- > 0;) {
    std::vector<PathSegment> prefix(segments.begin(), segments.begin() + static_cast<std::ptrdiff_t>(n));
    auto it = positions_.find(FormatFieldPath(prefix));
    if (it != positions_.end() && it->second.known()) return it->second;
  }
  return {};
}

bool SourceMap::Contains(std::string_view field_path) const {
  return positions_.find(FormatFieldPath(ParseFieldPath(field_path))) != positions_.end();
}

// --- Loading -----------------------------------------------------------------------------------

std::string YamlError::ToString() const {
  std::string out = file;
  if (pos.known()) out += ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
  return out + ": " + message;
}

YamlLoad LoadYamlString(std::string_view text, std::string_view file, const YamlLimits& limits) {
  YamlLoad load;
  try {
    CountValues(text, limits);
    std::vector<YAML::Node> nodes = YAML::LoadAll(std::string(text));
    Converter converter(limits);
    for (const YAML::Node& node : nodes) {
      YamlDocument document;
      converter.set_positions(&document.positions);
      std::string path;
      document.value = converter.Convert(node, path, SourcePos{}, 0);
      if (!document.positions.Locate("").known()) document.positions.Add("", SourcePos{1, 1});
      load.documents.push_back(std::move(document));
    }
  } catch (const YAML::Exception& e) {
    load.documents.clear();
    load.error = YamlError{std::string(file), FromMark(e.mark), Printable(e.msg)};
  } catch (const ConversionError& e) {
    load.documents.clear();
    load.error = YamlError{std::string(file), e.pos, e.message};
  } catch (const std::exception& e) {
    // yaml-cpp may surface allocation or conversion failures as other exceptions.
    load.documents.clear();
    load.error = YamlError{std::string(file), SourcePos{}, "cannot load YAML: " + Printable(e.what())};
  }
  return load;
}

YamlLoad LoadYamlFile(const std::string& path, const YamlLimits& limits) {
  sim::InputFile file = sim::ReadInputFile(path, limits.max_bytes);
  if (!file.ok()) {
    YamlLoad load;
    load.error = YamlError{path, SourcePos{}, file.error};
    return load;
  }
  return LoadYamlString(file.text, path, limits);
}

namespace {

bool NeedsQuotes(const std::string& s) {
  return !ResolvePlainScalar(s).is_string() || s != std::string_view(s).substr(0, s.find('\n'));
}

void EmitScalar(YAML::Emitter& out, const json& value) {
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    if (NeedsQuotes(s)) out << YAML::DoubleQuoted;
    out << s;
  } else if (value.is_null()) {
    out << YAML::Null;
  } else if (value.is_boolean()) {
    out << (value.get<bool>() ? "true" : "false");
  } else if (value.is_number_float() && !std::isfinite(value.get<double>())) {
    // JSON has no spelling for these (nlohmann prints null); YAML's core schema has.
    const double d = value.get<double>();
    out << (std::isnan(d) ? ".nan" : d > 0 ? ".inf" : "-.inf");
  } else {
    out << value.dump();  // nlohmann writes doubles in their shortest round-trip form
  }
}

// Keys longer than this (in bytes, before any escaping) are written as explicit keys.
constexpr std::size_t kLongKey = 200;

// A mapping or sequence of scalars short enough for one line.
bool FitsOneLine(const json& value) {
  for (const json& item : value)
    if (item.is_structured()) return false;
  return value.dump().size() <= 100;
}

bool HasLongKey(const json& value) {
  if (value.is_object())
    for (const auto& [k, item] : value.items())
      if (k.size() > kLongKey || HasLongKey(item)) return true;
  if (value.is_array())
    for (const json& item : value)
      if (HasLongKey(item)) return true;
  return false;
}

// `flow`: whether a short mapping may go on one line. A document with a long key is written in
// block style throughout: yaml-cpp 0.7 lets an explicit key's mark reach keys emitted after it, and
// "? key" is valid in a block mapping but not in a flow one.
void EmitValue(YAML::Emitter& out, const json& value, const std::vector<std::string>& first_keys, bool flow) {
  if (!value.is_structured()) return EmitScalar(out, value);
  if (value.empty() || (flow && FitsOneLine(value))) out << YAML::Flow;
  if (value.is_array()) {
    out << YAML::BeginSeq;
    for (const json& item : value) EmitValue(out, item, {}, flow);
    out << YAML::EndSeq;
    return;
  }
  out << YAML::BeginMap;
  std::vector<std::string> keys;
  for (const std::string& k : first_keys)
    if (value.contains(k)) keys.push_back(k);
  for (const auto& [k, item] : value.items())
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  for (const std::string& k : keys) {
    // YAML allows an implicit key of at most 1,024 characters (yaml-cpp refuses a longer one); a
    // long key is written as an explicit one ("? key").
    out << YAML::Key;
    if (k.size() > kLongKey) out << YAML::LongKey;
    EmitScalar(out, json(k));
    out << YAML::Value;
    EmitValue(out, value.at(k), {}, flow);
  }
  out << YAML::EndMap;
}

}  // namespace

std::string JsonToYaml(const json& value, const std::vector<std::string>& first_keys) {
  YAML::Emitter out;
  out.SetIndent(2);
  EmitValue(out, value, first_keys, !HasLongKey(value));
  return std::string(out.c_str()) + "\n";
}

std::string FormatLocation(std::string_view file, const SourceMap& positions, std::string_view field_path) {
  std::string out(file);
  const SourcePos pos = positions.Locate(field_path);
  if (pos.known()) out += ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
  return out;
}

namespace {

// A problem is one line, whatever a key or a value of the input brought into it: line breaks and
// other control characters are written escaped (\n, \r, \x03); a tab stays.
std::string OneLine(std::string text) {
  auto control = [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  };
  if (std::none_of(text.begin(), text.end(), control)) return text;
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    if (!control(c)) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      static const char* const kHex = "0123456789abcdef";
      const auto u = static_cast<unsigned char>(c);
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

}  // namespace

std::string FormatProblem(std::string_view file, const SourceMap& positions, std::string_view field_path,
                          std::string_view message) {
  std::string out = FormatLocation(file, positions, field_path);
  out += ": ";
  if (!field_path.empty()) {
    out += FormatFieldPath(ParseFieldPath(field_path));
    out += ": ";
  }
  out += message;
  return OneLine(std::move(out));
}

}  // namespace harness
