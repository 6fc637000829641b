//===- MarkNoAliasPointers.cpp - llvm.noalias on loop nests -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_MARKNOALIASPOINTERSPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kNoAliasPointers = "dsmp.noalias_pointers";

struct MarkNoAliasPointersPass final
    : mlir::dsmp::impl::MarkNoAliasPointersPassBase<MarkNoAliasPointersPass> {
  void runOnOperation() override {
    getOperation().walk([&](LLVM::LLVMFuncOp func) {
      auto positions = func->getAttrOfType<DenseI64ArrayAttr>(kNoAliasPointers);
      if (!positions)
        return;
      func->removeAttr(kNoAliasPointers);
      if (func.isExternal())
        return;
      for (int64_t position : positions.asArrayRef())
        if (position >= 0 && position < func.getNumArguments() &&
            isa<LLVM::LLVMPointerType>(func.getArgument(position).getType()))
          func.setArgAttr(position, LLVM::LLVMDialect::getNoAliasAttrName(),
                          UnitAttr::get(&getContext()));
    });
  }
};
} // namespace
