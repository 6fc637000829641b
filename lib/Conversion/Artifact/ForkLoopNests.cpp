//===- ForkLoopNests.cpp - Loop nests on libgomp threads --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_FORKLOOPNESTSPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kFork = "dsmp.fork";

/// A declaration of an external C function, added once.
LLVM::LLVMFuncOp declare(ModuleOp module, StringRef name,
                         LLVM::LLVMFunctionType type) {
  if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

/// F_fork(ptr args): this thread's share of [lo, hi), then F on it.
LLVM::LLVMFuncOp buildThunk(ModuleOp module, LLVM::LLVMFuncOp nest,
                            LLVM::LLVMStructType frame) {
  MLIRContext *ctx = module.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
  auto threadQuery = LLVM::LLVMFunctionType::get(i32, {});
  LLVM::LLVMFuncOp threadNum =
      declare(module, "omp_get_thread_num", threadQuery);
  LLVM::LLVMFuncOp threadCount =
      declare(module, "omp_get_num_threads", threadQuery);

  OpBuilder b(module.getContext());
  b.setInsertionPointAfter(nest);
  Location loc = nest.getLoc();
  auto thunk = LLVM::LLVMFuncOp::create(
      b, loc, (nest.getName() + "_fork").str(),
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr}),
      LLVM::Linkage::Internal);
  Block *entry = thunk.addEntryBlock(b);
  Block *run = new Block(), *done = new Block();
  thunk.getBody().push_back(run);
  thunk.getBody().push_back(done);

  b.setInsertionPointToStart(entry);
  Value frameArg = entry->getArgument(0);
  SmallVector<Value> args;
  for (auto [i, type] : llvm::enumerate(frame.getBody())) {
    Value field =
        LLVM::GEPOp::create(b, loc, ptr, frame, frameArg,
                            ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
    args.push_back(LLVM::LoadOp::create(b, loc, type, field));
  }
  auto widen = [&](Value v) -> Value {
    return LLVM::SExtOp::create(b, loc, i64, v);
  };
  Value thread =
      widen(LLVM::CallOp::create(b, loc, threadNum, ValueRange{}).getResult());
  Value threads = widen(
      LLVM::CallOp::create(b, loc, threadCount, ValueRange{}).getResult());
  Value lo = args[0], hi = args[1];
  Value one = LLVM::ConstantOp::create(b, loc, i64, 1);
  // share = ceil((hi - lo) / threads); [lo + t share, min(.. + share, hi))
  Value count = LLVM::SubOp::create(b, loc, hi, lo);
  Value share = LLVM::SDivOp::create(
      b, loc,
      LLVM::SubOp::create(b, loc, LLVM::AddOp::create(b, loc, count, threads),
                          one),
      threads);
  Value begin = LLVM::AddOp::create(b, loc, lo,
                                    LLVM::MulOp::create(b, loc, thread, share));
  Value end = LLVM::AddOp::create(b, loc, begin, share);
  Value endInRange =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::slt, end, hi);
  end = LLVM::SelectOp::create(b, loc, endInRange, end, hi);
  Value any =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::slt, begin, end);
  LLVM::CondBrOp::create(b, loc, any, run, done);

  b.setInsertionPointToStart(run);
  SmallVector<Value> callArgs{begin, end};
  callArgs.append(args.begin() + 2, args.end());
  LLVM::CallOp::create(b, loc, nest, callArgs);
  LLVM::BrOp::create(b, loc, ValueRange{}, done);
  b.setInsertionPointToStart(done);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  return thunk;
}

struct ForkLoopNestsPass final
    : mlir::dsmp::impl::ForkLoopNestsPassBase<ForkLoopNestsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Type i32 = IntegerType::get(ctx, 32);
    SmallVector<LLVM::LLVMFuncOp> nests;
    module.walk([&](LLVM::LLVMFuncOp f) {
      if (f->hasAttr(kFork)) {
        f->removeAttr(kFork);
        if (!f.isExternal() && f.getNumArguments() >= 2)
          nests.push_back(f);
      }
    });
    if (nests.empty())
      return;
    LLVM::LLVMFuncOp gompParallel =
        declare(module, "GOMP_parallel",
                LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                            {ptr, ptr, i32, i32}));
    llvm::DenseMap<StringAttr, LLVM::LLVMFuncOp> byName;
    llvm::DenseMap<StringAttr, LLVM::LLVMStructType> frames;
    for (LLVM::LLVMFuncOp nest : nests)
      byName[nest.getSymNameAttr()] = nest;
    // The calls to rewrite, collected before the thunks add their own.
    SmallVector<LLVM::CallOp> calls;
    module.walk([&](LLVM::CallOp call) {
      if (auto callee = call.getCalleeAttr())
        if (byName.count(callee.getAttr()))
          calls.push_back(call);
    });
    for (LLVM::LLVMFuncOp nest : nests) {
      auto frame = LLVM::LLVMStructType::getLiteral(
          ctx, SmallVector<Type>(nest.getArgumentTypes()));
      byName[nest.getSymNameAttr()] = buildThunk(module, nest, frame);
      frames[nest.getSymNameAttr()] = frame;
    }
    for (LLVM::CallOp call : calls) {
      StringAttr callee = call.getCalleeAttr().getAttr();
      LLVM::LLVMStructType frame = frames[callee];
      OpBuilder b(call);
      Location loc = call.getLoc();
      Value one = LLVM::ConstantOp::create(b, loc, b.getI64Type(), 1);
      Value args = LLVM::AllocaOp::create(b, loc, ptr, frame, one);
      for (auto [i, operand] : llvm::enumerate(call.getArgOperands())) {
        Value field = LLVM::GEPOp::create(
            b, loc, ptr, frame, args,
            ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
        LLVM::StoreOp::create(b, loc, operand, field);
      }
      Value thunk =
          LLVM::AddressOfOp::create(b, loc, ptr, byName[callee].getSymName());
      Value zero = LLVM::ConstantOp::create(b, loc, i32, 0);
      // 0 threads: libgomp's default (OMP_NUM_THREADS); flags 0.
      LLVM::CallOp::create(b, loc, gompParallel,
                           ValueRange{thunk, args, zero, zero});
      call.erase();
    }
  }
};
} // namespace
