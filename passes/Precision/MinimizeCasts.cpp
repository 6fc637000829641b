//===- MinimizeCasts.cpp - Fewer, shared, folded casts -------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/F8Scaling.h"
#include "passes/Precision/Formats.h"
#include "passes/Precision/Passes.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dsmp/Support/FloatFormats.h"

#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

#define DEBUG_TYPE "dsmp-minimize-casts"

namespace mlir::dsmp {
#define GEN_PASS_DEF_MINIMIZECASTSPASS
#include "passes/Precision/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

FloatType floatElement(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type ? dyn_cast<FloatType>(type.getElementType()) : FloatType();
}

/// Every value of `narrow` is exactly a value of `wide`.
bool isExactlyWidened(FloatType narrow, FloatType wide) {
  if (!narrow || !wide || isa<FloatTF32Type>(wide) ||
      isa<FloatTF32Type>(narrow))
    return false;
  return llvm::APFloat::isRepresentableBy(narrow.getFloatSemantics(),
                                          wide.getFloatSemantics());
}

/// Whether integers of type `source` converted to f32 and then rounded to
/// `target` round as converted to `target` at once. f16: an integer f32
/// does not hold exactly (beyond 2^24) overflows f16 either way. Wider
/// formats: only where f32 holds every value of `source` (else rounding
/// twice can land on a midpoint the direct conversion does not).
bool roundsOnceThroughF32(IntegerType source, FloatType target) {
  if (!source || !target || isa<FloatTF32Type>(target))
    return false;
  if (target.isF16())
    return true;
  return target.getWidth() <= 16 && source.getWidth() <= 24;
}

/// cast(cast(x : A -> B) -> C) with B holding every A exactly: x when C is
/// A, else one cast A -> C.
struct FoldCastChain : OpRewritePattern<CastOp> {
  FoldCastChain(MLIRContext *ctx, llvm::Statistic &removed)
      : OpRewritePattern(ctx), removed(removed) {}
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<CastOp>();
    if (!inner)
      return failure();
    if (succeeded(foldIntegerSource(op, inner, rewriter)))
      return success();
    FloatType a = floatElement(inner.getInput());
    FloatType mid = floatElement(inner.getResult());
    FloatType c = floatElement(op.getResult());
    if (!a || !c || !isExactlyWidened(a, mid) || isa<FloatTF32Type>(c))
      return failure();
    ++removed;
    if (a == c) {
      rewriter.replaceOp(op, inner.getInput());
      return success();
    }
    rewriter.replaceOpWithNewOp<CastOp>(op, op.getType(), inner.getInput());
    return success();
  }

  /// cast(cast(i : int -> f32) -> C) where C rounds the integers as f32
  /// did not (roundsOnceThroughF32): the inner cast makes C itself (it
  /// keeps its name and takes C as its format), and no f32 copy is left
  /// beside the 16-bit one (Magika's one-hot bytes: 2 MB of f32 per file).
  LogicalResult foldIntegerSource(CastOp op, CastOp inner,
                                  PatternRewriter &rewriter) const {
    auto source = dyn_cast<RankedTensorType>(inner.getInput().getType());
    FloatType mid = floatElement(inner.getResult());
    FloatType c = floatElement(op.getResult());
    if (!source || !mid || !mid.isF32() || !inner->hasOneUse() ||
        !roundsOnceThroughF32(dyn_cast<IntegerType>(source.getElementType()),
                              c))
      return failure();
    ++removed;
    rewriter.modifyOpInPlace(inner, [&] {
      inner.getResult().setType(cast<RankedTensorType>(op.getType()));
      if (inner->hasAttr("dsmp.assigned"))
        if (std::optional<Format> format = getFormatOf(c))
          inner->setAttr("dsmp.assigned",
                         FormatAttr::get(op.getContext(), *format));
    });
    rewriter.replaceOp(op, inner.getResult());
    return success();
  }
  llvm::Statistic &removed;
};

/// Codes of a 16-bit format that keepNonzeroFinite rewrites.
struct SixteenBitCodes {
  uint16_t smallestSubnormal, largestFinite, infinity;
};
constexpr SixteenBitCodes kF16Codes{0x0001, 0x7BFF, 0x7C00};
constexpr SixteenBitCodes kBF16Codes{0x0001, 0x7F7F, 0x7F80};

/// The rounded `codes` of `values`, with each non-zero finite value that
/// rounded to zero or to infinity moved to the nearest non-zero finite code
/// (kKeepNonzeroAttr).
void keepNonzeroFinite(ArrayRef<float> values, MutableArrayRef<uint16_t> codes,
                       const SixteenBitCodes &format) {
  for (auto [v, code] : llvm::zip_equal(values, codes)) {
    if (v == 0.0f || !std::isfinite(v))
      continue;
    uint16_t sign = code & 0x8000u, magnitude = code & 0x7FFFu;
    if (magnitude == 0)
      code = sign | format.smallestSubnormal;
    else if (magnitude == format.infinity)
      code = sign | format.largestFinite;
  }
}

/// A cast of an f32 constant to f16/bf16 becomes a constant of that type,
/// rounded to nearest even as the runtime cast would; a cast the precision
/// passes put on an op's constant operand (kKeepNonzeroAttr) also keeps
/// non-zero finite values so.
struct FoldConstantCast : OpRewritePattern<CastOp> {
  FoldConstantCast(MLIRContext *ctx, llvm::Statistic &folded)
      : OpRewritePattern(ctx), folded(folded) {}
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    auto constant = op.getInput().getDefiningOp<ConstantOp>();
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!constant || !type || !type.hasStaticShape())
      return failure();
    auto target = dyn_cast<FloatType>(type.getElementType());
    if (!target || !(target.isF16() || target.isBF16()) ||
        !floatElement(op.getInput()) || !floatElement(op.getInput()).isF32())
      return failure();
    // The memo holds the precision passes' conversions only (a model's own
    // Cast of a constant rounds to nearest, zero and infinity included).
    bool keepNonzero = op->hasAttr(kKeepNonzeroAttr);
    auto *dialect = cast<DsmpDialect>(op->getDialect());
    if (keepNonzero)
      if (Attribute known =
              dialect->lookupConvertedConstant(constant.getValue(), type)) {
        rewriter.replaceOpWithNewOp<ConstantOp>(op, type,
                                                cast<ElementsAttr>(known));
        ++folded;
        return success();
      }
    SmallVector<float> values;
    if (!constantFloats(constant, values))
      return failure();
    // Round to nearest even (dsmp::formats: bit-exact with APFloat and
    // ml_dtypes, test/Formats; APFloat per element took seconds on
    // resnet18's 11M weights).
    SmallVector<uint16_t> bits(values.size());
    if (target.isF16())
      ::dsmp::formats::toF16(values.data(), bits.data(), values.size());
    else
      for (auto [v, code] : llvm::zip_equal(values, bits))
        code = ::dsmp::formats::toBF16(v);
    if (keepNonzero)
      keepNonzeroFinite(values, bits, target.isF16() ? kF16Codes : kBF16Codes);
    ArrayRef<char> raw(reinterpret_cast<const char *>(bits.data()),
                       bits.size() * sizeof(uint16_t));
    auto attr = DenseElementsAttr::getFromRawBuffer(type, raw);
    if (keepNonzero)
      dialect->rememberConvertedConstant(constant.getValue(), type, attr);
    rewriter.replaceOpWithNewOp<ConstantOp>(op, type, attr);
    ++folded;
    return success();
  }
  llvm::Statistic &folded;
};

/// A cast of an f32 constant to tf32 reads a constant rounded to tf32 at
/// compile time and is marked kInputRoundedAttr: the artifact stores the
/// rounded weight once instead of rounding it into a new buffer each run.
struct RoundConstantForTF32 : OpRewritePattern<CastOp> {
  RoundConstantForTF32(MLIRContext *ctx, llvm::Statistic &folded)
      : OpRewritePattern(ctx), folded(folded) {}
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    auto constant = op.getInput().getDefiningOp<ConstantOp>();
    auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
    SmallVector<float> values;
    if (op->hasAttr(kInputRoundedAttr) || !constant ||
        !isa<FloatTF32Type>(getElementTypeOrSelf(op.getType())) || !type ||
        !type.hasStaticShape() || !type.getElementType().isF32() ||
        !constantFloats(constant, values))
      return failure();
    for (float &v : values)
      v = ::dsmp::formats::roundToTF32(v);
    auto rounded = ConstantOp::create(
        rewriter, constant.getLoc(), type,
        DenseElementsAttr::get(type, ArrayRef<float>(values)));
    rewriter.modifyOpInPlace(op, [&] {
      op.getInputMutable().assign(rounded);
      op->setAttr(kInputRoundedAttr, rewriter.getUnitAttr());
    });
    ++folded;
    return success();
  }
  llvm::Statistic &folded;
};

/// A per-tensor f8 QuantizeLinear of an f32 constant (an f8 contraction's
/// weights) becomes the f8 constant, saturating, rounded to nearest even
/// as the runtime quantization would (dsmp::formats::encode).
struct FoldConstantQuantize : OpRewritePattern<QuantizeLinearOp> {
  FoldConstantQuantize(MLIRContext *ctx, llvm::Statistic &folded)
      : OpRewritePattern(ctx), folded(folded) {}
  LogicalResult matchAndRewrite(QuantizeLinearOp op,
                                PatternRewriter &rewriter) const override {
    auto constant = op.getX().getDefiningOp<ConstantOp>();
    auto scaleOp = op.getYScale().getDefiningOp<ConstantOp>();
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!constant || !scaleOp || !type || !type.hasStaticShape() ||
        !op.getSaturate())
      return failure();
    const ::dsmp::formats::SmallFloat *f = smallFloatOf(type.getElementType());
    SmallVector<float> values, scale;
    if (!f || !constantFloats(constant, values) ||
        !constantFloats(scaleOp, scale) || scale.size() != 1)
      return failure();
    if (!isNoneOrZero(op.getYZeroPoint()))
      return failure();
    SmallVector<uint8_t> codes;
    codes.reserve(values.size());
    for (float v : values)
      codes.push_back(static_cast<uint8_t>(
          ::dsmp::formats::encode(*f, v / scale[0], /*saturate=*/true)));
    ArrayRef<char> raw(reinterpret_cast<const char *>(codes.data()),
                       codes.size());
    rewriter.replaceOpWithNewOp<ConstantOp>(
        op, type, DenseElementsAttr::getFromRawBuffer(type, raw));
    ++folded;
    return success();
  }
  llvm::Statistic &folded;
};

/// dm(cast(x : narrow -> f32)) -> cast(dm(x)) for ops that only move data,
/// so the data moves in the narrow type and a following cast can cancel.
struct SinkWideningCast : RewritePattern {
  SinkWideningCast(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<ReshapeOp, TransposeOp, FlattenOp, SqueezeOp, UnsqueezeOp,
             IdentityOp>(op) ||
        op->getNumResults() != 1)
      return failure();
    auto cast = op->getOperand(0).getDefiningOp<CastOp>();
    if (!cast)
      return failure();
    FloatType narrow = floatElement(cast.getInput());
    FloatType wide = floatElement(cast.getResult());
    if (!narrow || !isExactlyWidened(narrow, wide))
      return failure();
    auto resultType = cast_if(op->getResult(0).getType());
    if (!resultType)
      return failure();
    Operation *moved = rewriter.clone(*op);
    moved->setOperand(0, cast.getInput());
    moved->getResult(0).setType(resultType.clone(narrow));
    moved->removeAttr("dsmp.assigned");
    rewriter.replaceOpWithNewOp<CastOp>(op, resultType, moved->getResult(0));
    return success();
  }
  static RankedTensorType cast_if(Type t) {
    return dyn_cast<RankedTensorType>(t);
  }
};

/// cast(dm(x) : f32 -> narrow) -> dm(cast(x)) where the cast is the op's
/// only use and x is a graph input (or moved from one): the input is cast
/// once and moves in the narrow type, so no f32 copy of it (a wake-word
/// head's flattened features, its largest tensor) lives beside the cast.
struct HoistNarrowingCast : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp cast,
                                PatternRewriter &rewriter) const override {
    Operation *op = cast.getInput().getDefiningOp();
    if (!op ||
        !isa<ReshapeOp, TransposeOp, FlattenOp, SqueezeOp, UnsqueezeOp,
             IdentityOp>(op) ||
        op->getNumResults() != 1 || !op->getResult(0).hasOneUse() ||
        !isa<BlockArgument>(op->getOperand(0)))
      return failure();
    FloatType wide = floatElement(op->getOperand(0));
    FloatType narrow = floatElement(cast.getResult());
    auto inputType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!wide || !narrow || !inputType ||
        !isa<Float16Type, BFloat16Type>(narrow) ||
        !isExactlyWidened(narrow, wide))
      return failure();
    rewriter.setInsertionPoint(op);
    Value narrowed = CastOp::create(rewriter, cast.getLoc(),
                                    inputType.clone(narrow), op->getOperand(0));
    Operation *moved = rewriter.clone(*op);
    moved->setOperand(0, narrowed);
    moved->getResult(0).setType(cast.getType());
    rewriter.replaceOp(cast, moved->getResult(0));
    rewriter.eraseOp(op);
    return success();
  }
};

/// cast(product : 16-bit -> f32) of a MatMul or Gemm, where every use of
/// the product is such a cast: the contraction stores its f32 sum (plus
/// Gemm's bias) unrounded instead (GEMMs' f32 output). No 16-bit copy of
/// the product is
/// kept beside the f32 one (a language model's logits would otherwise take
/// 1.5x their f32 bytes), and the value is at least as close to FP32's as
/// the rounded one. RoundingCost::storesWide predicts it.
struct StoreProductWide : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    Operation *product = op.getInput().getDefiningOp();
    if (!product || !isa<MatMulOp, GemmOp>(product))
      return failure();
    FloatType narrow = floatElement(op.getInput());
    FloatType wide = floatElement(op.getResult());
    if (!narrow || !wide || !wide.isF32() ||
        !isa<Float16Type, BFloat16Type>(narrow))
      return failure();
    if (!llvm::all_of(op.getInput().getUsers(), [&](Operation *user) {
          auto cast = dyn_cast<CastOp>(user);
          return cast && cast.getType() == op.getType();
        }))
      return failure();
    Value result = op.getInput();
    rewriter.modifyOpInPlace(product, [&] { result.setType(op.getType()); });
    for (Operation *user : llvm::make_early_inc_range(result.getUsers()))
      rewriter.replaceOp(user, result);
    return success();
  }
};

struct MinimizeCastsPass final
    : mlir::dsmp::impl::MinimizeCastsPassBase<MinimizeCastsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<FoldCastChain>(ctx, numRemoved);
    patterns.add<FoldConstantCast>(ctx, numFolded);
    patterns.add<FoldConstantQuantize>(ctx, numFolded);
    patterns.add<RoundConstantForTF32>(ctx, numFolded);
    patterns.add<SinkWideningCast>(ctx);
    patterns.add<HoistNarrowingCast>(ctx);
    patterns.add<StoreProductWide>(ctx);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
    shareCasts(func);
  }

  /// One cast per (value, type): later duplicates use the first.
  void shareCasts(func::FuncOp func) {
    DominanceInfo dominance(func);
    llvm::DenseMap<std::pair<Value, Type>, SmallVector<CastOp>> casts;
    func.walk([&](CastOp op) {
      casts[{op.getInput(), op.getType()}].push_back(op);
    });
    for (auto &entry : casts) {
      auto &list = entry.second;
      for (size_t i = 1; i < list.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
          if (!list[j] || !dominance.properlyDominates(list[j].getOperation(),
                                                       list[i].getOperation()))
            continue;
          list[i].getResult().replaceAllUsesWith(list[j].getResult());
          list[i].erase();
          list[i] = nullptr;
          ++numRemoved;
          break;
        }
      }
    }
  }
};
} // namespace
