//===- Calibration.h - Run an instrumented graph -------------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The analysis passes measure the model by adding outputs to a copy of it
// (every activation, or per-op sums over the adjoint), compiling that copy
// for the host and running the calibration inputs through it.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_PASSES_PRECISION_CALIBRATION_H
#define DSMP_PASSES_PRECISION_CALIBRATION_H

#include "dsmp/Execution/HostRun.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::dsmp {

/// The top-level ops of @main_graph in program order; a copy's ops are
/// matched to them by this index.
SmallVector<Operation *> graphOps(ModuleOp module);

/// Adds values to a copy of the graph: receives the copy's @main_graph and
/// its ops in graphOps order (null where specialization folded one away);
/// returns the values to output, in order.
using Instrument = llvm::function_ref<FailureOr<SmallVector<Value>>(
    func::FuncOp graph, ArrayRef<Operation *> ops)>;

/// Reads the input sets of `dir` (see readInputSets), checks them against
/// the model's inputs (names, ranks, static dims, all sets alike),
/// specializes a copy to their shapes, instruments it, runs it on every
/// set as `engine` says (runOnInputSets). Returns, per set, the added outputs.
llvm::Expected<std::vector<std::vector<HostTensor>>>
runInstrumented(ModuleOp module, llvm::StringRef dir, Instrument instrument,
                HostEngine engine = HostEngine::Auto);

/// The float values of an f32 output tensor.
ArrayRef<float> floatsOf(const HostTensor &tensor);

} // namespace mlir::dsmp

#endif // DSMP_PASSES_PRECISION_CALIBRATION_H
