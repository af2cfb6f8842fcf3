#include "fakeapi/client/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <utility>

namespace kube {
namespace {

bool ValidName(const std::string& name, bool colons) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colons && c == ':');
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

void AppendEscaped(std::string& out, const std::string& text, bool quotes) {
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quotes) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

// name{a="x",b="y"[,le="..."]} value
void AppendSample(std::string& out, const std::string& name, const std::vector<std::string>& labels,
                  const LabelValues& values, const std::string* le, double value) {
  out += name;
  if (!labels.empty() || le != nullptr) {
    out += '{';
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) out += ',';
      out += labels[i];
      out += "=\"";
      AppendEscaped(out, values[i], /*quotes=*/true);
      out += '"';
    }
    if (le != nullptr) {
      if (!labels.empty()) out += ',';
      out += "le=\"" + *le + "\"";
    }
    out += '}';
  }
  out += ' ';
  out += FormatMetricValue(value);
  out += '\n';
}

const char* TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter: return "counter";
    case MetricType::kGauge: return "gauge";
    case MetricType::kHistogram: return "histogram";
  }
  return "untyped";
}

}  // namespace

std::string FormatMetricValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  // The shortest digits that read back as v, and their decimal exponent.
  char sci[64];
  auto r = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific);
  const std::string text(sci, r.ptr);
  const std::size_t e = text.find('e');
  const int exponent = std::atoi(text.c_str() + e + 1);
  // Go's 'g' with the shortest precision writes %e when the exponent is < -4 or >= 6
  // (1e+06, 1.23456789e+08, 1e-05), %f otherwise (100000, 0.0001).
  if (exponent < -4 || exponent >= 6) return text;
  char fixed[64];
  auto f = std::to_chars(fixed, fixed + sizeof fixed, v, std::chars_format::fixed);
  return std::string(fixed, f.ptr);
}

std::vector<double> ExponentialBuckets(double start, double factor, int n) {
  std::vector<double> bounds;
  double b = start;
  for (int i = 0; i < n; ++i) {
    bounds.push_back(b);
    b *= factor;
  }
  return bounds;
}

// --- MetricFamily -------------------------------------------------------------------------------

MetricFamily::MetricFamily(std::mutex* mu, std::string name, std::string help, MetricType type,
                           std::vector<std::string> labels, std::vector<double> bounds)
    : mu_(mu), name_(std::move(name)), help_(std::move(help)), type_(type), label_names_(std::move(labels)),
      bounds_(std::move(bounds)) {}

MetricFamily::Series& MetricFamily::At(const LabelValues& values) {
  if (values.size() != label_names_.size())
    throw std::logic_error("metric " + name_ + ": " + std::to_string(values.size()) + " label values for " +
                           std::to_string(label_names_.size()) + " labels");
  auto it = series_.find(values);
  if (it == series_.end()) {
    it = series_.emplace(values, Series{}).first;
    if (type_ == MetricType::kHistogram) it->second.buckets.assign(bounds_.size() + 1, 0);
  }
  return it->second;
}

const MetricFamily::Series* MetricFamily::Find(const LabelValues& values) const {
  auto it = series_.find(values);
  return it == series_.end() ? nullptr : &it->second;
}

void MetricFamily::Add(const LabelValues& values, double delta) {
  if (type_ == MetricType::kHistogram) throw std::logic_error("metric " + name_ + ": Add on a histogram");
  if (type_ == MetricType::kCounter && !(delta >= 0))
    throw std::logic_error("metric " + name_ + ": a counter cannot decrease");
  std::lock_guard<std::mutex> lock(*mu_);
  At(values).value += delta;
}

void MetricFamily::Set(const LabelValues& values, double value) {
  if (type_ != MetricType::kGauge) throw std::logic_error("metric " + name_ + ": Set on a " + TypeName(type_));
  std::lock_guard<std::mutex> lock(*mu_);
  At(values).value = value;
}

void MetricFamily::Observe(const LabelValues& values, double value) {
  if (type_ != MetricType::kHistogram) throw std::logic_error("metric " + name_ + ": Observe on a " + TypeName(type_));
  std::lock_guard<std::mutex> lock(*mu_);
  Series& s = At(values);
  const auto bucket = std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
  ++s.buckets[static_cast<std::size_t>(bucket)];
  ++s.count;
  s.value += value;
}

void MetricFamily::Touch(const LabelValues& values) {
  std::lock_guard<std::mutex> lock(*mu_);
  At(values);
}

void MetricFamily::Clear() {
  std::lock_guard<std::mutex> lock(*mu_);
  series_.clear();
}

double MetricFamily::Value(const LabelValues& values) const {
  std::lock_guard<std::mutex> lock(*mu_);
  const Series* s = Find(values);
  return s != nullptr && type_ != MetricType::kHistogram ? s->value : 0;
}

std::uint64_t MetricFamily::Count(const LabelValues& values) const {
  std::lock_guard<std::mutex> lock(*mu_);
  const Series* s = Find(values);
  return s != nullptr ? s->count : 0;
}

double MetricFamily::Sum(const LabelValues& values) const {
  std::lock_guard<std::mutex> lock(*mu_);
  const Series* s = Find(values);
  return s != nullptr && type_ == MetricType::kHistogram ? s->value : 0;
}

bool MetricFamily::Has(const LabelValues& values) const {
  std::lock_guard<std::mutex> lock(*mu_);
  return Find(values) != nullptr;
}

void MetricFamily::Render(std::string& out) const {
  if (series_.empty()) return;
  out += "# HELP " + name_ + " ";
  AppendEscaped(out, help_, /*quotes=*/false);
  out += "\n# TYPE " + name_ + " " + TypeName(type_) + "\n";
  for (const auto& [values, s] : series_) {
    if (type_ != MetricType::kHistogram) {
      AppendSample(out, name_, label_names_, values, nullptr, s.value);
      continue;
    }
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i <= bounds_.size(); ++i) {
      cumulative += s.buckets[i];
      const std::string le = i < bounds_.size() ? FormatMetricValue(bounds_[i]) : "+Inf";
      AppendSample(out, name_ + "_bucket", label_names_, values, &le, static_cast<double>(cumulative));
    }
    AppendSample(out, name_ + "_sum", label_names_, values, nullptr, s.value);
    AppendSample(out, name_ + "_count", label_names_, values, nullptr, static_cast<double>(s.count));
  }
}

// --- MetricsRegistry ----------------------------------------------------------------------------

MetricFamily& MetricsRegistry::Register(const std::string& name, const std::string& help, MetricType type,
                                        std::vector<std::string> labels, std::vector<double> bounds) {
  if (!ValidName(name, /*colons=*/true)) throw std::logic_error("metric name \"" + name + "\" is not valid");
  for (const std::string& label : labels) {
    if (!ValidName(label, /*colons=*/false) || label == "le" || label.rfind("__", 0) == 0)
      throw std::logic_error("metric " + name + ": label name \"" + label + "\" is not valid");
  }
  if (!std::is_sorted(bounds.begin(), bounds.end()) ||
      std::adjacent_find(bounds.begin(), bounds.end()) != bounds.end() ||
      std::any_of(bounds.begin(), bounds.end(), [](double b) { return !std::isfinite(b); }))
    throw std::logic_error("metric " + name + ": bucket bounds must be finite and strictly ascending");
  std::lock_guard<std::mutex> lock(mu_);
  auto it = families_.find(name);
  if (it != families_.end()) {
    const MetricFamily& f = *it->second;
    if (f.type_ != type || f.label_names_ != labels || f.bounds_ != bounds)
      throw std::logic_error("metric " + name + " registered twice with different types, labels or buckets");
    return *it->second;
  }
  auto family = std::unique_ptr<MetricFamily>(
      new MetricFamily(&mu_, name, help, type, std::move(labels), std::move(bounds)));
  return *families_.emplace(name, std::move(family)).first->second;
}

MetricFamily& MetricsRegistry::Counter(const std::string& name, const std::string& help,
                                       std::vector<std::string> labels) {
  return Register(name, help, MetricType::kCounter, std::move(labels), {});
}

MetricFamily& MetricsRegistry::Gauge(const std::string& name, const std::string& help, std::vector<std::string> labels) {
  return Register(name, help, MetricType::kGauge, std::move(labels), {});
}

MetricFamily& MetricsRegistry::Histogram(const std::string& name, const std::string& help,
                                         std::vector<std::string> labels, std::vector<double> bounds) {
  return Register(name, help, MetricType::kHistogram, std::move(labels), std::move(bounds));
}

MetricFamily* MetricsRegistry::Find(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = families_.find(name);
  return it == families_.end() ? nullptr : it->second.get();
}

int MetricsRegistry::AddCollector(std::function<void()> collect) {
  std::lock_guard<std::mutex> lock(collectors_mu_);
  const int id = next_collector_++;
  collectors_.emplace(id, std::move(collect));
  return id;
}

void MetricsRegistry::RemoveCollector(int id) {
  std::lock_guard<std::mutex> lock(collectors_mu_);
  collectors_.erase(id);
}

std::string MetricsRegistry::Expose() const {
  {
    std::lock_guard<std::mutex> lock(collectors_mu_);
    for (const auto& [id, collect] : collectors_) collect();
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  for (const auto& [name, family] : families_) family->Render(out);
  return out;
}

}  // namespace kube
