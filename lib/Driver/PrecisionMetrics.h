//===- PrecisionMetrics.h - Errors and sizes the flow measures -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_DRIVER_PRECISIONMETRICS_H
#define DSMP_LIB_DRIVER_PRECISIONMETRICS_H

#include "dsmp/Execution/HostRun.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir::dsmp {

/// Outputs per input set.
using OutputSets = std::vector<std::vector<HostTensor>>;

/// |a - ref| / max(|ref|, floor * sqrt(n)) over an output's n elements (as
/// doubles; passes/Precision/ErrorFloor.h); with no floor, inf when ref is
/// all zero and a is not. NaN counts as inf.
double relativeL2(const HostTensor &a, const HostTensor &ref, double floor = 0);
/// max |a - ref| over an output's elements; NaN counts as inf.
double maxAbsError(const HostTensor &a, const HostTensor &ref);
/// Whether each row's arg-max (over the last dim) agrees.
bool sameTop1(const HostTensor &a, const HostTensor &ref);

/// A model's outputs against the FP32 model's, per output over all sets,
/// in max-abs or else in rel-l2 with each output's floor (`floors`, by
/// output; none when empty).
struct Measurement {
  std::vector<std::string> names;
  std::vector<double> error; // per output, the worst set
  bool top1Same = true;
  double worst() const;
};
Measurement measure(const OutputSets &outputs, const OutputSets &reference,
                    bool maxAbs, llvm::ArrayRef<double> floors = {});

/// Each output's rel-l2 floor: `option` where positive, else
/// defaultErrorFloor of its largest magnitude on the calibration data
/// (dsmp.range where `analyzed` measured it, else over `reference`). The
/// outputs that were zero on every calibration input go to `zeroOutputs`.
std::vector<double> errorFloors(ModuleOp analyzed, const OutputSets &reference,
                                double option,
                                std::vector<std::string> &zeroOutputs);

/// What the graph holds in memory when specialized to the given input
/// shapes (and the inputs the module fixes), as an artifact compiled for
/// them does: a branch those inputs never take is gone.
struct Footprint {
  /// Bytes of every float constant.
  int64_t weights = 0;
  /// Peak bytes of the float intermediates live at once when the graph
  /// runs op by op in order, each freed after its last use (as the
  /// artifact frees its buffers; a graph output lives to the end). A
  /// DequantizeLinear's f32 result is not counted: f8 contractions read
  /// their f8 operands directly (the Q/DQ pair models that rounding).
  int64_t peakActivations = 0;
};
llvm::Expected<Footprint> footprint(ModuleOp module, const InputShapes &shapes);

} // namespace mlir::dsmp

#endif // DSMP_LIB_DRIVER_PRECISIONMETRICS_H
