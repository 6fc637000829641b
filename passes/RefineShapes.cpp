//===- RefineShapes.cpp - Make dynamic dims static ----------------*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "dialects/Dsmp/IR/ShapeInference.h"
#include "passes/Passes.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "dsmp-refine-shapes"

namespace mlir::dsmp {
#define GEN_PASS_DEF_REFINESHAPESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

/// `current` with its dynamic dims taken from `inferred` where that is
/// static, or null when nothing changes or the two disagree.
RankedTensorType refine(RankedTensorType current, RankedTensorType inferred) {
  if (!inferred || inferred.getRank() != current.getRank())
    return {};
  SmallVector<int64_t> dims(current.getShape());
  bool changed = false;
  for (auto [dim, known] : llvm::zip(dims, inferred.getShape())) {
    if (ShapedType::isDynamic(known))
      continue;
    if (!ShapedType::isDynamic(dim)) {
      if (dim != known)
        return {}; // Contradicts what the IR states; leave it to the verifier.
      continue;
    }
    dim = known;
    changed = true;
  }
  return changed ? RankedTensorType::get(dims, current.getElementType())
                 : RankedTensorType();
}

struct RefineShapesPass final
    : mlir::dsmp::impl::RefineShapesPassBase<RefineShapesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext &ctx = getContext();
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      const OnnxOpInfo *info = lookupDsmpOp(op->getName().getStringRef());
      if (!info || op->getNumRegions() > 0)
        return;
      auto attrs =
          dyn_cast_if_present<DictionaryAttr>(op->getPropertiesAsAttribute());
      SmallVector<Value> operands(op->getOperands());
      for (OpResult result : op->getResults()) {
        auto current = dyn_cast<RankedTensorType>(result.getType());
        if (!current || current.hasStaticShape())
          continue;
        RankedTensorType inferred =
            inferResultType(ctx, info->opName, info->onnxType,
                            result.getResultNumber(), operands, attrs);
        if (RankedTensorType refined = refine(current, inferred)) {
          LLVM_DEBUG(llvm::dbgs() << "refine " << current << " -> " << refined
                                  << " at " << op->getLoc() << "\n");
          result.setType(refined);
          ++numRefined;
        }
      }
    });
    // Keep the signature in step with what the function returns.
    Operation *ret = func.getBody().front().getTerminator();
    func.setFunctionType(FunctionType::get(&ctx, func.getArgumentTypes(),
                                           ret->getOperandTypes()));
  }
};

} // namespace
