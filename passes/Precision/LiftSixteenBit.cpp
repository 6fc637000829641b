//===- LiftSixteenBit.cpp - Analyse a 16-bit model as its f32 lift -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A model that computes in f16 or bf16 itself (onnxconverter-common's
// convert_float_to_float16, a .half() export) would give the precision
// passes nothing to measure: they choose formats for f32 values. Lifted,
// every 16-bit float value is f32 (constants converted exactly), so the
// passes measure and choose each op's format as for an FP32 model; the
// graph's 16-bit inputs and outputs keep their types behind casts.
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Passes.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/MainGraph.h"
#include "dsmp/Support/FloatFormats.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cstring>

#define DEBUG_TYPE "dsmp-lift-16-bit"

namespace mlir::dsmp {
#define GEN_PASS_DEF_LIFTSIXTEENBITPASS
#include "passes/Precision/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

bool isSixteenBitFloat(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  return tensor && isa<Float16Type, BFloat16Type>(tensor.getElementType());
}

Type liftedType(Type type) {
  auto tensor = cast<TensorType>(type);
  return tensor.clone(Float32Type::get(type.getContext()));
}

/// The f32 elements of a 16-bit float constant (exact: f32 holds every f16
/// and bf16 value), inline or a resource blob.
ElementsAttr liftedElements(ConstantOp constant) {
  auto type = dyn_cast<RankedTensorType>(constant.getType());
  if (!type || !type.hasStaticShape())
    return {};
  bool isF16 = type.getElementType().isF16();
  int64_t n = type.getNumElements();
  SmallVector<uint16_t> codes;
  Attribute value = constant.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    ArrayRef<char> raw = dense.getRawData(); // little-endian codes
    int64_t stored = dense.isSplat() ? 1 : n;
    if (raw.size() != size_t(stored) * sizeof(uint16_t))
      return {};
    codes.resize(stored);
    std::memcpy(codes.data(), raw.data(), raw.size());
    if (dense.isSplat())
      codes.assign(n, codes.front());
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != size_t(n) * sizeof(uint16_t))
      return {};
    codes.resize(n);
    std::memcpy(codes.data(), blob->getData().data(), n * sizeof(uint16_t));
  } else {
    return {};
  }
  if (static_cast<int64_t>(codes.size()) != n)
    return {};
  SmallVector<float> values(n);
  for (int64_t i = 0; i < n; ++i)
    values[i] = isF16 ? ::dsmp::formats::fromF16(codes[i])
                      : ::dsmp::formats::fromBF16(codes[i]);
  auto lifted = cast<RankedTensorType>(liftedType(type));
  return DenseElementsAttr::get(lifted, ArrayRef<float>(values));
}

struct LiftSixteenBitPass final
    : mlir::dsmp::impl::LiftSixteenBitPassBase<LiftSixteenBitPass> {
  void runOnOperation() override {
    func::FuncOp graph = lookupMainGraph(getOperation());
    if (!graph)
      return;
    Block &body = graph.getBody().front();
    bool computes = false;
    graph.walk([&](Operation *op) {
      if (!isa<ConstantOp, CastOp>(op) &&
          llvm::any_of(op->getResultTypes(), isSixteenBitFloat))
        computes = true;
    });
    if (!computes)
      return; // f32 compute (16-bit weights read through casts are fine)

    OpBuilder b(&getContext());
    // Inputs: cast up once, at entry.
    llvm::SmallPtrSet<Operation *, 8> entryCasts;
    b.setInsertionPointToStart(&body);
    for (BlockArgument arg : body.getArguments()) {
      if (!isSixteenBitFloat(arg.getType()))
        continue;
      auto up = CastOp::create(b, arg.getLoc(), liftedType(arg.getType()), arg);
      arg.replaceAllUsesExcept(up, up);
      entryCasts.insert(up);
    }
    // Every 16-bit value inside becomes f32.
    bool failedConstant = false;
    graph.walk([&](Operation *op) {
      if (entryCasts.contains(op) || op == graph.getOperation())
        return; // the graph's own arguments keep their types
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (isSixteenBitFloat(arg.getType()))
              arg.setType(liftedType(arg.getType()));
      if (auto constant = dyn_cast<ConstantOp>(op)) {
        if (!isSixteenBitFloat(constant.getType()))
          return;
        ElementsAttr lifted = liftedElements(constant);
        if (!lifted) {
          failedConstant = true;
          return;
        }
        constant.setValueAttr(lifted);
        constant.getResult().setType(cast<RankedTensorType>(lifted.getType()));
        return;
      }
      if (auto fill = dyn_cast<ConstantOfShapeOp>(op))
        if (auto value =
                dyn_cast_if_present<DenseElementsAttr>(fill.getValueAttr()))
          if (isa<Float16Type, BFloat16Type>(value.getElementType())) {
            SmallVector<float> values;
            for (const llvm::APFloat &v : value.getValues<llvm::APFloat>())
              values.push_back(v.convertToFloat());
            fill.setValueAttr(cast<ElementsAttr>(DenseElementsAttr::get(
                cast<ShapedType>(liftedType(value.getType())),
                ArrayRef<float>(values))));
          }
      for (Value result : op->getResults())
        if (isSixteenBitFloat(result.getType()))
          result.setType(liftedType(result.getType()));
    });
    if (failedConstant) {
      graph.emitError("a 16-bit constant whose values cannot be read");
      return signalPassFailure();
    }
    // Casts that now convert f32 to f32 go.
    graph.walk([&](CastOp cast) {
      if (!entryCasts.contains(cast) &&
          cast.getInput().getType() == cast.getType()) {
        cast.getResult().replaceAllUsesWith(cast.getInput());
        cast.erase();
      }
    });
    // Outputs: cast back down to the declared types.
    Operation *ret = body.getTerminator();
    b.setInsertionPoint(ret);
    for (auto [i, declared] :
         llvm::enumerate(graph.getFunctionType().getResults())) {
      Value v = ret->getOperand(i);
      if (v.getType() != declared)
        ret->setOperand(i, CastOp::create(b, ret->getLoc(), declared, v));
    }
    // The report says so: its "before" bytes are the 16-bit model's.
    getOperation()->setAttr("dsmp.lifted_from_16_bit",
                            UnitAttr::get(&getContext()));
    ++numLifted;
  }
};

} // namespace
