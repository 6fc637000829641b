//===- Progress.h - A long compile's progress on stderr ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DRIVER_PROGRESS_H
#define DSMP_DRIVER_PROGRESS_H

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace mlir::dsmp {

/// A compile's phases on a stream (stderr), each with the time since the
/// compile began:
///   dsmp-compile: [2.0 s] precision analysis: calibration run 3/16
/// Nothing is written until the compile has run `delaySeconds`, so a quick
/// compile stays silent; then the phase under way is written at once (a
/// watcher thread wakes at the deadline), and each later phase as it
/// starts. The driver names its phases (phase()); calibration runs
/// (CalibrationRunAction, at most a line a second) and an artifact's steps
/// (ArtifactStepAction: lowering, code generation per variant) show
/// through the context's action handler. Disabled (--quiet), it writes nothing
/// and installs no handler.
class Progress {
public:
  Progress(llvm::StringRef tool, bool enabled, double delaySeconds = 2.0,
           llvm::raw_ostream &os = llvm::errs());
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  /// Reports the actions `context` runs (calibration runs) under the
  /// current phase. The handler is removed by the destructor.
  void attach(MLIRContext &context);

  /// A new phase starts ("import", "round 2: validation on 20 inputs").
  void phase(llvm::StringRef name);

  /// Stops the watcher; later calls write nothing.
  void finish();

private:
  void step(llvm::StringRef detail, bool last);
  void writeLocked();
  void watch();

  std::string tool;
  bool enabled;
  llvm::raw_ostream &os;
  std::chrono::steady_clock::time_point start, lastLine;
  double delaySeconds;
  std::mutex mutex;
  std::condition_variable wake;
  std::thread watcher;
  MLIRContext *context = nullptr;
  std::string current, detail;
  bool live = false, done = false, written = true;
};

} // namespace mlir::dsmp

#endif // DSMP_DRIVER_PROGRESS_H
