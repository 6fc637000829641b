//===- FreeDeviceBuffers.cpp - Device buffers freed on the device -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_FREEDEVICEBUFFERSPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {

/// Whether `buffer` is host memory: it comes (through views) from a
/// memref.alloc or alloca, which after dsmp-map-loops-to-gpu only the
/// deallocation bookkeeping makes.
bool isHostBuffer(Value buffer) {
  while (Operation *def = buffer.getDefiningOp()) {
    if (isa<memref::AllocOp, memref::AllocaOp>(def))
      return true;
    if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(def))
      buffer = metadata.getSource();
    else if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      buffer = view.getViewSource();
    else
      return false;
  }
  return false;
}

struct FreeDeviceBuffersPass final
    : mlir::dsmp::impl::FreeDeviceBuffersPassBase<FreeDeviceBuffersPass> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> device;
    getOperation().walk([&](memref::DeallocOp dealloc) {
      if (!isHostBuffer(dealloc.getMemref()))
        device.push_back(dealloc);
    });
    for (memref::DeallocOp dealloc : device) {
      OpBuilder b(dealloc);
      Location loc = dealloc.getLoc();
      // The async form (what gpu-to-llvm lowers), on the runtime's stream.
      auto tokenType = gpu::AsyncTokenType::get(&getContext());
      Value start =
          gpu::WaitOp::create(b, loc, tokenType, ValueRange()).getAsyncToken();
      gpu::DeallocOp::create(b, loc, tokenType, ValueRange{start},
                             dealloc.getMemref());
      dealloc.erase();
    }
  }
};

} // namespace
