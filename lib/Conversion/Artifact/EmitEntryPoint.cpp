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
// A dynamic variant's entry point also takes the inputs' dims and hands each
// output, at the dims the model computed, to a buffer its caller provides.
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

/// Every defined function but `entry` becomes internal: helpers the
/// lowering adds (such as bufferization's dealloc_helper) would clash
/// between the variants' objects linked into one library.
void internalizeAllBut(ModuleOp module, LLVM::LLVMFuncOp entry) {
  for (auto func : module.getOps<LLVM::LLVMFuncOp>())
    if (func != entry && !func.isExternal())
      func.setLinkage(LLVM::Linkage::Internal);
}

/// The function the lowered code frees its buffers with: the artifact's
/// allocator where the lowering used it, else the C library's.
LLVM::LLVMFuncOp freeFunction(ModuleOp module, OpBuilder &b) {
  StringRef name = module.lookupSymbol("_mlir_memref_to_llvm_alloc")
                       ? "_mlir_memref_to_llvm_free"
                       : "free";
  if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  return LLVM::LLVMFuncOp::create(
      b, module.getLoc(), name,
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(b.getContext()),
                                  {ptr}));
}

/// One dsmp.entry_layout entry: `kind` (input, output, weight), `slot`
/// (the io index or the weight file offset) and the tensor type.
struct LayoutEntry {
  StringRef kind;
  int64_t slot;
  ShapedType type;
};

FailureOr<LayoutEntry> layoutEntry(Attribute item) {
  auto dict = dyn_cast<DictionaryAttr>(item);
  auto kind = dict ? dict.getAs<StringAttr>("kind") : StringAttr();
  auto slot = dict ? dict.getAs<IntegerAttr>("slot") : IntegerAttr();
  auto type = dict ? dict.getAs<TypeAttr>("type") : TypeAttr();
  auto shaped = type ? dyn_cast<ShapedType>(type.getValue()) : nullptr;
  if (!kind || !slot || !shaped)
    return failure();
  return LayoutEntry{kind.getValue(), slot.getInt(), shaped};
}

struct EmitEntryPointPass final
    : mlir::dsmp::impl::EmitEntryPointPassBase<EmitEntryPointPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto layout = module->getAttrOfType<ArrayAttr>("dsmp.entry_layout");
    auto graph = module.lookupSymbol<LLVM::LLVMFuncOp>("main_graph");
    if (!layout || !graph) {
      module.emitError("dsmp-emit-entry-point needs a lowered @main_graph "
                       "and the dsmp.entry_layout attribute");
      return signalPassFailure();
    }
    if (failed(dynamic ? emitDynamic(module, graph, layout)
                       : emitStatic(module, graph, layout)))
      return signalPassFailure();
  }

  LogicalResult emitStatic(ModuleOp module, LLVM::LLVMFuncOp graph,
                           ArrayAttr layout) {
    MLIRContext *context = &getContext();

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
      FailureOr<LayoutEntry> entry = layoutEntry(item);
      if (failed(entry) || !entry->type.hasStaticShape())
        return module.emitError("malformed dsmp.entry_layout entry ") << item;
      auto [kind, slot, shaped] = *entry;
      Value data;
      if (kind == "input" || kind == "output") {
        Value address = LLVM::GEPOp::create(
            b, loc, ptr, ptr, io,
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(slot)});
        data = LLVM::LoadOp::create(b, loc, ptr, address);
      } else {
        data = LLVM::GEPOp::create(b, loc, ptr, b.getI8Type(), weights,
                                   ValueRange{constant(slot)});
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
        !isa<LLVM::LLVMVoidType>(graph.getFunctionType().getReturnType()))
      return module.emitError("dsmp.entry_layout describes ")
             << operands.size() << " descriptor fields, @main_graph takes "
             << graph.getNumArguments() << " (and must return nothing)";
    LLVM::CallOp::create(b, loc, graph, operands);
    LLVM::ReturnOp::create(b, loc, ValueRange{});
    internalizeAllBut(module, entry);
    return success();
  }

  /// The dynamic variant's entry point (see the pass description): sizes
  /// from `dims`, outputs returned by @main_graph and copied to the buffers
  /// `output` hands out.
  LogicalResult emitDynamic(ModuleOp module, LLVM::LLVMFuncOp graph,
                            ArrayAttr layout) {
    MLIRContext *context = &getContext();
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Location loc = graph.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(context);
    auto i64 = b.getI64Type();
    auto i32 = b.getI32Type();
    LLVM::LLVMFuncOp freeFn = freeFunction(module, b);
    auto outputFnType = LLVM::LLVMFunctionType::get(ptr, {ptr, i64, ptr});
    auto entry = LLVM::LLVMFuncOp::create(
        b, loc, entryName,
        LLVM::LLVMFunctionType::get(i32, {ptr, ptr, ptr, ptr, ptr}));
    Block *body = entry.addEntryBlock(b);
    b.setInsertionPointToStart(body);
    Value io = body->getArgument(0), weights = body->getArgument(1),
          dims = body->getArgument(2), outputFn = body->getArgument(3),
          outputContext = body->getArgument(4);
    auto constant = [&](int64_t v) -> Value {
      return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
    };
    auto load = [&](Value base, Type type, int64_t index) -> Value {
      Value address = LLVM::GEPOp::create(
          b, loc, ptr, type, base,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
      return LLVM::LoadOp::create(b, loc, type, address);
    };

    struct Output {
      int64_t rank, elementBytes;
    };
    SmallVector<Output> outputs;
    SmallVector<Value> operands;
    int64_t dimIndex = 0; // the next input's first dim in `dims`
    for (Attribute item : layout) {
      FailureOr<LayoutEntry> entry = layoutEntry(item);
      if (failed(entry))
        return module.emitError("malformed dsmp.entry_layout entry ") << item;
      auto [kind, slot, shaped] = *entry;
      if (kind == "output") {
        unsigned bits = shaped.getElementTypeBitWidth();
        outputs.push_back({shaped.getRank(), std::max<int64_t>(1, bits / 8)});
        continue;
      }
      Value data;
      SmallVector<Value> sizes;
      if (kind == "input") {
        data = load(io, ptr, slot);
        for (int64_t d = 0; d < shaped.getRank(); ++d, ++dimIndex)
          sizes.push_back(shaped.isDynamicDim(d)
                              ? load(dims, i64, dimIndex)
                              : constant(shaped.getDimSize(d)));
      } else {
        data = LLVM::GEPOp::create(b, loc, ptr, b.getI8Type(), weights,
                                   ValueRange{constant(slot)});
        for (int64_t size : shaped.getShape())
          sizes.push_back(constant(size));
      }
      operands.append({data, data, constant(0)});
      llvm::append_range(operands, sizes);
      SmallVector<Value> strides(sizes.size());
      Value stride = constant(1);
      for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
        strides[d] = stride;
        stride = LLVM::MulOp::create(b, loc, stride, sizes[d]);
      }
      llvm::append_range(operands, strides);
    }
    if (operands.size() != graph.getNumArguments() ||
        graph.getNumResults() != 1 ||
        isa<LLVM::LLVMVoidType>(graph.getFunctionType().getReturnType()))
      return module.emitError("dsmp.entry_layout describes ")
             << operands.size() << " descriptor fields and " << outputs.size()
             << " outputs; @main_graph takes " << graph.getNumArguments()
             << " and must return its outputs";
    Value results = LLVM::CallOp::create(b, loc, graph, operands).getResult();
    auto descriptor = [&](OpBuilder &at, size_t i) -> Value {
      if (outputs.size() == 1)
        return results;
      return LLVM::ExtractValueOp::create(at, loc, results,
                                          ArrayRef<int64_t>{int64_t(i)});
    };
    // Frees the outputs' buffers, each once (two outputs may share one).
    auto freeOutputs = [&]() {
      SmallVector<Value> freed;
      Value null = LLVM::ZeroOp::create(b, loc, ptr);
      for (size_t i = 0; i < outputs.size(); ++i) {
        Value allocated =
            LLVM::ExtractValueOp::create(b, loc, descriptor(b, i), 0);
        Value pointer = allocated;
        for (Value earlier : freed)
          pointer = LLVM::SelectOp::create(
              b, loc,
              LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, allocated,
                                   earlier),
              null, pointer);
        LLVM::CallOp::create(b, loc, freeFn, ValueRange{pointer});
        freed.push_back(allocated);
      }
    };
    auto returnCode = [&](int32_t code) {
      LLVM::ReturnOp::create(b, loc,
                             ValueRange{LLVM::ConstantOp::create(
                                 b, loc, i32, b.getI32IntegerAttr(code))});
    };
    // One block per output: ask for its buffer and copy; a NULL buffer
    // frees every output and returns 1.
    Value sizesArray = LLVM::AllocaOp::create(
        b, loc, ptr, i64, constant(std::max<int64_t>(1, [&] {
          int64_t most = 0;
          for (const Output &o : outputs)
            most = std::max(most, o.rank);
          return most;
        }())));
    for (auto [i, out] : llvm::enumerate(outputs)) {
      Value desc = descriptor(b, i);
      Value aligned = LLVM::ExtractValueOp::create(b, loc, desc, 1);
      Value offset = LLVM::ExtractValueOp::create(b, loc, desc, 2);
      Value count = constant(1);
      for (int64_t d = 0; d < out.rank; ++d) {
        Value size =
            LLVM::ExtractValueOp::create(b, loc, desc, ArrayRef<int64_t>{3, d});
        Value address = LLVM::GEPOp::create(
            b, loc, ptr, i64, sizesArray,
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(d)});
        LLVM::StoreOp::create(b, loc, size, address);
        count = LLVM::MulOp::create(b, loc, count, size);
      }
      Value buffer =
          LLVM::CallOp::create(b, loc, outputFnType,
                               ValueRange{outputFn, outputContext,
                                          constant(int64_t(i)), sizesArray})
              .getResult();
      Value isNull =
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, buffer,
                               LLVM::ZeroOp::create(b, loc, ptr));
      Block *copy = entry.addBlock();
      Block *refused = entry.addBlock();
      LLVM::CondBrOp::create(b, loc, isNull, refused, copy);

      b.setInsertionPointToStart(refused);
      freeOutputs();
      returnCode(1);

      b.setInsertionPointToStart(copy);
      Value elementBytes = constant(out.elementBytes);
      Value source = LLVM::GEPOp::create(
          b, loc, ptr, b.getI8Type(), aligned,
          ValueRange{LLVM::MulOp::create(b, loc, offset, elementBytes)});
      LLVM::MemcpyOp::create(b, loc, buffer, source,
                             LLVM::MulOp::create(b, loc, count, elementBytes),
                             /*isVolatile=*/false);
    }
    freeOutputs();
    returnCode(0);
    internalizeAllBut(module, entry);
    return success();
  }
};
} // namespace
