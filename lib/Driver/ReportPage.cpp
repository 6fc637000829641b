//===- ReportPage.cpp - The precision report as a page -----------*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The page is self-contained and opens offline: CSS, the graph's data and
// dagre (Debian's node-dagre-layout, MIT; embedded at build time) are
// inline, and nothing is fetched. Everything but the graph is static HTML
// and SVG written here; a short script lays the graph out with dagre and
// draws it. A script error is written into the page (#page-errors) as well
// as to the console, so a headless browser sees it either way.
//
//===----------------------------------------------------------------------===//

#include "lib/Driver/ReportPage.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using llvm::StringRef;
namespace json = llvm::json;

namespace mlir::dsmp {

namespace {

/// dagre.min.js, as bytes (lib/Driver/CMakeLists.txt writes the list).
const char kDagreJs[] = {
#include "lib/Driver/DagreJs.inc"
    0};

std::string escape(StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

struct FormatStyle {
  StringRef format, color, meaning;
};
const FormatStyle kFormats[] = {
    {"f32", "#868e96", "IEEE single precision: the reference"},
    {"tf32", "#e8590c",
     "TensorFloat-32: a contraction's operands rounded to 10 mantissa bits, "
     "f32 accumulation"},
    {"f16", "#2b8a3e", "IEEE half precision: 10 mantissa bits, max 65504"},
    {"bf16", "#1971c2", "bfloat16: 7 mantissa bits, f32's range"},
    {"f8", "#9c36b5",
     "8-bit floats (E4M3/E5M2) with one scale per tensor, contractions only"},
};

StringRef colorOf(StringRef format) {
  for (const FormatStyle &style : kFormats)
    if (format.starts_with(style.format))
      return style.color;
  return kFormats[0].color;
}

/// Each reason code of `dsmp.reason` with what it means (the legend).
struct Reason {
  StringRef code, meaning;
};
const Reason kReasons[] = {
    {"sensitivity",
     "the fastest format the target offers whose rounding fits the budget, "
     "ranked by FLOPs saved per unit of error"},
    {"budget_fallback",
     "a faster format did not fit what was left of the budget; a cheaper "
     "one did"},
    {"budget", "no lower format fitted what was left of the error budget"},
    {"weight_storage",
     "a constant table that data movement reads, stored in 16 bits with "
     "what was left of the budget"},
    {"data_movement",
     "moves or selects data without arithmetic: follows its input's format"},
    {"policy",
     "an op type kept f32 by default (reductions, normalizations, Sqrt, "
     "...; --allow-ops/--deny-ops)"},
    {"sensitive_layer", "its name matches --sensitive-layers"},
    {"overflow", "its calibrated values overflow every lower format"},
    {"underflow",
     "its values are so small that f16 holds them as subnormals (a target "
     "without bf16), or an f8 scale would flush too many of them to zero"},
    {"flushed_divisor",
     "it divides by (or takes the log of) values that are non-zero in FP32 "
     "but round to zero in every lower format"},
    {"target", "the target offers no lower format for this kind of op"},
    {"discrete_use",
     "feeds only integer uses (indices, masks, buckets): rounding could "
     "flip them and no gradient measures that"},
    {"no_sensitivity",
     "no analysis measured it (a branch no calibration input takes): kept "
     "f32 to be safe"},
    {"validation",
     "raised to f32 after a validation round measured more error than "
     "predicted"},
    {"bisection",
     "a round measured far more error than predicted, and raising halves "
     "of the 16-bit ops to f32 in turn found the error in this op"},
};

std::string percent(double fraction) {
  double p = 100 * fraction;
  if (p == 0)
    return "0 %";
  double magnitude = std::fabs(p);
  int decimals = magnitude >= 10     ? 1
                 : magnitude >= 1    ? 2
                 : magnitude >= 0.01 ? 3
                                     : 5;
  return llvm::formatv("{0} %", llvm::format("%.*f", decimals, p)).str();
}

std::string scientific(double value) {
  return llvm::formatv("{0}", llvm::format("%.3g", value)).str();
}

std::string megabytes(double bytes) {
  if (bytes >= 1e6)
    return llvm::formatv("{0} MB", llvm::format("%.2f", bytes / 1e6)).str();
  return llvm::formatv("{0} kB", llvm::format("%.1f", bytes / 1e3)).str();
}

std::string change(double before, double after) {
  if (before <= 0)
    return "";
  double ratio = after / before - 1;
  return (ratio <= 0 ? " (" : " (+") + percent(ratio) + ")";
}

std::string seconds(double s) {
  return llvm::formatv("{0} s", llvm::format("%.2f", s)).str();
}

double numberIn(const json::Object *object, StringRef key) {
  return object ? object->getNumber(key).value_or(0) : 0;
}

StringRef stringIn(const json::Object *object, StringRef key) {
  return object ? object->getString(key).value_or("") : "";
}

/// The axis of a chart: a horizontal line with ticks and labels.
void writeAxis(llvm::raw_ostream &os, int x0, int x1, int y,
               llvm::ArrayRef<std::pair<double, std::string>> ticks, double lo,
               double hi, StringRef title, bool logScale) {
  os << "<line x1=\"" << x0 << "\" y1=\"" << y << "\" x2=\"" << x1 << "\" y2=\""
     << y << "\" stroke=\"#495057\"/>";
  for (auto &[value, label] : ticks) {
    double t = logScale ? (std::log10(value) - lo) / (hi - lo)
                        : (value - lo) / (hi - lo);
    int x = x0 + static_cast<int>(t * (x1 - x0));
    os << "<line x1=\"" << x << "\" y1=\"" << y << "\" x2=\"" << x << "\" y2=\""
       << y + 5 << "\" stroke=\"#495057\"/><text x=\"" << x << "\" y=\""
       << y + 17 << "\" text-anchor=\"middle\" class=\"tick\">" << escape(label)
       << "</text>";
  }
  os << "<text x=\"" << (x0 + x1) / 2 << "\" y=\"" << y + 33
     << "\" text-anchor=\"middle\" class=\"axis-title\">" << escape(title)
     << "</text>";
}

void writeStyle(llvm::raw_ostream &os) {
  os << "<style>"
        "body{font-family:system-ui,sans-serif;margin:1.5em 2em;color:#212529;"
        "max-width:1200px}"
        "h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.15em;"
        "margin-top:1.6em;border-bottom:1px solid #dee2e6}"
        "table{border-collapse:collapse}td,th{padding:3px 10px;"
        "border-bottom:1px solid #e9ecef;text-align:left;font-size:13px;"
        "vertical-align:top}th{font-weight:600}"
        "td.num{text-align:right;font-variant-numeric:tabular-nums}"
        ".cards{display:flex;flex-wrap:wrap;gap:12px}"
        ".card{border:1px solid #dee2e6;border-radius:6px;padding:8px 14px;"
        "min-width:150px}.card b{display:block;font-size:1.3em}"
        ".card span{font-size:12px;color:#495057}"
        ".met{color:#2b8a3e}.missed{color:#c92a2a}"
        ".swatch{display:inline-block;width:12px;height:12px;"
        "border-radius:2px;margin-right:6px;vertical-align:-1px}"
        ".tick{font-size:11px;fill:#495057}.axis-title{font-size:12px;"
        "fill:#212529}.bar-label{font-size:12px}"
        "#graph-canvas{overflow:auto;max-height:85vh;border:1px solid "
        "#dee2e6;border-radius:6px}"
        "#graph-canvas text{font-size:11px}"
        ".note{color:#495057;font-size:13px}"
        "code{font-size:12px}"
        "</style>";
}

void writeSummary(const json::Object *summary, const json::Object &report,
                  llvm::raw_ostream &os) {
  StringRef target = stringIn(summary, "target");
  StringRef cpu = stringIn(summary, "artifact_cpu");
  bool met = summary && summary->getBoolean("met").value_or(false);
  double tolerance = numberIn(summary, "tolerance");
  bool maxAbs = stringIn(summary, "error_metric") == "max-abs";
  os << "<section id=\"summary\"><h2>Summary</h2><p>Formats for <b>"
     << escape(target)
     << "</b> within a budget of &tau; = " << scientific(tolerance)
     << (maxAbs ? " (the largest absolute error of any output element)"
                : " (relative L2 error of each output)")
     << ": <b class=\"" << (met ? "met\">met" : "missed\">NOT met")
     << "</b>.</p>";
  if (!cpu.empty() && cpu != target)
    os << "<p class=\"note\">This artifact runs on " << escape(cpu)
       << " and emulates " << escape(target)
       << "'s formats in software, exactly: its results are the target's, "
          "but on "
       << escape(cpu)
       << " it runs several times slower than FP32 (every rounding is "
          "extra work there). The speed-up shows on the target itself.</p>";
  auto card = [&](StringRef title, const std::string &value,
                  const std::string &detail) {
    os << "<div class=\"card\"><span>" << escape(title) << "</span><b>"
       << escape(value) << "</b><span>" << escape(detail) << "</span></div>";
  };
  os << "<div class=\"cards\">";
  std::string formats;
  if (const json::Object *share =
          summary ? summary->getObject("flop_share") : nullptr)
    for (const auto &[format, value] : *share)
      formats += (formats.empty() ? "" : ", ") + format.str() + " " +
                 percent(value.getAsNumber().value_or(0));
  card("FLOPs in 16 or 8 bits",
       percent(numberIn(summary, "low_precision_flop_share")), formats);
  card("measured error", scientific(numberIn(summary, "measured_error")),
       percent(tolerance > 0 ? numberIn(summary, "measured_error") / tolerance
                             : 0) +
           " of the budget (predicted " +
           scientific(numberIn(summary, "predicted_error")) + ")" +
           (summary && summary->getNumber("artifact_measured_error")
                ? "; the artifact " +
                      scientific(numberIn(summary, "artifact_measured_error"))
                : std::string()));
  double wBefore = numberIn(summary, "weight_bytes_before");
  double wAfter = numberIn(summary, "weight_bytes_after");
  card("weights", megabytes(wAfter),
       "FP32: " + megabytes(wBefore) + change(wBefore, wAfter));
  double aBefore = numberIn(summary, "activation_bytes_before");
  double aAfter = numberIn(summary, "activation_bytes_after");
  card("peak activations", megabytes(aAfter),
       "FP32: " + megabytes(aBefore) + change(aBefore, aAfter));
  card("validation rounds",
       std::to_string(static_cast<int64_t>(numberIn(summary, "rounds"))),
       summary && summary->getBoolean("last_resort").value_or(false)
           ? "the last resort kept every op the budget could move in f32"
           : "assign, then measure on held-out inputs");
  card("time", seconds(numberIn(summary, "total_seconds")),
       "import " + seconds(numberIn(summary, "import_seconds")) +
           ", analysis " + seconds(numberIn(summary, "analysis_seconds")));
  os << "</div>";
  // What a reader should know before trusting the numbers.
  std::vector<std::string> notes;
  if (int64_t n =
          static_cast<int64_t>(numberIn(summary, "ops_without_sensitivity")))
    notes.push_back(std::to_string(n) +
                    " ops were not measured by any analysis and stay f32 "
                    "(reason no_sensitivity).");
  if (summary)
    for (StringRef key : {"adjoint_stopped_at", "adjoint_estimated_at"})
      if (const json::Array *names = summary->getArray(key);
          names && !names->empty())
        notes.push_back(
            std::to_string(names->size()) +
            (key == "adjoint_stopped_at"
                 ? " ops stopped the gradient (their inputs' sensitivity is "
                   "not measured through them)."
                 : " ops have no gradient model; a forward estimate (one "
                   "extra run on rounded inputs) crossed them."));
  if (const json::Array *zero =
          summary ? summary->getArray("outputs_zero_on_calibration") : nullptr;
      zero && !zero->empty())
    notes.push_back("Outputs zero on every calibration input (their relative "
                    "error uses the error floor): " +
                    std::to_string(zero->size()) + ".");
  if (const json::Array *nonFinite = report.getArray("non_finite");
      nonFinite && !nonFinite->empty())
    notes.push_back(std::to_string(nonFinite->size()) +
                    " numbers are not finite; the JSON has null there and "
                    "lists them in non_finite.");
  if (!notes.empty()) {
    os << "<ul class=\"note\">";
    for (const std::string &note : notes)
      os << "<li>" << escape(note) << "</li>";
    os << "</ul>";
  }
  os << "</section>\n";
}

void writeBudget(const json::Object *summary, llvm::raw_ostream &os) {
  double tolerance = numberIn(summary, "tolerance");
  os << "<section id=\"budget\"><h2>Error budget</h2><p class=\"note\">The "
        "predicted error (from the sensitivities, before validation) and the "
        "error measured on held-out inputs, against &tau;.</p>";
  if (tolerance <= 0) {
    os << "</section>\n";
    return;
  }
  const int x0 = 120, x1 = 560, width = 820;
  double hi = 1.25;
  for (StringRef key : {"predicted_error", "measured_error"})
    hi = std::max(hi, std::min(numberIn(summary, key) / tolerance, 3.0));
  os << "<svg width=\"" << width << "\" height=\"110\">";
  int y = 8;
  for (auto [key, label] :
       {std::pair<StringRef, StringRef>{"predicted_error", "predicted"},
        {"measured_error", "measured"}}) {
    double value = numberIn(summary, key);
    double used = value / tolerance;
    int length = static_cast<int>(std::min(used, hi) / hi * (x1 - x0));
    os << "<text x=\"0\" y=\"" << y + 15 << "\" class=\"bar-label\">" << label
       << "</text><rect x=\"" << x0 << "\" y=\"" << y << "\" width=\""
       << std::max(length, 1) << "\" height=\"20\" fill=\""
       << (used <= 1 ? "#2b8a3e" : "#c92a2a") << "\"/><text x=\""
       << x0 + length + 6 << "\" y=\"" << y + 15 << "\" class=\"bar-label\">"
       << scientific(value) << " (" << percent(used) << " of &tau;"
       << (used > hi ? ", off the axis" : "") << ")</text>";
    y += 28;
  }
  int tau = x0 + static_cast<int>(1 / hi * (x1 - x0));
  os << "<line x1=\"" << tau << "\" y1=\"2\" x2=\"" << tau << "\" y2=\"" << y
     << "\" stroke=\"#212529\" stroke-dasharray=\"4\"/>";
  std::vector<std::pair<double, std::string>> ticks;
  for (double t = 0; t <= hi + 1e-9; t += hi > 2 ? 0.5 : 0.25)
    ticks.push_back({t, t == 1 ? std::string("\u03c4") : percent(t)});
  writeAxis(os, x0, x1, y + 2, ticks, 0, hi, "share of the budget \u03c4",
            false);
  os << "</svg></section>\n";
}

void writeRounds(const json::Object &report, const json::Object *summary,
                 llvm::raw_ostream &os) {
  double tolerance = numberIn(summary, "tolerance");
  os << "<section id=\"rounds\"><h2>Rounds</h2><p class=\"note\">Each round "
        "assigns formats with a margin (the share of &tau; the prediction may "
        "use) and measures the result; a round that misses &tau; raises its "
        "largest contributors to f32, one that meets it with room widens the "
        "margin. A round that misses far beyond the prediction starts a "
        "bisection: runs that raise halves of the 16-bit ops to find the ones "
        "that carry the error. The last round that met &tau; is "
        "kept.</p><table><tr><th>"
        "round</th><th>margin</th><th>predicted</th><th>measured</th><th>"
        "of &tau;</th><th>ops raised to f32</th><th>outcome</th></tr>";
  const json::Array *attempts = report.getArray("attempts");
  // The round kept: the last whose measurement is the summary's.
  size_t kept = attempts ? attempts->size() : 0;
  for (size_t i = 0; attempts && i < attempts->size(); ++i)
    if (numberIn((*attempts)[i].getAsObject(), "measured_error") ==
        numberIn(summary, "measured_error"))
      kept = i;
  if (attempts)
    for (auto [i, value] : llvm::enumerate(*attempts)) {
      const json::Object *a = value.getAsObject();
      double measured = numberIn(a, "measured_error");
      os << "<tr><td class=\"num\">" << i + 1 << "</td><td class=\"num\">"
         << scientific(numberIn(a, "margin")) << "</td><td class=\"num\">"
         << scientific(numberIn(a, "predicted_error"))
         << "</td><td class=\"num\">" << scientific(measured)
         << "</td><td class=\"num\">"
         << (tolerance > 0 ? percent(measured / tolerance) : "")
         << "</td><td class=\"num\">"
         << static_cast<int64_t>(numberIn(a, "raised_to_f32")) << "</td><td>"
         << (tolerance > 0 && measured > tolerance ? "missed &tau;"
                                                   : "met &tau;")
         << (a && a->getBoolean("last_resort").value_or(false) ? ", last resort"
                                                               : "")
         << (a && a->getBoolean("bisection").value_or(false) ? ", bisection run"
                                                             : "")
         << (i == kept ? ", <b>kept</b>" : "") << "</td></tr>";
    }
  os << "</table></section>\n";
}

void writeOutputs(const json::Object *summary, llvm::raw_ostream &os) {
  double tolerance = numberIn(summary, "tolerance");
  const json::Object *measured =
      summary ? summary->getObject("measured_error_per_output") : nullptr;
  const json::Object *floors =
      summary ? summary->getObject("error_floor") : nullptr;
  const json::Object *stored =
      summary ? summary->getObject("error_vs_stored_outputs") : nullptr;
  os << "<section id=\"outputs\"><h2>Outputs</h2><p class=\"note\">Each "
        "output's error in the chosen formats against FP32 on the validation "
        "inputs (the worst input)"
     << (stored ? ", and against the outputs stored with them" : "")
     << ".</p><table><tr><th>output</th><th>error</th><th>of &tau;</th><th>"
        "error floor</th>"
     << (stored ? "<th>against stored outputs</th>" : "") << "</tr>";
  if (measured)
    for (const auto &[name, value] : *measured) {
      double error = value.getAsNumber().value_or(0);
      os << "<tr><td>" << escape(name.str()) << "</td><td class=\"num\">"
         << scientific(error) << "</td><td class=\"num\">"
         << (tolerance > 0 ? percent(error / tolerance) : "")
         << "</td><td class=\"num\">"
         << (floors && floors->getNumber(name)
                 ? scientific(*floors->getNumber(name))
                 : std::string("-"))
         << "</td>";
      if (stored) {
        std::optional<double> s = stored->getNumber(name);
        os << "<td class=\"num\">" << (s ? scientific(*s) : "not finite")
           << "</td>";
      }
      os << "</tr>";
    }
  os << "</table></section>\n";
}

void writeData(const json::Object *summary, llvm::raw_ostream &os) {
  os << "<section id=\"data\"><h2>Data and engines</h2><table>";
  auto row = [&](StringRef key, const std::string &value) {
    os << "<tr><th>" << escape(key) << "</th><td>" << escape(value)
       << "</td></tr>";
  };
  row("model", stringIn(summary, "model").str());
  row("calibration inputs", stringIn(summary, "calibration").str());
  bool sameData =
      summary &&
      summary->getBoolean("validated_on_calibration_data").value_or(false);
  row("validation inputs",
      stringIn(summary, "validation").str() +
          (sameData ? " (the calibration inputs: no --validation given)" : ""));
  row("error metric", stringIn(summary, "error_metric").str());
  row("error floor", stringIn(summary, "error_floor_source").str());
  row("FP32 reference engine", stringIn(summary, "reference_engine").str());
  row("validation engine", stringIn(summary, "validation_engine").str());
  row("artifact CPU", stringIn(summary, "artifact_cpu").str());
  const json::Object *check =
      summary ? summary->getObject("artifact_validation") : nullptr;
  if (check && check->getBoolean("ran").value_or(false)) {
    const json::Array *runs = check->getArray("runs");
    row("artifact validation",
        "run on the validation inputs: " +
            scientific(numberIn(summary, "artifact_measured_error")) +
            (runs && runs->size() > 1
                 ? " after " + std::to_string(runs->size() - 1) +
                       " rerun(s) of the flow under a tighter budget (the "
                       "first artifact measured " +
                       scientific(numberIn(runs->front().getAsObject(),
                                           "artifact_measured_error")) +
                       ")"
                 : std::string()));
  } else if (check) {
    row("artifact validation", "not run: " + stringIn(check, "reason").str());
  }
  os << "</table></section>\n";
}

void writeLegend(llvm::raw_ostream &os) {
  os << "<section id=\"legend\"><h2>Legend</h2><table><tr><th>format</th>"
        "<th>meaning</th></tr>";
  for (const FormatStyle &style : kFormats)
    os << "<tr><td><span class=\"swatch\" style=\"background:" << style.color
       << "\"></span>" << style.format << "</td><td>" << escape(style.meaning)
       << "</td></tr>";
  os << "</table><table style=\"margin-top:10px\"><tr><th>reason</th><th>"
        "why an op got its format</th></tr>";
  for (const Reason &reason : kReasons)
    os << "<tr><td><code>" << reason.code << "</code></td><td>"
       << escape(reason.meaning) << "</td></tr>";
  os << "</table><p class=\"note\">Error share: the part of the error budget "
        "(a variance) an op's rounding uses. Rounding errors of different ops "
        "are correlated, so a share can be negative: that op's rounding "
        "partly cancels the others' and lowers the predicted error.</p>"
        "</section>\n";
}

/// The ops with the largest sensitivity energy, on a log axis.
void writeSensitivity(const json::Array &ops, llvm::raw_ostream &os) {
  struct Bar {
    std::string name, format;
    double energy;
  };
  std::vector<Bar> bars;
  for (const json::Value &value : ops) {
    const json::Object *op = value.getAsObject();
    const json::Object *s = op ? op->getObject("sensitivity") : nullptr;
    double energy = numberIn(s, "energy");
    if (energy > 0)
      bars.push_back(
          {stringIn(op, "name").str(), stringIn(op, "format").str(), energy});
  }
  llvm::sort(bars, [](const Bar &a, const Bar &b) {
    return a.energy != b.energy ? a.energy > b.energy : a.name < b.name;
  });
  const size_t shown = std::min<size_t>(bars.size(), 20);
  os << "<section id=\"sensitivity\"><h2>Most sensitive ops</h2><p "
        "class=\"note\">The "
     << shown << " of " << bars.size()
     << " measured ops whose rounding moves the outputs most: the energy "
        "&Sigma;(&part;y/&part;x &middot; x)&sup2;, the variance a unit "
        "relative rounding of the op's result adds to the relative output "
        "error (log scale). Colour: the chosen format.</p>";
  if (shown == 0) {
    os << "</section>\n";
    return;
  }
  double lo = std::floor(std::log10(bars[shown - 1].energy));
  double hi = std::ceil(std::log10(bars.front().energy));
  if (hi <= lo)
    hi = lo + 1;
  const int x0 = 300, x1 = 740, rowHeight = 18;
  int height = static_cast<int>(shown) * rowHeight + 50;
  os << "<svg width=\"900\" height=\"" << height << "\">";
  for (size_t i = 0; i < shown; ++i) {
    const Bar &bar = bars[i];
    int y = static_cast<int>(i) * rowHeight + 4;
    int length =
        static_cast<int>((std::log10(bar.energy) - lo) / (hi - lo) * (x1 - x0));
    std::string name = bar.name.size() > 44
                           ? "\u2026" + bar.name.substr(bar.name.size() - 43)
                           : bar.name;
    os << "<text x=\"" << x0 - 6 << "\" y=\"" << y + 12
       << "\" text-anchor=\"end\" class=\"bar-label\">" << escape(name)
       << "<title>" << escape(bar.name) << "</title></text><rect x=\"" << x0
       << "\" y=\"" << y << "\" width=\"" << std::max(length, 1)
       << "\" height=\"14\" fill=\"" << colorOf(bar.format) << "\"/><text x=\""
       << x0 + length + 4 << "\" y=\"" << y + 12 << "\" class=\"tick\">"
       << scientific(bar.energy) << " (" << escape(bar.format) << ")</text>";
  }
  std::vector<std::pair<double, std::string>> ticks;
  for (double e = lo; e <= hi; e += 1)
    ticks.push_back(
        {std::pow(10.0, e), llvm::formatv("1e{0}", static_cast<int>(e)).str()});
  writeAxis(os, x0, x1, static_cast<int>(shown) * rowHeight + 6, ticks, lo, hi,
            "sensitivity energy (log scale)", true);
  os << "</svg></section>\n";
}

/// The graph's data for the script: per op its index, name, type, format,
/// the ops and model inputs feeding it, the outputs it computes, and why.
std::string graphData(const json::Array &ops) {
  json::Array nodes;
  for (const json::Value &value : ops) {
    const json::Object *op = value.getAsObject();
    if (!op)
      continue;
    json::Object node{
        {"i", op->getInteger("index").value_or(0)},
        {"name", stringIn(op, "name")},
        {"type", stringIn(op, "op_type")},
        {"format", stringIn(op, "format")},
        {"why", explainFormat(*op)},
    };
    for (StringRef key : {"inputs", "model_inputs", "model_outputs"})
      if (const json::Array *list = op->getArray(key))
        node[key] = json::Array(*list);
    nodes.push_back(std::move(node));
  }
  json::Object colors;
  for (const FormatStyle &style : kFormats)
    colors[style.format] = style.color;
  std::string text =
      llvm::formatv("{0}",
                    json::Value(json::Object{{"ops", std::move(nodes)},
                                             {"colors", std::move(colors)}}))
          .str();
  // Inside <script>, "</" could close the element.
  std::string safe;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') {
      safe += "<\\/";
      ++i;
      continue;
    }
    safe += text[i];
  }
  return safe;
}

/// Lays the graph out with dagre (top to bottom) and draws it as SVG.
constexpr StringRef kGraphScript = R"js(
(function () {
  const data = JSON.parse(document.getElementById('graph-data').textContent);
  const esc = s => String(s).replace(/[&<>"]/g,
      c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));
  const tail = (s, n) => s.length > n ? '\u2026' + s.slice(s.length - n + 1) : s;
  const colorOf = f => data.colors[f.startsWith('f8') ? 'f8' : f] || data.colors.f32;
  const g = new dagre.graphlib.Graph();
  g.setGraph({rankdir: 'TB', nodesep: 16, ranksep: 28, marginx: 12, marginy: 12});
  g.setDefaultEdgeLabel(() => ({}));
  const charWidth = 6.4;
  const io = (id, name, kind) => {
    if (!g.hasNode(id))
      g.setNode(id, {kind: kind, line1: tail(name, 30), full: name,
                     width: Math.min(name.length, 30) * charWidth + 18, height: 22});
  };
  for (const op of data.ops) {
    const line1 = tail(op.name || op.type, 30), line2 = op.type + ' \u00b7 ' + op.format;
    g.setNode('o' + op.i, {kind: 'op', op: op, line1: line1, line2: line2,
        width: Math.max(line1.length, line2.length) * charWidth + 18, height: 34});
  }
  for (const op of data.ops) {
    for (const from of op.inputs || [])
      if (g.hasNode('o' + from)) g.setEdge('o' + from, 'o' + op.i);
    for (const name of op.model_inputs || []) {
      io('in:' + name, name, 'input');
      g.setEdge('in:' + name, 'o' + op.i);
    }
    for (const name of op.model_outputs || []) {
      io('out:' + name, name, 'output');
      g.setEdge('o' + op.i, 'out:' + name);
    }
  }
  dagre.layout(g);
  const size = g.graph();
  const parts = [];
  parts.push('<svg width="' + Math.ceil(size.width) +
             '" height="' + Math.ceil(size.height) + '"><defs><marker id="arrow" ' +
             'viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" ' +
             'orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#868e96"/></marker></defs>');
  for (const e of g.edges()) {
    const points = g.edge(e).points;
    parts.push('<path class="edge" fill="none" stroke="#adb5bd" marker-end="url(#arrow)" d="' +
               points.map((p, k) => (k ? 'L' : 'M') + p.x.toFixed(1) + ',' + p.y.toFixed(1)).join(' ') +
               '"/>');
  }
  for (const id of g.nodes()) {
    const n = g.node(id);
    const x = n.x - n.width / 2, y = n.y - n.height / 2;
    if (n.kind === 'op') {
      const fill = colorOf(n.op.format);
      parts.push('<g class="node"><title>' + esc(n.op.name + ' (' + n.op.type + '): ' +
                 n.op.why) + '</title><rect x="' + x + '" y="' + y + '" width="' + n.width +
                 '" height="' + n.height + '" rx="4" fill="' + fill + '"/>' +
                 '<text x="' + n.x + '" y="' + (y + 14) + '" fill="#fff" text-anchor="middle">' +
                 esc(n.line1) + '</text><text x="' + n.x + '" y="' + (y + 28) +
                 '" fill="#fff" text-anchor="middle">' + esc(n.line2) + '</text></g>');
    } else {
      parts.push('<g class="io"><title>' + esc('model ' + n.kind + ' ' + n.full) +
                 '</title><rect x="' + x + '" y="' + y + '" width="' + n.width +
                 '" height="' + n.height + '" rx="11" fill="#fff" stroke="#495057"/>' +
                 '<text x="' + n.x + '" y="' + (y + 15) + '" text-anchor="middle">' +
                 esc(n.line1) + '</text></g>');
    }
  }
  parts.push('</svg>');
  const canvas = document.getElementById('graph-canvas');
  canvas.innerHTML = parts.join('');
  canvas.setAttribute('data-nodes', String(data.ops.length));
})();
)js";

void writeGraph(const json::Array &ops, llvm::raw_ostream &os) {
  os << "<section id=\"graph\"><h2>Graph</h2><p class=\"note\">Every op with "
        "a format decision, coloured by its format (the legend above), laid "
        "out by dagre; ops without one (constants, shape arithmetic) are "
        "crossed. Hover a node for its name and why it got its format.</p>"
        "<div id=\"graph-canvas\"></div>"
        "<script id=\"graph-data\" type=\"application/json\">"
     << graphData(ops) << "</script><script>" << kDagreJs << "</script><script>"
     << kGraphScript << "</script></section>\n";
}

void writeOps(const json::Array &ops, const json::Object *summary,
              llvm::raw_ostream &os) {
  double total = numberIn(summary, "total_flops");
  os << "<section id=\"ops\"><h2>Ops</h2><table><tr><th>#</th><th>name</th>"
        "<th>type</th><th>format</th><th>why</th><th>FLOPs</th><th>"
        "energy</th><th>|x| max</th></tr>";
  for (const json::Value &value : ops) {
    const json::Object *op = value.getAsObject();
    if (!op)
      continue;
    StringRef format = stringIn(op, "format");
    double flops = static_cast<double>(op->getInteger("flops").value_or(0));
    const json::Object *s = op->getObject("sensitivity");
    const json::Object *range = op->getObject("range");
    os << "<tr><td class=\"num\">" << op->getInteger("index").value_or(0)
       << "</td><td>" << escape(stringIn(op, "name")) << "</td><td>"
       << escape(stringIn(op, "op_type"))
       << "</td><td><span class=\"swatch\" style=\"background:"
       << colorOf(format) << "\"></span>" << escape(format) << "</td><td>"
       << escape(explainFormat(*op)) << "</td><td class=\"num\">"
       << (total > 0 && flops > 0 ? percent(flops / total) : "-")
       << "</td><td class=\"num\">"
       << (s && s->getNumber("energy") ? scientific(*s->getNumber("energy"))
                                       : "-")
       << "</td><td class=\"num\">"
       << (range && range->getNumber("amax")
               ? scientific(*range->getNumber("amax"))
               : "-")
       << "</td></tr>";
  }
  os << "</table></section>\n";
}

} // namespace

namespace {

/// Where the analysis counted equal values' rounding together (or left
/// out values every format holds) and that moved the op's energy over 2x:
/// a clause saying so, else "".
std::string coherenceClause(const json::Object &op) {
  const json::Object *s = op.getObject("sensitivity");
  double energy = numberIn(s, "energy"),
         independent = numberIn(s, "independent_energy");
  if (!(independent > 0) || !(energy >= 0))
    return "";
  double ratio = energy / independent;
  if (ratio > 2)
    return "; many of its values are equal (a flat region, repeated "
           "levels) and round alike, so their errors add up: " +
           llvm::formatv("{0:f1}", ratio).str() +
           "x what independent errors would give";
  if (ratio < 0.5)
    return "; many of its values round exactly or alike in ways that "
           "cancel downstream: " +
           llvm::formatv("{0:f2}", ratio).str() +
           "x what independent errors would give";
  return "";
}

/// Why the op got its format, from its reason.
std::string formatReason(const json::Object &op) {
  StringRef format = op.getString("format").value_or("f32");
  StringRef reason = op.getString("reason").value_or("");
  StringRef type = op.getString("op_type").value_or("");
  std::optional<double> share = op.getNumber("error_share");
  auto uses = [&](StringRef what) {
    if (!share)
      return what.str();
    if (*share < 0)
      return what.str() +
             "; its rounding partly cancels other ops' and "
             "lowers the predicted error by " +
             percent(-*share) + " of the budget";
    return what.str() + "; its rounding uses " + percent(*share) +
           " of the error budget";
  };
  std::string f = format.str() + ": ";
  if (reason == "sensitivity")
    return uses(f + "the fastest format the target offers for it");
  if (reason == "budget_fallback")
    return uses(f + "a faster format did not fit what was left of the budget");
  if (reason == "weight_storage")
    return uses(f + "a constant table stored in 16 bits with what was left "
                    "of the budget");
  if (reason == "budget")
    return f + "rounding it in a lower format did not fit what was left of "
               "the error budget";
  if (reason == "data_movement")
    return f + "moves data without arithmetic, so it follows its input";
  if (reason == "policy")
    return f + type.str() + " stays f32 by default (--allow-ops=" + type.str() +
           " changes that)";
  if (reason == "sensitive_layer")
    return f + "its name matches --sensitive-layers";
  if (reason == "overflow") {
    const json::Object *range = op.getObject("range");
    return f + "its calibrated values (|x| up to " +
           scientific(numberIn(range, "amax")) +
           ") overflow every lower format";
  }
  if (reason == "underflow")
    return f + "its values are so small that f16 holds them as subnormals, or "
               "an f8 scale would flush too many of them to zero";
  if (reason == "flushed_divisor")
    return f + "it divides by (or takes the log of) values that are "
               "non-zero in FP32 but round to zero in 16 bits";
  if (reason == "target")
    return f + "the target has no lower format for this kind of op";
  if (reason == "discrete_use")
    return f + "it only feeds integer uses (indices, masks), which rounding "
               "could flip";
  if (reason == "no_sensitivity")
    return f + "no analysis measured it, so it stays f32 to be safe";
  if (reason == "validation")
    return f + "raised after a validation round measured more error than "
               "predicted";
  if (reason == "bisection")
    return f + "a round measured more error than predicted, and bisection "
               "(raising halves of the 16-bit ops in turn) found it here";
  return f + (reason.empty() ? "no decision recorded" : reason.str());
}

} // namespace

std::string explainFormat(const json::Object &op) {
  return formatReason(op) + coherenceClause(op);
}

void writeReportPage(const json::Object &report, llvm::raw_ostream &os) {
  const json::Object *summary = report.getObject("summary");
  const json::Array *ops = report.getArray("ops");
  json::Array none;
  if (!ops)
    ops = &none;
  StringRef model = stringIn(summary, "model");
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>dsmp precision report"
     << (model.empty() ? "" : ": ") << escape(model) << "</title>";
  writeStyle(os);
  // A script error shows on the page, not only in the console.
  os << "<script>window.addEventListener('error', function (e) {"
        "var p = document.getElementById('page-errors'); if (p) {"
        "p.hidden = false; p.textContent += 'script error: ' + e.message + "
        "'\\n';}});</script></head><body>\n"
        "<pre id=\"page-errors\" hidden style=\"color:#c92a2a\"></pre>"
        "<h1>dsmp precision report</h1><p class=\"note\">"
     << escape(model) << "</p>\n";
  writeSummary(summary, report, os);
  writeBudget(summary, os);
  writeRounds(report, summary, os);
  writeOutputs(summary, os);
  writeData(summary, os);
  writeLegend(os);
  writeGraph(*ops, os);
  writeSensitivity(*ops, os);
  writeOps(*ops, summary, os);
  os << "</body></html>\n";
}

} // namespace mlir::dsmp
