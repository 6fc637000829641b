//===- RangeStats.h - Calibrated value ranges ----------------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What dsmp-analyze-ranges records per tensor: static bounds and, over the
// calibration inputs, min/max/amax, an |x| histogram and the formats the
// values overflow or flush to zero in. dsmp-analyze-sensitivity records the
// same from its own forward pass with `record-ranges` (one calibration run
// instead of two).
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_PASSES_PRECISION_RANGESTATS_H
#define DSMP_PASSES_PRECISION_RANGESTATS_H

#include "passes/Precision/Calibration.h"

#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <optional>
#include <vector>

namespace mlir::dsmp {

/// Calibrated statistics of one tensor (defined in RangeStats.cpp).
struct RangeStats;

/// Collects the ranges of a graph's values during a calibration run
/// (runProbes, Calibration.h) and writes them as attributes.
class RangeRecorder {
public:
  /// `numOps`: the size of the graph's graphOps list.
  explicit RangeRecorder(size_t numOps);
  ~RangeRecorder();

  /// From an instrument: appends to `probes` result 0 of every op of `copy`
  /// (graphOps order) with an f32 tensor result that is not a constant, and
  /// notes each op's FLOPs at the calibration shapes; for an op replaced by
  /// `parts`, their FLOPs summed and their f32 results as one probe (the
  /// range of every value the op computes inside). Probe k of this
  /// recorder is then values[first + k], `first` the size of `probes`
  /// before the call.
  void instrument(ArrayRef<Operation *> copy, ArrayRef<OpParts> parts,
                  SmallVectorImpl<Value> &probes);
  /// Adds the values of this recorder's probe `probe` (one calibration set).
  void observe(size_t probe, ArrayRef<float> values);
  /// Writes `dsmp.range` (static bounds, and what was observed) and
  /// `dsmp.flops` on `ops` (graphOps order), and with a calibration folder
  /// `dsmp.range` on the f32 inputs of @main_graph from its input sets.
  LogicalResult annotate(ModuleOp module, ArrayRef<Operation *> ops,
                         StringRef calibration);

private:
  static constexpr size_t kUnmeasured = ~size_t(0);
  std::vector<RangeStats> stats; // by probe
  std::vector<size_t> probeOfOp; // by op (graphOps order), or kUnmeasured
  std::vector<std::optional<int64_t>> flops;
};

} // namespace mlir::dsmp

#endif // DSMP_PASSES_PRECISION_RANGESTATS_H
