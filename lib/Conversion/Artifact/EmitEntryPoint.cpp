//===- EmitEntryPoint.cpp - The artifact's C entry point --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The lowered @main_graph takes every memref as an expanded descriptor
// (allocated pointer, aligned pointer, offset, sizes, strides). A C caller
// should not need to know that: dsmp_model_run(io, weights) takes one data
// pointer per input/output and the base of the mapped weight file, and
// builds the descriptors from the static shapes recorded before lowering.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_EMITENTRYPOINTPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {
struct EmitEntryPointPass final
    : mlir::dsmp::impl::EmitEntryPointPassBase<EmitEntryPointPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    auto layout = module->getAttrOfType<ArrayAttr>("dsmp.entry_layout");
    auto graph = module.lookupSymbol<LLVM::LLVMFuncOp>("main_graph");
    if (!layout || !graph) {
      module.emitError("dsmp-emit-entry-point needs a lowered @main_graph "
                       "and the dsmp.entry_layout attribute");
      return signalPassFailure();
    }

    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Location loc = graph.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(context);
    auto i64 = b.getI64Type();
    auto entry = LLVM::LLVMFuncOp::create(
        b, loc, entryName,
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                    {ptr, ptr}));
    Block *body = entry.addEntryBlock(b);
    b.setInsertionPointToStart(body);
    Value io = body->getArgument(0), weights = body->getArgument(1);
    auto constant = [&](int64_t v) -> Value {
      return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
    };

    SmallVector<Value> operands;
    for (Attribute item : layout) {
      auto dict = dyn_cast<DictionaryAttr>(item);
      auto kind = dict ? dict.getAs<StringAttr>("kind") : StringAttr();
      auto slot = dict ? dict.getAs<IntegerAttr>("slot") : IntegerAttr();
      auto type = dict ? dict.getAs<TypeAttr>("type") : TypeAttr();
      auto shaped = type ? dyn_cast<ShapedType>(type.getValue()) : nullptr;
      if (!kind || !slot || !shaped || !shaped.hasStaticShape()) {
        module.emitError("malformed dsmp.entry_layout entry ") << item;
        return signalPassFailure();
      }
      Value data;
      if (kind.getValue() == "input" || kind.getValue() == "output") {
        Value address = LLVM::GEPOp::create(
            b, loc, ptr, ptr, io,
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(slot.getInt())});
        data = LLVM::LoadOp::create(b, loc, ptr, address);
      } else {
        data = LLVM::GEPOp::create(b, loc, ptr, b.getI8Type(), weights,
                                   ValueRange{constant(slot.getInt())});
      }
      operands.append({data, data, constant(0)});
      for (int64_t size : shaped.getShape())
        operands.push_back(constant(size));
      int64_t stride = 1;
      SmallVector<Value> strides;
      for (int64_t size : llvm::reverse(shaped.getShape())) {
        strides.push_back(constant(stride));
        stride *= size;
      }
      operands.append(strides.rbegin(), strides.rend());
    }
    if (operands.size() != graph.getNumArguments() ||
        !isa<LLVM::LLVMVoidType>(graph.getFunctionType().getReturnType())) {
      module.emitError("dsmp.entry_layout describes ")
          << operands.size() << " descriptor fields, @main_graph takes "
          << graph.getNumArguments() << " (and must return nothing)";
      return signalPassFailure();
    }
    LLVM::CallOp::create(b, loc, graph, operands);
    LLVM::ReturnOp::create(b, loc, ValueRange{});
    // Only the entry point is exported: helpers the lowering adds (such as
    // bufferization's dealloc_helper) would clash between the variants'
    // objects linked into one library.
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (func != entry && !func.isExternal())
        func.setLinkage(LLVM::Linkage::Internal);
  }
};
} // namespace
