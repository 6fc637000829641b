//===- HostRun.h - Run an in-memory module on the host -------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What the precision passes use to run calibration inputs: the module is
// compiled for the host exactly as dsmp-compile would (so every format is
// emulated as the AOT artifact computes it) and run through libdsmprt.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_EXECUTION_HOSTRUN_H
#define DSMP_EXECUTION_HOSTRUN_H

#include "dialects/Dsmp/Transforms/Passes.h"
#include "dsmp/runtime/TensorFile.h"

#include <memory>
#include <vector>

struct dsmp_model;

namespace mlir::dsmp {

using HostTensor = ::dsmp::runtime::HostTensor;
/// One set of graph inputs, e.g. the input_*.pb of one test_data_set_N.
using HostInputs = std::vector<HostTensor>;

/// A module compiled for the host and loaded; removed again on destruction.
class HostProgram {
public:
  /// Compiles `module` (its @main_graph specialized to `shapes`; constants
  /// inline or #dsmp.external ranges of `weightsFile`) for the host, at
  /// LLVM level `optLevel` (programs that run once compile faster at 1).
  static llvm::Expected<std::unique_ptr<HostProgram>>
  compile(ModuleOp module, llvm::StringRef weightsFile,
          const InputShapes &shapes, unsigned optLevel = 1);
  /// Loads the artifact folder `artifactDir` that dsmp-compile wrote for
  /// this host's CPU (the folder stays).
  static llvm::Expected<std::unique_ptr<HostProgram>>
  open(llvm::StringRef artifactDir);
  ~HostProgram();

  /// Runs on `inputs` (bound by name; extra names are an error); returns
  /// the outputs in @main_graph's result order.
  llvm::Expected<std::vector<HostTensor>> run(const HostInputs &inputs);

private:
  HostProgram() = default;
  std::string folder;
  ::dsmp_model *model = nullptr;
};

/// How a graph runs on the host: through the reference evaluator (op by op,
/// nothing compiled; it holds f32, the narrow float formats and integers),
/// compiled for the host, or the evaluator when it holds every op and else
/// compiled ("auto", "evaluate", "compile").
/// The dsmp CPU target this process runs on: "x86_64" or "aarch64".
llvm::StringRef hostCPUTarget();

enum class HostEngine { Auto, Evaluate, Compile };
llvm::Expected<HostEngine> parseHostEngine(llvm::StringRef name);

/// Runs @main_graph of `module` on each of `sets` (all of the first set's
/// shapes; a copy is specialized to them unless the graph already is) as
/// `engine` says. Returns the outputs per set. When Auto falls back to
/// compiling and `whyCompiled` is given, it receives the evaluator's reason.
llvm::Expected<std::vector<std::vector<HostTensor>>>
runOnInputSets(ModuleOp module, llvm::ArrayRef<HostInputs> sets,
               HostEngine engine = HostEngine::Auto,
               std::string *whyCompiled = nullptr);

/// The input sets in `dir`: its own input_*.pb, or those of each
/// test_data_set_* folder inside it (in name order). Fails on an empty
/// or unreadable folder, naming it.
llvm::Expected<std::vector<HostInputs>> readInputSets(llvm::StringRef dir);

/// The output_*.pb of each test_data_set_* in `dir`, as readInputSets.
llvm::Expected<std::vector<HostInputs>> readOutputSets(llvm::StringRef dir);

/// The shapes of one input set, by name.
InputShapes shapesOf(const HostInputs &inputs);

} // namespace mlir::dsmp

#endif // DSMP_EXECUTION_HOSTRUN_H
