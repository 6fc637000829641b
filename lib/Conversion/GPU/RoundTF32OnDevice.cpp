//===- RoundTF32OnDevice.cpp - tf32 rounding as cvt.rna.tf32.f32 -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_ROUNDTF32ONDEVICEPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {

/// The f32 that the integer rounding ending in `last` rounds:
///   bits = bitcast x; ...; result = select(special, bits, rounded);
///   last = bitcast result
Value roundedInput(arith::BitcastOp last) {
  auto select = last.getIn().getDefiningOp<arith::SelectOp>();
  auto bits = select ? select.getTrueValue().getDefiningOp<arith::BitcastOp>()
                     : arith::BitcastOp();
  if (!bits || !bits.getIn().getType().isF32())
    return {};
  return bits.getIn();
}

struct RoundTF32OnDevicePass final
    : mlir::dsmp::impl::RoundTF32OnDevicePassBase<RoundTF32OnDevicePass> {
  void runOnOperation() override {
    SmallVector<arith::BitcastOp> roundings;
    getOperation().walk([&](arith::BitcastOp op) {
      if (op->hasAttr(mlir::dsmp::kTF32RoundingAttr))
        roundings.push_back(op);
    });
    for (arith::BitcastOp last : roundings) {
      Value input = roundedInput(last);
      if (!input) {
        last->emitError("dsmp-round-tf32-on-device: not the tf32 rounding "
                        "the lowering emits");
        return signalPassFailure();
      }
      OpBuilder b(last);
      // Ties away from zero, as the host's integer rounding; inf and NaN
      // pass through.
      auto tf32 = NVVM::ConvertFloatToTF32Op::create(
          b, last.getLoc(), b.getI32Type(), input, NVVM::FPRoundingMode::RNA,
          NVVM::SaturationMode::NONE, /*relu=*/false);
      Value result =
          arith::BitcastOp::create(b, last.getLoc(), b.getF32Type(), tf32);
      last.getResult().replaceAllUsesWith(result);
      last.erase();
    }
  }
};

} // namespace
