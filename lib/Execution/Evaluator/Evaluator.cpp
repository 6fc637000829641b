//===- Evaluator.cpp - Evaluate a graph op by op on the host -- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Execution/Evaluator.h"

#include "Array.h"
#include "Sgemm.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/MainGraph.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "dialects/Dsmp/IR/OnnxTypes.h"
#include "dsmp/Support/FloatFormats.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"

#include <chrono>
#include <cstring>
#include <functional>

using llvm::Error;
using llvm::Expected;
using llvm::Twine;

namespace mlir::dsmp {

using eval::Array;

struct GraphEvaluator::Step {
  Operation *op;
  const eval::Kernel *kernel;        // null for dsmp.if
  SmallVector<unsigned, 4> operands; // kNone for a `none` operand
  SmallVector<unsigned, 2> results;  // kNone for a `none` result
  SmallVector<unsigned, 2> release;  // slots whose last use this is
  // Per result: the rounding to its narrow float type, or null.
  SmallVector<eval::Rounding, 2> roundings;
  // Whether the kernel writes every element of its results (no clearing).
  bool writesAll = false;
  // dsmp.if: the then and else steps and the slots they yield.
  std::vector<Step> branches[2];
  SmallVector<unsigned, 2> yields[2];
};

namespace {
constexpr unsigned kNone = ~0u;

const eval::KernelTable &kernels() {
  static const eval::KernelTable table = [] {
    eval::KernelTable t;
    eval::addElementwiseKernels(t);
    eval::addReductionKernels(t);
    eval::addContractionKernels(t);
    eval::addDataMovementKernels(t);
    eval::addScatterKernels(t);
    eval::addRoiAlignKernel(t);
    eval::addQuantizationKernels(t);
    return t;
  }();
  return table;
}

/// Float tensors held in f32 (f32, 16-bit, tf32, f8), integer/bool
/// tensors, or none.
bool isEvaluable(Type type) {
  if (isa<NoneType>(type))
    return true;
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return false;
  Type element = tensor.getElementType();
  return eval::isHeldInF32(element) || isa<IntegerType>(element);
}

bool isNarrowFloat(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && eval::roundingFor(tensor.getElementType()) != nullptr;
}

/// Whether computing in f32 and rounding the result once is what the
/// lowered code computes for `op` with a narrow float result: casts, data
/// movement, elementwise and transcendental ops, and contractions
/// accumulating in f32 (their kernels round the sum before the bias, as the
/// lowering does). Reductions and normalizations in a narrow type compute
/// in that type there, so the evaluator leaves them to the compiled run.
bool roundsOnceLikeTheLowering(Operation *op) {
  if (isa<ConstantOp, CastOp, MaxPoolOp, GlobalMaxPoolOp>(op))
    return true;
  auto precision = dyn_cast<PrecisionOpInterface>(op);
  if (!precision)
    return false;
  switch (precision.getOpClass()) {
  case OpClass::data_movement:
  case OpClass::elementwise:
  case OpClass::transcendental:
    return true;
  case OpClass::matmul:
  case OpClass::conv:
    return precision.getAccumulationFormat() == Format::f32;
  case OpClass::reduction:
  case OpClass::normalization:
    return false;
  }
  return false;
}

/// Bytes per element of a constant's raw data.
size_t storageBytes(Type element) {
  if (isa<FloatTF32Type>(element))
    return 4;
  return std::max(1u, element.getIntOrFloatBitWidth() / 8);
}

/// The f32 value of a raw narrow-float element.
float decodeNarrow(Type element, const char *p) {
  uint16_t half = 0;
  if (isa<Float16Type, BFloat16Type>(element))
    std::memcpy(&half, p, 2);
  if (isa<Float16Type>(element))
    return ::dsmp::formats::fromF16(half);
  if (isa<BFloat16Type>(element))
    return ::dsmp::formats::fromBF16(half);
  namespace f = ::dsmp::formats;
  uint8_t code = static_cast<uint8_t>(*p);
  if (isa<Float8E4M3FNType>(element))
    return f::decode(f::kF8E4M3FN, code);
  if (isa<Float8E5M2Type>(element))
    return f::decode(f::kF8E5M2, code);
  if (isa<Float8E4M3FNUZType>(element))
    return f::decode(f::kF8E4M3FNUZ, code);
  if (isa<Float8E5M2FNUZType>(element))
    return f::decode(f::kF8E5M2FNUZ, code);
  float x; // f32, tf32
  std::memcpy(&x, p, 4);
  return x;
}

std::string describe(Operation *op) {
  std::string text = "'" + op->getName().getStringRef().str() + "'";
  std::string node = onnxNodeName(op->getLoc());
  if (!node.empty())
    text += " (node '" + node + "')";
  return text;
}

Array shapedFor(Type type) {
  Array a;
  auto tensor = cast<RankedTensorType>(type);
  a.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  a.isFloat = isa<FloatType>(tensor.getElementType());
  a.allocate();
  return a;
}
} // namespace

/// The storage of values released during a run, by element count, for the
/// next result of that size: a fresh large vector is mapped and zeroed by
/// the kernel page by page (on ppocr_det's adjoint that was 40 % of the
/// time); a recycled one is only cleared.
struct GraphEvaluator::BufferPool {
  llvm::DenseMap<size_t, SmallVector<std::vector<float>, 2>> floats;
  llvm::DenseMap<size_t, SmallVector<std::vector<int64_t>, 2>> ints;

  /// Storage for a value of `type`: recycled (cleared unless the kernel
  /// writes every element anyway) or new (zeros).
  Array shaped(Type type, bool writesAll = false) {
    auto tensor = cast<RankedTensorType>(type);
    Array a;
    a.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    a.isFloat = isa<FloatType>(tensor.getElementType());
    size_t n = eval::product(a.shape);
    if (a.isFloat && reuse(floats, n, a.f)) {
      if (!writesAll)
        std::fill(a.f.begin(), a.f.end(), 0.0f);
    } else if (!a.isFloat && reuse(ints, n, a.i)) {
      if (!writesAll)
        std::fill(a.i.begin(), a.i.end(), 0);
    } else {
      a.allocate();
    }
    return a;
  }

  /// Takes the storage of `slot` when this is its last reference.
  void release(std::shared_ptr<const Array> &slot) {
    if (slot && slot.use_count() == 1) {
      auto &array = const_cast<Array &>(*slot);
      if (array.isFloat && !array.f.empty())
        floats[array.f.size()].push_back(std::move(array.f));
      else if (!array.isFloat && !array.i.empty())
        ints[array.i.size()].push_back(std::move(array.i));
    }
    slot.reset();
  }

private:
  template <typename T>
  static bool
  reuse(llvm::DenseMap<size_t, SmallVector<std::vector<T>, 2>> &pool, size_t n,
        std::vector<T> &into) {
    auto it = pool.find(n);
    if (it == pool.end() || it->second.empty())
      return false;
    into = std::move(it->second.back());
    it->second.pop_back();
    return true;
  }
};

namespace {

Expected<Array> decodeConstant(ConstantOp op) {
  Array a = shapedFor(op.getType());
  Type element = cast<RankedTensorType>(op.getType()).getElementType();
  unsigned width = element.getIntOrFloatBitWidth();
  Attribute value = op.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (a.isFloat && element.isF32()) {
      ArrayRef<char> raw = dense.getRawData(); // little-endian floats
      if (dense.isSplat())
        std::fill(a.f.begin(), a.f.end(), dense.getSplatValue<float>());
      else
        std::memcpy(a.f.data(), raw.data(), a.f.size() * sizeof(float));
    } else if (a.isFloat && !isa<FloatTF32Type>(element)) {
      // 16- and 8-bit codes, one per element (or one for a splat).
      ArrayRef<char> raw = dense.getRawData();
      size_t per = storageBytes(element);
      if (dense.isSplat()) {
        std::fill(a.f.begin(), a.f.end(), decodeNarrow(element, raw.data()));
      } else if (isa<Float16Type>(element)) { // most weights: in bulk
        std::vector<uint16_t> codes(a.size());
        std::memcpy(codes.data(), raw.data(), 2 * codes.size());
        ::dsmp::formats::fromF16(codes.data(), a.f.data(), codes.size());
      } else {
        for (int64_t k = 0; k < a.size(); ++k)
          a.f[k] = decodeNarrow(element, raw.data() + k * per);
      }
    } else if (a.isFloat) { // tf32: 19 bits, stored in 3 bytes
      size_t k = 0;
      for (APFloat v : dense.getValues<APFloat>()) {
        bool lost;
        v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
        a.f[k++] = v.convertToFloat(); // exact: every narrow value is an f32
      }
    } else if (width == 1) {
      auto values = dense.getValues<bool>();
      std::copy(values.begin(), values.end(), a.i.begin());
    } else {
      size_t k = 0;
      for (const APInt &v : dense.getValues<APInt>())
        a.i[k++] = element.isUnsignedInteger() ? int64_t(v.getZExtValue())
                                               : v.getSExtValue();
    }
    return a;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(value);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  if (!blob)
    return llvm::createStringError(
        "the evaluator needs the constants in memory (run "
        "dsmp-load-weights first)");
  ArrayRef<char> bytes = blob->getData();
  size_t bytesPer = storageBytes(element);
  if (bytes.size() != size_t(a.size()) * bytesPer)
    return llvm::createStringError("a constant's data does not fit its type");
  if (a.isFloat && bytesPer == 4) {
    std::memcpy(a.f.data(), bytes.data(), bytes.size());
    return a;
  }
  if (a.isFloat) {
    for (int64_t k = 0; k < a.size(); ++k)
      a.f[k] = decodeNarrow(element, bytes.data() + k * bytesPer);
    return a;
  }
  for (int64_t k = 0; k < a.size(); ++k) {
    const char *p = bytes.data() + k * bytesPer;
    int64_t v = 0;
    switch (bytesPer) {
    case 1:
      v = width == 1 ? (*p != 0) : int64_t(int8_t(*p));
      break;
    case 2: {
      int16_t x;
      std::memcpy(&x, p, 2);
      v = x;
      break;
    }
    case 4: {
      int32_t x;
      std::memcpy(&x, p, 4);
      v = x;
      break;
    }
    default:
      std::memcpy(&v, p, 8);
    }
    a.i[k] = v;
  }
  return a;
}

Expected<Array> fromHost(const HostTensor &t, RankedTensorType type) {
  Array a = shapedFor(type);
  if (ArrayRef<int64_t>(t.dims) != type.getShape())
    return llvm::createStringError("input '" + t.name +
                                   "' does not have the graph's shape");
  int32_t dtype = getOnnxDataType(type.getElementType());
  if (t.dtype != dtype)
    return llvm::createStringError("input '" + t.name + "' has data type " +
                                   Twine(t.dtype) + ", the graph expects " +
                                   Twine(dtype));
  size_t bytesPer = ::dsmp::runtime::dtypeSize(t.dtype);
  if (t.data.size() != size_t(a.size()) * bytesPer)
    return llvm::createStringError("input '" + t.name +
                                   "' has the wrong number of bytes");
  if (a.isFloat && bytesPer == 4) {
    std::memcpy(a.f.data(), t.data.data(), t.data.size());
    return a;
  }
  if (a.isFloat) {
    for (int64_t k = 0; k < a.size(); ++k)
      a.f[k] = decodeNarrow(type.getElementType(),
                            reinterpret_cast<const char *>(t.data.data()) +
                                k * bytesPer);
    return a;
  }
  for (int64_t k = 0; k < a.size(); ++k)
    a.i[k] = int64_t(::dsmp::runtime::elementAsDouble(t, k));
  if (bytesPer == 8)
    std::memcpy(a.i.data(), t.data.data(), t.data.size());
  return a;
}

HostTensor toHost(const Array &a, const std::string &name, Type type) {
  HostTensor t;
  t.name = name;
  t.dims.assign(a.shape.begin(), a.shape.end());
  Type element = cast<RankedTensorType>(type).getElementType();
  t.dtype = getOnnxDataType(element);
  size_t bytesPer = ::dsmp::runtime::dtypeSize(t.dtype);
  t.data.resize(a.size() * bytesPer);
  if (a.isFloat && element.isF32()) {
    std::memcpy(t.data.data(), a.f.data(), t.data.size());
    return t;
  }
  if (a.isFloat) {
    namespace f = ::dsmp::formats;
    for (int64_t k = 0; k < a.size(); ++k) {
      float x = a.f[k];
      uint32_t code = isa<Float16Type>(element)    ? f::toF16(x)
                      : isa<BFloat16Type>(element) ? f::toBF16(x)
                      : t.dtype == 17 ? f::encode(f::kF8E4M3FN, x, true)
                      : t.dtype == 18 ? f::encode(f::kF8E4M3FNUZ, x, true)
                      : t.dtype == 19 ? f::encode(f::kF8E5M2, x, true)
                                      : f::encode(f::kF8E5M2FNUZ, x, true);
      std::memcpy(t.data.data() + k * bytesPer, &code, bytesPer);
    }
    return t;
  }
  for (int64_t k = 0; k < a.size(); ++k) {
    int64_t v = a.i[k];
    std::memcpy(t.data.data() + k * bytesPer, &v, bytesPer); // little-endian
  }
  return t;
}
} // namespace

namespace {
std::mutex activeCachesMutex;
llvm::DenseMap<MLIRContext *, EvaluatorConstantCache *> &activeCaches() {
  static llvm::DenseMap<MLIRContext *, EvaluatorConstantCache *> caches;
  return caches;
}
} // namespace

EvaluatorConstantCache::EvaluatorConstantCache(MLIRContext *context,
                                               size_t maxBytes)
    : context(context), maxBytes(maxBytes) {
  std::lock_guard<std::mutex> lock(activeCachesMutex);
  registered = activeCaches().try_emplace(context, this).second;
}

EvaluatorConstantCache::~EvaluatorConstantCache() {
  std::lock_guard<std::mutex> lock(activeCachesMutex);
  if (registered)
    activeCaches().erase(context);
}

EvaluatorConstantCache *EvaluatorConstantCache::active(MLIRContext *context) {
  std::lock_guard<std::mutex> lock(activeCachesMutex);
  return activeCaches().lookup(context);
}

std::shared_ptr<const Array> EvaluatorConstantCache::lookup(Attribute value,
                                                            Type type) {
  std::lock_guard<std::mutex> lock(mutex);
  return arrays.lookup({value, type});
}

size_t EvaluatorConstantCache::size() {
  std::lock_guard<std::mutex> lock(mutex);
  return arrays.size();
}

void EvaluatorConstantCache::remember(Attribute value, Type type,
                                      std::shared_ptr<const Array> array,
                                      size_t arrayBytes) {
  std::lock_guard<std::mutex> lock(mutex);
  if (bytes + arrayBytes > maxBytes)
    return;
  if (arrays.try_emplace({value, type}, std::move(array)).second)
    bytes += arrayBytes;
}

GraphEvaluator::~GraphEvaluator() = default;

EvaluatorWarmUp::EvaluatorWarmUp() : thread(eval::prepareSgemm) {}

EvaluatorWarmUp::~EvaluatorWarmUp() { thread.join(); }

Expected<std::unique_ptr<GraphEvaluator>>
GraphEvaluator::create(func::FuncOp graph) {
  std::unique_ptr<GraphEvaluator> evaluator(new GraphEvaluator());
  if (Error err = evaluator->prepare(graph))
    return std::move(err);
  return evaluator;
}

Error GraphEvaluator::prepare(func::FuncOp graph) {
  if (graph.isExternal() || !graph.getBody().hasOneBlock())
    return llvm::createStringError("the graph has no single-block body");
  DenseMap<Value, unsigned> slotOf;
  slotOf.reserve(2 * graph.getBody().front().getOperations().size());
  auto slot = [&](Value v) -> unsigned {
    if (isa<NoneType>(v.getType()))
      return kNone;
    auto [it, inserted] = slotOf.try_emplace(v, numSlots);
    if (inserted)
      ++numSlots;
    return it->second;
  };
  EvaluatorConstantCache *cache =
      EvaluatorConstantCache::active(graph->getContext());
  Block &body = graph.getBody().front();
  for (BlockArgument arg : body.getArguments()) {
    if (!isEvaluable(arg.getType()) || isa<NoneType>(arg.getType()) ||
        isa<FloatTF32Type>(getElementTypeOrSelf(arg.getType())))
      return llvm::createStringError("graph input '" +
                                     graphInputName(graph, arg.getArgNumber()) +
                                     "' is not a static float or integer "
                                     "tensor");
    inputs.push_back(
        {graphInputName(graph, arg.getArgNumber()), slot(arg), arg.getType()});
  }

  // The steps of one block (the graph's, or an If branch's).
  // Each value is released after the top-level step that uses it last (a
  // use inside an If branch counts for the If).
  std::vector<unsigned> lastUse;
  auto use = [&](unsigned s, unsigned step) {
    if (s == kNone)
      return;
    if (s >= lastUse.size())
      lastUse.resize(s + 1, kNone);
    lastUse[s] = step;
  };
  // The steps of one block (the graph's, or an If branch's inside top-level
  // step `top`).
  std::function<Error(Block &, std::vector<Step> &, unsigned)> prepareBlock =
      [&](Block &block, std::vector<Step> &list, unsigned top) -> Error {
    list.reserve(block.getOperations().size()); // Steps copy, not move
    for (Operation &op : block.without_terminator()) {
      for (Type t :
           llvm::concat<const Type>(op.getOperandTypes(), op.getResultTypes()))
        if (!isEvaluable(t))
          return llvm::createStringError(
              "the evaluator cannot run " + describe(&op) +
              ": a value is not a static float or integer tensor");
      if (llvm::any_of(op.getResultTypes(), isNarrowFloat) &&
          !roundsOnceLikeTheLowering(&op))
        return llvm::createStringError(
            "the evaluator cannot run " + describe(&op) +
            " in a narrow float type (the lowering computes it in that type)");
      if (isa<NoneOp>(op))
        continue;
      if (auto constant = dyn_cast<ConstantOp>(op)) {
        std::shared_ptr<const Array> array =
            cache ? cache->lookup(constant.getValue(), constant.getType())
                  : nullptr;
        if (!array) {
          auto decoded = decodeConstant(constant);
          if (!decoded)
            return decoded.takeError();
          array = std::make_shared<const Array>(std::move(*decoded));
          if (cache)
            cache->remember(constant.getValue(), constant.getType(), array,
                            array->size() * (array->isFloat ? 4 : 8));
        }
        constants.push_back({slot(constant.getResult()), std::move(array)});
        continue;
      }
      Step step{&op, nullptr, {}, {}, {}, {}, {}, {}};
      if (auto ifOp = dyn_cast<IfOp>(op)) {
        for (int b = 0; b < 2; ++b) {
          Block &branch = op.getRegion(b).front();
          unsigned at = top == kNone ? list.size() : top;
          if (Error err = prepareBlock(branch, step.branches[b], at))
            return err;
          for (Value v : branch.getTerminator()->getOperands()) {
            step.yields[b].push_back(slot(v));
            use(step.yields[b].back(), at);
          }
        }
      } else if (op.getNumRegions()) {
        return llvm::createStringError("the evaluator cannot run " +
                                       describe(&op) + ": it has regions");
      } else {
        auto it = kernels().find(op.getName().getStringRef());
        if (it == kernels().end())
          return llvm::createStringError("the evaluator has no kernel for " +
                                         describe(&op));
        step.kernel = &it->second.run;
        step.writesAll = it->second.writes == eval::Writes::all;
      }
      for (Value v : op.getOperands()) {
        step.operands.push_back(slot(v));
        use(step.operands.back(), top == kNone ? list.size() : top);
      }
      for (Value v : op.getResults()) {
        step.results.push_back(slot(v));
        // A value nobody uses (one only observed) goes right after its op.
        use(step.results.back(), top == kNone ? list.size() : top);
        Type element = getElementTypeOrSelf(v.getType());
        auto cast = dyn_cast<CastOp>(op);
        auto quantize = dyn_cast<QuantizeLinearOp>(op);
        step.roundings.push_back(
            cast       ? eval::castRoundingFor(element, cast.getSaturate())
            : quantize ? eval::roundingFor(element, quantize.getSaturate())
                       : eval::roundingFor(element));
      }
      list.push_back(std::move(step));
    }
    return Error::success();
  };
  if (Error err = prepareBlock(body, steps, kNone))
    return err;
  Operation *ret = body.getTerminator();
  for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
    if (!isEvaluable(v.getType()) || isa<NoneType>(v.getType()) ||
        isa<FloatTF32Type>(getElementTypeOrSelf(v.getType())))
      return llvm::createStringError("graph output '" +
                                     graphOutputName(graph, i) +
                                     "' is not a static tensor");
    outputs.push_back({graphOutputName(graph, i), slot(v), v.getType()});
  }

  for (const Port &out : outputs)
    use(out.slot, kNone); // kept to the end
  for (auto [value, index] : llvm::enumerate(lastUse))
    if (index != kNone)
      steps[index].release.push_back(value);
  return Error::success();
}

namespace {
/// DSMP_EVAL_PROFILE=1: seconds per op name over the process, printed to
/// stderr at exit (kernel plus rounding), the slowest first; =shapes: per op
/// name and operand types.
struct KernelProfile {
  const bool enabled = getenv("DSMP_EVAL_PROFILE") != nullptr;
  const bool byShape =
      enabled && llvm::StringRef(getenv("DSMP_EVAL_PROFILE")) == "shapes";
  llvm::StringMap<std::pair<double, size_t>> byOp;
  ~KernelProfile() {
    if (!enabled || byOp.empty())
      return;
    std::vector<std::pair<double, std::string>> rows;
    double total = 0;
    for (auto &entry : byOp) {
      rows.push_back({entry.second.first, entry.getKey().str()});
      total += entry.second.first;
    }
    llvm::sort(rows, [](auto &a, auto &b) { return a.first > b.first; });
    llvm::errs() << "evaluator profile: " << llvm::format("%.1f", total * 1e3)
                 << " ms in kernels\n";
    for (auto &[seconds, name] : rows)
      llvm::errs() << llvm::format("  %8.2f ms %6zu  ", seconds * 1e3,
                                   byOp[name].second)
                   << name << "\n";
  }
};
KernelProfile &kernelProfile() {
  static KernelProfile profile;
  return profile;
}
} // namespace

Error GraphEvaluator::runSteps(const std::vector<Step> &list,
                               std::vector<std::shared_ptr<const Array>> &slots,
                               BufferPool &pool, Observer observe) {
  SmallVector<const Array *, 4> operands;
  SmallVector<Array, 2> results;
  for (const Step &step : list) {
    if (!step.kernel) { // dsmp.if
      const Array *cond = slots[step.operands[0]].get();
      int branch = cond->size() && cond->at(0) != 0 ? 0 : 1;
      if (Error err = runSteps(step.branches[branch], slots, pool, observe))
        return err;
      for (auto [s, y] : llvm::zip(step.results, step.yields[branch]))
        if (s != kNone)
          slots[s] = slots[y];
    } else {
      operands.clear();
      for (unsigned s : step.operands)
        operands.push_back(s == kNone ? nullptr : slots[s].get());
      results.clear();
      for (Value v : step.op->getResults())
        results.push_back(isa<NoneType>(v.getType())
                              ? Array()
                              : pool.shaped(v.getType(), step.writesAll));
      KernelProfile &profile = kernelProfile();
      auto start = profile.enabled ? std::chrono::steady_clock::now()
                                   : std::chrono::steady_clock::time_point();
      if (Error err = (*step.kernel)(step.op, operands, results))
        return err;
      for (auto [array, rounding] : llvm::zip(results, step.roundings))
        eval::roundInPlace(rounding, array.f);
      if (profile.enabled) {
        std::string key = step.op->getName().getStringRef().str();
        if (profile.byShape) {
          llvm::raw_string_ostream os(key);
          for (Value v : step.op->getOperands())
            os << " " << v.getType();
        }
        auto &entry = profile.byOp[key];
        entry.first += std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
        ++entry.second;
      }
      if (observe)
        for (auto [index, array] : llvm::enumerate(results))
          if (array.isFloat &&
              isa<RankedTensorType>(step.op->getResult(index).getType()))
            observe(step.op, index, array.f);
      for (auto [s, array] : llvm::zip(step.results, results))
        if (s != kNone)
          slots[s] = std::make_shared<const Array>(std::move(array));
    }
    for (unsigned s : step.release)
      pool.release(slots[s]);
  }
  return Error::success();
}

Expected<std::vector<HostTensor>> GraphEvaluator::run(const HostInputs &given,
                                                      Observer observe) {
  std::vector<std::shared_ptr<const Array>> slots(numSlots);
  for (auto &[index, value] : constants)
    slots[index] = value;
  for (const HostTensor &t : given) {
    auto port =
        llvm::find_if(inputs, [&](const Port &p) { return p.name == t.name; });
    if (port == inputs.end())
      return llvm::createStringError("the graph has no input '" + t.name + "'");
    auto array = fromHost(t, cast<RankedTensorType>(port->type));
    if (!array)
      return array.takeError();
    slots[port->slot] = std::make_shared<const Array>(std::move(*array));
  }
  for (const Port &p : inputs)
    if (!slots[p.slot])
      return llvm::createStringError("input '" + p.name + "' is not given");

  BufferPool pool;
  if (Error err = runSteps(steps, slots, pool, observe))
    return std::move(err);
  std::vector<HostTensor> out;
  for (const Port &p : outputs)
    out.push_back(toHost(*slots[p.slot], p.name, p.type));
  return out;
}

} // namespace mlir::dsmp
