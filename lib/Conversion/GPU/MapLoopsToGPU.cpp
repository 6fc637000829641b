//===- MapLoopsToGPU.cpp - Bufferized loops as GPU kernels ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Every loop nest of a bufferized function becomes a gpu.launch: the
// parallel dims of an scf.parallel are linearized (innermost fastest, so
// neighbouring threads touch neighbouring elements) over blocks of
// `threads-per-block` threads; whatever else reads or writes memory runs
// as a one-thread launch. Buffers live in device memory (gpu.alloc), and
// the constants a kernel reads go with it into its gpu.module.
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_MAPLOOPSTOGPUPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {

/// The ONNX node an op came from (the innermost name in its location), as
/// a symbol fragment: kernels are named after their nodes, so that a
/// launch failure can say which node failed.
std::string nodeNameOf(Location loc) {
  std::string name;
  loc->walk([&](Location inner) {
    if (auto named = dyn_cast<NameLoc>(inner)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  std::string symbol;
  for (char c : name)
    symbol += llvm::isAlnum(c) ? c : '_';
  return symbol.substr(0, 48);
}

/// Ops that leave memory alone or only describe it (views, metadata):
/// they stay on the host.
bool staysOnHost(Operation *op) {
  if (isa<gpu::GPUDialect, arith::ArithDialect,
          bufferization::BufferizationDialect>(op->getDialect()))
    return true;
  if (isa<memref::AllocOp, memref::DeallocOp, memref::AllocaOp,
          memref::GetGlobalOp, memref::SubViewOp, memref::ReinterpretCastOp,
          memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp,
          memref::ViewOp, memref::ReshapeOp, memref::ExtractStridedMetadataOp,
          memref::ExtractAlignedPointerAsIndexOp, memref::DimOp,
          memref::RankOp>(op))
    return true;
  // Calls are host code (the runtime's GEMM entry point).
  return isa<func::CallOp>(op) || op->hasTrait<OpTrait::IsTerminator>() ||
         op->hasTrait<OpTrait::ConstantLike>();
}

/// Whether `op` holds loop nests or launches (an scf.if around the
/// generated route of a GEMM the library may run instead).
bool containsParallelLoop(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        return isa<scf::ParallelOp, gpu::LaunchOp>(inner)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

struct MapLoopsToGPUPass final
    : mlir::dsmp::impl::MapLoopsToGPUPassBase<MapLoopsToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(mapBlock(func.getBody().front())))
      return signalPassFailure();
    // Kernels made before (dsmp-matmul-to-mma's) join the function's.
    func.walk([&](gpu::LaunchOp launch) {
      if (!launch.getFunctionAttr())
        nameKernel(launch, launch);
    });
    allocateOnDevice(func);
    sinkGlobals(func);
  }

private:
  unsigned kernelCount = 0;

  /// Names the launch's kernel after `from`'s node; every kernel of the
  /// function goes into one gpu.module (one binary per artifact variant).
  void nameKernel(gpu::LaunchOp launch, Operation *from) {
    std::string node = nodeNameOf(from->getLoc());
    std::string name = "k" + std::to_string(kernelCount++) +
                       (node.empty() ? std::string() : "_" + node);
    MLIRContext *context = launch.getContext();
    launch.setFunctionAttr(FlatSymbolRefAttr::get(context, name));
    launch.setModuleAttr(FlatSymbolRefAttr::get(
        context, getOperation().getSymName().str() + "_kernels"));
  }

  /// Maps the ops of a host block: loop nests become launches; an scf.for
  /// or scf.if around loop nests stays on the host with launches inside.
  LogicalResult mapBlock(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (staysOnHost(&op))
        continue;
      if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
        if (loop.getNumReductions() == 0) {
          launchParallel(loop);
          continue;
        }
      } else if (isa<scf::ForOp, scf::IfOp>(op) && containsParallelLoop(&op)) {
        for (Region &region : op.getRegions())
          for (Block &inner : region)
            if (failed(mapBlock(inner)))
              return failure();
        continue;
      }
      if (auto load = dyn_cast<memref::LoadOp>(op);
          load && !load.getResult().use_empty()) {
        readToHost(load);
        continue;
      }
      if (failed(launchSingle(&op)))
        return failure();
    }
    return success();
  }

  /// A scalar the host needs (a branch condition, a size): one thread
  /// copies it into a one-element device buffer, which is copied to the
  /// host stack and waited for.
  void readToHost(memref::LoadOp load) {
    OpBuilder b(load);
    Location loc = load.getLoc();
    Type element = load.getResult().getType();
    auto scalarType = MemRefType::get({1}, element);
    auto tokenType = gpu::AsyncTokenType::get(load.getContext());
    Value start =
        gpu::WaitOp::create(b, loc, tokenType, ValueRange()).getAsyncToken();
    auto staging =
        gpu::AllocOp::create(b, loc, scalarType, tokenType, ValueRange{start},
                             ValueRange(), ValueRange(), /*hostShared=*/false);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto launch = gpu::LaunchOp::create(b, loc, one, one, one, one, one, one);
    nameKernel(launch, load);
    {
      OpBuilder inner(&launch.getBody().front(),
                      launch.getBody().front().end());
      Value zero = arith::ConstantIndexOp::create(inner, loc, 0);
      Value value = memref::LoadOp::create(inner, loc, load.getMemRef(),
                                           load.getIndices());
      memref::StoreOp::create(inner, loc, value, staging.getMemref(),
                              ValueRange{zero});
      gpu::TerminatorOp::create(inner, loc);
    }
    Value host = memref::AllocaOp::create(b, loc, scalarType);
    Value copyStart =
        gpu::WaitOp::create(b, loc, tokenType, ValueRange()).getAsyncToken();
    Value copied =
        gpu::MemcpyOp::create(b, loc, tokenType, ValueRange{copyStart}, host,
                              staging.getMemref())
            .getAsyncToken();
    // The host reads it only once the copy is done.
    gpu::WaitOp::create(b, loc, Type(), ValueRange{copied});
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value value = memref::LoadOp::create(b, loc, host, ValueRange{zero});
    Value freeStart =
        gpu::WaitOp::create(b, loc, tokenType, ValueRange()).getAsyncToken();
    gpu::DeallocOp::create(b, loc, tokenType, ValueRange{freeStart},
                           staging.getMemref());
    load.getResult().replaceAllUsesWith(value);
    load.erase();
  }

  /// `loop`'s iterations spread over threads, one iteration each.
  void launchParallel(scf::ParallelOp loop) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    // Trip count per dim and in all: constants where the bounds are, so
    // that the kernel divides by constants (a multiply and a shift), not
    // by a 64-bit value (a call into CUDA's division routine).
    SmallVector<Value> trips;
    std::optional<int64_t> constantTotal = 1;
    Value total;
    for (auto [lb, ub, step] : llvm::zip(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      auto l = getConstantIntValue(lb), u = getConstantIntValue(ub),
           st = getConstantIntValue(step);
      if (l && u && st && *st > 0) {
        int64_t trip = std::max<int64_t>(0, (*u - *l + *st - 1) / *st);
        trips.push_back(index(trip));
        if (constantTotal)
          *constantTotal *= trip;
        continue;
      }
      constantTotal.reset();
      Value span = arith::SubIOp::create(b, loc, ub, lb);
      trips.push_back(arith::CeilDivSIOp::create(b, loc, span, step));
    }
    if (constantTotal) {
      total = index(*constantTotal);
    } else {
      total = index(1);
      for (Value trip : trips)
        total = arith::MulIOp::create(b, loc, total, trip);
    }
    Value threads = index(threadsPerBlock);
    Value blocks = arith::CeilDivSIOp::create(b, loc, total, threads);
    Value one = index(1);
    auto launch =
        gpu::LaunchOp::create(b, loc, blocks, one, one, threads, one, one);
    nameKernel(launch, loop);
    Block &body = launch.getBody().front();
    b.setInsertionPointToStart(&body);
    Value linear = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().x, threads),
        launch.getThreadIds().x);
    Value inRange =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, linear, total);
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPoint(guard.thenBlock()->getTerminator());
    // Delinearize, innermost dim fastest.
    IRMapping map;
    Value rest = linear;
    unsigned rank = trips.size();
    SmallVector<Value> ivs(rank);
    for (unsigned i = rank; i-- > 0;) {
      Value position =
          i == 0 ? rest : arith::RemSIOp::create(b, loc, rest, trips[i]);
      if (i > 0)
        rest = arith::DivSIOp::create(b, loc, rest, trips[i]);
      Value scaled = arith::MulIOp::create(b, loc, position, loop.getStep()[i]);
      ivs[i] = arith::AddIOp::create(b, loc, loop.getLowerBound()[i], scaled);
    }
    map.map(loop.getInductionVars(), ivs);
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, map);
    loop.erase();
  }

  /// `op` alone on one device thread; its results must stay on the device.
  LogicalResult launchSingle(Operation *op) {
    for (Value result : op->getResults())
      if (!result.use_empty())
        return op->emitError("dsmp-map-loops-to-gpu: '")
               << op->getName()
               << "' reads device memory for the host (its result is used "
                  "outside a kernel)";
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto launch = gpu::LaunchOp::create(b, loc, one, one, one, one, one, one);
    nameKernel(launch, op);
    Block &body = launch.getBody().front();
    b.setInsertionPointToStart(&body);
    auto terminator = gpu::TerminatorOp::create(b, loc);
    op->moveBefore(terminator);
    return success();
  }

  /// Buffers in device memory: the runtime's caching allocator serves
  /// gpu.alloc and gpu.dealloc.
  void allocateOnDevice(func::FuncOp func) {
    SmallVector<Operation *> allocations;
    func.walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::DeallocOp>(op) &&
          !op->getParentOfType<gpu::LaunchOp>())
        allocations.push_back(op);
    });
    // gpu-to-llvm lowers only the async forms, on a stream: the launch
    // shim maps every stream to the runtime's one stream, where allocation
    // is stream-ordered, so nothing waits for them.
    for (Operation *op : allocations) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      auto tokenType = gpu::AsyncTokenType::get(op->getContext());
      Value start =
          gpu::WaitOp::create(b, loc, tokenType, ValueRange()).getAsyncToken();
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        auto device = gpu::AllocOp::create(
            b, loc, alloc.getType(), tokenType, ValueRange{start},
            alloc.getDynamicSizes(), alloc.getSymbolOperands(),
            /*hostShared=*/false);
        alloc.getResult().replaceAllUsesWith(device.getMemref());
      } else {
        auto dealloc = cast<memref::DeallocOp>(op);
        gpu::DeallocOp::create(b, loc, tokenType, ValueRange{start},
                               dealloc.getMemref());
      }
      op->erase();
    }
  }

  /// A constant buffer that a kernel reads is fetched inside the kernel:
  /// outlining then copies its memref.global into the gpu.module.
  void sinkGlobals(func::FuncOp func) {
    SmallVector<memref::GetGlobalOp> globals;
    func.walk([&](memref::GetGlobalOp get) {
      if (!get->getParentOfType<gpu::LaunchOp>())
        globals.push_back(get);
    });
    for (memref::GetGlobalOp get : globals) {
      for (OpOperand &use : llvm::make_early_inc_range(get->getUses())) {
        auto launch = use.getOwner()->getParentOfType<gpu::LaunchOp>();
        if (!launch)
          continue;
        OpBuilder b(&launch.getBody().front(),
                    launch.getBody().front().begin());
        use.set(b.clone(*get)->getResult(0));
      }
      if (get->use_empty())
        get->erase();
    }
  }
};

} // namespace
