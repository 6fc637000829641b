//===- TimeCalls.cpp - Time each call of @main_graph -----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The profiler's instrumentation: once each lowered op is one call (an
// outlined loop nest, a GEMM library call) or a copy, two clock reads
// around it give its time, added to a row of a counters array that model.so
// exports and libdsmprt reads (runtime/lib/Profiler.cpp).
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/MainGraph.h"
#include "lib/Conversion/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_TIMECALLSPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kClockName = "dsmp_profile_clock";

/// The indices dsmp-tag-profile-ops put in `loc`, in order of appearance.
SmallVector<int64_t> taggedOps(Location loc) {
  llvm::SetVector<int64_t> ids;
  loc->walk([&](Location inner) {
    if (auto fused = dyn_cast<FusedLoc>(inner))
      if (auto tag = dyn_cast_or_null<DictionaryAttr>(fused.getMetadata()))
        if (auto id = tag.getAs<IntegerAttr>(dsmp::kProfileOpTag))
          ids.insert(id.getInt());
    return WalkResult::advance();
  });
  return SmallVector<int64_t>(ids.begin(), ids.end());
}

/// `i64 dsmp_profile_clock()`: CLOCK_MONOTONIC in nanoseconds, through the
/// C library's clock_gettime (a vDSO call on Linux, tens of nanoseconds).
func::FuncOp buildClock(ModuleOp module, SymbolTable &symbols) {
  MLIRContext *context = module.getContext();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Location loc = b.getUnknownLoc();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto pointer = LLVM::LLVMPointerType::get(context);
  // struct timespec { time_t tv_sec; long tv_nsec; } on 64-bit Linux.
  auto timespec = LLVM::LLVMStructType::getLiteral(context, {i64, i64});

  auto gettime = symbols.lookup<func::FuncOp>("clock_gettime");
  if (!gettime) {
    gettime = func::FuncOp::create(b, loc, "clock_gettime",
                                   b.getFunctionType({i32, pointer}, {i32}));
    gettime.setPrivate();
    symbols.insert(gettime);
  }
  auto clock =
      func::FuncOp::create(b, loc, kClockName, b.getFunctionType({}, {i64}));
  clock.setPrivate();
  clock->setAttr("llvm.linkage",
                 LLVM::LinkageAttr::get(context, LLVM::Linkage::Internal));
  symbols.insert(clock);
  OpBuilder body = OpBuilder::atBlockBegin(clock.addEntryBlock());
  Value one = arith::ConstantIntOp::create(body, loc, i64, 1);
  Value monotonic = arith::ConstantIntOp::create(body, loc, i32, 1);
  Value spec = LLVM::AllocaOp::create(body, loc, pointer, timespec, one);
  func::CallOp::create(body, loc, gettime, ValueRange{monotonic, spec});
  Value seconds = LLVM::LoadOp::create(body, loc, i64, spec);
  Value nanosPointer = LLVM::GEPOp::create(body, loc, pointer, timespec, spec,
                                           ArrayRef<LLVM::GEPArg>{0, 1});
  Value nanos = LLVM::LoadOp::create(body, loc, i64, nanosPointer);
  Value billion = arith::ConstantIntOp::create(body, loc, i64, 1000000000);
  Value total = arith::AddIOp::create(
      body, loc, arith::MulIOp::create(body, loc, seconds, billion), nanos);
  func::ReturnOp::create(body, loc, total);
  return clock;
}

/// What a timed op is: an outlined loop nest, a GEMM library call, a copy,
/// or another call.
std::pair<StringRef, StringRef> kindOf(Operation *op) {
  if (isa<memref::CopyOp>(op))
    return {"copy", "memref.copy"};
  StringRef callee = cast<func::CallOp>(op).getCallee();
  if (callee.starts_with("main_graph_loop"))
    return {"loop", callee};
  if (callee.contains("gemm"))
    return {"gemm", callee};
  return {"call", callee};
}

struct TimeCallsPass final
    : mlir::dsmp::impl::TimeCallsPassBase<TimeCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp graph = mlir::dsmp::lookupMainGraph(module);
    if (!graph || graph.isExternal()) {
      module.emitError("dsmp-time-calls needs @main_graph");
      return signalPassFailure();
    }
    SmallVector<Operation *> timed;
    graph.walk([&](Operation *op) {
      if (isa<memref::CopyOp, func::CallOp>(op))
        timed.push_back(op);
    });
    MLIRContext *context = &getContext();
    Builder attrs(context);
    SmallVector<Attribute> regions;
    SymbolTable symbols(module);
    if (symbols.lookup(counters)) {
      module.emitError() << "dsmp-time-calls: the module already has a '"
                         << counters << "'";
      return signalPassFailure();
    }
    func::FuncOp clock = buildClock(module, symbols);

    // One row per timed op: nanoseconds, calls.
    Type i64 = attrs.getI64Type();
    auto rowsType =
        MemRefType::get({std::max<int64_t>(timed.size(), 1), 2}, i64);
    OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
    auto zeros =
        DenseElementsAttr::get(RankedTensorType::get(rowsType.getShape(), i64),
                               attrs.getI64IntegerAttr(0));
    auto global = memref::GlobalOp::create(
        top, graph.getLoc(), counters, /*sym_visibility=*/nullptr, rowsType,
        zeros, /*constant=*/false, top.getI64IntegerAttr(64));
    symbols.insert(global);

    Location unknown = UnknownLoc::get(context);
    OpBuilder entry = OpBuilder::atBlockBegin(&graph.getBody().front());
    Value rows =
        memref::GetGlobalOp::create(entry, unknown, rowsType, global.getName());
    Value nanosColumn = arith::ConstantIndexOp::create(entry, unknown, 0);
    Value callsColumn = arith::ConstantIndexOp::create(entry, unknown, 1);
    Value oneCall = arith::ConstantIntOp::create(entry, unknown, i64, 1);
    for (auto [row, op] : llvm::enumerate(timed)) {
      auto [kind, callee] = kindOf(op);
      regions.push_back(attrs.getDictionaryAttr({
          attrs.getNamedAttr("kind", attrs.getStringAttr(kind)),
          attrs.getNamedAttr("callee", attrs.getStringAttr(callee)),
          attrs.getNamedAttr(
              "ops", attrs.getDenseI64ArrayAttr(taggedOps(op->getLoc()))),
      }));
      OpBuilder b(op);
      Location loc = op->getLoc();
      Value start = func::CallOp::create(b, loc, clock).getResult(0);
      b.setInsertionPointAfter(op);
      Value end = func::CallOp::create(b, loc, clock).getResult(0);
      Value elapsed = arith::SubIOp::create(b, loc, end, start);
      Value index = arith::ConstantIndexOp::create(b, loc, row);
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, elapsed,
                                  rows, ValueRange{index, nanosColumn});
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, oneCall,
                                  rows, ValueRange{index, callsColumn});
    }
    module->setAttr("dsmp.profile_regions", attrs.getArrayAttr(regions));
  }
};
} // namespace
