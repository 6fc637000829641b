//===- ContribOps.cpp - onnxruntime's contrib ops as dsmp ops -- -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Models saved by onnxruntime's transformer optimizer
// (onnxruntime.transformers.optimizer, the `model_optimized.onnx` files of
// model hubs) carry its fused contrib ops. Each imports as the standard ops
// it fuses, following onnxruntime's ContribOperators.md:
//   Gelu(x)                  = 0.5 x (1 + erf(x / sqrt 2))
//   BiasGelu(a, b)           = Gelu(a + b)
//   FastGelu(x, bias?)       = Gelu's tanh form of x + bias
//   QuickGelu(x; alpha)      = x * sigmoid(alpha x)
//   BiasAdd(x, bias, skip)   = x + bias + skip
//   FusedMatMul(a, b; alpha, transA, transB) = alpha * A' B'
//   SkipLayerNormalization(input, skip, gamma, beta?, bias?; epsilon)
//     s = input + skip (+ bias); output = LayerNorm(s) over the last dim;
//     outputs mean, inv_std_var, s (input_skip_bias_sum)
//   SkipSimplifiedLayerNormalization(input, skip, gamma, bias?)
//     the same with RMS normalization and no beta
//   SimplifiedLayerNormalization(x, scale; axis, epsilon): RMS
//     normalization (onnxruntime registers it in the default domain)
// so that every later layer (precision analyses, lowering, export) sees
// only ops it knows, and each part gets its own format.
//
//===----------------------------------------------------------------------===//

#include "ContribOps.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::dsmp;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

constexpr StringRef kContribDomain = "com.microsoft";

/// The attributes of a node, checked against the names (and kinds) an op
/// takes.
class Attributes {
public:
  static Expected<Attributes>
  of(const onnx::NodeProto &node,
     ArrayRef<std::pair<StringRef, onnx::AttributeProto::AttributeType>>
         known) {
    Attributes result;
    for (const auto &attr : node.attribute()) {
      auto it = llvm::find_if(
          known, [&](const auto &k) { return k.first == attr.name(); });
      if (it == known.end() || it->second != attr.type())
        return llvm::createStringError(
            "attribute '" + attr.name() + "' is not an attribute of " +
            node.op_type() + " of that type (onnxruntime's contrib op)");
      result.byName[attr.name()] = &attr;
    }
    return result;
  }
  int64_t i(StringRef name, int64_t otherwise) const {
    auto it = byName.find(name);
    return it == byName.end() ? otherwise : it->second->i();
  }
  double f(StringRef name, double otherwise) const {
    auto it = byName.find(name);
    return it == byName.end() ? otherwise : it->second->f();
  }

private:
  llvm::StringMap<const onnx::AttributeProto *> byName;
};

constexpr auto kInt = onnx::AttributeProto::INT;
constexpr auto kFloat = onnx::AttributeProto::FLOAT;

Error importError(const llvm::Twine &message) {
  return llvm::createStringError(message.str());
}

Type elementOf(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

/// The contrib ops' normalizations: over the last dim (or from `axis` on),
/// mean-centred (LayerNorm: dsmp.layer_normalization, which the precision
/// policies know) or not (RMS, spelled as importRMSNormalization spells
/// it), scaled by gamma, shifted by beta where given; computed in f32 as
/// onnxruntime does. Also gives the mean and 1/sqrt(var + eps), with the
/// reduced dims kept, where `withStatistics`.
struct Normalized {
  Value y, mean, invStdDev;
};
Expected<Normalized> normalize(GraphBuilder &g, Value x, Value gamma,
                               Value beta, int64_t axis, double epsilon,
                               bool centred, bool withStatistics) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !isa<FloatType>(type.getElementType()) || type.getRank() == 0)
    return importError("the normalized input must be a ranked float tensor");
  int64_t rank = type.getRank();
  if (axis < -rank || axis >= rank)
    return importError("axis " + llvm::Twine(axis) +
                       " is out of range for rank " + llvm::Twine(rank));
  if (axis < 0)
    axis += rank;
  Normalized result;
  if (centred) {
    // Y only: Mean and InvStdDev unused (none), as an import of ONNX's
    // LayerNormalization with one output gives.
    OpBuilder &b = g.builder();
    OperationState state(g.location(), "dsmp.layer_normalization");
    state.addOperands({x, gamma, beta ? beta : g.none()});
    state.addAttribute("axis", b.getI64IntegerAttr(axis));
    state.addAttribute("epsilon",
                       b.getF32FloatAttr(static_cast<float>(epsilon)));
    state.addTypes({type, b.getNoneType(), b.getNoneType()});
    result.y = b.create(state)->getResult(0);
    if (!withStatistics)
      return result;
  }
  SmallVector<int64_t> axes;
  for (int64_t d = axis; d < rank; ++d)
    axes.push_back(d);
  Type element = type.getElementType();
  Type f32 = g.builder().getF32Type();
  Value wide = g.convert(x, f32);
  Value mean, centredX = wide;
  if (centred) {
    mean = g.value("dsmp.reduce_mean", {wide, g.i64s(axes)},
                   {g.i64("keepdims", 1)});
    if (!mean)
      return importError("the mean does not reduce");
    centredX = g.sub(wide, mean);
  }
  Value variance =
      g.value("dsmp.reduce_mean", {g.mul(centredX, centredX), g.i64s(axes)},
              {g.i64("keepdims", 1)});
  if (!variance)
    return importError("the variance does not reduce");
  Value invStdDev = g.value(
      "dsmp.reciprocal",
      {g.value("dsmp.sqrt", {g.add(variance, g.scalar(epsilon, f32))})});
  result.mean = mean;
  result.invStdDev = invStdDev;
  if (centred)
    return result;
  result.y = g.mul(g.convert(g.mul(centredX, invStdDev), element), gamma);
  if (!result.y)
    return importError("gamma does not broadcast to the input");
  return result;
}

/// A + B (+ C), skipping null operands.
Value sum(GraphBuilder &g, ArrayRef<Value> terms) {
  Value total;
  for (Value t : terms)
    if (t)
      total = total ? g.add(total, t) : t;
  return total;
}

/// The last two dims swapped.
Value swapLastTwo(GraphBuilder &g, Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || type.getRank() < 2)
    return {};
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < type.getRank(); ++d)
    perm.push_back(d);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return g.transpose(v, perm);
}

} // namespace

bool mlir::dsmp::onnx_import::isSpelledContribOp(const onnx::NodeProto &node) {
  StringRef type = node.op_type();
  if (node.domain().empty() || node.domain() == "ai.onnx")
    return type == "SimplifiedLayerNormalization";
  if (node.domain() != kContribDomain)
    return false;
  return llvm::is_contained({"Gelu", "FastGelu", "BiasGelu", "QuickGelu",
                             "BiasAdd", "FusedMatMul", "SkipLayerNormalization",
                             "SkipSimplifiedLayerNormalization",
                             "SimplifiedLayerNormalization"},
                            type);
}

std::string
mlir::dsmp::onnx_import::unsupportedContribOpMessage(StringRef opType) {
  return "onnxruntime's contrib op com.microsoft." + opType.str() +
         " is not supported (dsmp spells Gelu, FastGelu, BiasGelu, "
         "QuickGelu, BiasAdd, FusedMatMul, SkipLayerNormalization, "
         "SkipSimplifiedLayerNormalization and SimplifiedLayerNormalization); "
         "import the model as exported, before onnxruntime's transformer "
         "optimizer fused it";
}

Expected<SmallVector<Value>> mlir::dsmp::onnx_import::importContribOp(
    const onnx::NodeProto &node, ArrayRef<Value> inputs, GraphBuilder &g) {
  StringRef type = node.op_type();
  auto input = [&](size_t i) {
    return i < inputs.size() ? inputs[i] : Value();
  };
  auto needInputs = [&](size_t required, size_t most) -> Error {
    if (inputs.size() > most)
      return importError(type + " takes at most " + llvm::Twine(most) +
                         " inputs");
    for (size_t i = 0; i < required; ++i)
      if (!input(i))
        return importError(type + " needs input " + llvm::Twine(i));
    for (Value v : inputs)
      if (v && !isa<FloatType>(elementOf(v)))
        return importError(type + " takes float tensors");
    return Error::success();
  };
  SmallVector<Value> outputs(node.output_size());
  auto wanted = [&](int i) {
    return i < node.output_size() && !node.output(i).empty();
  };
  auto only = [&](int count) -> Error {
    for (int i = count; i < node.output_size(); ++i)
      if (wanted(i))
        return importError(type + " gives " + llvm::Twine(count) +
                           " output(s) here; output " + llvm::Twine(i) +
                           " is not supported");
    return Error::success();
  };

  if (type == "Gelu" || type == "BiasGelu" || type == "FastGelu") {
    auto attrs = Attributes::of(node, {});
    if (!attrs)
      return attrs.takeError();
    bool withBias = type != "Gelu";
    if (Error err = needInputs(type == "BiasGelu" ? 2 : 1, withBias ? 2 : 1))
      return std::move(err);
    if (Error err = only(1))
      return std::move(err);
    Value x = sum(g, {input(0), input(1)});
    SmallVector<NamedAttribute> form;
    if (type == "FastGelu")
      form.push_back(g.attr("approximate", g.builder().getStringAttr("tanh")));
    outputs[0] = x ? g.value("dsmp.gelu", {x}, form) : Value();
  } else if (type == "QuickGelu") {
    auto attrs = Attributes::of(node, {{"alpha", kFloat}});
    if (!attrs)
      return attrs.takeError();
    if (Error err = needInputs(1, 1))
      return std::move(err);
    if (Error err = only(1))
      return std::move(err);
    Value x = input(0);
    Value scaled = g.mul(x, g.scalar(attrs->f("alpha", 1.702), elementOf(x)));
    outputs[0] = g.mul(x, g.value("dsmp.sigmoid", {scaled}));
  } else if (type == "BiasAdd") {
    if (auto attrs = Attributes::of(node, {}); !attrs)
      return attrs.takeError();
    if (Error err = needInputs(3, 3))
      return std::move(err);
    if (Error err = only(1))
      return std::move(err);
    outputs[0] = sum(g, {input(0), input(1), input(2)});
  } else if (type == "FusedMatMul") {
    auto attrs = Attributes::of(node, {{"alpha", kFloat},
                                       {"transA", kInt},
                                       {"transB", kInt},
                                       {"transBatchA", kInt},
                                       {"transBatchB", kInt}});
    if (!attrs)
      return attrs.takeError();
    if (Error err = needInputs(2, 2))
      return std::move(err);
    if (Error err = only(1))
      return std::move(err);
    if (attrs->i("transBatchA", 0) || attrs->i("transBatchB", 0))
      return importError("FusedMatMul with transBatchA or transBatchB is not "
                         "supported");
    Value a = input(0), b = input(1);
    if (attrs->i("transA", 0))
      a = swapLastTwo(g, a);
    if (attrs->i("transB", 0))
      b = swapLastTwo(g, b);
    Value y = a && b ? g.value("dsmp.matmul", {a, b}) : Value();
    if (!y)
      return importError("FusedMatMul's A and B do not multiply");
    double alpha = attrs->f("alpha", 1.0);
    outputs[0] = alpha == 1.0 ? y : g.mul(y, g.scalar(alpha, elementOf(y)));
  } else if (type == "SkipLayerNormalization" ||
             type == "SkipSimplifiedLayerNormalization") {
    bool centred = type == "SkipLayerNormalization";
    auto attrs = Attributes::of(node, {{"epsilon", kFloat}});
    if (!attrs)
      return attrs.takeError();
    if (Error err = needInputs(3, centred ? 5 : 4))
      return std::move(err);
    if (Error err = only(4))
      return std::move(err);
    Value beta = centred ? input(3) : Value();
    Value bias = centred ? input(4) : input(3);
    Value s = sum(g, {input(0), input(1), bias});
    if (!s)
      return importError(type + "'s input, skip and bias do not add");
    // onnxruntime's default epsilon for both.
    auto normalized =
        normalize(g, s, input(2), beta, -1, attrs->f("epsilon", 1e-12), centred,
                  /*withStatistics=*/wanted(1) || wanted(2));
    if (!normalized)
      return normalized.takeError();
    if (wanted(1) && !centred)
      return importError(type + " has no mean output");
    outputs[0] = normalized->y;
    if (wanted(1))
      outputs[1] = normalized->mean;
    if (wanted(2))
      outputs[2] = normalized->invStdDev;
    if (wanted(3))
      outputs[3] = s;
  } else if (type == "SimplifiedLayerNormalization") {
    auto attrs = Attributes::of(
        node, {{"axis", kInt}, {"epsilon", kFloat}, {"stash_type", kInt}});
    if (!attrs)
      return attrs.takeError();
    if (Error err = needInputs(2, 2))
      return std::move(err);
    if (Error err = only(2))
      return std::move(err);
    auto normalized =
        normalize(g, input(0), input(1), Value(), attrs->i("axis", -1),
                  attrs->f("epsilon", 1e-5), /*centred=*/false,
                  /*withStatistics=*/wanted(1));
    if (!normalized)
      return normalized.takeError();
    outputs[0] = normalized->y;
    if (wanted(1))
      outputs[1] = normalized->invStdDev;
  } else {
    return importError(unsupportedContribOpMessage(type));
  }
  if (!outputs[0])
    return importError(type + "'s inputs do not broadcast together");
  return outputs;
}
