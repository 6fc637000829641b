//===- RefineShapes.cpp - Make dynamic dims static --------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "dialects/Dsmp/IR/ShapeInference.h"
#include "dialects/Dsmp/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "dsmp-refine-shapes"

namespace mlir::dsmp {
#define GEN_PASS_DEF_REFINESHAPESPASS
#include "dialects/Dsmp/Transforms/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

/// `current` with its dynamic dims taken from `inferred` where that is
/// static, or null when nothing changes or the two disagree.
/// The type an If result can take: the taken branch's yield type when the
/// condition is a constant, else what both branches agree on (same rank;
/// dims that differ stay dynamic). Null when nothing is known.
RankedTensorType joinBranches(IfOp op, unsigned index) {
  auto yielded = [&](Region &region) {
    return dyn_cast<RankedTensorType>(
        region.front().getTerminator()->getOperand(index).getType());
  };
  DenseElementsAttr cond;
  if (matchPattern(op.getCond(), m_Constant(&cond)) &&
      cond.getNumElements() == 1)
    return yielded(*cond.getValues<bool>().begin() ? op.getThenBranch()
                                                   : op.getElseBranch());
  auto a = yielded(op.getThenBranch()), b = yielded(op.getElseBranch());
  if (!a || !b || a.getRank() != b.getRank() ||
      a.getElementType() != b.getElementType())
    return {};
  SmallVector<int64_t> dims;
  for (auto [x, y] : llvm::zip(a.getShape(), b.getShape()))
    dims.push_back(x == y ? x : ShapedType::kDynamic);
  return RankedTensorType::get(dims, a.getElementType());
}

RankedTensorType refine(Type currentType, RankedTensorType inferred) {
  // An unranked tensor takes the inferred shape, keeping its element type
  // (a Cast's result is its input's shape in another type).
  if (auto unranked = dyn_cast<UnrankedTensorType>(currentType))
    return inferred ? RankedTensorType::get(inferred.getShape(),
                                            unranked.getElementType())
                    : RankedTensorType();
  auto current = dyn_cast<RankedTensorType>(currentType);
  if (!current || !inferred || inferred.getRank() != current.getRank())
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
    // Post-order: an If's branches are refined before the If itself, and
    // every producer before its users.
    func.walk<WalkOrder::PostOrder>([&](Operation *op) {
      if (auto ifOp = dyn_cast<IfOp>(op)) {
        // A constant condition: the taken branch replaces the If, and its
        // values (with their own types) flow on to the users, refined next.
        DenseElementsAttr cond;
        if (matchPattern(ifOp.getCond(), m_Constant(&cond)) &&
            cond.getNumElements() == 1) {
          Region &taken = *cond.getValues<bool>().begin()
                              ? ifOp.getThenBranch()
                              : ifOp.getElseBranch();
          Block &block = taken.front();
          Operation *yield = block.getTerminator();
          SmallVector<Value> values(yield->getOperands());
          yield->erase();
          op->getBlock()->getOperations().splice(Block::iterator(op),
                                                 block.getOperations());
          op->replaceAllUsesWith(values);
          op->erase(); // safe in a post-order walk
          ++numRefined;
          return;
        }
        for (OpResult result : op->getResults())
          if (RankedTensorType refined =
                  refine(result.getType(),
                         joinBranches(ifOp, result.getResultNumber()))) {
            result.setType(refined);
            ++numRefined;
          }
        return;
      }
      if (auto table = dyn_cast<DftTableOp>(op)) {
        if (RankedTensorType refined =
                refine(table.getType(), table.knownType())) {
          table.getResult().setType(refined);
          ++numRefined;
        }
        return;
      }
      const OnnxOpInfo *info = lookupDsmpOp(op->getName().getStringRef());
      if (!info || op->getNumRegions() > 0)
        return;
      auto attrs =
          dyn_cast_if_present<DictionaryAttr>(op->getPropertiesAsAttribute());
      SmallVector<Value> operands(op->getOperands());
      for (OpResult result : op->getResults()) {
        auto current = dyn_cast<RankedTensorType>(result.getType());
        if ((current && current.hasStaticShape()) ||
            !isa<TensorType>(result.getType()))
          continue;
        RankedTensorType inferred = inferResultType(
            ctx, info->opName, info->onnxType, result.getResultNumber(),
            operands, attrs, op->getNumResults());
        if (RankedTensorType refined = refine(result.getType(), inferred)) {
          LLVM_DEBUG(llvm::dbgs() << "refine " << result.getType() << " -> "
                                  << refined << " at " << op->getLoc() << "\n");
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

void mlir::dsmp::buildRefineShapesPipeline(OpPassManager &pm) {
  for (int round = 0; round < 5; ++round) {
    pm.addNestedPass<func::FuncOp>(createRefineShapesPass());
    pm.addPass(createCanonicalizerPass());
  }
  pm.addNestedPass<func::FuncOp>(createRefineShapesPass());
}
