//===- Progress.cpp - A long compile's progress on stderr ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Driver/Progress.h"

#include "dsmp/Driver/Artifact.h"
#include "passes/Precision/Calibration.h"

#include "mlir/IR/Action.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::dsmp {

namespace {
double secondsBetween(std::chrono::steady_clock::time_point from,
                      std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}
} // namespace

Progress::Progress(llvm::StringRef tool, bool enabled, double delaySeconds,
                   llvm::raw_ostream &os)
    : tool(tool), enabled(enabled), os(os),
      start(std::chrono::steady_clock::now()), lastLine(start),
      delaySeconds(delaySeconds) {
  if (enabled && delaySeconds <= 0)
    live = true; // from the first phase on, no watcher needed
  else if (enabled)
    watcher = std::thread([this] { watch(); });
}

Progress::~Progress() {
  finish();
  if (context)
    context->registerActionHandler(nullptr);
}

void Progress::attach(MLIRContext &ctx) {
  if (!enabled)
    return;
  context = &ctx;
  ctx.registerActionHandler([this](llvm::function_ref<void()> run,
                                   const tracing::Action &action) {
    if (auto *calibration = llvm::dyn_cast<CalibrationRunAction>(&action)) {
      step(calibration->all
               ? llvm::formatv("calibration runs 1-{0} (compiled)",
                               calibration->count)
                     .str()
               : llvm::formatv("calibration run {0}/{1}",
                               calibration->index + 1, calibration->count)
                     .str(),
           calibration->all || calibration->index + 1 == calibration->count);
    } else if (auto *artifact = llvm::dyn_cast<ArtifactStepAction>(&action)) {
      step(artifact->what, /*last=*/true);
    }
    run();
  });
}

void Progress::phase(llvm::StringRef name) {
  if (!enabled)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  current = name.str();
  detail.clear();
  written = false;
  if (live && !done)
    writeLocked();
}

void Progress::step(llvm::StringRef what, bool last) {
  std::lock_guard<std::mutex> lock(mutex);
  detail = what.str();
  written = false;
  // At most a line a second, and the last step of a series.
  auto now = std::chrono::steady_clock::now();
  if (live && !done && (last || secondsBetween(lastLine, now) >= 1.0))
    writeLocked();
}

void Progress::writeLocked() {
  lastLine = std::chrono::steady_clock::now();
  os << tool << ": ["
     << llvm::formatv("{0:f1}", secondsBetween(start, lastLine)) << " s] "
     << current << (detail.empty() ? "" : ": ") << detail << "\n";
  os.flush();
  written = true;
}

void Progress::watch() {
  std::unique_lock<std::mutex> lock(mutex);
  auto deadline =
      start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                  std::chrono::duration<double>(delaySeconds));
  if (wake.wait_until(lock, deadline, [this] { return done; }))
    return;
  live = true;
  if (!written && !current.empty())
    writeLocked();
}

void Progress::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  wake.notify_all();
  if (watcher.joinable())
    watcher.join();
}

} // namespace mlir::dsmp
