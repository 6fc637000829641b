//===- ContribOps.cpp - onnxruntime's contrib ops as dsmp ops -- -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Models saved by onnxruntime's transformer optimizer
// (onnxruntime.transformers.optimizer, the `model_optimized.onnx` files of
// model hubs) or by its graph optimizer carry its fused contrib ops. Each
// imports as the standard ops it fuses, following onnxruntime's
// ContribOperators.md:
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
//   EmbedLayerNormalization: word + position + segment embeddings, LayerNorm
//   Attention(input, packed QKV weights, bias, mask_index, ...): attention()
//     below; no past state
//   FusedConv(X, W, B?, Z?)  = activation(Conv(X, W, B) + Z), and
//   FusedGemm(A, B, C?)      = activation(Gemm(A, B, C)): the Conv and Gemm
//     activation fusions of onnxruntime's graph optimizer (a model saved
//     with optimized_model_filepath)
// so that every later layer (precision analyses, lowering, export) sees
// only ops it knows, and each part gets its own format.
//
//===----------------------------------------------------------------------===//

#include "ContribOps.h"

#include "dialects/Dsmp/IR/DsmpOps.h"

#include "llvm/ADT/StringMap.h"

#include <cmath>
#include <optional>

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
  SmallVector<int64_t> ints(StringRef name) const {
    auto it = byName.find(name);
    if (it == byName.end())
      return {};
    return SmallVector<int64_t>(it->second->ints().begin(),
                                it->second->ints().end());
  }
  double f(StringRef name, double otherwise) const {
    auto it = byName.find(name);
    return it == byName.end() ? otherwise : it->second->f();
  }
  std::optional<double> f(StringRef name) const {
    auto it = byName.find(name);
    return it == byName.end() ? std::nullopt
                              : std::optional<double>(it->second->f());
  }
  std::string s(StringRef name) const {
    auto it = byName.find(name);
    return it == byName.end() ? std::string() : it->second->s();
  }
  SmallVector<double> floats(StringRef name) const {
    auto it = byName.find(name);
    if (it == byName.end())
      return {};
    return SmallVector<double>(it->second->floats().begin(),
                               it->second->floats().end());
  }
  bool has(StringRef name) const { return byName.contains(name); }

private:
  llvm::StringMap<const onnx::AttributeProto *> byName;
};

constexpr auto kInt = onnx::AttributeProto::INT;
constexpr auto kInts = onnx::AttributeProto::INTS;
constexpr auto kFloat = onnx::AttributeProto::FLOAT;
constexpr auto kFloats = onnx::AttributeProto::FLOATS;
constexpr auto kString = onnx::AttributeProto::STRING;

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

/// 0, 1, ..., n - 1 as i64, n the size of `v`'s dim `dim`.
Value positions(GraphBuilder &g, Value v, int64_t dim) {
  auto rank = cast<RankedTensorType>(v.getType()).getRank();
  OpBuilder &b = g.builder();
  auto scalarType = RankedTensorType::get({}, b.getI64Type());
  auto scalar = [&](int64_t value) -> Value {
    return ConstantOp::create(
        b, g.location(), scalarType,
        DenseElementsAttr::get(scalarType, APInt(64, value)));
  };
  Value shape =
      g.typed("dsmp.shape", {v}, RankedTensorType::get({rank}, b.getI64Type()));
  Value size = g.typed("dsmp.gather", {shape, scalar(dim)}, scalarType,
                       {g.i64("axis", 0)});
  return g.typed("dsmp.range", {scalar(0), size, scalar(1)},
                 RankedTensorType::get({ShapedType::kDynamic}, b.getI64Type()));
}

/// (1 - keep) * filter, as float: what onnxruntime adds to the scores of
/// masked positions.
Value maskBias(GraphBuilder &g, Value keep, double filter, Type f) {
  Value asFloat = g.convert(keep, f);
  return g.mul(g.sub(g.scalar(1.0, f), asFloat), g.scalar(filter, f));
}

/// com.microsoft Attention: input [B, S, in] times packed Q/K/V weights
/// [in, q + k + v] plus bias, num_heads heads, scores scaled (1/sqrt of the
/// head size unless `scale`), masked by mask_index (key lengths [B], a raw
/// 0/1 mask [B, T] or [B, S, T]; masked scores get mask_filter_value added,
/// as onnxruntime does), attention_bias added, causal where unidirectional;
/// softmax, times V, heads merged to [B, S, v].
Expected<Value> attention(const onnx::NodeProto &node, ArrayRef<Value> inputs,
                          GraphBuilder &g) {
  auto attrs =
      Attributes::of(node, {{"num_heads", kInt},
                            {"unidirectional", kInt},
                            {"qkv_hidden_sizes", onnx::AttributeProto::INTS},
                            {"mask_filter_value", kFloat},
                            {"scale", kFloat},
                            {"do_rotary", kInt},
                            {"past_present_share_buffer", kInt}});
  if (!attrs)
    return attrs.takeError();
  auto input = [&](size_t i) {
    return i < inputs.size() ? inputs[i] : Value();
  };
  if (!input(0) || !input(1))
    return importError("Attention needs input and weights");
  if (input(4) || input(6) || attrs->i("do_rotary", 0) ||
      attrs->i("past_present_share_buffer", 0))
    return importError("Attention with past state or rotary embedding is not "
                       "supported (export the model without a KV cache)");
  int64_t heads = attrs->i("num_heads", 0);
  auto x = dyn_cast<RankedTensorType>(input(0).getType());
  auto w = dyn_cast<RankedTensorType>(input(1).getType());
  if (heads <= 0 || !x || x.getRank() != 3 || !w || w.getRank() != 2 ||
      ShapedType::isDynamic(w.getDimSize(1)) ||
      !isa<FloatType>(x.getElementType()))
    return importError("Attention needs num_heads, a float [B, S, in] input "
                       "and [in, q + k + v] weights of known width");
  SmallVector<int64_t> sizes = attrs->ints("qkv_hidden_sizes");
  if (sizes.empty())
    sizes.assign(3, w.getDimSize(1) / 3);
  if (sizes.size() != 3 || sizes[0] + sizes[1] + sizes[2] != w.getDimSize(1) ||
      sizes[0] != sizes[1] ||
      llvm::any_of(sizes, [&](int64_t n) { return n <= 0 || n % heads != 0; }))
    return importError("Attention's qkv_hidden_sizes must split the weights' "
                       "width, Q and K alike, each a multiple of num_heads");
  Type f = x.getElementType();
  Value qkv = g.value("dsmp.matmul", {input(0), input(1)});
  if (qkv && input(2))
    qkv = g.add(qkv, input(2));
  if (!qkv)
    return importError("Attention's input, weights and bias do not multiply");
  // [B, S, N * H] -> [B, N, S, H], from columns [start, start + width).
  auto split = [&](int64_t start, int64_t width) {
    Value part =
        g.value("dsmp.slice", {qkv, g.i64s({start}), g.i64s({start + width}),
                               g.i64s({-1}), g.none()});
    return part ? g.transpose(g.reshape(part, {0, 0, heads, width / heads}),
                              {0, 2, 1, 3})
                : Value();
  };
  Value q = split(0, sizes[0]);
  Value k = split(sizes[0], sizes[1]);
  Value v = split(sizes[0] + sizes[1], sizes[2]);
  if (!q || !k || !v)
    return importError("Attention's Q, K and V do not split");
  double scale = attrs->f("scale", 1.0 / std::sqrt(double(sizes[0] / heads)));
  Value scores =
      g.mul(g.value("dsmp.matmul", {q, g.transpose(k, {0, 1, 3, 2})}),
            g.scalar(scale, f));
  double filter = attrs->f("mask_filter_value", -10000.0);
  if (Value mask = input(3)) {
    auto type = cast<RankedTensorType>(mask.getType());
    Value keep;
    if (type.getRank() == 1) {
      // Key lengths: positions from the length on are padding.
      Value lengths =
          g.reshape(g.convert(mask, g.builder().getI64Type()), {-1, 1});
      keep = g.value("dsmp.less", {positions(g, input(0), 1), lengths});
      keep = g.reshape(g.convert(keep, f), {0, 1, 1, -1});
    } else if (type.getRank() == 2) {
      keep = g.reshape(g.convert(mask, f), {0, 1, 1, -1});
    } else if (type.getRank() == 3) {
      keep = g.value("dsmp.unsqueeze", {g.convert(mask, f), g.i64s({1})});
    } else {
      return importError("Attention's mask_index of rank " +
                         llvm::Twine(type.getRank()) + " is not supported");
    }
    scores = keep ? g.add(scores, maskBias(g, keep, filter, f)) : Value();
  }
  if (scores && input(5))
    scores = g.add(scores, input(5));
  if (scores && attrs->i("unidirectional", 0)) {
    // Key j is visible from query i where j <= i.
    Value rows = g.reshape(positions(g, input(0), 1), {-1, 1});
    Value cols = positions(g, input(0), 1);
    Value keep = g.value("dsmp.less_or_equal", {cols, rows});
    scores = keep ? g.add(scores, maskBias(g, keep, filter, f)) : Value();
  }
  if (!scores)
    return importError("Attention's mask or attention_bias does not "
                       "broadcast to the scores");
  Value probs = g.value("dsmp.softmax", {scores}, {g.i64("axis", -1)});
  Value y = probs ? g.value("dsmp.matmul", {probs, v}) : Value();
  y = y ? g.reshape(g.transpose(y, {0, 2, 1, 3}), {0, 0, -1}) : Value();
  if (!y)
    return importError("Attention's probabilities and V do not multiply");
  return y;
}

/// com.microsoft EmbedLayerNormalization: word, position (position_ids, or
/// 0..S-1) and segment embeddings gathered and summed, then LayerNorm;
/// mask_index, where asked for, the number of ones in each row of mask.
Expected<SmallVector<Value>> embedLayerNorm(const onnx::NodeProto &node,
                                            ArrayRef<Value> inputs,
                                            GraphBuilder &g) {
  auto attrs =
      Attributes::of(node, {{"epsilon", kFloat}, {"mask_index_type", kInt}});
  if (!attrs)
    return attrs.takeError();
  auto input = [&](size_t i) {
    return i < inputs.size() ? inputs[i] : Value();
  };
  if (!input(0) || !input(2) || !input(3) || !input(5) || !input(6))
    return importError("EmbedLayerNormalization needs input_ids, the word "
                       "and position embeddings, gamma and beta");
  if (bool(input(1)) != bool(input(4)))
    return importError("EmbedLayerNormalization's segment_ids and "
                       "segment_embedding come together");
  auto gather = [&](Value table, Value ids) {
    return g.value("dsmp.gather", {table, ids}, {g.i64("axis", 0)});
  };
  Value words = gather(input(2), input(0));
  Value ids = input(8) ? input(8) : positions(g, input(0), 1);
  Value places = gather(input(3), ids);
  Value total = words && places ? g.add(words, places) : Value();
  if (total && input(1))
    total = g.add(total, gather(input(4), input(1)));
  if (!total)
    return importError("EmbedLayerNormalization's embeddings do not gather "
                       "and add");
  auto normalized = normalize(g, total, input(5), input(6), -1,
                              attrs->f("epsilon", 1e-12), /*centred=*/true,
                              /*withStatistics=*/false);
  if (!normalized)
    return normalized.takeError();
  SmallVector<Value> outputs(node.output_size());
  outputs[0] = normalized->y;
  auto wanted = [&](int i) {
    return i < node.output_size() && !node.output(i).empty();
  };
  if (wanted(1)) {
    if (!input(7) || attrs->i("mask_index_type", 1) != 1)
      return importError("EmbedLayerNormalization's mask_index needs the "
                         "mask, and mask_index_type 1");
    Value count = g.value("dsmp.reduce_sum", {input(7), g.i64s({1})},
                          {g.i64("keepdims", 0)});
    outputs[1] = count ? g.convert(count, g.builder().getI32Type()) : Value();
  }
  if (wanted(2))
    outputs[2] = total;
  return outputs;
}

} // namespace

bool mlir::dsmp::onnx_import::isSpelledContribOp(const onnx::NodeProto &node) {
  StringRef type = node.op_type();
  if (node.domain().empty() || node.domain() == "ai.onnx")
    return type == "SimplifiedLayerNormalization";
  if (node.domain() != kContribDomain)
    return false;
  return llvm::is_contained(
      {"Gelu", "FastGelu", "BiasGelu", "QuickGelu", "BiasAdd", "FusedMatMul",
       "SkipLayerNormalization", "SkipSimplifiedLayerNormalization",
       "SimplifiedLayerNormalization", "Attention", "EmbedLayerNormalization",
       "FusedConv", "FusedGemm"},
      type);
}

std::string
mlir::dsmp::onnx_import::unsupportedContribOpMessage(StringRef opType) {
  return "onnxruntime's contrib op com.microsoft." + opType.str() +
         " is not supported (dsmp spells Gelu, FastGelu, BiasGelu, "
         "QuickGelu, BiasAdd, FusedMatMul, SkipLayerNormalization, "
         "SkipSimplifiedLayerNormalization, SimplifiedLayerNormalization, "
         "Attention, EmbedLayerNormalization, FusedConv and FusedGemm); "
         "import the model as exported, before onnxruntime's optimizers "
         "fused it";
}

namespace {

/// The parameters of a fused activation, by the names of the ONNX op it
/// stands for (LeakyRelu's alpha, HardSigmoid's alpha and beta, Selu's
/// alpha and gamma, Clip's min and max); unset ones take that op's default.
struct ActivationParams {
  std::optional<double> alpha, beta, gamma, min, max;
};

/// `x` through the activation onnxruntime fused into a FusedConv or
/// FusedGemm (`kind` empty: none), as the ONNX op of that name computes it.
Expected<Value> activate(GraphBuilder &g, Value x, StringRef kind,
                         const ActivationParams &p) {
  Type element = elementOf(x);
  auto f32 = [&](StringRef name, std::optional<double> v, double otherwise) {
    return g.f32(name, static_cast<float>(v.value_or(otherwise)));
  };
  if (kind.empty())
    return x;
  if (kind == "Relu" || kind == "Tanh" || kind == "Sigmoid" ||
      kind == "Softplus" || kind == "Softsign")
    return g.value("dsmp." + kind.lower(), {x});
  if (kind == "Silu") // x * sigmoid(x), onnxruntime's MlasSiluActivation
    return g.mul(x, g.value("dsmp.sigmoid", {x}));
  if (kind == "LeakyRelu")
    return g.value("dsmp.leaky_relu", {x}, {f32("alpha", p.alpha, 0.01)});
  if (kind == "HardSigmoid")
    return g.value("dsmp.hard_sigmoid", {x},
                   {f32("alpha", p.alpha, 0.2), f32("beta", p.beta, 0.5)});
  if (kind == "Elu")
    return g.value("dsmp.elu", {x}, {f32("alpha", p.alpha, 1.0)});
  if (kind == "ThresholdedRelu")
    return g.value("dsmp.thresholded_relu", {x}, {f32("alpha", p.alpha, 1.0)});
  if (kind == "Selu")
    return g.value("dsmp.selu", {x},
                   {f32("alpha", p.alpha, 1.6732631921768188),
                    f32("gamma", p.gamma, 1.0507010221481323)});
  if (kind == "Clip")
    return g.value("dsmp.clip",
                   {x, p.min ? g.scalar(*p.min, element) : g.none(),
                    p.max ? g.scalar(*p.max, element) : g.none()});
  return importError("fused activation '" + kind + "' is not supported");
}

/// FusedConv(X, W, B?, Z?; Conv's attributes, activation,
/// activation_params) = activation(Conv(X, W, B) + Z): onnxruntime's
/// Conv-activation (and Conv-Add-activation) fusion. activation_params are
/// LeakyRelu's [alpha], Clip's [min, max] and HardSigmoid's [alpha, beta].
Expected<Value> fusedConv(const onnx::NodeProto &node, ArrayRef<Value> inputs,
                          GraphBuilder &g) {
  auto attrs = Attributes::of(node, {{"auto_pad", kString},
                                     {"dilations", kInts},
                                     {"group", kInt},
                                     {"kernel_shape", kInts},
                                     {"pads", kInts},
                                     {"strides", kInts},
                                     {"activation", kString},
                                     {"activation_params", kFloats}});
  if (!attrs)
    return attrs.takeError();
  SmallVector<NamedAttribute> conv;
  if (attrs->has("auto_pad"))
    conv.push_back(
        g.attr("auto_pad", g.builder().getStringAttr(attrs->s("auto_pad"))));
  for (StringRef name : {"dilations", "kernel_shape", "pads", "strides"})
    if (attrs->has(name))
      conv.push_back(g.array(name, attrs->ints(name)));
  if (attrs->has("group"))
    conv.push_back(g.i64("group", attrs->i("group", 1)));
  Value b = inputs.size() > 2 && inputs[2] ? inputs[2] : g.none();
  Value y = g.value("dsmp.conv", {inputs[0], inputs[1], b}, conv);
  if (!y)
    return importError("FusedConv's X, W and B do not convolve");
  if (inputs.size() > 3 && inputs[3]) {
    y = g.add(y, inputs[3]);
    if (!y)
      return importError("FusedConv's Z does not add to its convolution");
  }
  std::string kind = attrs->s("activation");
  SmallVector<double> params = attrs->floats("activation_params");
  size_t count = kind == "LeakyRelu"                       ? 1
                 : kind == "Clip" || kind == "HardSigmoid" ? 2
                                                           : 0;
  if (params.size() != count)
    return importError("FusedConv's activation " + kind + " takes " +
                       llvm::Twine(count) + " activation_params; it has " +
                       llvm::Twine(params.size()));
  ActivationParams p;
  if (kind == "Clip") {
    p.min = params[0];
    p.max = params[1];
  } else if (count) {
    p.alpha = params[0];
    if (count > 1)
      p.beta = params[1];
  }
  return activate(g, y, kind, p);
}

/// FusedGemm(A, B, C?; Gemm's attributes, activation, activation_alpha,
/// activation_beta, activation_gamma) = activation(Gemm(A, B, C)): the
/// activation's parameters by its own attribute names.
Expected<Value> fusedGemm(const onnx::NodeProto &node, ArrayRef<Value> inputs,
                          GraphBuilder &g) {
  auto attrs = Attributes::of(node, {{"alpha", kFloat},
                                     {"beta", kFloat},
                                     {"transA", kInt},
                                     {"transB", kInt},
                                     {"activation", kString},
                                     {"activation_alpha", kFloat},
                                     {"activation_beta", kFloat},
                                     {"activation_gamma", kFloat}});
  if (!attrs)
    return attrs.takeError();
  Value c = inputs.size() > 2 && inputs[2] ? inputs[2] : g.none();
  Value y = g.value("dsmp.gemm", {inputs[0], inputs[1], c},
                    {g.f32("alpha", attrs->f("alpha", 1.0)),
                     g.f32("beta", attrs->f("beta", 1.0)),
                     g.i64("transA", attrs->i("transA", 0)),
                     g.i64("transB", attrs->i("transB", 0))});
  if (!y)
    return importError("FusedGemm's A, B and C do not multiply");
  ActivationParams p;
  p.alpha = attrs->f("activation_alpha");
  p.beta = attrs->f("activation_beta");
  p.gamma = attrs->f("activation_gamma");
  return activate(g, y, attrs->s("activation"), p);
}

} // namespace

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
  } else if (type == "Attention") {
    for (int i = 1; i < node.output_size(); ++i)
      if (wanted(i))
        return importError("Attention's present output is not supported "
                           "(export the model without a KV cache)");
    auto y = attention(node, inputs, g);
    if (!y)
      return y.takeError();
    outputs[0] = *y;
  } else if (type == "EmbedLayerNormalization") {
    auto embedded = embedLayerNorm(node, inputs, g);
    if (!embedded)
      return embedded.takeError();
    outputs = *embedded;
  } else if (type == "FusedConv" || type == "FusedGemm") {
    bool conv = type == "FusedConv";
    if (Error err = needInputs(2, conv ? 4 : 3))
      return std::move(err);
    if (Error err = only(1))
      return std::move(err);
    auto y = conv ? fusedConv(node, inputs, g) : fusedGemm(node, inputs, g);
    if (!y)
      return y.takeError();
    outputs[0] = *y;
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
