//===- BatchSplit.h - Whether a model computes each sample alone -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An artifact runs the shapes it was compiled for. When the model computes
// each sample of a batch independently of the others, the runtime can run
// any batch as consecutive slices through variants compiled for a few batch
// sizes: the same static code, the same roundings per sample. This decides
// whether that holds, by specializing the graph at two batch sizes and
// checking op by op that the batch axis flows through ops that keep samples
// apart (docs/artifact.md, "Any batch").
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_DRIVER_ARTIFACT_BATCHSPLIT_H
#define DSMP_LIB_DRIVER_ARTIFACT_BATCHSPLIT_H

#include "dialects/Dsmp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace mlir::dsmp {

/// Per graph input and output: whether its first dim is the batch (the
/// others are the same for every sample).
struct BatchSplit {
  std::vector<bool> inputs, outputs;
};

/// analyzeBatchSplit's error when no input has a dynamic first dim.
inline constexpr const char *kNoDynamicBatch =
    "no input has a dynamic first dim";

/// Every input's full shape: `given`'s, else its type's with `defaultDim`
/// for the dynamic dims (inputs without a ranked type are left out).
InputShapes fullInputShapes(func::FuncOp graph, const InputShapes &given,
                            int64_t defaultDim);

/// `variants` and, for each, the same shapes at every batch size in
/// `batchSizes` (on the inputs `split` flags), without duplicates.
std::vector<InputShapes>
withBatchSizes(func::FuncOp graph, const std::vector<InputShapes> &variants,
               const BatchSplit &split, ArrayRef<int64_t> batchSizes,
               int64_t defaultDim);

/// Whether `module`'s @main_graph, with `shapes` (and `defaultDim`) for its
/// other dynamic dims, computes every sample along the first dim of its
/// inputs whose first dim is dynamic independently of the others. The
/// error says why not (naming the op), or that no input has a dynamic
/// first dim.
llvm::Expected<BatchSplit> analyzeBatchSplit(ModuleOp module,
                                             const InputShapes &shapes,
                                             int64_t defaultDim,
                                             const FixedInputs &fixed);

} // namespace mlir::dsmp

#endif // DSMP_LIB_DRIVER_ARTIFACT_BATCHSPLIT_H
