// MetricsRegistry: the Prometheus text format (HELP/TYPE, escaping, histograms with cumulative
// buckets, +Inf, _sum and _count), Go's number format, deterministic order, the registration rules,
// collectors; and the client-side metrics of client_metrics.h: the work queue's series as client-go
// counts them, the REST client's by method and code, leader election status.
#include "fakeapi/client/client_metrics.h"
#include "fakeapi/client/metrics.h"
#include "fakeapi/client/workqueue.h"
#include "fakeapi/server/store.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace kube {
namespace {

TEST(MetricValueFormatTest, WritesNumbersAsGoStrconvDoes) {
  EXPECT_EQ(FormatMetricValue(0), "0");
  EXPECT_EQ(FormatMetricValue(7), "7");
  EXPECT_EQ(FormatMetricValue(-2.5), "-2.5");
  EXPECT_EQ(FormatMetricValue(0.005), "0.005");
  EXPECT_EQ(FormatMetricValue(0.0001), "0.0001");
  EXPECT_EQ(FormatMetricValue(0.00001), "1e-05");
  EXPECT_EQ(FormatMetricValue(10e-9), "1e-08");
  EXPECT_EQ(FormatMetricValue(100000), "100000");
  EXPECT_EQ(FormatMetricValue(1e6), "1e+06");
  EXPECT_EQ(FormatMetricValue(123456789), "1.23456789e+08");
  EXPECT_EQ(FormatMetricValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatMetricValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatMetricValue(std::nan("")), "NaN");
}

TEST(MetricsRegistryTest, ExposesCountersAndGaugesWithHelpTypeAndEscapedLabels) {
  MetricsRegistry r;
  MetricFamily& c = r.Counter("jobs_total", "Jobs seen.\nSecond line with a \\ backslash", {"ns", "mode"});
  c.Add({"b", "x"}, 2);
  c.Add({"a", "quote\" back\\slash\nnewline"});
  r.Gauge("up", "Whether it is up", {}).Set({}, 1);
  EXPECT_EQ(r.Expose(),
            "# HELP jobs_total Jobs seen.\\nSecond line with a \\\\ backslash\n"
            "# TYPE jobs_total counter\n"
            "jobs_total{ns=\"a\",mode=\"quote\\\" back\\\\slash\\nnewline\"} 1\n"
            "jobs_total{ns=\"b\",mode=\"x\"} 2\n"
            "# HELP up Whether it is up\n"
            "# TYPE up gauge\n"
            "up 1\n");
}

TEST(MetricsRegistryTest, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  MetricsRegistry r;
  MetricFamily& h = r.Histogram("took_seconds", "Time taken", {"op"}, {0.1, 1});
  h.Observe({"get"}, 0.05);
  h.Observe({"get"}, 0.1);  // on a bound: counted in that bucket (le)
  h.Observe({"get"}, 0.5);
  h.Observe({"get"}, 30);
  EXPECT_EQ(r.Expose(),
            "# HELP took_seconds Time taken\n"
            "# TYPE took_seconds histogram\n"
            "took_seconds_bucket{op=\"get\",le=\"0.1\"} 2\n"
            "took_seconds_bucket{op=\"get\",le=\"1\"} 3\n"
            "took_seconds_bucket{op=\"get\",le=\"+Inf\"} 4\n"
            "took_seconds_sum{op=\"get\"} 30.65\n"
            "took_seconds_count{op=\"get\"} 4\n");
  EXPECT_EQ(h.Count({"get"}), 4u);
  EXPECT_DOUBLE_EQ(h.Sum({"get"}), 30.65);
}

TEST(MetricsRegistryTest, OrderIsByFamilyNameThenLabelValuesWhateverTheOrderOfEvents) {
  MetricsRegistry a, b;
  a.Counter("z_total", "z", {"k"}).Add({"2"});
  a.Counter("z_total", "z", {"k"}).Add({"1"});
  a.Gauge("a", "a", {}).Set({}, 3);
  b.Gauge("a", "a", {}).Set({}, 3);
  b.Counter("z_total", "z", {"k"}).Add({"1"});
  b.Counter("z_total", "z", {"k"}).Add({"2"});
  EXPECT_EQ(a.Expose(), b.Expose());
  EXPECT_LT(a.Expose().find("# TYPE a gauge"), a.Expose().find("# TYPE z_total"));
  EXPECT_LT(a.Expose().find("z_total{k=\"1\"}"), a.Expose().find("z_total{k=\"2\"}"));
}

TEST(MetricsRegistryTest, FamiliesWithoutSeriesAreLeftOutAndTouchShowsZero) {
  MetricsRegistry r;
  MetricFamily& c = r.Counter("errors_total", "Errors", {"controller"});
  EXPECT_EQ(r.Expose(), "");
  c.Touch({"dgljob"});
  EXPECT_EQ(r.Expose(), "# HELP errors_total Errors\n# TYPE errors_total counter\nerrors_total{controller=\"dgljob\"} 0\n");
  c.Clear();
  EXPECT_EQ(r.Expose(), "");
}

TEST(MetricsRegistryTest, RegisteringAgainReturnsTheSameFamilyAndMisuseThrows) {
  MetricsRegistry r;
  MetricFamily& c = r.Counter("x_total", "x", {"a"});
  EXPECT_EQ(&r.Counter("x_total", "x", {"a"}), &c);
  EXPECT_EQ(r.Find("x_total"), &c);
  EXPECT_EQ(r.Find("nope"), nullptr);
  EXPECT_THROW(r.Gauge("x_total", "x", {"a"}), std::logic_error);
  EXPECT_THROW(r.Counter("x_total", "x", {"b"}), std::logic_error);
  EXPECT_THROW(r.Counter("bad-name", "x", {}), std::logic_error);
  EXPECT_THROW(r.Counter("y_total", "y", {"le"}), std::logic_error);
  EXPECT_THROW(r.Histogram("h", "h", {}, {1, 0.5}), std::logic_error);
  EXPECT_THROW(c.Add({"a", "b"}), std::logic_error);
  EXPECT_THROW(c.Add({"a"}, -1), std::logic_error);
  EXPECT_THROW(c.Set({"a"}, 1), std::logic_error);
  EXPECT_THROW(c.Observe({"a"}, 1), std::logic_error);
}

TEST(MetricsRegistryTest, CollectorsRunAtEveryExposeUntilRemoved) {
  MetricsRegistry r;
  MetricFamily& g = r.Gauge("computed", "c", {});
  int calls = 0;
  const int id = r.AddCollector([&] { g.Set({}, ++calls); });
  EXPECT_NE(r.Expose().find("computed 1\n"), std::string::npos);
  EXPECT_NE(r.Expose().find("computed 2\n"), std::string::npos);
  r.RemoveCollector(id);
  EXPECT_NE(r.Expose().find("computed 2\n"), std::string::npos);
  EXPECT_EQ(calls, 2);
}

TEST(WorkQueueMetricsTest, CountsAsClientGoDoes) {
  ManualClock clock;
  MetricsRegistry r;
  WorkQueue queue(&clock);
  WorkQueueMetrics metrics(r, clock, "dgljob");
  queue.SetObserver(&metrics);
  const LabelValues q = {"dgljob", "dgljob"};
  auto value = [&](const char* name, const LabelValues& labels) { return r.Find(name)->Value(labels); };

  queue.Add("ns/a");
  queue.Add("ns/a");  // de-duplicated: not an add
  EXPECT_EQ(value("workqueue_adds_total", q), 1);
  EXPECT_EQ(value("workqueue_depth", {"dgljob", "dgljob", ""}), 1);
  clock.Advance(2 * kSecond);
  ASSERT_EQ(queue.Pop(), "ns/a");
  EXPECT_EQ(value("workqueue_depth", {"dgljob", "dgljob", ""}), 0);
  EXPECT_EQ(r.Find("workqueue_queue_duration_seconds")->Count(q), 1u);
  EXPECT_DOUBLE_EQ(r.Find("workqueue_queue_duration_seconds")->Sum(q), 2.0);
  queue.Add("ns/a");  // while processing: dirty again, an add
  EXPECT_EQ(value("workqueue_adds_total", q), 2);
  clock.Advance(3 * kSecond);
  const std::string scrape = r.Expose();  // the collector computes the in-progress gauges
  EXPECT_NE(scrape.find("workqueue_unfinished_work_seconds{controller=\"dgljob\",name=\"dgljob\"} 3\n"), std::string::npos)
      << scrape;
  EXPECT_NE(scrape.find("workqueue_longest_running_processor_seconds{controller=\"dgljob\",name=\"dgljob\"} 3\n"),
            std::string::npos);
  queue.Done("ns/a");
  EXPECT_DOUBLE_EQ(r.Find("workqueue_work_duration_seconds")->Sum(q), 3.0);
  queue.AddRateLimited("ns/b");
  queue.AddAfter("ns/c", kSecond);
  EXPECT_EQ(value("workqueue_retries_total", q), 2);
  r.Expose();
  EXPECT_EQ(value("workqueue_unfinished_work_seconds", q), 0);
}

TEST(WorkQueueMetricsTest, ANewQueueOfTheSameNameStartsAtDepthZeroAndKeepsCounting) {
  ManualClock clock;
  MetricsRegistry r;
  {
    WorkQueue queue(&clock);
    WorkQueueMetrics metrics(r, clock, "dgljob");
    queue.SetObserver(&metrics);
    queue.Add("ns/a");
    queue.Add("ns/b");
  }
  WorkQueueMetrics again(r, clock, "dgljob");
  EXPECT_EQ(r.Find("workqueue_depth")->Value({"dgljob", "dgljob", ""}), 0);
  EXPECT_EQ(r.Find("workqueue_adds_total")->Value({"dgljob", "dgljob"}), 2);
}

TEST(MeasuredClientTest, CountsRequestsByCodeAndMethodAndTimesThemByVerb) {
  ManualClock clock;
  fakeapi::Store store(fakeapi::StoreOptions{.clock = &clock});
  MetricsRegistry r;
  MeasuredClient client(store, r, clock, "10.96.0.1:443");
  ASSERT_TRUE(client.Create("namespaces", {{"metadata", {{"name", "ns"}}}}, kNoNamespace()).ok());
  ASSERT_TRUE(client.Get("namespaces", "", "ns").ok());
  EXPECT_FALSE(client.Get("namespaces", "", "missing").ok());
  ASSERT_TRUE(client.List("namespaces", {}).ok());
  auto watch = client.Watch("namespaces", {});
  ASSERT_TRUE(watch.ok());
  (*watch)->Stop();
  MetricFamily* requests = r.Find("rest_client_requests_total");
  ASSERT_NE(requests, nullptr);
  EXPECT_EQ(requests->Value({"201", "POST", "10.96.0.1:443"}), 1);
  EXPECT_EQ(requests->Value({"200", "GET", "10.96.0.1:443"}), 3);
  EXPECT_EQ(requests->Value({"404", "GET", "10.96.0.1:443"}), 1);
  EXPECT_EQ(r.Find("rest_client_request_duration_seconds")->Count({"GET", "10.96.0.1:443"}), 4u);
  EXPECT_EQ(HostOfUrl("https://10.96.0.1:443/prefix"), "10.96.0.1:443");
  EXPECT_EQ(HostOfUrl("http://127.0.0.1:8080"), "127.0.0.1:8080");
}

TEST(LeaderStatusTest, IsOneWhileLeadingAndZeroOtherwise) {
  MetricsRegistry r;
  SetLeaderStatus(r, "dgl-operator", false);
  EXPECT_NE(r.Expose().find("leader_election_master_status{name=\"dgl-operator\"} 0\n"), std::string::npos);
  SetLeaderStatus(r, "dgl-operator", true);
  EXPECT_NE(r.Expose().find("leader_election_master_status{name=\"dgl-operator\"} 1\n"), std::string::npos);
}

}  // namespace
}  // namespace kube
