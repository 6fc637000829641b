//===- MatmulToMMA.cpp - Matmuls on NVIDIA tensor cores ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Two steps around bufferization. On tensors, dsmp-select-mma-matmuls marks
// each contraction whose operands are f16, bf16, or f32 rounded to tf32 (the
// formats the assignment gave it) and whose shape tiles into the
// instruction's; on buffers, dsmp-matmul-to-mma replaces each marked one by a
// kernel in which every warp computes 16x8 output tiles with nvvm.mma.sync
// (f32 accumulation): m16n8k16 for f16 and bf16, m16n8k8 for tf32. Each lane
// loads its own fragment elements from global memory, in the layouts of the
// PTX ISA's "Matrix Fragments for mma.m16n8k16/k8".
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringSwitch.h"

#include "dsmp/runtime/GpuLaunchApi.h"

namespace mlir::dsmp {
#define GEN_PASS_DEF_SELECTMMAMATMULSPASS
#define GEN_PASS_DEF_MATMULTOMMAPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kMmaAttr = "dsmp.mma";
constexpr int64_t kTileM = 16, kTileN = 8, kWarpsPerBlock = 4;

/// Whether `value` holds values rounded to tf32: made by the generic whose
/// yield is the marked bitcast, through what only moves values (reshapes,
/// slices, padding with zeros, copies such as a convolution's im2col).
bool isTF32Rounded(Value value) {
  for (int depth = 0; depth < 16; ++depth) {
    Operation *def = value.getDefiningOp();
    if (!def)
      return false;
    if (auto reshape = dyn_cast<tensor::CollapseShapeOp>(def)) {
      value = reshape.getSrc();
    } else if (auto reshape = dyn_cast<tensor::ExpandShapeOp>(def)) {
      value = reshape.getSrc();
    } else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def)) {
      value = slice.getSource();
    } else if (auto pad = dyn_cast<tensor::PadOp>(def)) {
      value = pad.getSource();
    } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(def)) {
      value = insert.getSource();
    } else if (auto generic = dyn_cast<linalg::GenericOp>(def)) {
      if (generic.getNumResults() != 1)
        return false;
      auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
      Value yielded = yield.getOperand(0);
      if (Operation *last = yielded.getDefiningOp())
        return last->hasAttr(mlir::dsmp::kTF32RoundingAttr);
      // A copy: the yield is one of its inputs' elements.
      auto arg = dyn_cast<BlockArgument>(yielded);
      if (!arg || arg.getArgNumber() >= generic.getNumDpsInputs())
        return false;
      value = generic.getDpsInputs()[arg.getArgNumber()];
    } else {
      return false;
    }
  }
  return false;
}

/// The contraction's dims (batch, m, n, k) when it is a plain matmul
/// (one of each, batch optional) of static shape.
std::optional<linalg::ContractionDimensions> matmulDims(linalg::LinalgOp op) {
  if (!linalg::isaContractionOpInterface(op) || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  auto dims = linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.size() > 1)
    return std::nullopt;
  if (!llvm::all_of(op.getStaticLoopRanges(),
                    [](int64_t size) { return !ShapedType::isDynamic(size); }))
    return std::nullopt;
  return *dims;
}

struct SelectMMAMatmulsPass final
    : mlir::dsmp::impl::SelectMMAMatmulsPassBase<SelectMMAMatmulsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](linalg::GenericOp op) {
      auto dims = matmulDims(op);
      if (!dims)
        return;
      Type a = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
      Type b = getElementTypeOrSelf(op.getDpsInputs()[1].getType());
      Type c = getElementTypeOrSelf(op.getDpsInits()[0].getType());
      if (a != b || !c.isF32())
        return;
      StringRef format;
      int64_t stepK = 16;
      if (a.isF16())
        format = "f16";
      else if (a.isBF16())
        format = "bf16";
      else if (amd) // AMD: matrix cores for f16 and bf16 only (gfx90a)
        return;
      else if (isa<Float8E4M3FNType>(a)) // a GEMM library's (sm_89 and up)
        format = "e4m3";
      else if (isa<Float8E5M2Type>(a))
        format = "e5m2";
      else if (a.isF32() && isTF32Rounded(op.getDpsInputs()[0]) &&
               isTF32Rounded(op.getDpsInputs()[1]))
        format = "tf32", stepK = 8;
      else if (a.isF32())
        format = "f32", stepK = 8; // a GEMM library's, if there is one
      else
        return;
      // Smaller than one tile or one k step, the instruction is mostly
      // padding: one thread per output does as well.
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      if (ranges[dims->m[0]] * ranges[dims->n[0]] < kTileM * kTileN ||
          ranges[dims->k[0]] < stepK)
        return;
      op->setAttr(kMmaAttr, StringAttr::get(op.getContext(), format));
    });
  }
};

/// The format codes of dsmp_gpu_gemm (GpuLaunchApi.h).
int gemmFormatCode(StringRef format) {
  return llvm::StringSwitch<int>(format)
      .Case("f32", DSMP_GPU_GEMM_F32)
      .Case("tf32", DSMP_GPU_GEMM_TF32)
      .Case("f16", DSMP_GPU_GEMM_F16)
      .Case("e4m3", DSMP_GPU_GEMM_F8E4M3)
      .Case("e5m2", DSMP_GPU_GEMM_F8E5M2)
      .Default(DSMP_GPU_GEMM_BF16);
}

/// How a buffer is laid out for a GEMM library: its address (aligned
/// pointer plus offset, in bytes), row stride and batch stride (elements);
/// std::nullopt where its strides are not static or its rows not
/// contiguous.
struct MatrixView {
  Value address;
  int64_t rowStride, batchStride;
  bool transposed;
};

struct MatmulToMMAPass final
    : mlir::dsmp::impl::MatmulToMMAPassBase<MatmulToMMAPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::GenericOp> marked;
    module.walk([&](linalg::GenericOp op) {
      if (op->hasAttr(kMmaAttr) && op.hasPureBufferSemantics())
        marked.push_back(op);
    });
    for (linalg::GenericOp op : marked)
      if (failed(rewrite(op)))
        return signalPassFailure();
  }

private:
  /// The declaration of the runtime's GEMM entry point (the launch shim's
  /// dsmp_gpu_gemm): format, A, B, C addresses, m, n, k, the three row
  /// strides, the batch and its three strides, A and B transposed; returns
  /// 1 when the library ran it.
  func::FuncOp gemmDeclaration() {
    ModuleOp module = getOperation();
    if (auto existing = module.lookupSymbol<func::FuncOp>(DSMP_GPU_GEMM_SYMBOL))
      return existing;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    SmallVector<Type> inputs = {i32};
    inputs.append(13, i64);
    inputs.append({i32, i32});
    auto decl = func::FuncOp::create(b, module.getLoc(), DSMP_GPU_GEMM_SYMBOL,
                                     b.getFunctionType(inputs, {i32}));
    decl.setPrivate();
    return decl;
  }

  /// `operand`'s layout as the (batch, rows, cols) matrix its map reads,
  /// rows and cols being the two contraction dims it has (`first`,
  /// `second` in loop order); nullopt when a library cannot take it.
  std::optional<MatrixView> viewOf(OpBuilder &b, Location loc,
                                   linalg::GenericOp op, OpOperand &operand,
                                   const linalg::ContractionDimensions &dims,
                                   unsigned first, unsigned second) {
    auto type = cast<MemRefType>(operand.get().getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return std::nullopt;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto positionOf = [&](unsigned loop) -> std::optional<unsigned> {
      for (unsigned r = 0; r < map.getNumResults(); ++r)
        if (map.getResult(r) == getAffineDimExpr(loop, op.getContext()))
          return r;
      return std::nullopt;
    };
    auto p = positionOf(first), q = positionOf(second);
    if (!p || !q)
      return std::nullopt;
    // One of the two dims is contiguous; the other's stride is the row.
    MatrixView view;
    view.transposed = strides[*q] != 1;
    if (view.transposed && strides[*p] != 1)
      return std::nullopt;
    view.rowStride = view.transposed ? strides[*q] : strides[*p];
    view.batchStride = 0;
    if (!dims.batch.empty())
      if (auto r = positionOf(dims.batch[0]))
        view.batchStride = strides[*r];
    // Every other result of the map must be a constant 0 (unit dims).
    unsigned used =
        2 + (dims.batch.empty() || !positionOf(dims.batch[0]) ? 0 : 1);
    if (map.getNumResults() != used)
      return std::nullopt;
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, operand.get());
    auto metadata =
        memref::ExtractStridedMetadataOp::create(b, loc, operand.get());
    unsigned bytes = type.getElementTypeBitWidth() / 8;
    Value offsetBytes =
        arith::MulIOp::create(b, loc, metadata.getOffset(),
                              arith::ConstantIndexOp::create(b, loc, bytes));
    Value address = arith::AddIOp::create(b, loc, base, offsetBytes);
    view.address = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
    return view;
  }

  /// A call of the runtime's GEMM for `op`, or null where the library
  /// cannot take its layouts (then only the generated kernel runs).
  Value libraryCall(OpBuilder &b, linalg::GenericOp op,
                    const linalg::ContractionDimensions &dims,
                    StringRef format) {
    Location loc = op.getLoc();
    unsigned m = dims.m[0], n = dims.n[0], k = dims.k[0];
    auto lhs = viewOf(b, loc, op, op->getOpOperand(0), dims, m, k);
    auto rhs = viewOf(b, loc, op, op->getOpOperand(1), dims, k, n);
    auto out = viewOf(b, loc, op, *op.getDpsInitOperand(0), dims, m, n);
    if (!lhs || !rhs || !out || out->transposed)
      return {};
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    auto i64 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
    };
    auto i32 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
    };
    int64_t batch = dims.batch.empty() ? 1 : ranges[dims.batch[0]];
    SmallVector<Value> args = {i32(gemmFormatCode(format)),
                               lhs->address,
                               rhs->address,
                               out->address,
                               i64(ranges[m]),
                               i64(ranges[n]),
                               i64(ranges[k]),
                               i64(lhs->rowStride),
                               i64(rhs->rowStride),
                               i64(out->rowStride),
                               i64(batch),
                               i64(lhs->batchStride),
                               i64(rhs->batchStride),
                               i64(out->batchStride),
                               i32(lhs->transposed),
                               i32(rhs->transposed)};
    return func::CallOp::create(b, loc, gemmDeclaration(), args).getResult(0);
  }

  /// One wavefront's 32x32 tile with v_mfma_f32_32x32x8{f16,bf16_1k}: lane
  /// l holds A[l % 32][k0 + 4 (l / 32) + j] and B[k0 + 4 (l / 32) + j][l % 32]
  /// for j < 4, and D[8 (r / 4) + 4 (l / 32) + r % 4][l % 32] for r < 16.
  template <typename Element, typename Store>
  void buildMfma(OpBuilder &b, Location loc, StringRef format, Value lane,
                 Value tileM, Value tileN, int64_t paddedK, Element element,
                 Store store, OpOperand &lhs, OpOperand &rhs, OpOperand &out) {
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    auto add = [&](Value x, int64_t v) -> Value {
      return v ? arith::AddIOp::create(b, loc, x, index(v)).getResult() : x;
    };
    Type i32 = b.getI32Type(), f32 = b.getF32Type();
    Value column = arith::RemUIOp::create(b, loc, lane, index(32));
    Value half = arith::DivUIOp::create(b, loc, lane, index(32));
    Value row = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, tileM, index(32)), column);
    Value col = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, tileN, index(32)), column);
    Value rowBase = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, tileM, index(32)),
        arith::MulIOp::create(b, loc, half, index(4)));
    auto accType = VectorType::get({16}, f32);
    auto lane32 = [&](int64_t v) -> Value {
      return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(v));
    };
    // The accumulators start from the output buffer.
    Value acc = LLVM::PoisonOp::create(b, loc, accType);
    for (int64_t r = 0; r < 16; ++r)
      acc = LLVM::InsertElementOp::create(
          b, loc, acc,
          element(out, add(rowBase, 8 * (r / 4) + r % 4), col, index(0)),
          lane32(r));
    auto loop = scf::ForOp::create(b, loc, index(0), index(paddedK), index(8),
                                   ValueRange{acc});
    {
      OpBuilder::InsertionGuard inLoop(b);
      b.setInsertionPointToStart(loop.getBody());
      Value k =
          arith::AddIOp::create(b, loc, loop.getInductionVar(),
                                arith::MulIOp::create(b, loc, half, index(4)));
      bool bf16 = format == "bf16";
      // bf16 operands travel as i16 (the _1k instruction's form).
      Type element16 = bf16 ? Type(b.getI16Type()) : Type(b.getF16Type());
      auto fragment = [&](bool isA) -> Value {
        Value v =
            LLVM::PoisonOp::create(b, loc, VectorType::get({4}, element16));
        for (int64_t j = 0; j < 4; ++j) {
          Value x = isA ? element(lhs, row, col, add(k, j))
                        : element(rhs, row, col, add(k, j));
          if (bf16)
            x = arith::BitcastOp::create(b, loc, b.getI16Type(), x);
          v = LLVM::InsertElementOp::create(b, loc, v, x, lane32(j));
        }
        return v;
      };
      Value a = fragment(true), bv = fragment(false);
      SmallVector<Value> args = {
          a, bv, loop.getRegionIterArgs()[0], lane32(0), lane32(0), lane32(0)};
      Value next =
          bf16 ? ROCDL::mfma_f32_32x32x8bf16_1k::create(b, loc, accType, args)
                     .getResult()
               : ROCDL::mfma_f32_32x32x8f16::create(b, loc, accType, args)
                     .getResult();
      scf::YieldOp::create(b, loc, next);
    }
    for (int64_t r = 0; r < 16; ++r)
      store(
          LLVM::ExtractElementOp::create(b, loc, loop.getResult(0), lane32(r)),
          add(rowBase, 8 * (r / 4) + r % 4), col);
  }

  LogicalResult rewrite(linalg::GenericOp op) {
    auto dims = matmulDims(op);
    if (!dims)
      return op->emitError("dsmp-matmul-to-mma: not a static matmul");
    StringRef format = op->getAttrOfType<StringAttr>(kMmaAttr).getValue();
    // Two routes, picked when the model runs: the runtime's GEMM library
    // (cuBLASLt) where it has one, else the kernel generated here.
    if (!amd) { // no GEMM library on AMD yet
      OpBuilder b(op);
      if (Value handled = libraryCall(b, op, *dims, format)) {
        Location loc = op.getLoc();
        Value notRun = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq, handled,
            arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
        auto fallback = scf::IfOp::create(b, loc, notRun, /*withElse=*/false);
        op->moveBefore(fallback.thenBlock()->getTerminator());
      }
    }
    // f32 and f8 have no generated tensor-core form here: their generated
    // route is the loops (f8 operands widened by dsmp-expand-f8-extensions).
    if (format == "f32" || format == "e4m3" || format == "e5m2") {
      op->removeAttr(kMmaAttr);
      return success();
    }
    bool tf32 = format == "tf32";
    // NVIDIA: a warp of 32 per 16x8 tile; AMD: a wavefront of 64 per 32x32.
    int64_t stepK = amd ? 8 : tf32 ? 8 : 16;
    int64_t tileRows = amd ? 32 : kTileM, tileCols = amd ? 32 : kTileN;
    int64_t lanes = amd ? 64 : 32;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t batch = dims->batch.empty() ? 1 : ranges[dims->batch[0]];
    // Shapes that do not tile: the edge tiles read zeros past the ends of
    // m, n and k (a clamped load, selected away) and write only inside.
    int64_t sizeM = ranges[dims->m[0]], sizeN = ranges[dims->n[0]];
    int64_t sizeK = ranges[dims->k[0]];
    int64_t tilesM = llvm::divideCeil(sizeM, tileRows);
    int64_t tilesN = llvm::divideCeil(sizeN, tileCols);
    int64_t tiles = batch * tilesM * tilesN;
    int64_t paddedK = llvm::divideCeil(sizeK, stepK) * stepK;

    OpBuilder b(op);
    Location loc = op.getLoc();
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value one = index(1);
    Value threads = index(lanes * kWarpsPerBlock);
    Value blocks = index((tiles + kWarpsPerBlock - 1) / kWarpsPerBlock);
    auto launch =
        gpu::LaunchOp::create(b, loc, blocks, one, one, threads, one, one);
    // dsmp-map-loops-to-gpu names it and puts it with the others.
    b.setInsertionPointToStart(&launch.getBody().front());
    Value thread = launch.getThreadIds().x;
    Value lane = arith::RemUIOp::create(b, loc, thread, index(lanes));
    Value warp = arith::DivUIOp::create(b, loc, thread, index(lanes));
    Value tile = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, launch.getBlockIds().x,
                              index(kWarpsPerBlock)),
        warp);
    // A whole warp is in or out of range: mma.sync needs all 32 lanes.
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          tile, index(tiles));
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPoint(guard.thenBlock()->getTerminator());

    Value tileN = arith::RemUIOp::create(b, loc, tile, index(tilesN));
    Value rest = arith::DivUIOp::create(b, loc, tile, index(tilesN));
    Value tileM = arith::RemUIOp::create(b, loc, rest, index(tilesM));
    Value batchIndex = arith::DivUIOp::create(b, loc, rest, index(tilesM));
    Value group = arith::DivUIOp::create(b, loc, lane, index(4));
    Value inGroup = arith::RemUIOp::create(b, loc, lane, index(4));
    Value row0 = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, tileM, index(kTileM)), group);
    Value row8 = arith::AddIOp::create(b, loc, row0, index(8));
    Value col0 = arith::MulIOp::create(b, loc, tileN, index(kTileN));
    auto add = [&](Value x, int64_t v) -> Value {
      return v ? arith::AddIOp::create(b, loc, x, index(v)).getResult() : x;
    };
    Value twoQ = arith::MulIOp::create(b, loc, inGroup, index(2));

    // An operand's element at loop point (m, n, k) through its indexing
    // map; zero past the end of a dim the shape does not tile in.
    unsigned numLoops = op.getNumLoops();
    struct Dim {
      unsigned loop;
      int64_t size;
      bool ragged;
    };
    SmallVector<Dim> guarded = {{dims->m[0], sizeM, sizeM % tileRows != 0},
                                {dims->n[0], sizeN, sizeN % tileCols != 0},
                                {dims->k[0], sizeK, sizeK % stepK != 0}};
    auto indicesAt = [&](OpOperand &operand, ArrayRef<Value> mnk,
                         Value &valid) {
      SmallVector<Value> point(numLoops, index(0));
      AffineMap map = op.getMatchingIndexingMap(&operand);
      for (auto [dim, value] : llvm::zip(guarded, mnk)) {
        if (!value)
          continue;
        point[dim.loop] = value;
        if (!dim.ragged || !map.isFunctionOfDim(dim.loop))
          continue;
        Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             value, index(dim.size));
        valid = valid ? arith::AndIOp::create(b, loc, valid, inside).getResult()
                      : inside;
        point[dim.loop] =
            arith::MinUIOp::create(b, loc, value, index(dim.size - 1));
      }
      if (!dims->batch.empty())
        point[dims->batch[0]] = batchIndex;
      SmallVector<Value> indices;
      for (unsigned r = 0; r < map.getNumResults(); ++r)
        indices.push_back(
            affine::AffineApplyOp::create(b, loc, map.getSubMap({r}), point));
      return indices;
    };
    auto element = [&](OpOperand &operand, Value m, Value n, Value k) -> Value {
      Value valid;
      SmallVector<Value> indices = indicesAt(operand, {m, n, k}, valid);
      Value value = memref::LoadOp::create(b, loc, operand.get(), indices);
      if (!valid)
        return value;
      Value zero =
          arith::ConstantOp::create(b, loc, b.getZeroAttr(value.getType()));
      return arith::SelectOp::create(b, loc, valid, value, zero);
    };
    OpOperand &lhs = op->getOpOperand(0), &rhs = op->getOpOperand(1);
    OpOperand &out = *op.getDpsInitOperand(0);
    auto store = [&](Value value, Value m, Value n) {
      Value valid;
      SmallVector<Value> indices = indicesAt(out, {m, n, Value()}, valid);
      if (!valid) {
        memref::StoreOp::create(b, loc, value, out.get(), indices);
        return;
      }
      auto inside = scf::IfOp::create(b, loc, valid, /*withElse=*/false);
      OpBuilder::InsertionGuard keep(b);
      b.setInsertionPoint(inside.thenBlock()->getTerminator());
      memref::StoreOp::create(b, loc, value, out.get(), indices);
    };

    if (amd) {
      buildMfma(b, loc, format, lane, tileM, tileN, paddedK, element, store,
                lhs, rhs, out);
      op.erase();
      return success();
    }

    // The accumulator fragment (c0, c1 at row g, columns 2q and 2q+1; c2,
    // c3 at row g+8) starts from the output buffer: the fill, or a bias
    // the contraction adds onto.
    Value zeroK = index(0);
    Value col = arith::AddIOp::create(b, loc, col0, twoQ);
    SmallVector<Value> acc = {
        element(out, row0, col, zeroK), element(out, row0, add(col, 1), zeroK),
        element(out, row8, col, zeroK), element(out, row8, add(col, 1), zeroK)};

    Type f32 = b.getF32Type();
    auto loop =
        scf::ForOp::create(b, loc, index(0), index(paddedK), index(stepK), acc);
    {
      OpBuilder::InsertionGuard inLoop(b);
      b.setInsertionPointToStart(loop.getBody());
      Value k0 = loop.getInductionVar();
      Value n0 = arith::AddIOp::create(b, loc, col0, group);
      SmallVector<Value> a, bRegs;
      Type i32 = b.getI32Type();
      if (tf32) {
        // m16n8k8: a0 (g, q) a1 (g+8, q) a2 (g, q+4) a3 (g+8, q+4);
        // b0 (q, g) b1 (q+4, g); each an f32 rounded to tf32, as i32.
        Value kq = arith::AddIOp::create(b, loc, k0, inGroup);
        auto bits = [&](Value x) -> Value {
          return arith::BitcastOp::create(b, loc, i32, x);
        };
        a = {bits(element(lhs, row0, n0, kq)), bits(element(lhs, row8, n0, kq)),
             bits(element(lhs, row0, n0, add(kq, 4))),
             bits(element(lhs, row8, n0, add(kq, 4)))};
        bRegs = {bits(element(rhs, row0, n0, kq)),
                 bits(element(rhs, row0, n0, add(kq, 4)))};
      } else {
        // m16n8k16: pairs along k. a: (g, 2q), (g+8, 2q), (g, 2q+8),
        // (g+8, 2q+8); b: (2q, g), (2q+8, g).
        Type half = getElementTypeOrSelf(lhs.get().getType());
        auto pairType = VectorType::get({2}, half);
        auto pair = [&](Value first, Value second) -> Value {
          Value v = LLVM::PoisonOp::create(b, loc, pairType);
          v = LLVM::InsertElementOp::create(
              b, loc, v, first,
              LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0)));
          v = LLVM::InsertElementOp::create(
              b, loc, v, second,
              LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(1)));
          // bf16 operands travel as i32 (nvvm.mma.sync's bf16 form).
          if (half.isBF16())
            v = LLVM::BitcastOp::create(b, loc, i32, v);
          return v;
        };
        Value kq = arith::AddIOp::create(b, loc, k0, twoQ);
        auto aPair = [&](Value row, int64_t dk) {
          return pair(element(lhs, row, n0, add(kq, dk)),
                      element(lhs, row, n0, add(kq, dk + 1)));
        };
        auto bPair = [&](int64_t dk) {
          return pair(element(rhs, row0, n0, add(kq, dk)),
                      element(rhs, row0, n0, add(kq, dk + 1)));
        };
        a = {aPair(row0, 0), aPair(row8, 0), aPair(row0, 8), aPair(row8, 8)};
        bRegs = {bPair(0), bPair(8)};
      }
      Type result = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                     SmallVector<Type>(4, f32));
      std::array<NVVM::MMATypes, 2> types =
          tf32 ? std::array{NVVM::MMATypes::tf32, NVVM::MMATypes::tf32}
          : format == "bf16"
              ? std::array{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16}
              : std::array{NVVM::MMATypes::f16, NVVM::MMATypes::f16};
      auto mma = NVVM::MmaOp::create(
          b, loc, result, a, bRegs, loop.getRegionIterArgs(),
          ArrayRef<int64_t>{kTileM, kTileN, stepK}, std::nullopt, std::nullopt,
          types, std::array{NVVM::MMALayout::row, NVVM::MMALayout::col});
      SmallVector<Value> next;
      for (int64_t i = 0; i < 4; ++i)
        next.push_back(LLVM::ExtractValueOp::create(b, loc, mma, i));
      scf::YieldOp::create(b, loc, next);
    }
    store(loop.getResult(0), row0, col);
    store(loop.getResult(1), row0, add(col, 1));
    store(loop.getResult(2), row8, col);
    store(loop.getResult(3), row8, add(col, 1));
    op.erase();
    return success();
  }
};

} // namespace
