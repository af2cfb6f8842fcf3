#include "sim/harness/report/report_html.h"

#include "operator/api/vocabulary.h"
#include "sim/harness/config/units.h"
#include "sim/harness/report/report.h"
#include "sim/harness/report/report_layout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace harness {

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default:
          if (c >= 0x20 || c == '\n' || c == '\t') out += static_cast<char>(c);
          else out += "\xEF\xBF\xBD";
      }
      ++i;
      continue;
    }
    // A UTF-8 sequence: its length from the lead byte, then continuation bytes (no overlongs,
    // no surrogates, nothing above U+10FFFF).
    std::size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    if (c >= 0xF5) len = 0;
    bool ok = len > 0 && i + len <= text.size();
    for (std::size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (ok && len >= 3) {
      unsigned char c1 = static_cast<unsigned char>(text[i + 1]);
      if (c == 0xE0 && c1 < 0xA0) ok = false;
      if (c == 0xED && c1 >= 0xA0) ok = false;
      if (c == 0xF0 && c1 < 0x90) ok = false;
      if (c == 0xF4 && c1 >= 0x90) ok = false;
    }
    if (ok) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

namespace {

// Geometry of every time chart: the same x scale, so the charts line up under each other.
constexpr int kWidth = 1200;
constexpr int kLabelWidth = 200;
constexpr int kRightMargin = 24;
constexpr int kPlotWidth = kWidth - kLabelWidth - kRightMargin;
constexpr int kAxisHeight = 24;
constexpr std::size_t kAggregatedRows = 100;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  if (s == "-0") s = "0";
  return s;
}

// A time for people: whole seconds from a minute on, tenths below.
std::string Clock(Micros t) {
  Micros unit = t >= 60 * kube::kSecond ? kube::kSecond : t >= kube::kSecond ? kube::kSecond / 10 : kube::kMillisecond;
  return FormatDuration((t + unit / 2) / unit * unit);
}

struct TimeScale {
  Micros end = kube::kSecond;
  double X(Micros t) const {
    double f = static_cast<double>(std::clamp<Micros>(t, 0, end)) / static_cast<double>(end);
    return kLabelWidth + f * kPlotWidth;
  }
};

// Ticks at a readable step: about eight of them over the run.
std::vector<Micros> Ticks(Micros end) {
  static constexpr std::int64_t kSteps[] = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800,
                                            21600, 43200, 86400, 172800, 604800};
  Micros step = kSteps[std::size(kSteps) - 1] * kube::kSecond;
  for (auto s : kSteps)
    if (end / (s * kube::kSecond) <= 8) {
      step = s * kube::kSecond;
      break;
    }
  while (end / step > 12) step *= 2;
  std::vector<Micros> out;
  for (Micros t = 0; t <= end; t += step) out.push_back(t);
  return out;
}

// Vertical grid lines from `top` to `bottom` and tick labels above `top`.
void TimeAxis(std::ostringstream& svg, const TimeScale& scale, int top, int bottom) {
  svg << "<g class=\"axis\">";
  for (Micros t : Ticks(scale.end)) {
    std::string x = Num(scale.X(t));
    svg << "<line x1=\"" << x << "\" y1=\"" << top << "\" x2=\"" << x << "\" y2=\"" << bottom << "\"/>";
    svg << "<text x=\"" << x << "\" y=\"" << (top - 6) << "\" text-anchor=\"middle\">" << FormatDuration(t) << "</text>";
  }
  svg << "</g>";
}

std::string SvgOpen(int height, const char* id, const std::string& label) {
  std::ostringstream out;
  out << "<svg id=\"" << id << "\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << kWidth << " "
      << height << "\" width=\"" << kWidth << "\" height=\"" << height << "\" role=\"img\" aria-label=\""
      << HtmlEscape(label) << "\">";
  return out.str();
}

// Golden-angle hues, starting at violet so that the first job does not look like the Training blue.
int JobHue(std::size_t index) { return static_cast<int>(std::fmod(static_cast<double>(index) * 137.508 + 268.0, 360.0)); }

int RoleLightness(const std::string& role) {
  if (role == dgl::kRoleLauncher) return 32;
  if (role == dgl::kRolePartitioner) return 44;
  if (role == dgl::kRoleWorker) return 56;
  return 68;
}

std::string PodFill(std::optional<std::size_t> job_index, const std::string& role) {
  if (!job_index) return "hsl(0,0%," + std::to_string(RoleLightness(role)) + "%)";
  return "hsl(" + std::to_string(JobHue(*job_index)) + ",62%," + std::to_string(RoleLightness(role)) + "%)";
}

std::string PhaseFill(const std::string& phase) {
  if (phase == dgl::kPhasePending) return "#b8bec7";
  if (phase == dgl::kPhasePartitioning) return "#e0a526";
  if (phase == dgl::kPhasePartitioned) return "#f0cf7a";
  if (phase == dgl::kPhaseTraining) return "#3a7bd5";
  if (phase == dgl::kPhaseRestarting) return "#e8743b";
  if (phase == dgl::kPhaseSuspended) return "#9a8fb8";
  if (phase == dgl::kPhaseSucceeded) return "#2e9d57";
  if (phase == dgl::kPhaseFailed) return "#d0393e";
  return "#8c96a3";
}

std::string Rect(double x, double y, double w, double h, const std::string& fill, const char* cls = nullptr) {
  std::string out = "<rect";
  if (cls) out += std::string(" class=\"") + cls + "\"";
  out += " x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" width=\"" + Num(std::max(w, 1.0)) + "\" height=\"" + Num(h) + "\"";
  if (!fill.empty()) out += " fill=\"" + fill + "\"";
  return out + "/>";
}

// Text clipped to what fits in `width` pixels at ~6.2 px per character (10px sans-serif).
std::optional<std::string> FitLabel(const std::string& text, double width) {
  std::size_t fits = width > 8 ? static_cast<std::size_t>((width - 6) / 6.2) : 0;
  if (fits >= text.size()) return text;
  if (fits >= 4) return text.substr(0, fits - 1) + "\xE2\x80\xA6";
  return std::nullopt;
}

std::string Plural(std::size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

const char* kStyle = R"CSS(
:root { --fg:#1d2430; --muted:#5d6878; --line:#dfe3e8; --bg:#ffffff; --band:#f6f8fa; --pass:#2e9d57; --fail:#d0393e; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 1248px; margin: 0 auto; padding: 24px; }
header h1 { font-size: 22px; margin: 0 0 2px; }
header .desc { color: var(--muted); margin: 0 0 12px; }
.verdict { display: inline-block; padding: 2px 10px; border-radius: 4px; color: #fff; font-weight: 600; font-size: 13px; vertical-align: middle; margin-left: 8px; }
.verdict.pass { background: var(--pass); } .verdict.fail { background: var(--fail); }
dl.meta { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: 6px 18px; margin: 0; padding: 12px 14px; background: var(--band); border-radius: 6px; }
dl.meta div { min-width: 0; } dl.meta dt { color: var(--muted); font-size: 12px; } dl.meta dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
h3 { font-size: 13px; font-weight: 600; color: var(--muted); margin: 14px 0 2px; }
h2 { font-size: 17px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; background: var(--band); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.chip { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; vertical-align: baseline; }
.phase { display: inline-block; padding: 0 6px; border-radius: 3px; color: #fff; font-size: 12px; }
.badge { display: inline-block; min-width: 40px; text-align: center; padding: 0 6px; border-radius: 3px; color: #fff; font-size: 12px; font-weight: 600; }
.badge.pass { background: var(--pass); } .badge.fail { background: var(--fail); }
ul.plain { list-style: none; padding: 0; margin: 0; } ul.plain li { padding: 4px 0; border-bottom: 1px solid var(--line); }
.detail { color: var(--muted); }
.note { color: var(--muted); font-size: 13px; margin: 4px 0 8px; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 12px; color: var(--muted); margin: 4px 0 8px; }
.scroll { overflow-x: auto; }
.tablebox { max-height: 460px; overflow: auto; border-bottom: 1px solid var(--line); }
.tablebox th { position: sticky; top: 0; z-index: 1; }
svg.chart { display: block; max-width: 100%; height: auto; font: 11px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
svg .axis line { stroke: #e6e9ee; stroke-width: 1; } svg .axis text { fill: var(--muted); font-size: 10.5px; }
svg .rowband { fill: var(--band); }
svg .rowlabel { fill: var(--fg); font-size: 11.5px; } svg .rowsub { fill: var(--muted); font-size: 10px; }
svg .barlabel { fill: #fff; font-size: 10px; pointer-events: none; } svg .barlabel.dark { fill: #1d2430; }
svg .wait { opacity: 0.38; }
svg .fault line { stroke: var(--fail); stroke-width: 1; stroke-dasharray: 3 3; } svg .fault path { fill: var(--fail); }
svg .hl rect { stroke: #111; stroke-width: 1.5; }
svg .gpuarea { fill: rgba(58,123,213,0.22); stroke: #3a7bd5; stroke-width: 1.5; }
svg .nodeline { fill: none; stroke: #d62728; stroke-width: 1.5; }
svg .aggarea { fill: #3a7bd5; fill-opacity: 0.85; }
footer { color: var(--muted); font-size: 12px; margin-top: 32px; }
)CSS";

// Hover highlights a job's bars; once laid out, the page writes what it drew to <body>.
const char* kScript = R"JS(
(function () {
  function drawn(selector) {
    var n = 0, all = document.querySelectorAll(selector);
    for (var i = 0; i < all.length; i++) { var r = all[i].getBoundingClientRect(); if (r.width > 0 && r.height > 0) n++; }
    return n;
  }
  function mark() {
    document.body.setAttribute('data-pod-bars', String(drawn('#gantt g.pod')));
    document.body.setAttribute('data-node-rows', String(drawn('#gantt g.node')));
    document.body.setAttribute('data-phase-bars', String(drawn('#phases g.phasebar')));
  }
  document.addEventListener('mouseover', function (e) {
    var g = e.target.closest ? e.target.closest('[data-job]') : null;
    var job = g ? g.getAttribute('data-job') : null;
    document.querySelectorAll('.hl').forEach(function (el) { el.classList.remove('hl'); });
    if (job !== null) document.querySelectorAll('[data-job="' + job + '"]').forEach(function (el) { el.classList.add('hl'); });
  });
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mark); else mark();
})();
)JS";

class Page {
 public:
  Page(const RunRecord& record, const std::vector<ExpectationResult>& results, const HtmlOptions& options)
      : record_(record), results_(results), options_(options) {
    scale_.end = std::max<Micros>(record.end, kube::kSecond);
    for (std::size_t i = 0; i < record.job_order.size(); ++i) job_index_[record.job_order[i]] = i;
    layout_ = LayOutPods(record);
    faults_ = FaultMarks(record);
  }

  std::string Render() {
    out_ << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         << "<title>dglsim: " << HtmlEscape(record_.scenario) << " (seed " << record_.seed << ")</title>\n"
         << "<style>" << kStyle << "</style>\n</head>\n<body>\n<main>\n";
    Header();
    JobsTable();
    Timeline();
    GpuChart();
    if (!record_.pool_nodes.empty()) NodeChart();
    Expectations();
    Violations();
    Faults();
    Notes();
    out_ << "<footer>Times are simulated time from the scenario start. Produced by dglsim run; the same "
            "scenario and seed give the same page.</footer>\n</main>\n<script>"
         << kScript << "</script>\n</body>\n</html>\n";
    return out_.str();
  }

 private:
  std::optional<std::size_t> JobIndex(const std::optional<JobKey>& key) const {
    if (!key) return std::nullopt;
    auto it = job_index_.find(*key);
    if (it == job_index_.end()) return std::nullopt;
    return it->second;
  }

  void Header() {
    bool passed = AllPassed(results_) && record_.invariant_violations.empty();
    out_ << "<header>\n<h1>" << HtmlEscape(record_.scenario.empty() ? "(unnamed scenario)" : record_.scenario)
         << "<span class=\"verdict " << (passed ? "pass\">PASSED" : "fail\">FAILED") << "</span></h1>\n";
    if (!record_.description.empty()) out_ << "<p class=\"desc\">" << HtmlEscape(record_.description) << "</p>\n";
    out_ << "<dl class=\"meta\">";
    auto item = [this](const std::string& name, const std::string& value) {
      out_ << "<div><dt>" << name << "</dt><dd>" << value << "</dd></div>";
    };
    item("seed", std::to_string(record_.seed));
    item("simulated time", HtmlEscape(Clock(record_.end)) + (record_.hit_until ? " (until reached)" : ""));
    item("jobs", std::to_string(record_.job_order.size()));
    item("pods", std::to_string(record_.pods.size()));
    item("nodes / GPUs", std::to_string(record_.nodes) + " / " + std::to_string(record_.gpus));
    std::string utilisation = "-";
    if (record_.gpus > 0 && record_.end > 0)
      utilisation = FormatFixed(100.0 * record_.gpu_seconds / (static_cast<double>(record_.gpus) * MicrosToSeconds(record_.end)), 1) + "%";
    item("GPU utilisation", utilisation);
    item("GPU-hours", FormatFixed(record_.gpu_seconds / 3600.0, 2));
    item("events / API writes", std::to_string(record_.events) + " / " + std::to_string(record_.api_writes));
    item("trace hash", "<code>" + HtmlEscape(record_.trace_hash) + "</code>");
    out_ << "</dl>\n</header>\n";
  }

  void JobsTable() {
    out_ << "<section id=\"jobs\">\n<h2>Jobs</h2>\n";
    if (record_.job_order.empty()) {
      out_ << "<p class=\"note\">No jobs.</p>\n</section>\n";
      return;
    }
    out_ << "<div class=\"" << (record_.job_order.size() > 15 ? "tablebox" : "scroll") << "\"><table>\n<thead><tr><th>Job</th><th>Phase</th><th>Mode</th><th class=\"num\">Submitted</th>"
            "<th class=\"num\">Makespan</th><th>Breakdown</th><th>Peak memory</th><th class=\"num\">GPU-hours</th>"
            "<th class=\"num\">Restarts</th><th class=\"num\">Pods</th></tr></thead>\n<tbody>\n";
    std::size_t shown = std::min(record_.job_order.size(), options_.max_job_rows);
    for (std::size_t i = 0; i < shown; ++i) {
      const JobKey& key = record_.job_order[i];
      const JobRecord& job = record_.jobs.at(key);
      out_ << "<tr><td><span class=\"chip\" style=\"background:" << PodFill(i, dgl::kRoleWorker) << "\"></span>"
           << HtmlEscape(key.ToString());
      if (job.deleted) out_ << " <span class=\"detail\">(deleted)</span>";
      if (!job.dataset.empty()) out_ << "<br><span class=\"detail\">dataset " << HtmlEscape(job.dataset) << "</span>";
      if (!job.submit_error.empty()) out_ << "<br><span class=\"detail\">not created: " << HtmlEscape(job.submit_error) << "</span>";
      out_ << "</td><td>";
      if (job.phase.empty()) out_ << "-";
      else out_ << "<span class=\"phase\" style=\"background:" << PhaseFill(job.phase) << "\">" << HtmlEscape(job.phase) << "</span>";
      out_ << "</td><td>" << HtmlEscape(job.partition_mode.empty() ? "-" : job.partition_mode) << "</td>";
      out_ << "<td class=\"num\">" << (job.submitted ? Clock(*job.submitted) : "-") << "</td>";
      out_ << "<td class=\"num\">" << (job.Makespan() ? Clock(*job.Makespan()) : "-");
      if (auto r = job.MakespanRange()) {
        const std::string span = FormatSpan((*r)[0], (*r)[1], (*r)[2]);
        if (auto open = span.find('('); open != std::string::npos)
          out_ << "<br><span class=\"detail\">" << HtmlEscape(span.substr(open)) << "</span>";
      }
      out_ << "</td>";
      out_ << "<td>" << Breakdown(job) << "</td><td>" << Memory(job) << "</td>";
      out_ << "<td class=\"num\">" << FormatFixed(job.gpu_seconds / 3600.0, 2) << "</td><td class=\"num\">" << job.restarts
           << "</td><td class=\"num\">" << job.pods_created << "</td></tr>\n";
    }
    out_ << "</tbody></table></div>\n";
    if (shown < record_.job_order.size())
      out_ << "<p class=\"note\">" << (record_.job_order.size() - shown) << " more jobs not listed (the first " << shown
           << " by submission are).</p>\n";
    out_ << "</section>\n";
  }

  // Each stage with the models' range where they reported one ("partition 1.60 h (1.20 - 2.10 h)").
  static std::string Breakdown(const JobRecord& job) {
    auto stages = job.Breakdown();
    if (stages.empty()) return "<span class=\"detail\">not reported</span>";
    std::vector<std::string> ordered;
    for (const char* name : kBreakdownStages)
      if (stages.count(name) > 0) ordered.push_back(name);
    for (const auto& [name, t] : stages)
      if (std::find(std::begin(kBreakdownStages), std::end(kBreakdownStages), name) == std::end(kBreakdownStages))
        ordered.push_back(name);
    std::string out;
    for (const std::string& name : ordered) {
      const auto [value, low, high] = job.StageRange(name);
      out += (out.empty() ? "" : " &middot; ") + HtmlEscape(name) + " " + HtmlEscape(FormatSpan(value, low, high));
    }
    return out;
  }

  // Each role's memory peak with its range.
  static std::string Memory(const JobRecord& job) {
    std::string out;
    for (const auto& [role, bytes] : job.peak_memory) {
      auto r = job.PeakRange(role);
      out += (out.empty() ? "" : "<br>") + HtmlEscape(role) + " " + HtmlEscape(FormatBytesRange((*r)[0], (*r)[1], (*r)[2]));
    }
    return out.empty() ? "-" : out;
  }

  void Legend() {
    out_ << "<div class=\"legend\">";
    std::size_t shown = std::min<std::size_t>(record_.job_order.size(), 12);
    for (std::size_t i = 0; i < shown; ++i)
      out_ << "<span><span class=\"chip\" style=\"background:" << PodFill(i, dgl::kRoleWorker) << "\"></span>"
           << HtmlEscape(record_.job_order[i].ToString()) << "</span>";
    if (shown < record_.job_order.size()) out_ << "<span>and " << (record_.job_order.size() - shown) << " more jobs</span>";
    out_ << "<span>shade: <b>launcher</b> dark, <b>partitioner</b> middle, <b>worker</b> light</span>"
         << "<span><span class=\"chip\" style=\"background:#888;opacity:.38\"></span>bound, not started yet</span>"
         << "<span><span class=\"chip\" style=\"background:repeating-linear-gradient(45deg,#d0393e 0 2px,#fff 2px 5px)\">"
            "</span>node down</span>"
         << "<span><span class=\"chip\" style=\"background:#d0393e\"></span>fault</span></div>\n";
  }

  // Red dashed lines and a marker for each fault, from `top` to `bottom`.
  void FaultLines(std::ostringstream& svg, int top, int bottom) {
    for (const auto& f : faults_) {
      std::string x = Num(scale_.X(f.at));
      svg << "<g class=\"fault\"><title>" << HtmlEscape(Clock(f.at) + " " + f.text) << "</title><line x1=\"" << x
          << "\" y1=\"" << top << "\" x2=\"" << x << "\" y2=\"" << bottom << "\"/><path d=\"M" << x << " " << top
          << " l-4 -7 h8 z\"/></g>";
    }
  }

  void Timeline() {
    out_ << "<section id=\"timeline\">\n<h2>Timeline</h2>\n";
    Legend();
    if (!record_.job_order.empty()) out_ << "<h3>Job phases</h3>\n";
    PhaseChart();
    Gantt();
    out_ << "</section>\n";
  }

  void PhaseChart() {
    std::size_t jobs = std::min(record_.job_order.size(), options_.max_phase_rows);
    if (jobs == 0) return;
    // Many jobs get thin rows without text (each bar keeps its tooltip).
    const int kRow = jobs <= 30 ? 22 : 9;
    const bool text = kRow >= 20;
    int top = kAxisHeight + 8;
    int height = top + static_cast<int>(jobs) * kRow + 4;
    std::ostringstream svg;
    svg << SvgOpen(height, "phases", "job phases over time");
    TimeAxis(svg, scale_, top - 4, height);
    for (std::size_t i = 0; i < jobs; ++i) {
      const JobKey& key = record_.job_order[i];
      const JobRecord& job = record_.jobs.at(key);
      int y = top + static_cast<int>(i) * kRow;
      if (i % 2 == 1) svg << Rect(0, y, kWidth, kRow, "", "rowband");
      if (text) {
        auto label = FitLabel(key.ToString(), kLabelWidth - 24).value_or("");
        svg << "<rect x=\"8\" y=\"" << (y + 6) << "\" width=\"10\" height=\"10\" rx=\"2\" fill=\"" << PodFill(i, dgl::kRoleWorker)
            << "\"/><text class=\"rowlabel\" x=\"24\" y=\"" << (y + 15) << "\">" << HtmlEscape(label) << "<title>"
            << HtmlEscape(key.ToString()) << "</title></text>";
      } else if (i % 10 == 0) {
        svg << "<text class=\"rowsub\" x=\"8\" y=\"" << (y + 8) << "\">" << HtmlEscape(FitLabel(key.ToString(), kLabelWidth - 12).value_or(""))
            << "</text>";
      }
      for (const auto& span : PhaseSpans(job, record_.end)) {
        double x1 = scale_.X(span.begin), x2 = scale_.X(span.end);
        std::string tip = key.ToString() + "\n" + span.phase + " at " + Clock(span.begin);
        if (!span.terminal) tip += " for " + Clock(span.end - span.begin);
        svg << "<g class=\"phasebar\" data-job=\"" << i << "\"><title>" << HtmlEscape(tip) << "</title>";
        if (span.terminal) {
          std::string x = Num(x1);
          int r = text ? 7 : 4;
          svg << "<path d=\"M" << x << " " << (y + kRow / 2 - r) << " l" << r << " " << r << " l-" << r << " " << r << " l-" << r
              << " -" << r << " z\" fill=\"" << PhaseFill(span.phase) << "\" stroke=\"#fff\" stroke-width=\"1\"/>";
          if (text && x1 + 90 < kWidth)
            svg << "<text class=\"barlabel dark\" x=\"" << Num(x1 + 10) << "\" y=\"" << (y + 15) << "\">"
                << HtmlEscape(span.phase) << "</text>";
        } else {
          svg << Rect(x1, y + (text ? 4 : 1), x2 - x1, kRow - (text ? 8 : 2), PhaseFill(span.phase));
          if (auto label = FitLabel(span.phase, x2 - x1); label && text)
            svg << "<text class=\"barlabel" << (span.phase == dgl::kPhasePartitioned || span.phase == dgl::kPhasePending ? " dark" : "")
                << "\" x=\"" << Num(x1 + 4) << "\" y=\"" << (y + 15) << "\">" << HtmlEscape(*label) << "</text>";
        }
        svg << "</g>";
      }
    }
    FaultLines(svg, top - 4, height);
    svg << "</svg>";
    out_ << "<div class=\"scroll\">" << svg.str() << "</div>\n";
    if (jobs < record_.job_order.size())
      out_ << "<p class=\"note\">Phases of the first " << jobs << " jobs by submission; "
           << (record_.job_order.size() - jobs) << " more not drawn.</p>\n";
  }

  std::string PodTip(const PodPlacement& p) const {
    const PodRecord& pod = *p.pod;
    std::string tip = pod.ns + "/" + pod.name;
    if (pod.job) tip += "\njob " + pod.job->ToString();
    tip += "\n" + RoleOf(pod) + ", " + Plural(static_cast<std::size_t>(std::max<std::int64_t>(pod.gpus, 0)), "GPU");
    if (!pod.node.empty()) tip += ", on " + pod.node;
    if (pod.bound) tip += "\nbound " + Clock(*pod.bound);
    if (pod.started) tip += ", started " + Clock(*pod.started);
    tip += ", ends " + Clock(p.end);
    if (pod.deleted) tip += "\ndeleted " + Clock(*pod.deleted);
    tip += "\nphase " + (pod.phase.empty() ? std::string("-") : pod.phase);
    for (const auto& c : pod.containers)
      if (c.finished && (c.exit_code != 0 || !c.reason.empty()))
        tip += "\n" + c.name + " exit " + std::to_string(c.exit_code) + (c.reason.empty() ? "" : " " + c.reason);
    return tip;
  }

  void Gantt() {
    std::size_t nodes = layout_.nodes.size();
    bool aggregate = nodes > options_.max_node_rows || record_.pods.size() > options_.max_pod_bars;
    out_ << "<h3>Pods on nodes</h3>\n";
    if (nodes == 0) {
      out_ << "<p class=\"note\">No nodes.</p>\n";
      return;
    }
    if (aggregate) {
      AggregatedGantt();
      return;
    }
    struct Row {
      const NodeRow* node;
      int y;
      int height;
      double lane;
    };
    std::vector<Row> rows;
    int top = kAxisHeight + 10;
    int y = top;
    std::vector<const NodeRow*> all;
    for (const auto& n : layout_.nodes) all.push_back(&n);
    if (!layout_.unscheduled.pods.empty()) all.push_back(&layout_.unscheduled);
    for (const NodeRow* n : all) {
      int lanes = std::max(n->slots, 1);
      double lane = lanes <= 4 ? 18 : std::max(5.0, 72.0 / lanes);
      int height = static_cast<int>(std::ceil(lanes * lane)) + 6;
      rows.push_back({n, y, height, lane});
      y += height;
    }
    int height = y + 4;
    std::ostringstream svg;
    svg << SvgOpen(height, "gantt", "pods on nodes over time");
    svg << "<defs><pattern id=\"down\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
           "patternTransform=\"rotate(45)\"><rect width=\"2.5\" height=\"6\" fill=\"#d0393e\" opacity=\"0.55\"/>"
           "</pattern></defs>";
    TimeAxis(svg, scale_, top - 4, height);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const Row& row = rows[r];
      const NodeRow& node = *row.node;
      bool unscheduled = &node == &layout_.unscheduled;
      svg << "<g class=\"node\">";
      if (r % 2 == 1) svg << Rect(0, row.y, kWidth, row.height, "", "rowband");
      svg << "<line x1=\"0\" y1=\"" << row.y << "\" x2=\"" << kWidth << "\" y2=\"" << row.y << "\" stroke=\"#e6e9ee\"/>";
      auto label = FitLabel(node.name, kLabelWidth - 70).value_or("");
      svg << "<text class=\"rowlabel\" x=\"8\" y=\"" << (row.y + 14) << "\">" << HtmlEscape(label) << "<title>"
          << HtmlEscape(node.name) << "</title></text>";
      std::string sub = unscheduled ? "never bound" : Plural(static_cast<std::size_t>(std::max<std::int64_t>(node.gpus, 0)), "GPU");
      svg << "<text class=\"rowsub\" x=\"" << (kLabelWidth - 8) << "\" y=\"" << (row.y + 14) << "\" text-anchor=\"end\">"
          << sub << "</text>";
      for (const auto& o : node.outages) {
        double x1 = scale_.X(o.down), x2 = scale_.X(o.up.value_or(record_.end));
        svg << "<g><title>" << HtmlEscape(node.name + " down from " + Clock(o.down) +
                                          (o.up ? " to " + Clock(*o.up) : " to the end"))
            << "</title>" << Rect(x1, row.y + 1, x2 - x1, row.height - 2, "url(#down)") << "</g>";
      }
      svg << "</g>";
      for (const auto& p : node.pods) {
        const PodRecord& pod = *p.pod;
        auto job = JobIndex(pod.job);
        std::string fill = PodFill(job, pod.role);
        double x1 = scale_.X(p.begin), x2 = std::max(scale_.X(p.end), x1 + 1);
        double by = row.y + 3 + p.slot * row.lane, bh = std::max(row.lane - 2, 2.0);
        svg << "<g class=\"pod\"";
        if (job) svg << " data-job=\"" << *job << "\"";
        svg << "><title>" << HtmlEscape(PodTip(p)) << "</title>";
        double run_from = x1;
        if (!unscheduled && pod.started && *pod.started > p.begin) run_from = std::min(scale_.X(*pod.started), x2);
        if (unscheduled) {
          svg << Rect(x1, by, x2 - x1, bh, fill, "wait");
        } else {
          if (run_from > x1) svg << Rect(x1, by, run_from - x1, bh, fill, "wait");
          if (x2 > run_from || run_from == x1) svg << Rect(run_from, by, x2 - run_from, bh, fill);
        }
        if (bh >= 11)
          if (auto text = FitLabel(ShortPodName(pod), x2 - x1))
            svg << "<text class=\"barlabel" << (unscheduled || RoleLightness(pod.role) > 60 ? " dark" : "") << "\" x=\""
                << Num(x1 + 3) << "\" y=\"" << Num(by + bh / 2 + 3.5) << "\">" << HtmlEscape(*text) << "</text>";
        svg << "</g>";
      }
    }
    FaultLines(svg, top - 4, height);
    svg << "</svg>";
    out_ << "<div class=\"scroll\">" << svg.str() << "</div>\n";
  }

  // Groups of nodes, each row the share of its GPUs in use over time (pods running, when the
  // group has no GPUs).
  void AggregatedGantt() {
    const auto& nodes = layout_.nodes;
    std::size_t group = (nodes.size() + kAggregatedRows - 1) / kAggregatedRows;
    if (nodes.size() <= options_.max_node_rows) group = 1;
    std::size_t rows = (nodes.size() + group - 1) / group;
    out_ << "<p class=\"note\">" << record_.pods.size() << " pods on " << nodes.size()
         << " nodes: too many to draw one by one, so each row is ";
    if (group > 1) out_ << "a group of " << group << " nodes (in name order) and shows the share of its GPUs in use";
    else out_ << "a node and shows the share of its GPUs in use";
    out_ << " over time. The Chrome trace (<code>--trace</code>) has every pod.</p>\n";
    constexpr int kRow = 14;
    int top = kAxisHeight + 10;
    int height = top + static_cast<int>(rows) * kRow + 4;
    std::ostringstream svg;
    svg << SvgOpen(height, "gantt", "GPUs in use per group of nodes over time");
    TimeAxis(svg, scale_, top - 4, height);
    for (std::size_t r = 0; r < rows; ++r) {
      std::size_t first = r * group, last = std::min(nodes.size(), first + group) - 1;
      int y = top + static_cast<int>(r) * kRow;
      std::int64_t capacity = 0;
      std::map<Micros, std::int64_t> delta;
      std::size_t outages = 0;
      for (std::size_t i = first; i <= last; ++i) {
        capacity += nodes[i].gpus;
        outages += nodes[i].outages.size();
      }
      bool by_gpu = capacity > 0;
      for (std::size_t i = first; i <= last; ++i)
        for (const auto& p : nodes[i].pods) {
          const PodRecord& pod = *p.pod;
          if (by_gpu) {
            if (pod.gpus <= 0 || !pod.started || p.end <= *pod.started) continue;
            delta[*pod.started] += pod.gpus;
            delta[p.end] -= pod.gpus;
          } else if (p.end > p.begin) {
            delta[p.begin] += 1;
            delta[p.end] -= 1;
          }
        }
      std::int64_t level = 0, peak = 0;
      std::vector<std::pair<Micros, std::int64_t>> steps{{0, 0}};
      for (const auto& [t, d] : delta) {
        level += d;
        peak = std::max(peak, level);
        steps.emplace_back(t, level);
      }
      double full = static_cast<double>(by_gpu ? capacity : std::max<std::int64_t>(peak, 1));
      std::string name = group == 1 ? nodes[first].name : nodes[first].name + " \xE2\x80\xA6 " + nodes[last].name;
      svg << "<g class=\"node\">";
      if (r % 2 == 1) svg << Rect(0, y, kWidth, kRow, "", "rowband");
      svg << "<title>" << HtmlEscape(name) << ": " << Plural(last - first + 1, "node") << ", "
          << (by_gpu ? Plural(static_cast<std::size_t>(capacity), "GPU") + ", at most " + std::to_string(peak) + " in use"
                     : "no GPUs, at most " + std::to_string(peak) + " pods at once")
          << (outages ? ", " + Plural(outages, "outage") : "") << "</title>";
      svg << "<text class=\"rowsub\" x=\"8\" y=\"" << (y + 11) << "\">" << HtmlEscape(FitLabel(name, kLabelWidth - 12).value_or(""))
          << "</text>";
      // A step area; steps closer than a pixel keep the last level.
      std::string path = "M" + Num(kLabelWidth) + " " + std::to_string(y + kRow);
      double last_x = kLabelWidth;
      double last_y = y + kRow;
      for (const auto& [t, v] : steps) {
        double x = std::round(scale_.X(t) * 2) / 2, yy = y + kRow - (kRow - 2) * static_cast<double>(v) / full;
        if (x != last_x) path += " H" + Num(x);
        if (yy != last_y) path += " V" + Num(yy);
        last_x = x;
        last_y = yy;
      }
      path += " H" + Num(scale_.X(record_.end)) + " V" + std::to_string(y + kRow) + " Z";
      svg << "<path class=\"aggarea\" d=\"" << path << "\"/>";
      for (std::size_t i = first; i <= last; ++i)
        for (const auto& o : nodes[i].outages) {
          double x1 = scale_.X(o.down), x2 = scale_.X(o.up.value_or(record_.end));
          svg << Rect(x1, y + 1, x2 - x1, 3, "#d0393e");
        }
      svg << "</g>";
    }
    FaultLines(svg, top - 4, height);
    svg << "</svg>";
    out_ << "<div class=\"scroll\">" << svg.str() << "</div>\n";
  }

  // The Ready nodes over time (fixed and pool nodes), one step per node Ready or gone.
  std::vector<std::pair<Micros, int>> NodesOverTime() const {
    std::vector<std::pair<Micros, int>> deltas;
    for (const auto& node : record_.pool_nodes) {
      if (!node.ready) continue;
      deltas.emplace_back(*node.ready, 1);
      if (node.gone) deltas.emplace_back(*node.gone, -1);
    }
    std::sort(deltas.begin(), deltas.end());
    std::vector<std::pair<Micros, int>> steps = {{0, record_.fixed_nodes}};
    int n = record_.fixed_nodes;
    for (const auto& [at, delta] : deltas) {
      n += delta;
      if (steps.back().first == at) steps.back().second = n;
      else steps.emplace_back(at, n);
    }
    return steps;
  }

  // Node pools: the node count over time, on the GPU chart's time axis.
  void NodeChart() {
    out_ << "<section id=\"nodes\">\n<h2>Nodes over time</h2>\n";
    const auto steps = NodesOverTime();
    int peak = 1;
    for (const auto& [at, n] : steps) peak = std::max(peak, n);
    constexpr int kPlotHeight = 120;
    int top = kAxisHeight + 8, bottom = top + kPlotHeight, height = bottom + 8;
    auto y_of = [&](int v) { return bottom - kPlotHeight * static_cast<double>(v) / peak; };
    std::ostringstream svg;
    svg << SvgOpen(height, "nodechart", "Ready nodes over time");
    TimeAxis(svg, scale_, top - 4, bottom);
    svg << "<g class=\"axis\">";
    for (int v : {0, peak / 2, peak}) {
      svg << "<line x1=\"" << kLabelWidth << "\" y1=\"" << Num(y_of(v)) << "\" x2=\"" << (kWidth - kRightMargin) << "\" y2=\""
          << Num(y_of(v)) << "\"/><text x=\"" << (kLabelWidth - 8) << "\" y=\"" << Num(y_of(v) + 3.5) << "\" text-anchor=\"end\">" << v
          << " nodes</text>";
    }
    svg << "</g>";
    std::string path = "M" + Num(kLabelWidth) + " " + Num(y_of(steps.front().second));
    for (const auto& [at, n] : steps) path += " H" + Num(std::round(scale_.X(at) * 2) / 2) + " V" + Num(y_of(n));
    path += " H" + Num(scale_.X(record_.end));
    svg << "<path class=\"nodeline\" d=\"" << path << "\"><title>Ready nodes; at most " << peak << "</title></path>";
    FaultLines(svg, top - 4, bottom);
    svg << "</svg>";
    int interrupted = 0;
    for (const auto& node : record_.pool_nodes) interrupted += node.interrupted ? 1 : 0;
    out_ << "<div class=\"scroll\">" << svg.str() << "</div>\n";
    out_ << "<p class=\"note\">At most " << peak << " nodes Ready at once (" << record_.fixed_nodes << " fixed); "
         << record_.pool_nodes.size() << " pool node(s) requested, " << interrupted << " interrupted.</p>\n</section>\n";
  }

  void GpuChart() {
    out_ << "<section id=\"gpu\">\n<h2>GPUs in use</h2>\n";
    std::int64_t most_gpus = record_.gpus;  // with node pools: the most the cluster had at once
    if (!record_.pool_nodes.empty()) {
      std::vector<std::pair<Micros, std::int64_t>> deltas;
      for (const auto& node : record_.pool_nodes) {
        if (!node.ready) continue;
        deltas.emplace_back(*node.ready, node.gpus);
        if (node.gone) deltas.emplace_back(*node.gone, -node.gpus);
      }
      std::sort(deltas.begin(), deltas.end());
      std::int64_t gpus = record_.fixed_gpus;
      most_gpus = gpus;
      for (const auto& [at, delta] : deltas) most_gpus = std::max(most_gpus, gpus += delta);
    }
    if (most_gpus <= 0) {
      out_ << "<p class=\"note\">The cluster has no GPUs.</p>\n</section>\n";
      return;
    }
    constexpr int kPlotHeight = 160;
    int top = kAxisHeight + 8, bottom = top + kPlotHeight, height = bottom + 8;
    double full = static_cast<double>(most_gpus);
    auto y_of = [&](std::int64_t v) { return bottom - kPlotHeight * std::min(1.0, static_cast<double>(v) / full); };
    std::ostringstream svg;
    svg << SvgOpen(height, "gpuchart", "GPUs in use over time");
    TimeAxis(svg, scale_, top - 4, bottom);
    svg << "<g class=\"axis\">";
    for (int pct : {0, 25, 50, 75, 100}) {
      double yy = bottom - kPlotHeight * pct / 100.0;
      svg << "<line x1=\"" << kLabelWidth << "\" y1=\"" << Num(yy) << "\" x2=\"" << (kWidth - kRightMargin) << "\" y2=\""
          << Num(yy) << "\"/><text x=\"" << (kLabelWidth - 8) << "\" y=\"" << Num(yy + 3.5) << "\" text-anchor=\"end\">"
          << pct << "% (" << FormatFixed(full * pct / 100.0, full * pct / 100.0 == std::floor(full * pct / 100.0) ? 0 : 1)
          << ")</text>";
    }
    svg << "</g>";
    std::string path = "M" + Num(kLabelWidth) + " " + Num(bottom);
    double last_x = kLabelWidth, last_y = bottom;
    std::int64_t peak = 0;
    for (const auto& step : record_.gpus_in_use) {
      double x = std::round(scale_.X(step.at) * 2) / 2, yy = y_of(step.in_use);
      peak = std::max(peak, step.in_use);
      if (x != last_x) path += " H" + Num(x);
      if (yy != last_y) path += " V" + Num(yy);
      last_x = x;
      last_y = yy;
    }
    path += " H" + Num(scale_.X(record_.end)) + " V" + Num(bottom) + " Z";
    svg << "<path class=\"gpuarea\" d=\"" << path << "\"><title>GPUs in use (of " << most_gpus << "); at most " << peak
        << "</title></path>";
    FaultLines(svg, top - 4, bottom);
    svg << "</svg>";
    out_ << "<div class=\"scroll\">" << svg.str() << "</div>\n";
    out_ << "<p class=\"note\">At most " << peak << " of " << most_gpus << " GPUs in use at once; "
         << FormatFixed(record_.gpu_seconds / 3600.0, 2) << " GPU-hours in all.</p>\n</section>\n";
  }

  void Expectations() {
    out_ << "<section id=\"expectations\">\n<h2>Expectations</h2>\n";
    if (results_.empty()) {
      out_ << "<p class=\"note\">The scenario states none.</p>\n</section>\n";
      return;
    }
    std::size_t passed = 0;
    for (const auto& r : results_) passed += r.passed ? 1 : 0;
    out_ << "<p class=\"note\">" << passed << " of " << results_.size() << " passed.</p>\n<ul class=\"plain\">\n";
    for (const auto& r : results_) {
      out_ << "<li><span class=\"badge " << (r.passed ? "pass\">PASS" : "fail\">FAIL") << "</span> "
           << HtmlEscape(r.text);
      if (!r.detail.empty()) out_ << " <span class=\"detail\">&mdash; " << HtmlEscape(r.detail) << "</span>";
      out_ << "</li>\n";
    }
    out_ << "</ul>\n</section>\n";
  }

  void Violations() {
    out_ << "<section id=\"invariants\">\n<h2>Invariant violations</h2>\n";
    if (record_.invariant_violations.empty()) {
      std::int64_t checks = 0;
      for (const auto& [name, n] : record_.invariant_checks) checks += n;
      out_ << "<p class=\"note\">None (" << checks << " checks).</p>\n</section>\n";
      return;
    }
    out_ << "<table><thead><tr><th class=\"num\">At</th><th>Invariant</th><th>Detail</th></tr></thead><tbody>\n";
    for (const auto& v : record_.invariant_violations)
      out_ << "<tr><td class=\"num\">" << Clock(v.at) << "</td><td>" << HtmlEscape(v.name) << "</td><td>"
           << HtmlEscape(v.detail) << "</td></tr>\n";
    out_ << "</tbody></table>\n</section>\n";
  }

  void Faults() {
    out_ << "<section id=\"faults\">\n<h2>Faults applied</h2>\n";
    if (faults_.empty()) {
      out_ << "<p class=\"note\">None.</p>\n</section>\n";
      return;
    }
    out_ << "<table><thead><tr><th class=\"num\">At</th><th>Fault</th></tr></thead><tbody>\n";
    for (const auto& f : faults_)
      out_ << "<tr><td class=\"num\">" << Clock(f.at) << "</td><td>" << HtmlEscape(f.text) << "</td></tr>\n";
    out_ << "</tbody></table>\n</section>\n";
  }

  void Notes() {
    if (record_.notes.empty()) return;
    out_ << "<section id=\"notes\">\n<h2>Notes</h2>\n<ul class=\"plain\">\n";
    constexpr std::size_t kMaxNotes = 200;
    std::size_t shown = std::min(record_.notes.size(), kMaxNotes);
    for (std::size_t i = 0; i < shown; ++i) out_ << "<li>" << HtmlEscape(record_.notes[i]) << "</li>\n";
    out_ << "</ul>\n";
    if (shown < record_.notes.size())
      out_ << "<p class=\"note\">" << (record_.notes.size() - shown) << " more notes (the summary and the JSON report have "
           << "them all).</p>\n";
    out_ << "</section>\n";
  }

  const RunRecord& record_;
  const std::vector<ExpectationResult>& results_;
  const HtmlOptions& options_;
  TimeScale scale_;
  std::map<JobKey, std::size_t> job_index_;
  PodLayout layout_;
  std::vector<FaultMark> faults_;
  std::ostringstream out_;
};

}  // namespace

std::string HtmlReport(const RunRecord& record, const std::vector<ExpectationResult>& results, const HtmlOptions& options) {
  return Page(record, results, options).Render();
}

}  // namespace harness
