//===- Calibration.h - Run an instrumented graph -------------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The analysis passes measure the model by probing values of a copy of it
// (every activation, or per-op products over the adjoint) while the
// calibration inputs run through it: observed in the reference evaluator,
// or made outputs of a copy compiled for the host.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_PASSES_PRECISION_CALIBRATION_H
#define DSMP_PASSES_PRECISION_CALIBRATION_H

#include "dsmp/Execution/HostRun.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Action.h"
#include "mlir/IR/BuiltinOps.h"

#include <vector>

namespace mlir::dsmp {

/// The ops of @main_graph in program order, each If followed by the ops of
/// its branches (then, else; not a Loop's body, which runs many times); a
/// copy's ops are matched to them by this index.
SmallVector<Operation *> graphOps(ModuleOp module);

/// Computes each If of `graph` (outside Loops, with one condition element
/// and static types) as both branches' ops inline and a Where of their
/// results: the analyses' copy of the graph, whose probes and adjoint then
/// reach the ops inside. A branch's ops run also where it is not taken.
struct FlattenedIf {
  Operation *op; // erased: a key only
  Value flag;    // its condition as a rank-0 i1
};
std::vector<FlattenedIf> flattenBranches(func::FuncOp graph);

/// The ops that specialization made of one op of the original graph, by
/// graphOps index: a recurrence unrolled into matmuls and gates
/// (dsmp-decompose-recurrent) is measured as their sum. Empty for an op
/// that maps to one op of the copy or was folded away.
using OpParts = SmallVector<Operation *, 0>;

/// Adds values to a copy of the graph: receives the copy's @main_graph, its
/// ops in graphOps order (null where specialization folded one away or
/// replaced it by parts) and each op's parts; returns the values to probe,
/// in order (f32 results of non-constant ops).
using Instrument = llvm::function_ref<FailureOr<SmallVector<Value>>(
    func::FuncOp graph, ArrayRef<Operation *> ops, ArrayRef<OpParts> parts)>;

/// `values` (static f32 tensors) flattened and concatenated, built before
/// `before`: several values probed as one.
Value concatFlattened(Operation *before, ArrayRef<Value> values);

/// Receives a probe's values (its index in the instrument's list), once per
/// calibration set, sets in order.
using ProbeObserver =
    llvm::function_ref<void(size_t probe, ArrayRef<float> values)>;

/// One calibration run (the instrumented graph on input set `index` of
/// `count`), as an MLIR action: a context's action handler sees each run
/// (dsmp-compile's progress lines count them). A compiled calibration runs
/// every set at once: one action with `index` 0 and `all` set.
class CalibrationRunAction : public tracing::ActionImpl<CalibrationRunAction> {
public:
  CalibrationRunAction(ArrayRef<IRUnit> units, size_t index, size_t count,
                       bool all)
      : ActionImpl(units), index(index), count(count), all(all) {}
  static constexpr StringLiteral tag = "dsmp-calibration-run";
  void print(raw_ostream &os) const override {
    os << tag << " " << index + 1 << "/" << count << (all ? " (all)" : "");
  }
  size_t index, count;
  bool all;
};

/// Reads the input sets of `dir` (see readInputSets), checks them against
/// the model's inputs (names, ranks, static dims, all sets alike),
/// specializes a copy to their shapes, instruments it and runs it on every
/// set. In the reference evaluator the probes are observed as they are
/// computed: nothing is added to the graph, and a probe or anything else
/// lives only until its last use, so the analyses hold a forward pass'
/// memory, not every activation. Where the evaluator cannot hold the graph
/// (`engine` auto) or `engine` says compile, the probes become outputs of a
/// copy compiled for the host.
/// `reached`, when given, says per op (graphOps order) whether some set
/// ran it: false for ops in a branch no calibration set takes.
llvm::Error runProbes(ModuleOp module, llvm::StringRef dir,
                      Instrument instrument, ProbeObserver observe,
                      HostEngine engine = HostEngine::Auto,
                      std::vector<bool> *reached = nullptr);

/// The float values of an f32 output tensor.
ArrayRef<float> floatsOf(const HostTensor &tensor);

} // namespace mlir::dsmp

#endif // DSMP_PASSES_PRECISION_CALIBRATION_H
