//===- Profiler.cpp - Per-op time, FLOPs and format of runs ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/runtime/Profiler.h"

#include "Json.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include <dlfcn.h>

namespace dsmp {

using dsmprt::jsonCount;
using dsmprt::jsonNumber;
using dsmprt::jsonString;

namespace {
/// A counter model.so's code adds to atomically.
int64_t load(const int64_t *counter) {
  return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

double share(double part, double whole) { return whole > 0 ? part / whole : 0; }

/// "1.23 ms", "4.5 s", ...
std::string humanSeconds(double s) {
  char text[32];
  if (s >= 1)
    std::snprintf(text, sizeof text, "%.3g s", s);
  else if (s >= 1e-3)
    std::snprintf(text, sizeof text, "%.3g ms", s * 1e3);
  else
    std::snprintf(text, sizeof text, "%.3g us", s * 1e6);
  return text;
}

/// "1.2 GFLOP", ...
std::string humanFlops(double f) {
  char text[32];
  if (f >= 1e9)
    std::snprintf(text, sizeof text, "%.3g GFLOP", f / 1e9);
  else if (f >= 1e6)
    std::snprintf(text, sizeof text, "%.3g MFLOP", f / 1e6);
  else
    std::snprintf(text, sizeof text, "%.3g kFLOP", f / 1e3);
  return text;
}
} // namespace

std::unique_ptr<Profiler> Profiler::create(artifact::ProfileTable table,
                                           const artifact::Manifest &manifest,
                                           void *library, std::string &error) {
  if (table.variants.size() != manifest.variants.size()) {
    error = "the profile table has " + std::to_string(table.variants.size()) +
            " variants, the manifest " +
            std::to_string(manifest.variants.size());
    return nullptr;
  }
  auto profiler = std::unique_ptr<Profiler>(new Profiler());
  for (size_t i = 0; i < table.variants.size(); ++i) {
    const artifact::VariantProfile &v = table.variants[i];
    const artifact::Variant &spec = manifest.variants[i];
    if (v.entry != spec.entry || v.rows.size() != spec.profileRows) {
      error = "the profile table's variant '" + v.entry +
              "' does not match the manifest's '" + spec.entry + "' (" +
              std::to_string(spec.profileRows) + " rows)";
      return nullptr;
    }
    Counters counters;
    std::string symbol = artifact::profileCountersSymbol(v.entry);
    counters.rows =
        static_cast<const int64_t *>(dlsym(library, symbol.c_str()));
    if (!counters.rows) {
      error = "the library exports no " + symbol;
      return nullptr;
    }
    counters.baseline.assign(2 * v.rows.size(), 0);
    profiler->counters_.push_back(std::move(counters));
  }
  profiler->table_ = std::move(table);
  profiler->reset();
  return profiler;
}

void Profiler::recordRun(size_t variant, uint64_t nanoseconds) {
  Counters &c = counters_[variant];
  ++c.runs;
  c.nanoseconds += nanoseconds;
}

void Profiler::reset() {
  for (Counters &c : counters_) {
    for (size_t k = 0; k < c.baseline.size(); ++k)
      c.baseline[k] = load(c.rows + k);
    c.runs = 0;
    c.nanoseconds = 0;
  }
}

ProfileReport Profiler::report(const std::string &artifact) const {
  ProfileReport report;
  report.artifact = artifact;
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, OpProfile> byOp;
  for (size_t i = 0; i < counters_.size(); ++i) {
    const artifact::VariantProfile &v = table_.variants[i];
    const Counters &c = counters_[i];
    if (c.runs == 0)
      continue;
    report.runs += c.runs;
    report.seconds += c.nanoseconds * 1e-9;
    std::vector<double> seconds(v.ops.size(), 0);
    // Runs that executed each op: those of its busiest row (rows in a
    // branch not taken count none); an op no row names runs every time.
    std::vector<int64_t> executions(v.ops.size(), -1);
    for (size_t r = 0; r < v.rows.size(); ++r) {
      const artifact::ProfiledRow &row = v.rows[r];
      double rowSeconds =
          std::max<int64_t>(0, load(c.rows + 2 * r) - c.baseline[2 * r]) * 1e-9;
      int64_t calls = std::max<int64_t>(0, load(c.rows + 2 * r + 1) -
                                               c.baseline[2 * r + 1]);
      report.timedSeconds += rowSeconds;
      if (calls > 0) {
        CallProfile call{v.entry,    row.callee,
                         row.kind,   static_cast<uint64_t>(calls),
                         rowSeconds, {}};
        for (uint32_t op : row.ops)
          call.ops.push_back(v.ops[op].name + " (" + v.ops[op].type + ", " +
                             v.ops[op].format + ")");
        report.calls.push_back(std::move(call));
      }
      if (row.ops.empty()) {
        report.unattributedSeconds += rowSeconds;
        continue;
      }
      double rowFlops = 0;
      for (uint32_t op : row.ops)
        rowFlops += static_cast<double>(v.ops[op].flops);
      for (uint32_t op : row.ops) {
        double part = rowFlops > 0 ? v.ops[op].flops / rowFlops
                                   : 1.0 / static_cast<double>(row.ops.size());
        seconds[op] += rowSeconds * part;
        executions[op] = std::max(executions[op], calls);
      }
    }
    for (size_t k = 0; k < v.ops.size(); ++k) {
      const artifact::ProfiledOp &op = v.ops[k];
      uint64_t runs = executions[k] < 0 ? c.runs : uint64_t(executions[k]);
      OpProfile &entry = byOp[{op.name, op.type, op.format}];
      entry.name = op.name;
      entry.type = op.type;
      entry.format = op.format;
      entry.seconds += seconds[k];
      entry.flops += static_cast<double>(op.flops) * static_cast<double>(runs);
      entry.runs = std::max(entry.runs, runs);
    }
  }
  for (auto &[key, op] : byOp)
    report.ops.push_back(std::move(op));
  std::stable_sort(report.ops.begin(), report.ops.end(),
                   [](const OpProfile &a, const OpProfile &b) {
                     return a.seconds > b.seconds;
                   });
  std::stable_sort(report.calls.begin(), report.calls.end(),
                   [](const CallProfile &a, const CallProfile &b) {
                     return a.seconds > b.seconds;
                   });
  return report;
}

void ProfileReport::merge(const ProfileReport &other) {
  if (artifact.empty())
    artifact = other.artifact;
  else if (!other.artifact.empty() && other.artifact != artifact)
    artifact += ", " + other.artifact;
  runs += other.runs;
  seconds += other.seconds;
  timedSeconds += other.timedSeconds;
  unattributedSeconds += other.unattributedSeconds;
  for (const OpProfile &op : other.ops) {
    auto same = std::find_if(ops.begin(), ops.end(), [&](const OpProfile &o) {
      return o.name == op.name && o.type == op.type && o.format == op.format;
    });
    if (same == ops.end()) {
      ops.push_back(op);
      continue;
    }
    same->seconds += op.seconds;
    same->flops += op.flops;
    same->runs += op.runs;
  }
  std::stable_sort(ops.begin(), ops.end(),
                   [](const OpProfile &a, const OpProfile &b) {
                     return a.seconds > b.seconds;
                   });
  calls.insert(calls.end(), other.calls.begin(), other.calls.end());
  std::stable_sort(calls.begin(), calls.end(),
                   [](const CallProfile &a, const CallProfile &b) {
                     return a.seconds > b.seconds;
                   });
}

std::vector<FormatProfile> ProfileReport::formats() const {
  std::map<std::string, FormatProfile> byFormat;
  for (const OpProfile &op : ops) {
    if (op.runs == 0)
      continue; // never executed (a branch not taken)
    FormatProfile &f = byFormat[op.format];
    f.format = op.format;
    ++f.ops;
    f.seconds += op.seconds;
    f.flops += op.flops;
  }
  std::vector<FormatProfile> list;
  for (auto &[name, f] : byFormat)
    list.push_back(f);
  std::stable_sort(list.begin(), list.end(),
                   [](const FormatProfile &a, const FormatProfile &b) {
                     return a.seconds > b.seconds;
                   });
  return list;
}

std::string ProfileReport::json() const {
  double totalFlops = 0;
  for (const OpProfile &op : ops)
    totalFlops += op.flops;
  std::string out =
      "{\n  \"artifact\": " + jsonString(artifact) +
      ",\n  \"runs\": " + std::to_string(runs) +
      ",\n  \"seconds\": " + jsonNumber(seconds) +
      ",\n  \"timed_seconds\": " + jsonNumber(timedSeconds) +
      ",\n  \"unattributed_seconds\": " + jsonNumber(unattributedSeconds) +
      ",\n  \"flops\": " + jsonCount(totalFlops);
  if (training)
    out += ",\n  \"training\": {\"steps\": " + std::to_string(steps) +
           ", \"skipped_steps\": " + std::to_string(skippedSteps) +
           ", \"fallbacks\": " + std::to_string(fallbacks) + "}";
  out += ",\n  \"formats\": [";
  std::vector<FormatProfile> list = formats();
  for (size_t i = 0; i < list.size(); ++i) {
    const FormatProfile &f = list[i];
    out += std::string(i ? "," : "") +
           "\n    {\"format\": " + jsonString(f.format) +
           ", \"ops\": " + std::to_string(f.ops) +
           ", \"seconds\": " + jsonNumber(f.seconds) +
           ", \"time_share\": " + jsonNumber(share(f.seconds, seconds)) +
           ", \"flops\": " + jsonCount(f.flops) +
           ", \"flop_share\": " + jsonNumber(share(f.flops, totalFlops)) + "}";
  }
  out += "\n  ],\n  \"ops\": [";
  for (size_t i = 0; i < ops.size(); ++i) {
    const OpProfile &op = ops[i];
    out += std::string(i ? "," : "") +
           "\n    {\"name\": " + jsonString(op.name) +
           ", \"type\": " + jsonString(op.type) +
           ", \"format\": " + jsonString(op.format) +
           ", \"runs\": " + std::to_string(op.runs) +
           ", \"seconds\": " + jsonNumber(op.seconds) +
           ", \"time_share\": " + jsonNumber(share(op.seconds, seconds)) +
           ", \"flops\": " + jsonCount(op.flops) + "}";
  }
  out += "\n  ],\n  \"calls\": [";
  for (size_t i = 0; i < calls.size(); ++i) {
    const CallProfile &c = calls[i];
    out += std::string(i ? "," : "") +
           "\n    {\"entry\": " + jsonString(c.entry) +
           ", \"callee\": " + jsonString(c.callee) +
           ", \"kind\": " + jsonString(c.kind) +
           ", \"calls\": " + std::to_string(c.calls) +
           ", \"seconds\": " + jsonNumber(c.seconds) + ", \"ops\": [";
    for (size_t k = 0; k < c.ops.size(); ++k)
      out += std::string(k ? ", " : "") + jsonString(c.ops[k]);
    out += "]}";
  }
  return out + "\n  ]\n}\n";
}

std::string ProfileReport::text(size_t topOps) const {
  double totalFlops = 0;
  for (const OpProfile &op : ops)
    totalFlops += op.flops;
  char line[256];
  std::string out = "profile of " + artifact + ": " + std::to_string(runs) +
                    " runs, " + humanSeconds(seconds) + ", " +
                    humanFlops(totalFlops);
  std::snprintf(line, sizeof line, " (%.1f %% of the time in timed calls)\n",
                100 * share(timedSeconds, seconds));
  out += line;
  if (training)
    out += "training: " + std::to_string(steps) + " steps, " +
           std::to_string(skippedSteps) + " skipped, " +
           std::to_string(fallbacks) + " layer fallbacks\n";
  out += "format      ops   time share   FLOP share\n";
  for (const FormatProfile &f : formats()) {
    std::snprintf(line, sizeof line, "%-10s %4zu   %8.1f %%   %8.1f %%\n",
                  f.format.c_str(), f.ops, 100 * share(f.seconds, seconds),
                  100 * share(f.flops, totalFlops));
    out += line;
  }
  size_t shown = std::min(topOps, ops.size());
  if (shown) {
    out += "slowest ops:\n";
    for (size_t i = 0; i < shown; ++i) {
      const OpProfile &op = ops[i];
      double perRun = op.runs ? op.seconds / op.runs : 0;
      std::snprintf(line, sizeof line, "  %6.1f %%  %10s/run  %-6s %-14s %s\n",
                    100 * share(op.seconds, seconds),
                    humanSeconds(perRun).c_str(), op.format.c_str(),
                    op.type.c_str(), op.name.c_str());
      out += line;
    }
  }
  return out;
}

} // namespace dsmp
