// A small Prometheus metrics registry: counters, gauges and histograms with fixed buckets, each a
// family of series told apart by label values, rendered in the Prometheus text exposition format
// 0.0.4 (what `promtool check metrics` and every Prometheus scrape accept):
//
//   # HELP workqueue_adds_total Total number of adds handled by workqueue
//   # TYPE workqueue_adds_total counter
//   workqueue_adds_total{controller="dgljob",name="dgljob"} 12
//   # TYPE controller_runtime_reconcile_time_seconds histogram
//   controller_runtime_reconcile_time_seconds_bucket{controller="dgljob",le="0.005"} 3
//   ...                                              {controller="dgljob",le="+Inf"} 4
//   controller_runtime_reconcile_time_seconds_sum{controller="dgljob"} 0.0123
//   controller_runtime_reconcile_time_seconds_count{controller="dgljob"} 4
//
// Output is deterministic: families in order of name, series in order of their label values, each
// family's labels in the order they were declared; a family without series is left out (as
// client_golang leaves out an empty vector). Numbers are formatted as Go's
// strconv.FormatFloat(v, 'g', -1, 64) formats them (client_golang's format, so `le` label values
// read the same as a Go operator's: "0.005", "1e-08", "+Inf"). Label values and HELP text are
// escaped as the format requires (backslash, double quote in label values, newline).
//
// Names: metric names match [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]* and may not
// be "le" (reserved for buckets); a bad name, a name registered twice with another type, labels or
// buckets, or a call with the wrong number of label values is a programming error (std::logic_error).
// Registering the same family again with the same shape returns the existing one, so a component
// that is rebuilt (an operator restarted in the simulator) finds its series where it left them.
//
// Collectors: functions run at the start of every Expose(), outside the registry's lock, to set
// gauges that are computed rather than tracked (a queue's unfinished work).
//
// Why not Debian's prometheus-cpp: its families keep their series in hash maps, so the order of a
// scrape would follow hashing rather than the labels, and `dglsim run --metrics` must write the same
// bytes for the same run; what is needed here is this file's few hundred lines.
//
// Thread safety: every method may be called from any thread; one mutex guards the whole registry
// (the metrics server's thread scrapes while the controller's thread counts).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kube {

enum class MetricType { kCounter, kGauge, kHistogram };

// Label values, in the order of the family's label names.
using LabelValues = std::vector<std::string>;

class MetricFamily {
 public:
  const std::string& name() const { return name_; }
  MetricType type() const { return type_; }
  const std::vector<std::string>& label_names() const { return label_names_; }

  // Counters: adds delta (>= 0). Gauges: adds delta (any sign).
  void Add(const LabelValues& values, double delta = 1);
  // Gauges only.
  void Set(const LabelValues& values, double value);
  // Histograms only: counts `value` in the first bucket whose upper bound is >= value.
  void Observe(const LabelValues& values, double value);
  // Creates the series at zero if absent (a counter that should read 0 before its first event).
  void Touch(const LabelValues& values);
  // Drops every series (a gauge family whose owner starts over).
  void Clear();

  // Reading back (tests, summaries): a counter's or gauge's value, a histogram's count and sum;
  // 0 for a series that does not exist.
  double Value(const LabelValues& values) const;
  std::uint64_t Count(const LabelValues& values) const;
  double Sum(const LabelValues& values) const;
  bool Has(const LabelValues& values) const;

 private:
  friend class MetricsRegistry;
  struct Series {
    double value = 0;                    // counter, gauge; histogram: sum
    std::uint64_t count = 0;             // histogram
    std::vector<std::uint64_t> buckets;  // histogram, not cumulative
  };
  MetricFamily(std::mutex* mu, std::string name, std::string help, MetricType type, std::vector<std::string> labels,
               std::vector<double> bounds);
  Series& At(const LabelValues& values);  // REQUIRES: *mu_ held
  const Series* Find(const LabelValues& values) const;
  void Render(std::string& out) const;  // REQUIRES: *mu_ held

  std::mutex* mu_;
  std::string name_;
  std::string help_;
  MetricType type_;
  std::vector<std::string> label_names_;
  std::vector<double> bounds_;  // histogram upper bounds, ascending, without +Inf
  std::map<LabelValues, Series> series_;
};

class MetricsRegistry {
 public:
  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  MetricFamily& Counter(const std::string& name, const std::string& help, std::vector<std::string> labels);
  MetricFamily& Gauge(const std::string& name, const std::string& help, std::vector<std::string> labels);
  // `bounds`: ascending upper bounds; +Inf is implied.
  MetricFamily& Histogram(const std::string& name, const std::string& help, std::vector<std::string> labels,
                          std::vector<double> bounds);
  // The family of that name, nullptr if none.
  MetricFamily* Find(const std::string& name);

  // Runs `collect` at the start of every Expose(); returns an id for RemoveCollector.
  int AddCollector(std::function<void()> collect);
  void RemoveCollector(int id);

  // The text exposition (format 0.0.4) of every family with at least one series.
  std::string Expose() const;

 private:
  MetricFamily& Register(const std::string& name, const std::string& help, MetricType type,
                         std::vector<std::string> labels, std::vector<double> bounds);

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<MetricFamily>> families_;
  mutable std::mutex collectors_mu_;
  std::map<int, std::function<void()>> collectors_;
  int next_collector_ = 0;
};

// The Content-Type of Expose()'s text.
inline constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

// A number as Go's strconv.FormatFloat(v, 'g', -1, 64) writes it; "+Inf", "-Inf", "NaN".
std::string FormatMetricValue(double v);
// `n` upper bounds: start, start*factor, ... (client_golang's ExponentialBuckets).
std::vector<double> ExponentialBuckets(double start, double factor, int n);

}  // namespace kube
