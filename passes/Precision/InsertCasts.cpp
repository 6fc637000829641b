//===- InsertCasts.cpp - Assigned formats become types and ---- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/F8Scaling.h"
#include "passes/Precision/Formats.h"
#include "passes/Precision/Passes.h"
#include "passes/Precision/RoundingCost.h"

#include "dialects/Dsmp/IR/DsmpOps.h"

#define DEBUG_TYPE "dsmp-insert-casts"

namespace mlir::dsmp {
#define GEN_PASS_DEF_INSERTCASTSPASS
#include "passes/Precision/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

Value castTo(OpBuilder &b, Location loc, Value v, Type element) {
  auto type = cast<TensorType>(v.getType());
  auto cast = CastOp::create(b, loc, type.clone(element), v);
  if (v.getDefiningOp<ConstantOp>() && (element.isF16() || element.isBF16()))
    cast->setAttr(kKeepNonzeroAttr, b.getUnitAttr());
  return cast;
}

struct InsertCastsPass final
    : mlir::dsmp::impl::InsertCastsPassBase<InsertCastsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<std::pair<Operation *, Format>> work;
    func.walk([&](Operation *op) {
      if (auto assigned = op->getAttrOfType<FormatAttr>("dsmp.assigned"))
        if (assigned.getValue() != Format::f32)
          work.push_back({op, assigned.getValue()});
    });
    for (auto [op, format] : work) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (isF8(format)) {
        if (failed(quantizeOperands(op, format)))
          return signalPassFailure();
        continue;
      }
      if (format == Format::tf32) {
        // Matmul/conv inputs rounded to tf32; results in f32 storage (an op
        // whose result type must match its operands' types a tf32 result,
        // which is f32 in storage, cast back to f32).
        Type tf32 = FloatTF32Type::get(&getContext());
        for (unsigned i = 0; i < std::min(2u, op->getNumOperands()); ++i)
          if (isF32Tensor(op->getOperand(i).getType()))
            op->setOperand(i, castTo(b, loc, op->getOperand(i), tf32));
        // (MatMul's result may be f32 only for 16-bit operands.)
        if (op->hasTrait<mlir::OpTrait::SameOperandsAndResultElementType>() ||
            isa<MatMulOp>(op))
          retypeResults(op, tf32);
        continue;
      }
      Type element = getStorageType(&getContext(), format);
      for (unsigned i = 0; i < op->getNumOperands(); ++i)
        if (isDataOperand(op, i) && isF32Tensor(op->getOperand(i).getType()))
          op->setOperand(i, castTo(b, loc, op->getOperand(i), element));
      retypeResults(op, element);
    }
  }

  /// Operands 0 and 1 of an f8 contraction through quantize -> dequantize
  /// with a per-tensor scale; the op keeps its f32 types.
  LogicalResult quantizeOperands(Operation *op, Format format) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Type f8 = getStorageType(&getContext(), format);
    Type f32 = b.getF32Type();
    for (unsigned i = 0; i < std::min(2u, op->getNumOperands()); ++i) {
      Value operand = op->getOperand(i);
      if (!isF32Tensor(operand.getType()))
        continue;
      auto measured = measureF8Operand(operand, format);
      if (!measured)
        return op->emitError("dsmp-insert-casts: operand ")
               << i << " of an op assigned " << stringifyFormat(format)
               << " has no calibrated range (run dsmp-analyze-ranges)";
      auto scalarOf = [&](Type element) {
        return RankedTensorType::get({}, element);
      };
      Value scale = ConstantOp::create(
          b, loc, scalarOf(f32),
          DenseElementsAttr::get(scalarOf(f32),
                                 b.getF32FloatAttr(measured->scale(format))));
      Value zero = ConstantOp::create(
          b, loc, scalarOf(f8),
          DenseElementsAttr::get(scalarOf(f8), b.getFloatAttr(f8, 0.0)));
      auto type = cast<TensorType>(operand.getType());
      Value q = QuantizeLinearOp::create(b, loc, type.clone(f8), operand, scale,
                                         zero);
      op->setOperand(i,
                     DequantizeLinearOp::create(b, loc, type, q, scale, zero));
    }
    return success();
  }

  /// Gives the op's f32 results `element` and its users a cast back.
  void retypeResults(Operation *op, Type element) {
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    for (Value result : op->getResults()) {
      if (!isF32Tensor(result.getType()))
        continue;
      result.setType(cast<TensorType>(result.getType()).clone(element));
      Value wide = castTo(b, op->getLoc(), result, b.getF32Type());
      result.replaceAllUsesExcept(wide, wide.getDefiningOp());
    }
  }
};
} // namespace
