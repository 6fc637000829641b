//===- TrainStep.cpp - A model's training step as dsmp graphs --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Training/TrainStep.h"

#include "passes/Training/LayerFallback.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/GraphBuilder.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "passes/Precision/Adjoint.h"
#include "passes/Precision/Formats.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Regex.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::dsmp;
namespace names = mlir::dsmp::train_names;

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

func::FuncOp mainGraph(ModuleOp module) {
  return module.lookupSymbol<func::FuncOp>("main_graph");
}

/// The f32 values of a constant, or nothing for an attribute kind that does
/// not hold them in memory.
std::optional<std::vector<float>> valuesOf(ConstantOp op) {
  auto type = cast<RankedTensorType>(op.getType());
  std::vector<float> values(type.getNumElements());
  Attribute value = op.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.isSplat())
      std::fill(values.begin(), values.end(), dense.getSplatValue<float>());
    else
      std::memcpy(values.data(), dense.getRawData().data(),
                  values.size() * sizeof(float));
    return values;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != values.size() * sizeof(float))
      return std::nullopt;
    std::memcpy(values.data(), blob->getData().data(),
                values.size() * sizeof(float));
    return values;
  }
  return std::nullopt;
}

/// Sets a function's results to `results` named `names`.
void setResults(func::FuncOp func, ArrayRef<Value> results,
                ArrayRef<std::string> resultNames) {
  Operation *terminator = func.getBody().front().getTerminator();
  OpBuilder b(terminator);
  func::ReturnOp::create(b, terminator->getLoc(), results);
  terminator->erase();
  SmallVector<Type> types;
  for (Value v : results)
    types.push_back(v.getType());
  func.setType(
      FunctionType::get(func.getContext(), func.getArgumentTypes(), types));
  SmallVector<DictionaryAttr> attrs;
  for (const std::string &name : resultNames)
    attrs.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("dsmp.name", b.getStringAttr(name))}));
  func.setAllResultAttrs(attrs);
}

/// Appends a result named `name` to a function.
void appendResult(func::FuncOp func, Value value, StringRef name) {
  Operation *terminator = func.getBody().front().getTerminator();
  terminator->insertOperands(terminator->getNumOperands(), value);
  SmallVector<Type> types(func.getResultTypes());
  types.push_back(value.getType());
  func.setType(
      FunctionType::get(func.getContext(), func.getArgumentTypes(), types));
  OpBuilder b(func.getContext());
  func.setResultAttrs(func.getNumResults() - 1,
                      b.getDictionaryAttr({b.getNamedAttr(
                          "dsmp.name", b.getStringAttr(name))}));
}

/// Tags the layers of a forward-only graph (eval_step, predict): the ops
/// before `end` (exclusive; null: all of them). The layers are the train
/// step's (the same forward ops).
std::vector<std::string> markForwardLayers(func::FuncOp func,
                                           unsigned firstWeight,
                                           unsigned numWeights, Operation *end,
                                           StringRef keptF32) {
  SmallVector<Operation *> forward;
  for (Operation &op : func.getBody().front().without_terminator()) {
    if (&op == end)
      break;
    forward.push_back(&op);
  }
  SmallVector<BlockArgument> weights;
  for (unsigned i = 0; i < numWeights; ++i)
    weights.push_back(func.getArgument(firstWeight + i));
  llvm::DenseMap<Operation *, Operation *> noReversePass;
  return markFallbackLayers(forward, noReversePass, weights, keptF32);
}

void addForwardVariants(func::FuncOp func, ArrayRef<std::string> layers,
                        const TrainStepOptions &options) {
  LayerFallbackOptions lf;
  lf.format = options.fallbackFormat;
  (void)addFallbackVariants(func, layers, lf);
}

/// Appends a named argument to a function.
Value addInput(func::FuncOp func, Type type, StringRef name) {
  OpBuilder b(func.getContext());
  unsigned index = func.getNumArguments();
  (void)func.insertArgument(
      index, type,
      b.getDictionaryAttr({b.getNamedAttr("dsmp.name", b.getStringAttr(name))}),
      NameLoc::get(b.getStringAttr(name)));
  return func.getArgument(index);
}

std::string resultName(func::FuncOp func, unsigned i) {
  if (auto name = func.getResultAttrOfType<StringAttr>(i, "dsmp.name"))
    return name.str();
  return "output_" + std::to_string(i);
}

/// Erases ops nothing reads (the gradients the adjoint built for graph
/// inputs, say).
void eraseDeadOps(Block &block) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
      if (!op.hasTrait<mlir::OpTrait::IsTerminator>() && op.use_empty() &&
          isMemoryEffectFree(&op)) {
        op.erase();
        changed = true;
      }
  }
}

/// Marks every op after `after` (or from the block's start) up to the
/// terminator as staying f32.
void keepF32After(Block &block, Operation *after) {
  auto it = after ? std::next(after->getIterator()) : block.begin();
  for (; it != block.end(); ++it)
    if (!it->hasTrait<mlir::OpTrait::IsTerminator>())
      it->setAttr(kTrainingF32Attr,
                  UnitAttr::get(block.getParentOp()->getContext()));
}

Operation *lastBeforeTerminator(Block &block) {
  Operation *terminator = block.getTerminator();
  return terminator->getPrevNode();
}

/// The loss on the model's first output: per sample and its mean, and the
/// gradient of `scale` times the mean with respect to `prediction` (the
/// output, or the logits a trailing softmax reads).
struct Loss {
  Value perSample, mean, prediction, gradient;
};

llvm::Expected<Loss> buildLoss(GraphBuilder &g, StringRef kind, Value output,
                               Value labels, Value scale) {
  Loss loss;
  auto type = cast<RankedTensorType>(output.getType());
  Type f32 = type.getElementType();
  int64_t rank = type.getRank();
  if (kind == "cross_entropy") {
    Value logits = output;
    if (Operation *def = output.getDefiningOp())
      if (isa<SoftmaxOp, LogSoftmaxOp>(def)) {
        int64_t axis = def->getAttrOfType<IntegerAttr>("axis")
                           ? def->getAttrOfType<IntegerAttr>("axis").getInt()
                           : -1;
        if (axis == -1 || axis == rank - 1)
          logits = def->getOperand(0);
      }
    int64_t classes = type.getShape().back();
    int64_t positions = type.getNumElements() / classes;
    SmallVector<int64_t> keep(type.getShape());
    keep.back() = 1;
    Value last = g.i64s({rank - 1});
    Value top = g.value("dsmp.reduce_max", {logits, last});
    Value shifted = g.sub(logits, top);
    Value e = g.value("dsmp.exp", {shifted});
    Value sum = g.value("dsmp.reduce_sum", {e, last});
    Value lse = g.value("dsmp.log", {sum});
    SmallVector<int64_t> classIds(classes);
    for (int64_t c = 0; c < classes; ++c)
      classIds[c] = c;
    Value isLabel =
        g.value("dsmp.equal", {g.reshape(labels, keep), g.i64s(classIds)});
    Value oneHot =
        g.value("dsmp.where", {isLabel, g.scalar(1, f32), g.scalar(0, f32)});
    Value picked = g.value("dsmp.reduce_sum", {g.mul(oneHot, shifted), last});
    Value perPosition = g.sub(lse, picked); // [..., 1]
    SmallVector<int64_t> samples(type.getShape().drop_back());
    loss.perSample = g.reshape(perPosition, samples);
    loss.mean = g.reduceAll("dsmp.reduce_mean", perPosition);
    Value softmax = g.div(e, sum);
    loss.gradient = g.mul(
        g.sub(softmax, oneHot),
        g.mul(scale, g.scalar(1.0 / static_cast<double>(positions), f32)));
    loss.prediction = logits;
  } else if (kind == "mse") {
    Value diff = g.sub(output, labels);
    Value squared = g.mul(diff, diff);
    SmallVector<int64_t> rest;
    for (int64_t i = 1; i < rank; ++i)
      rest.push_back(i);
    loss.perSample = rank > 1
                         ? g.value("dsmp.reduce_mean", {squared, g.i64s(rest)},
                                   {g.i64("keepdims", 0)})
                         : squared;
    loss.mean = g.reduceAll("dsmp.reduce_mean", squared);
    loss.gradient =
        g.mul(diff, g.mul(scale, g.scalar(2.0 / type.getNumElements(), f32)));
    loss.prediction = output;
  } else {
    return fail("unknown loss '" + kind + "' (cross_entropy, mse)");
  }
  if (!loss.perSample || !loss.mean || !loss.gradient)
    return fail("could not build the " + kind + " loss on an output of type " +
                llvm::Twine(static_cast<unsigned>(rank)) + "-d");
  return loss;
}

/// The labels' type for `loss` on `output`: class indices for cross
/// entropy (the output's shape without its last axis), targets of the
/// output's type for mse.
RankedTensorType labelsType(StringRef loss, RankedTensorType output) {
  if (loss == "cross_entropy")
    return RankedTensorType::get(output.getShape().drop_back(),
                                 IntegerType::get(output.getContext(), 64));
  return output;
}

/// The values each op's operands depend on from the weights onwards.
llvm::DenseSet<Value> dependsOnWeights(Block &block,
                                       ArrayRef<BlockArgument> weights) {
  llvm::DenseSet<Value> reached(weights.begin(), weights.end());
  for (Operation &op : block)
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return reached.contains(v); }))
      for (Value r : op.getResults())
        reached.insert(r);
  return reached;
}

/// Adds the label input that `kind` of loss on the model's first output
/// needs.
llvm::Expected<Value> addLabels(func::FuncOp func, StringRef kind) {
  if (func.getNumResults() == 0)
    return fail("the model has no outputs");
  Value output = func.getBody().front().getTerminator()->getOperand(0);
  auto type = dyn_cast<RankedTensorType>(output.getType());
  if (!type || !type.getElementType().isF32() || !type.hasStaticShape() ||
      type.getRank() < 1)
    return fail("the loss needs a static f32 output; output '" +
                resultName(func, 0) + "' is not one");
  return addInput(func, labelsType(kind, type), names::kLabels);
}

/// The fan-in of a contraction's weight operand (what torch's default
/// initialization scales by), or 0.
int64_t contractionFanIn(Operation *op) {
  auto w = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  if (!w || !w.hasStaticShape() || w.getRank() < 1)
    return 0;
  ArrayRef<int64_t> d = w.getShape();
  if (isa<ConvOp, ConvTransposeOp>(op)) {
    int64_t fan = w.getRank() > 1 ? d[1] : 1;
    for (int64_t k : d.drop_front(2))
      fan *= k;
    return fan;
  }
  if (auto gemm = dyn_cast<GemmOp>(op)) {
    auto trans = op->getAttrOfType<IntegerAttr>("transB");
    return w.getRank() == 2 ? d[trans && trans.getInt() ? 1 : 0] : 0;
  }
  if (isa<MatMulOp>(op))
    return w.getRank() >= 2 ? d[w.getRank() - 2] : 0;
  return 0;
}

/// How torch's layer would initialize the weight `w` (its first user that
/// tells).
std::pair<std::string, int64_t> freshInitOf(Value w) {
  for (OpOperand &use : w.getUses()) {
    Operation *op = use.getOwner();
    unsigned index = use.getOperandNumber();
    if (isa<ConvOp, ConvTransposeOp, GemmOp, MatMulOp>(op) &&
        (index == 1 || index == 2))
      if (int64_t fan = contractionFanIn(op))
        return {"uniform", fan};
    if (isa<LayerNormalizationOp, BatchNormalizationOp, InstanceNormalizationOp,
            GroupNormalizationOp>(op))
      return {index == 1 || index == 4 ? "ones" : "zeros", 0};
    if (isa<GatherOp>(op) && index == 0)
      return {"normal", 0};
    if (isa<AddOp>(op)) // a bias added to a MatMul's result
      for (Value other : op->getOperands())
        if (auto *def = other.getDefiningOp(); def && isa<MatMulOp>(def))
          if (int64_t fan = contractionFanIn(def))
            return {"uniform", fan};
  }
  return {"keep", 0};
}

} // namespace

llvm::Expected<LiftedWeights>
mlir::dsmp::liftTrainableWeights(ModuleOp model, StringRef trainable) {
  func::FuncOp func = mainGraph(model);
  if (!func || func.getBody().empty())
    return fail("the module has no @main_graph");
  std::optional<llvm::Regex> pattern;
  if (!trainable.empty()) {
    pattern.emplace(trainable);
    std::string error;
    if (!pattern->isValid(error))
      return fail("--trainable '" + trainable + "': " + error);
  }
  LiftedWeights lifted;
  lifted.numInputs = func.getNumArguments();
  Block &body = func.getBody().front();
  llvm::StringSet<> taken;
  SmallVector<ConstantOp> chosen;
  for (ConstantOp op : body.getOps<ConstantOp>()) {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.getElementType().isF32() || !type.hasStaticShape() ||
        type.getNumElements() < 2 || op->use_empty() ||
        !isOnnxInitializer(op->getLoc()))
      continue;
    std::string name = onnxNodeName(op->getLoc());
    if (pattern && !pattern->match(name))
      continue;
    // A BatchNormalization's running mean and variance are statistics, not
    // parameters (the step keeps BatchNorm in its inference form).
    if (llvm::all_of(op->getUses(), [](OpOperand &use) {
          return isa<BatchNormalizationOp>(use.getOwner()) &&
                 use.getOperandNumber() >= 3;
        }))
      continue;
    chosen.push_back(op);
  }
  if (chosen.empty())
    return fail(trainable.empty()
                    ? llvm::Twine("the model has no float initializers with "
                                  "two or more elements to train")
                    : "--trainable '" + trainable +
                          "' matches no float initializer of the model");
  for (ConstantOp op : chosen) {
    std::string name = onnxNodeName(op->getLoc());
    for (int k = 2; !taken.insert(name).second; ++k)
      name = onnxNodeName(op->getLoc()) + "_" + std::to_string(k);
    std::optional<std::vector<float>> values = valuesOf(op);
    if (!values)
      return fail("initializer '" + name +
                  "' has no values in memory (run dsmp-load-weights first)");
    Value arg = addInput(func, op.getType(), name);
    op.getResult().replaceAllUsesWith(arg);
    op.erase();
    lifted.names.push_back(name);
    lifted.values.push_back(std::move(*values));
  }
  return lifted;
}

llvm::Expected<TrainingModules>
mlir::dsmp::buildTrainingModules(ModuleOp lifted, const LiftedWeights &weights,
                                 const TrainStepOptions &options) {
  if (options.loss != "cross_entropy" && options.loss != "mse")
    return fail("unknown loss '" + options.loss + "' (cross_entropy, mse)");
  StringRef optimizer = options.optimizer;
  if (optimizer != "adam" && optimizer != "adamw" && optimizer != "sgd")
    return fail("unknown optimizer '" + options.optimizer +
                "' (adam, adamw, sgd)");
  if (options.optimizerPrecision != "f32" &&
      options.optimizerPrecision != "bf16")
    return fail("optimizer precision must be f32 or bf16, got '" +
                options.optimizerPrecision + "'");
  func::FuncOp model = mainGraph(lifted);
  if (!model)
    return fail("the module has no @main_graph");
  for (Type t : model.getResultTypes())
    if (!cast<ShapedType>(t).hasStaticShape())
      return fail("the model's outputs must have static shapes (give "
                  "--batch and the other dims)");
  MLIRContext *ctx = lifted.getContext();
  TrainingModules out;
  unsigned firstWeight = weights.numInputs;
  unsigned numWeights = weights.names.size();

  // How a fresh initialization draws each weight, from the forward's uses.
  SmallVector<std::pair<std::string, int64_t>> inits;
  for (unsigned i = 0; i < numWeights; ++i)
    inits.push_back(freshInitOf(model.getArgument(firstWeight + i)));

  // predict: the model as lifted.
  out.predict = cast<ModuleOp>(lifted->clone());
  {
    func::FuncOp func = mainGraph(*out.predict);
    if (options.fallback)
      addForwardVariants(func,
                         markForwardLayers(func, firstWeight, numWeights,
                                           nullptr, options.sensitiveLayers),
                         options);
  }

  // eval_step: the outputs and the per-sample loss.
  {
    out.evalStep = cast<ModuleOp>(lifted->clone());
    func::FuncOp func = mainGraph(*out.evalStep);
    auto labelsOr = addLabels(func, options.loss);
    if (!labelsOr)
      return labelsOr.takeError();
    Value labels = *labelsOr;
    Block &body = func.getBody().front();
    Operation *forwardEnd = lastBeforeTerminator(body);
    OpBuilder b(body.getTerminator());
    GraphBuilder g(b, func.getLoc());
    Value output = body.getTerminator()->getOperand(0);
    auto loss =
        buildLoss(g, options.loss, output, labels, g.scalar(1, b.getF32Type()));
    if (!loss)
      return loss.takeError();
    std::vector<std::string> layers;
    if (options.fallback)
      layers = markForwardLayers(func, firstWeight, numWeights,
                                 forwardEnd ? forwardEnd->getNextNode()
                                            : &body.front(),
                                 options.sensitiveLayers);
    keepF32After(body, forwardEnd);
    SmallVector<Value> results(body.getTerminator()->getOperands());
    SmallVector<std::string> resultNames;
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      resultNames.push_back(resultName(func, i));
    results.push_back(loss->perSample);
    resultNames.push_back(names::kSampleLoss.str());
    setResults(func, results, resultNames);
    eraseDeadOps(body);
    if (options.fallback)
      addForwardVariants(func, layers, options);
    auto labelsType = cast<RankedTensorType>(labels.getType());
    out.labelsDtype = labelsType.getElementType().isF32() ? "f32" : "i64";
    out.labelsShape.assign(labelsType.getShape().begin(),
                           labelsType.getShape().end());
  }

  // train_step.
  out.trainStep = cast<ModuleOp>(lifted->clone());
  func::FuncOp func = mainGraph(*out.trainStep);
  Block &body = func.getBody().front();
  SmallVector<Operation *> forward;
  for (Operation &op : body.without_terminator())
    forward.push_back(&op);
  SmallVector<BlockArgument> weightArgs;
  for (unsigned i = 0; i < numWeights; ++i)
    weightArgs.push_back(func.getArgument(firstWeight + i));
  auto labelsOr = addLabels(func, options.loss);
  if (!labelsOr)
    return labelsOr.takeError();
  Value labels = *labelsOr;
  Type f32 = Float32Type::get(ctx);
  auto scalarType = RankedTensorType::get({}, f32);
  Value scale = addInput(func, scalarType, names::kLossScale);
  Value learningRate = addInput(func, scalarType, names::kLearningRate);
  Value step = addInput(func, scalarType, names::kStep);
  Type stateElement =
      options.optimizerPrecision == "bf16" ? Type(BFloat16Type::get(ctx)) : f32;

  OpBuilder b(body.getTerminator());
  GraphBuilder g(b, func.getLoc());
  Operation *forwardEnd = lastBeforeTerminator(body);
  Value output = body.getTerminator()->getOperand(0);
  auto loss = buildLoss(g, options.loss, output, labels, scale);
  if (!loss)
    return loss.takeError();
  keepF32After(body, forwardEnd);

  // The backward pass: only what flows to the weights is kept.
  Operation *lossEnd = lastBeforeTerminator(body);
  Adjoint adjoint =
      buildAdjoint(b, forward, {{loss->prediction, loss->gradient}},
                   ValueRange(ArrayRef<BlockArgument>(weightArgs)));
  if (options.fallback)
    out.layers = markFallbackLayers(forward, adjoint.origin, weightArgs,
                                    options.sensitiveLayers);
  llvm::DenseSet<Value> downstream = dependsOnWeights(body, weightArgs);
  for (ArrayRef<Operation *> list : {ArrayRef<Operation *>(adjoint.estimatedAt),
                                     ArrayRef<Operation *>(adjoint.stoppedAt)})
    for (Operation *op : list)
      if (llvm::any_of(op->getOperands(),
                       [&](Value v) { return downstream.contains(v); })) {
        std::string node = onnxNodeName(op->getLoc());
        return fail("node '" + (node.empty() ? onnxTypeOf(op) : node) + "' (" +
                    onnxTypeOf(op) +
                    ") has no gradient model, and it lies between trainable "
                    "weights and the loss (--trainable limits which "
                    "initializers train)");
      }
  for (Operation *op = lossEnd ? lossEnd->getNextNode() : &body.front();
       op && !op->hasTrait<mlir::OpTrait::IsTerminator>();
       op = op->getNextNode())
    // Sums of gradients stay f32: over a value's users, and a scatter that
    // adds rows of a table's gradient.
    if (op->hasAttr(kGradientSumAttr) || isa<ScatterNDOp>(op))
      op->setAttr(kTrainingF32Attr, UnitAttr::get(ctx));
  Operation *backwardEnd = lastBeforeTerminator(body);

  // Unscale and measure every gradient in one pass (dsmp.scan_gradients,
  // three kernels on a GPU): the step is finite when no gradient holds an
  // inf or a NaN; the norm is the root of the summed squares.
  Value inverse = g.value("dsmp.reciprocal", {scale});
  Value fault;
  if (options.faultInjection)
    fault = addInput(
        func, RankedTensorType::get({static_cast<int64_t>(numWeights)}, f32),
        "gradient_fault");
  SmallVector<Value> grads(numWeights), given;
  SmallVector<unsigned> scanned;
  SmallVector<Type> unscaledTypes;
  for (unsigned i = 0; i < numWeights; ++i) {
    Value grad = adjoint.grads.lookup(weightArgs[i]);
    if (!grad) {
      out.frozen.push_back(weights.names[i]);
      continue;
    }
    if (fault) // an inf or NaN planted in the gradient before the scan
      grad = g.add(g.convert(grad, f32),
                   g.value("dsmp.gather", {fault, g.i64s({int64_t(i)})}));
    given.push_back(grad);
    scanned.push_back(i);
    unscaledTypes.push_back(cast<RankedTensorType>(grad.getType()).clone(f32));
  }
  if (given.empty())
    return fail("no gradient reaches any trainable weight from the loss on "
                "output '" +
                resultName(func, 0) + "'");
  Type underflowFormat = options.fallbackFormat == "bf16"
                             ? Type(BFloat16Type::get(ctx))
                             : Type(Float16Type::get(ctx));
  auto scan = ScanGradientsOp::create(
      b, func.getLoc(), unscaledTypes,
      RankedTensorType::get({int64_t(given.size()), 5}, f32), inverse, given,
      TypeAttr::get(underflowFormat));
  for (auto [k, i] : llvm::enumerate(scanned))
    grads[i] = scan.getUnscaled()[k];
  auto columns = [&](ArrayRef<int64_t> which) {
    return g.reduceAll("dsmp.reduce_sum",
                       g.value("dsmp.gather", {scan.getStats(), g.i64s(which)},
                               {g.i64("axis", 1)}));
  };
  Value gradNorm = g.value("dsmp.sqrt", {columns({4})});
  Value finite = g.value("dsmp.less", {columns({2, 3}), g.scalar(0.5, f32)});

  // The update, in f32 whatever the state is stored in.
  auto one = [&](double v) { return g.scalar(v, f32); };
  Value stepSize = learningRate, bias2Root;
  if (optimizer != "sgd") {
    Value bias1 =
        g.sub(one(1), g.value("dsmp.pow", {one(options.beta1), step}));
    Value bias2 =
        g.sub(one(1), g.value("dsmp.pow", {one(options.beta2), step}));
    stepSize = g.div(learningRate, bias1);
    bias2Root = g.value("dsmp.sqrt", {bias2});
  }
  SmallVector<Value> results{loss->mean, gradNorm};
  SmallVector<std::string> resultNames{names::kLoss.str(),
                                       names::kGradNorm.str()};
  SmallVector<std::pair<Value, Value>> stateUpdates; // (old, new)
  auto addState = [&](unsigned i, StringRef role) {
    std::string name = weights.names[i] + "." + role.str();
    auto type = cast<RankedTensorType>(weightArgs[i].getType());
    Value arg = addInput(func, type.clone(stateElement), name);
    out.state.push_back(
        {name, role.str(), weights.names[i],
         std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
         options.optimizerPrecision});
    return arg;
  };
  for (unsigned i = 0; i < numWeights; ++i) {
    Value w = weightArgs[i];
    auto type = cast<RankedTensorType>(w.getType());
    auto [init, fanIn] = inits[i];
    out.state.push_back(
        {weights.names[i], "weight", weights.names[i],
         std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
         "f32", init, fanIn});
    if (!grads[i]) {
      stateUpdates.push_back({w, w});
      continue;
    }
    Value grad = grads[i];
    if (options.weightDecay != 0 && optimizer != "adamw")
      grad = g.add(grad, g.mul(w, one(options.weightDecay)));
    Value decayed = w;
    if (options.weightDecay != 0 && optimizer == "adamw")
      decayed = g.mul(
          w, g.sub(one(1), g.mul(learningRate, one(options.weightDecay))));
    if (optimizer == "sgd") {
      Value delta = grad;
      if (options.momentum != 0) {
        Value buffer = addState(i, "momentum");
        Value next =
            g.add(g.mul(g.convert(buffer, f32), one(options.momentum)), grad);
        stateUpdates.push_back({buffer, g.convert(next, stateElement)});
        delta = next;
      }
      stateUpdates.push_back({w, g.sub(decayed, g.mul(delta, learningRate))});
      continue;
    }
    Value m = addState(i, "adam_m"), v = addState(i, "adam_v");
    Value mNext = g.add(g.mul(g.convert(m, f32), one(options.beta1)),
                        g.mul(grad, one(1 - options.beta1)));
    Value vNext = g.add(g.mul(g.convert(v, f32), one(options.beta2)),
                        g.mul(g.mul(grad, grad), one(1 - options.beta2)));
    Value denominator = g.add(g.div(g.value("dsmp.sqrt", {vNext}), bias2Root),
                              one(options.epsilon));
    Value wNext = g.sub(decayed, g.mul(g.div(mNext, denominator), stepSize));
    stateUpdates.push_back({w, wNext});
    stateUpdates.push_back({m, g.convert(mNext, stateElement)});
    stateUpdates.push_back({v, g.convert(vNext, stateElement)});
  }
  // A step whose gradients overflowed changes nothing (the runtime lowers
  // the loss scale and tries again).
  // The state's outputs follow the state's order.
  llvm::DenseMap<Value, Value> nextOf;
  for (auto [old, next] : stateUpdates)
    nextOf[old] =
        old == next ? old : g.value("dsmp.where", {finite, next, old});
  for (const StateTensor &s : out.state) {
    Value arg;
    for (BlockArgument a : func.getArguments())
      if (auto n =
              func.getArgAttrOfType<StringAttr>(a.getArgNumber(), "dsmp.name");
          n && n.getValue() == s.name)
        arg = a;
    Value next = nextOf.lookup(arg);
    if (!next)
      return fail("internal: no update for state tensor '" + s.name + "'");
    if (next == arg) // frozen: an output may not be an input as it is
      next = g.value("dsmp.identity", {arg});
    results.push_back(next);
    resultNames.push_back(s.name + kNextStateSuffix.str());
  }
  if (options.gradientStats) {
    // Per weight: amax, zero fraction, inf count, NaN count (f32 [w, 4]).
    SmallVector<Value> rows;
    for (unsigned i = 0; i < numWeights; ++i) {
      Value raw = adjoint.grads.lookup(weightArgs[i]);
      if (!raw) {
        rows.push_back(g.floats(RankedTensorType::get({1, 4}, f32),
                                {0.0f, 0.0f, 0.0f, 0.0f}));
        continue;
      }
      raw = g.convert(raw, f32);
      auto count = [&](Value flags) {
        return g.reduceAll("dsmp.reduce_sum",
                           g.value("dsmp.where", {flags, one(1), one(0)}));
      };
      Value amax =
          g.reduceAll("dsmp.reduce_max", g.value("dsmp.abs", {grads[i]}));
      double n = static_cast<double>(
          cast<RankedTensorType>(raw.getType()).getNumElements());
      Value zeros =
          g.mul(count(g.value("dsmp.equal", {raw, one(0)})), one(1.0 / n));
      auto flags =
          cast<RankedTensorType>(raw.getType()).clone(IntegerType::get(ctx, 1));
      Value infs = count(g.typed("dsmp.is_inf", {raw}, flags));
      Value nans = count(g.typed("dsmp.is_nan", {raw}, flags));
      SmallVector<Value> parts;
      for (Value v : {amax, zeros, infs, nans})
        parts.push_back(g.reshape(v, {1, 1}));
      rows.push_back(g.value("dsmp.concat", parts, {g.i64("axis", 1)}));
    }
    results.push_back(rows.size() == 1
                          ? rows.front()
                          : g.value("dsmp.concat", rows, {g.i64("axis", 0)}));
    resultNames.push_back(names::kGradStats.str());
  }
  if (options.exposeGradients)
    for (unsigned i = 0; i < numWeights; ++i)
      if (grads[i]) {
        results.push_back(grads[i]);
        resultNames.push_back(weights.names[i] + kGradientSuffix.str());
      }
  keepF32After(body, backwardEnd);
  setResults(func, results, resultNames);
  eraseDeadOps(body);
  if (options.fallback) {
    LayerFallbackOptions lf;
    lf.format = options.fallbackFormat;
    lf.faultInjection = options.faultInjection;
    lf.layerStats = options.gradientStats;
    FallbackLayers layers = addFallbackVariants(func, out.layers, lf);
    if (layers.stats)
      appendResult(func, layers.stats, fallback_names::kLayerStats);
  }
  if (options.monitor) {
    TrainStepOptions monitored = options;
    monitored.monitor = false;
    monitored.gradientStats = true;
    auto twin = buildTrainingModules(lifted, weights, monitored);
    if (!twin)
      return twin.takeError();
    out.trainStepMonitor = std::move(twin->trainStep);
  }
  return out;
}
