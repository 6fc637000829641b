//===- FreeBuffersAfterLastUse.cpp - Early deallocs -------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_FREEBUFFERSAFTERLASTUSEPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {
/// The last op of `block` that uses `buffer` or one of its views, or null
/// where a use is one the pass cannot follow.
FailureOr<Operation *> lastUseInBlock(Value buffer, Block *block,
                                      Operation *dealloc) {
  Operation *last = nullptr;
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user == dealloc)
        continue;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == value) {
        worklist.push_back(view->getResult(0));
      } else if (llvm::any_of(user->getResultTypes(),
                              llvm::IsaPred<BaseMemRefType>)) {
        return failure(); // a memref that may alias the buffer
      } else if (isa<memref::DeallocOp>(user)) {
        return failure(); // freed elsewhere too
      }
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock)
        return failure();
      if (!last || last->isBeforeInBlock(inBlock))
        last = inBlock;
    }
  }
  return last;
}

struct FreeBuffersAfterLastUsePass final
    : mlir::dsmp::impl::FreeBuffersAfterLastUsePassBase<
          FreeBuffersAfterLastUsePass> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk(
        [&](memref::DeallocOp dealloc) { deallocs.push_back(dealloc); });
    for (memref::DeallocOp dealloc : deallocs) {
      auto alloc = dealloc.getMemref().getDefiningOp<memref::AllocOp>();
      Block *block = dealloc->getBlock();
      if (!alloc || alloc->getBlock() != block)
        continue;
      FailureOr<Operation *> last =
          lastUseInBlock(alloc.getResult(), block, dealloc);
      if (failed(last))
        continue;
      Operation *after = *last ? *last : alloc.getOperation();
      if (after->isBeforeInBlock(dealloc))
        dealloc->moveAfter(after);
    }
  }
};
} // namespace
