//===- BatchSplit.cpp - Whether a model computes each sample alone -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The graph is specialized twice, with batch 2 and batch 3 on every input
// whose first dim is dynamic, and the two graphs are walked together. A
// value whose shapes differ is batched; its batch axis is the one axis
// where they differ, 2m and 3m there: the batch merged with m other
// elements (attention merges batch and heads), `outer` of them before it
// and the rest after, which each op carries (a reshape recomputes it, and
// fails when samples would interleave). Each op that reads or makes a batched
// value must keep samples apart: an elementwise op whose operands line up on
// the batch axis, a convolution or pooling over NCHW, a reduction or softmax
// over other axes, a reshape that keeps whole samples contiguous, and so
// on; any other op, or a constant that differs between the two graphs (the
// batch size read as a value) used as data, means the model is not split.
//
//===----------------------------------------------------------------------===//

#include "lib/Driver/Artifact/BatchSplit.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "dialects/Dsmp/IR/ShapeInference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <optional>

using namespace mlir;
using namespace mlir::dsmp;

namespace {
/// The batch sizes the two specializations use.
constexpr int64_t kBatch[2] = {2, 3};

int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

int64_t rankOf(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type ? type.getRank() : 0;
}

/// The batch axis of a value from its types in the two graphs: -1 when
/// they are the same, the axis where they are 2m and 3m (the batch merged
/// with m = outer * inner other elements, as attention merges batch and
/// heads), or nullopt when they differ otherwise.
std::optional<int64_t> batchAxis(Type a, Type b) {
  if (a == b)
    return -1;
  auto ta = dyn_cast<RankedTensorType>(a), tb = dyn_cast<RankedTensorType>(b);
  if (!ta || !tb || ta.getRank() != tb.getRank() || !ta.hasStaticShape() ||
      !tb.hasStaticShape())
    return std::nullopt;
  std::optional<int64_t> axis;
  for (int64_t d = 0; d < ta.getRank(); ++d) {
    if (ta.getDimSize(d) == tb.getDimSize(d))
      continue;
    int64_t m = ta.getDimSize(d) / kBatch[0];
    if (axis || m * kBatch[0] != ta.getDimSize(d) ||
        m * kBatch[1] != tb.getDimSize(d))
      return std::nullopt;
    axis = d;
  }
  return axis;
}

/// Elements before `axis` in a static shape.
int64_t prefixProduct(Value v, int64_t axis) {
  auto shape = cast<RankedTensorType>(v.getType()).getShape();
  return std::accumulate(shape.begin(), shape.begin() + axis, int64_t{1},
                         std::multiplies<int64_t>());
}

/// Ops that keep samples apart when every batched operand and result has
/// the batch on axis 0 (NCHW layouts).
const llvm::StringSet<> &batchFirstOps() {
  static const llvm::StringSet<> ops = {"conv",
                                        "conv_transpose",
                                        "max_pool",
                                        "average_pool",
                                        "global_average_pool",
                                        "global_max_pool",
                                        "lrn",
                                        "batch_normalization",
                                        "instance_normalization",
                                        "group_normalization",
                                        "depth_to_space",
                                        "space_to_depth",
                                        "resize",
                                        "grid_sample"};
  return ops;
}

/// Why `op` (of the first graph) may mix samples, given the batch axes of
/// its operands and results (-1: not batched); nullopt when it keeps them
/// apart.
std::optional<std::string> whyMixes(Operation *op, ArrayRef<int64_t> in,
                                    ArrayRef<int64_t> out) {
  StringRef name = op->getName().stripDialect();
  bool anyIn = llvm::any_of(in, [](int64_t a) { return a >= 0; });
  // Absent optional results (`none`) have no batch.
  bool allOut = llvm::all_of(llvm::enumerate(out), [&](auto r) {
    return r.value() >= 0 || isa<NoneType>(op->getResult(r.index()).getType());
  });
  auto intAttr = [&](StringRef attr, int64_t otherwise) {
    auto value = op->getAttrOfType<IntegerAttr>(attr);
    return value ? value.getInt() : otherwise;
  };
  if (name == "shape" || name == "size")
    return std::nullopt; // metadata: the shape of one chunk is its own
  if (anyIn && !allOut)
    return std::string("it reduces or drops the batch axis");
  if (!anyIn) {
    // Batched results from unbatched data: every sample the same.
    if (name == "constant_of_shape" || name == "expand" || name == "tile")
      return std::nullopt;
    return std::string("it makes batched values that are not the same for "
                       "every sample");
  }
  int64_t k = in[0], r = op->getNumOperands() ? rankOf(op->getOperand(0)) : 0;
  if (batchFirstOps().contains(name)) {
    for (int64_t a : llvm::concat<const int64_t>(in, out))
      if (a > 0)
        return std::string("its batch axis is not the first");
    return std::nullopt;
  }
  if (name == "softmax" || name == "log_softmax" || name == "hardmax" ||
      name == "layer_normalization") {
    // Both opset forms (one axis, or every axis from `axis` on) leave the
    // samples apart when the batch axis comes before it.
    if (k < 0 || k >= normalizeAxis(intAttr("axis", -1), r))
      return std::string("it normalizes across the batch axis");
    return std::nullopt;
  }
  if (name == "lp_normalization") {
    if (k == normalizeAxis(intAttr("axis", -1), r))
      return std::string("it normalizes across the batch axis");
    return std::nullopt;
  }
  if (name == "mean_variance_normalization") {
    auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes");
    SmallVector<int64_t> list = axes ? SmallVector<int64_t>(axes.asArrayRef())
                                     : SmallVector<int64_t>{0, 2, 3};
    for (int64_t a : list)
      if (normalizeAxis(a, r) == k)
        return std::string("it normalizes across the batch axis");
    return std::nullopt;
  }
  if (name == "cum_sum") {
    auto axis = getConstantInts(op->getOperand(1));
    if (!axis || axis->size() != 1 || normalizeAxis((*axis)[0], r) == k)
      return std::string("it accumulates along the batch axis");
    return std::nullopt;
  }
  if (name == "concat" || name == "split") {
    for (auto [i, a] : llvm::enumerate(in))
      if (a >= 0 &&
          a == normalizeAxis(intAttr("axis", 0), rankOf(op->getOperand(i))))
        return std::string("it joins or splits along the batch axis");
    return std::nullopt;
  }
  if (name == "gather") {
    if (in[0] >= 0 && in[0] == normalizeAxis(intAttr("axis", 0), r))
      return std::string("it indexes the batch axis");
    return std::nullopt; // batched indices into a table, or other axes
  }
  if (name == "slice") {
    if (in[0] < 0)
      return std::string("its bounds depend on the batch");
    auto axes =
        op->getNumOperands() > 3 && !isa<NoneType>(op->getOperand(3).getType())
            ? getConstantInts(op->getOperand(3))
            : std::nullopt;
    auto steps =
        op->getNumOperands() > 4 && !isa<NoneType>(op->getOperand(4).getType())
            ? getConstantInts(op->getOperand(4))
            : std::nullopt;
    auto starts = getConstantInts(op->getOperand(1));
    if (!starts)
      return std::string("its bounds are not constants");
    for (size_t i = 0; i < starts->size(); ++i) {
      int64_t axis =
          axes ? normalizeAxis((*axes)[i], r) : static_cast<int64_t>(i);
      if (axis == k && steps && (*steps)[i] != 1)
        return std::string("it steps along the batch axis");
    }
    return std::nullopt;
  }
  if (name == "pad") {
    auto pads = getConstantInts(op->getOperand(1));
    if (in[0] < 0 || !pads || static_cast<int64_t>(pads->size()) != 2 * r ||
        (op->getNumOperands() > 3 &&
         !isa<NoneType>(op->getOperand(3).getType())) ||
        (*pads)[k] != 0 || (*pads)[k + r] != 0)
      return std::string("it may pad the batch axis");
    return std::nullopt;
  }
  if (name == "transpose") {
    auto perm = op->getAttrOfType<DenseI64ArrayAttr>("perm");
    int64_t from = perm ? perm[out[0]] : r - 1 - out[0];
    if (from != k)
      return std::string("its permutation does not carry the batch axis");
    return std::nullopt;
  }
  if (name == "reshape" || name == "flatten" || name == "squeeze" ||
      name == "unsqueeze")
    return std::nullopt; // resultOuter says whether samples interleave
  if (name == "matmul") {
    int64_t ra = rankOf(op->getOperand(0)), rb = rankOf(op->getOperand(1));
    if ((in[0] >= 0 && (ra < 2 || in[0] == ra - 1)) ||
        (in[1] >= 0 && (rb < 2 || in[1] == rb - 2)))
      return std::string("it sums over the batch axis");
    return std::nullopt;
  }
  if (name == "gemm") {
    if ((in[0] >= 0 && in[0] != (intAttr("transA", 0) ? 1 : 0)) || in[1] >= 0 ||
        (in.size() > 2 && in[2] >= 0 &&
         (rankOf(op->getOperand(2)) != 2 || in[2] != 0)))
      return std::string("it sums over the batch axis");
    return std::nullopt;
  }
  if (name.starts_with("reduce_") || name == "arg_max" || name == "arg_min" ||
      name == "top_k")
    // A reduction over the batch axis drops it or makes it 1, which the
    // results' shapes showed; these keep it, so they reduce other axes.
    return std::nullopt;
  if (name == "lstm" || name == "gru" || name == "rnn")
    // Recurrences mix along time and features, never across the batch;
    // the shapes placed the batch axis of each operand and result.
    return std::nullopt;
  if (name == "trilu") {
    if (k >= r - 2)
      return std::string("it depends on positions along the batch axis");
    return std::nullopt;
  }
  bool elementwise =
      op->hasTrait<mlir::OpTrait::ResultsBroadcastableShape>() ||
      op->hasTrait<mlir::OpTrait::SameOperandsAndResultShape>() ||
      op->hasTrait<mlir::OpTrait::SameOperandsAndResultType>() ||
      name == "expand" || name == "tile" || name == "dropout" ||
      name == "identity" || name == "clip" || name == "quantize_linear" ||
      name == "dequantize_linear";
  if (elementwise) {
    // Right-aligned broadcasting: each batched operand's axis lands on the
    // results'.
    for (auto [i, a] : llvm::enumerate(in)) {
      if (a < 0)
        continue;
      int64_t shift = rankOf(op->getResult(0)) - rankOf(op->getOperand(i));
      if (a + shift != out[0])
        return std::string("its operands do not line up on the batch axis");
    }
    for (auto [i, a] : llvm::enumerate(out))
      if (a != out[0] && !isa<NoneType>(op->getResult(i).getType()))
        return std::string("its results differ in batch axis");
    return std::nullopt;
  }
  return std::string("it is not known to keep samples apart");
}

/// A slice's start, end and step on `axis` (0, INT64_MAX, 1 where it does
/// not slice it), or nullopt when its operands are not constants.
std::optional<std::array<int64_t, 3>> sliceBounds(Operation *slice,
                                                  int64_t axis) {
  auto operand = [&](unsigned i) -> std::optional<SmallVector<int64_t>> {
    if (slice->getNumOperands() <= i ||
        isa<NoneType>(slice->getOperand(i).getType()))
      return SmallVector<int64_t>();
    return getConstantInts(slice->getOperand(i));
  };
  auto starts = operand(1), ends = operand(2), axes = operand(3),
       steps = operand(4);
  if (!starts || !ends || !axes || !steps || ends->size() != starts->size())
    return std::nullopt;
  int64_t rank = rankOf(slice->getOperand(0));
  for (size_t i = 0; i < starts->size(); ++i)
    if ((axes->empty() ? static_cast<int64_t>(i)
                       : normalizeAxis((*axes)[i], rank)) == axis)
      return std::array<int64_t, 3>{(*starts)[i], (*ends)[i],
                                    steps->empty() ? 1 : (*steps)[i]};
  return std::array<int64_t, 3>{0, std::numeric_limits<int64_t>::max(), 1};
}

/// The other elements merged into a batch axis (m in 2m and 3m).
int64_t mergedWith(Value v, int64_t axis) {
  return cast<RankedTensorType>(v.getType()).getDimSize(axis) / kBatch[0];
}

/// The outer factor of a slice of a batched value on its batch axis
/// (outer x batch x inner elements): it must keep whole outer blocks (as
/// the time steps of a sequence merged with the batch), the same ones in
/// both graphs; the result keeps as many blocks as it takes.
std::optional<int64_t> sliceOuter(Operation *slice, Operation *other,
                                  int64_t axis, int64_t outer) {
  auto a = sliceBounds(slice, axis), b = sliceBounds(other, axis);
  if (!a || !b)
    return std::nullopt;
  if ((*a)[0] == 0 && (*a)[1] == std::numeric_limits<int64_t>::max() &&
      (*a)[2] == 1 && *a == *b)
    return outer; // not sliced on the batch axis
  int64_t m = mergedWith(slice->getOperand(0), axis), inner = m / outer;
  // ONNX's clamping of each bound to the axis.
  auto clamp = [](int64_t v, int64_t size) {
    return std::clamp<int64_t>(v < 0 ? v + size : v, 0, size);
  };
  int64_t block[2] = {kBatch[0] * inner, kBatch[1] * inner};
  int64_t begin[2], end[2];
  for (int j = 0; j < 2; ++j) {
    const std::array<int64_t, 3> &bounds = j == 0 ? *a : *b;
    if (bounds[2] != 1)
      return std::nullopt;
    begin[j] = clamp(bounds[0], kBatch[j] * m);
    end[j] = clamp(bounds[1], kBatch[j] * m);
    if (begin[j] % block[j] || end[j] % block[j] || end[j] <= begin[j])
      return std::nullopt;
  }
  if (begin[0] / block[0] != begin[1] / block[1] ||
      end[0] / block[0] != end[1] / block[1])
    return std::nullopt;
  return (end[0] - begin[0]) / block[0];
}

/// How many of the elements merged into a batched value's axis come before
/// the batch (its `outer` factor: the axis is outer x batch x inner, row
/// major); 0 for a value that is the same for every sample. The results'
/// outer factor of `op`, from its operands' (`inOuter`), or nullopt when
/// the op interleaves samples with other elements.
std::optional<int64_t> resultOuter(Operation *op, Operation *other,
                                   ArrayRef<int64_t> in,
                                   ArrayRef<int64_t> inOuter,
                                   ArrayRef<int64_t> out) {
  StringRef name = op->getName().stripDialect();
  if (llvm::none_of(in, [](int64_t a) { return a >= 0; }))
    return 0;
  if (name == "reshape" || name == "flatten" || name == "squeeze" ||
      name == "unsqueeze") {
    if (inOuter[0] == 0)
      return 0;
    // Everything before the batch, in elements, stays before it.
    Value from = op->getOperand(0), to = op->getResult(0);
    int64_t before = prefixProduct(from, in[0]) * inOuter[0];
    int64_t outside = prefixProduct(to, out[0]);
    if (before % outside != 0)
      return std::nullopt;
    int64_t outer = before / outside;
    if (mergedWith(to, out[0]) % outer != 0)
      return std::nullopt;
    return outer;
  }
  if (name == "slice" && inOuter[0] != 0)
    return sliceOuter(op, other, in[0], inOuter[0]);
  // Every other op keeps each batched operand's outer factor: they must
  // agree (0 agrees with any).
  int64_t outer = 0;
  for (auto [a, o] : llvm::zip(in, inOuter)) {
    if (a < 0 || o == 0)
      continue;
    if (outer != 0 && o != outer)
      return std::nullopt;
    outer = o;
  }
  return outer;
}

/// Ops that may read the batch size as a shape (a constant that differs
/// between the two graphs): operand `index` of `op`.
bool readsShape(Operation *op, unsigned index) {
  StringRef name = op->getName().stripDialect();
  if (name == "reshape" || name == "expand" || name == "tile")
    return index == 1;
  if (name == "constant_of_shape")
    return index == 0;
  if (name == "resize") // the sizes (LRASPP's: Shape -> Slice -> Concat)
    return index == 3;
  return name == "slice" && index >= 1;
}

/// The op as the ONNX model names it: "Softmax 'attn/softmax'".
std::string describe(Operation *op) {
  const OnnxOpInfo *info = lookupDsmpOp(op->getName().getStringRef());
  return llvm::formatv("{0} '{1}'",
                       info ? StringRef(info->onnxType)
                            : op->getName().getStringRef(),
                       onnxNodeName(op->getLoc()))
      .str();
}
} // namespace

InputShapes mlir::dsmp::fullInputShapes(func::FuncOp graph,
                                        const InputShapes &given,
                                        int64_t defaultDim) {
  InputShapes full;
  for (auto [i, arg] : llvm::enumerate(graph.getArguments())) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    auto name = graph.getArgAttrOfType<StringAttr>(i, "dsmp.name");
    if (!type || !name)
      continue;
    SmallVector<int64_t> dims(type.getShape());
    if (auto it = given.find(name.getValue()); it != given.end())
      dims.assign(it->second.begin(), it->second.end());
    for (int64_t &d : dims)
      if (ShapedType::isDynamic(d))
        d = defaultDim;
    full[name.getValue()] = dims;
  }
  return full;
}

std::vector<InputShapes> mlir::dsmp::withBatchSizes(
    func::FuncOp graph, const std::vector<InputShapes> &variants,
    const BatchSplit &split, ArrayRef<int64_t> batchSizes, int64_t defaultDim) {
  auto same = [](const InputShapes &a, const InputShapes &b) {
    if (a.size() != b.size())
      return false;
    for (const auto &entry : a) {
      auto it = b.find(entry.getKey());
      if (it == b.end() || it->second != entry.second)
        return false;
    }
    return true;
  };
  std::vector<InputShapes> all, full;
  auto add = [&](const InputShapes &given, const InputShapes &shapes) {
    if (llvm::none_of(full,
                      [&](const InputShapes &s) { return same(s, shapes); })) {
      all.push_back(given);
      full.push_back(shapes);
    }
  };
  for (const InputShapes &given : variants)
    add(given, fullInputShapes(graph, given, defaultDim));
  for (size_t v = 0, n = full.size(); v < n; ++v)
    for (int64_t batch : batchSizes) {
      InputShapes shapes = full[v];
      for (auto [i, arg] : llvm::enumerate(graph.getArguments()))
        if (auto name = graph.getArgAttrOfType<StringAttr>(i, "dsmp.name");
            name && split.inputs[i] && shapes.count(name.getValue()))
          shapes[name.getValue()][0] = batch;
      add(shapes, shapes);
    }
  return all;
}

llvm::Expected<BatchSplit>
mlir::dsmp::analyzeBatchSplit(ModuleOp module, const InputShapes &shapes,
                              int64_t defaultDim, const FixedInputs &fixed) {
  auto graph = module.lookupSymbol<func::FuncOp>("main_graph");
  if (!graph || graph.isExternal())
    return llvm::createStringError("the model has no @main_graph");
  InputShapes full = fullInputShapes(graph, shapes, defaultDim);
  InputShapes at[2] = {full, full};
  BatchSplit split;
  for (auto [i, arg] : llvm::enumerate(graph.getArguments())) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    auto name = graph.getArgAttrOfType<StringAttr>(i, "dsmp.name");
    bool batched = type && name && type.getRank() > 0 && type.isDynamicDim(0);
    split.inputs.push_back(batched);
    for (int j = 0; batched && j < 2; ++j)
      at[j][name.getValue()][0] = kBatch[j];
  }
  if (!llvm::is_contained(split.inputs, true))
    return llvm::createStringError(kNoDynamicBatch);

  OwningOpRef<ModuleOp> copies[2];
  SmallVector<Operation *> ops[2];
  SmallVector<Value> args[2], results[2];
  for (int j = 0; j < 2; ++j) {
    copies[j] = module.clone();
    if (llvm::Error err =
            specializeGraph(*copies[j], at[j], defaultDim, false, fixed))
      return llvm::createStringError(llvm::formatv(
          "at batch {0}: {1}", kBatch[j], llvm::toString(std::move(err))));
    auto g = copies[j]->lookupSymbol<func::FuncOp>("main_graph");
    // Constants are compared where they are used: folding may share one
    // between uses in one graph and not in the other (a 2 that equals
    // batch 2).
    g.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op != g.getOperation() && !isa<ConstantOp>(op))
        ops[j].push_back(op);
    });
    llvm::append_range(args[j], g.getArguments());
    Operation *ret = g.getBody().front().getTerminator();
    llvm::append_range(results[j], ret->getOperands());
  }
  if (ops[0].size() != ops[1].size())
    return llvm::createStringError(
        "the graph folds differently at different batch sizes");

  // Batch axes of the first graph's values, and the constants that differ
  // between the two graphs (the batch size as a value).
  DenseMap<Value, int64_t> axisOf, outerOf;
  auto axisFor = [&](Value v) {
    auto it = axisOf.find(v);
    return it == axisOf.end() ? int64_t{-1} : it->second;
  };
  for (auto [a, b] : llvm::zip(args[0], args[1])) {
    axisOf[a] = *batchAxis(a.getType(), b.getType());
    outerOf[a] = 1;
  }
  for (auto [a, b] : llvm::zip(ops[0], ops[1])) {
    if (a->getName() != b->getName() ||
        a->getNumResults() != b->getNumResults())
      return llvm::createStringError(
          "the graph folds differently at different batch sizes");
    if (a->getNumOperands() != b->getNumOperands())
      return llvm::createStringError(
          "the graph folds differently at different batch sizes");
    SmallVector<int64_t> in, inOuter, out;
    for (auto [index, operand] : llvm::enumerate(a->getOperands())) {
      auto constantA = operand.getDefiningOp<ConstantOp>();
      auto constantB = b->getOperand(index).getDefiningOp<ConstantOp>();
      if (constantA && constantB &&
          constantA.getValue() != constantB.getValue()) {
        // The batch size folded into a constant: a shape, or the same
        // value for every sample, or a value that depends on it.
        std::optional<int64_t> axis =
            batchAxis(operand.getType(), b->getOperand(index).getType());
        auto splatA = dyn_cast<SplatElementsAttr>(constantA.getValue());
        auto splatB = dyn_cast<SplatElementsAttr>(constantB.getValue());
        bool uniform = axis && *axis >= 0 && splatA && splatB &&
                       splatA.getSplatValue<Attribute>() ==
                           splatB.getSplatValue<Attribute>();
        if (uniform) {
          axisOf[operand] = *axis;
          outerOf[operand] = 0;
        } else if (!readsShape(a, index)) {
          return llvm::createStringError(describe(a) +
                                         " reads the batch size as a value");
        }
      }
      in.push_back(axisFor(operand));
      inOuter.push_back(outerOf.lookup(operand));
    }
    for (auto [ra, rb] : llvm::zip(a->getResults(), b->getResults())) {
      std::optional<int64_t> axis = batchAxis(ra.getType(), rb.getType());
      if (!axis)
        return llvm::createStringError(llvm::formatv(
            "{0} gives shapes {1} and {2} at batch 2 and 3: the batch is "
            "not one of its axes",
            describe(a), ra.getType(), rb.getType()));
      out.push_back(*axis);
      axisOf[ra] = *axis;
    }
    bool any = llvm::any_of(llvm::concat<const int64_t>(in, out),
                            [](int64_t x) { return x >= 0; });
    if (!any || isa<func::ReturnOp>(a))
      continue;
    if (a->getNumRegions() > 0)
      return llvm::createStringError(describe(a) +
                                     " branches or loops over batched values");
    // A Squeeze of every unit dim drops the batch itself at batch 1: the
    // variants would differ in rank.
    if (auto squeeze = dyn_cast<SqueezeOp>(a);
        squeeze && isa<NoneType>(squeeze.getAxes().getType()) && in[0] >= 0)
      return llvm::createStringError(
          describe(a) +
          " squeezes every dim of size 1, the batch too at batch 1");
    if (auto why = whyMixes(a, in, out))
      return llvm::createStringError(describe(a) + " may mix samples: " + *why);
    std::optional<int64_t> outer = resultOuter(a, b, in, inOuter, out);
    if (!outer)
      return llvm::createStringError(
          describe(a) + " may mix samples: it interleaves the batch with "
                        "other elements");
    for (Value result : a->getResults())
      outerOf[result] = *outer;
  }
  for (auto [v, w] : llvm::zip(results[0], results[1])) {
    std::optional<int64_t> axis = batchAxis(v.getType(), w.getType());
    auto constantV = v.getDefiningOp<ConstantOp>();
    auto constantW = w.getDefiningOp<ConstantOp>();
    if (constantV && constantW &&
        constantV.getValue() != constantW.getValue()) {
      // A folded output: the same rows for every sample, or the batch size.
      auto splat = dyn_cast<SplatElementsAttr>(constantV.getValue());
      if (!axis || *axis < 0 || !splat ||
          !isa<SplatElementsAttr>(constantW.getValue()))
        return llvm::createStringError("an output depends on the batch size");
    } else if (axis && *axis >= 0 && !constantV) {
      axis =
          axisFor(v) == *axis && outerOf.lookup(v) <= 1 ? axis : std::nullopt;
    }
    if (!axis || *axis > 0)
      return llvm::createStringError(
          "an output does not have the batch as its first dim");
    split.outputs.push_back(*axis == 0);
  }
  return split;
}
