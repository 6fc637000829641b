//===- MixedPrecision.cpp - Choose formats, validate, report -- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Driver/MixedPrecision.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "dsmp/Execution/Evaluator.h"
#include "dsmp/Execution/HostRun.h"
#include "dsmp/Target/TargetDescription.h"
#include "passes/Precision/Calibration.h"
#include "passes/Precision/F8Scaling.h"
#include "passes/Precision/Formats.h"
#include "passes/Precision/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <cmath>

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;
namespace json = llvm::json;

namespace mlir::dsmp {

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// A phase's timer under --mlir-timing (a no-op scope otherwise).
TimingScope phase(TimingScope *parent, StringRef name) {
  return parent ? parent->nest(name) : TimingScope();
}

Error runPasses(ModuleOp module, StringRef what, TimingScope *timing,
                llvm::function_ref<void(PassManager &)> build) {
  std::string diagnostics;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      diagnostics +=
          (diagnostics.empty() ? "" : "\n  ") + describeDiagnostic(diag);
    return success();
  });
  PassManager pm(module.getContext());
  build(pm);
  (void)applyPassManagerCLOptions(pm); // dsmp-compile's --mlir-print-ir-*
  TimingScope scope = phase(timing, what);
  if (timing)
    pm.enableTiming(scope);
  if (failed(pm.run(module)))
    return llvm::createStringError(what + ": " + diagnostics);
  return Error::success();
}

using OutputSets = std::vector<std::vector<HostTensor>>;

/// Validation runs both models in the evaluator, which rounds every op
/// to its format as the artifact does; what it cannot hold is compiled.
Expected<OutputSets> runOnSets(ModuleOp module,
                               const std::vector<HostInputs> &sets,
                               std::string *engineUsed = nullptr) {
  std::string whyCompiled;
  auto outputs = runOnInputSets(module, sets, HostEngine::Auto, &whyCompiled);
  if (engineUsed)
    *engineUsed =
        whyCompiled.empty() ? "evaluate" : "compile (" + whyCompiled + ")";
  return outputs;
}

/// |a - ref| / |ref| over an output's elements (as doubles).
double relativeL2(const HostTensor &a, const HostTensor &ref) {
  size_t n = std::min(a.data.size() / ::dsmp::runtime::dtypeSize(a.dtype),
                      ref.data.size() / ::dsmp::runtime::dtypeSize(ref.dtype));
  double diff = 0, norm = 0;
  for (size_t i = 0; i < n; ++i) {
    double x = ::dsmp::runtime::elementAsDouble(a, i);
    double r = ::dsmp::runtime::elementAsDouble(ref, i);
    diff += (x - r) * (x - r);
    norm += r * r;
  }
  if (norm == 0)
    return diff == 0 ? 0 : INFINITY;
  return std::sqrt(diff / norm);
}

/// Whether each row's arg-max (over the last dim) agrees.
bool sameTop1(const HostTensor &a, const HostTensor &ref) {
  if (a.dims.empty() || a.dims != ref.dims)
    return true;
  size_t classes = static_cast<size_t>(a.dims.back());
  size_t n = a.data.size() / ::dsmp::runtime::dtypeSize(a.dtype);
  if (classes < 2)
    return true;
  for (size_t row = 0; row + classes <= n; row += classes) {
    size_t ia = row, ir = row;
    for (size_t i = row; i < row + classes; ++i) {
      if (::dsmp::runtime::elementAsDouble(a, i) >
          ::dsmp::runtime::elementAsDouble(a, ia))
        ia = i;
      if (::dsmp::runtime::elementAsDouble(ref, i) >
          ::dsmp::runtime::elementAsDouble(ref, ir))
        ir = i;
    }
    if (ia != ir)
      return false;
  }
  return true;
}

struct Measurement {
  std::vector<std::string> names;
  std::vector<double> error; // per output, the worst set
  bool top1Same = true;
  double worst() const {
    double w = 0;
    for (double e : error)
      w = std::max(w, e);
    return w;
  }
};

/// max |a - ref| over an output's elements.
double maxAbsError(const HostTensor &a, const HostTensor &ref) {
  size_t n = std::min(a.data.size() / ::dsmp::runtime::dtypeSize(a.dtype),
                      ref.data.size() / ::dsmp::runtime::dtypeSize(ref.dtype));
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double d = std::fabs(::dsmp::runtime::elementAsDouble(a, i) -
                         ::dsmp::runtime::elementAsDouble(ref, i));
    if (!(d <= worst)) // NaN counts as the worst
      worst = std::isnan(d) ? INFINITY : d;
  }
  return worst;
}

Measurement measure(const OutputSets &outputs, const OutputSets &reference,
                    bool maxAbs) {
  Measurement m;
  for (const HostTensor &t : reference.front())
    m.names.push_back(t.name);
  m.error.assign(m.names.size(), 0.0);
  for (size_t s = 0; s < outputs.size(); ++s)
    for (size_t o = 0; o < m.names.size(); ++o) {
      m.error[o] = std::max(
          m.error[o], maxAbs ? maxAbsError(outputs[s][o], reference[s][o])
                             : relativeL2(outputs[s][o], reference[s][o]));
      m.top1Same &= sameTop1(outputs[s][o], reference[s][o]);
    }
  return m;
}

int64_t bytesOf(RankedTensorType type) {
  if (!type || !type.hasStaticShape())
    return 0;
  Type element = type.getElementType();
  int64_t bits = isa<FloatTF32Type>(element) ? 32
                 : element.isIntOrFloat()    ? element.getIntOrFloatBitWidth()
                                             : 0;
  return type.getNumElements() * ((bits + 7) / 8);
}

int64_t weightBytes(ModuleOp module) {
  int64_t total = 0;
  module.walk([&](ConstantOp op) {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (type && isa<FloatType>(type.getElementType()))
      total += bytesOf(type);
  });
  return total;
}

/// Bytes of every float intermediate at the given input shapes. A
/// DequantizeLinear's f32 result is not counted: f8 contractions read their
/// f8 operands directly (the Q/DQ pair models that rounding).
Expected<int64_t> activationBytes(ModuleOp module, const InputShapes &shapes) {
  OwningOpRef<ModuleOp> copy(module.clone());
  if (Error err = specializeGraph(*copy, shapes, 1, true))
    return std::move(err);
  int64_t total = 0;
  for (Operation *op : graphOps(*copy)) {
    if (op->hasTrait<mlir::OpTrait::ConstantLike>() ||
        isa<DequantizeLinearOp>(op))
      continue;
    for (Value result : op->getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (type && isa<FloatType>(type.getElementType()))
        total += bytesOf(type);
    }
  }
  return total;
}

json::Value numbers(DictionaryAttr dict, ArrayRef<StringRef> keys) {
  json::Object out;
  if (!dict)
    return json::Value(nullptr);
  for (StringRef key : keys)
    if (auto f = dict.getAs<FloatAttr>(key);
        f && std::isfinite(f.getValueAsDouble())) // JSON has no inf
      out[key] = f.getValueAsDouble();
  if (auto overflow = dict.getAs<ArrayAttr>("overflow")) {
    json::Array names;
    for (Attribute a : overflow)
      names.push_back(cast<StringAttr>(a).str());
    out["overflow"] = std::move(names);
  }
  return json::Value(std::move(out));
}

/// One entry per op that has a precision decision (before casts).
json::Array describeOps(ModuleOp assigned) {
  json::Array ops;
  for (auto [index, op] : llvm::enumerate(graphOps(assigned))) {
    auto format = op->getAttrOfType<FormatAttr>("dsmp.assigned");
    if (!format)
      continue;
    json::Object entry;
    entry["index"] = static_cast<int64_t>(index);
    entry["name"] = nodeName(op);
    entry["op_type"] = onnxTypeOf(op);
    entry["format"] = stringifyFormat(format.getValue()).str();
    auto precision = cast<PrecisionOpInterface>(op);
    entry["class"] = stringifyOpClass(precision.getOpClass()).str();
    entry["accumulation"] =
        precision.getOpClass() == OpClass::data_movement
            ? std::string("none")
            : stringifyFormat(precision.getAccumulationFormat()).str();
    if (auto reason = op->getAttrOfType<StringAttr>("dsmp.reason"))
      entry["reason"] = reason.str();
    if (auto flops = op->getAttrOfType<IntegerAttr>("dsmp.flops"))
      entry["flops"] = flops.getInt();
    if (auto share = op->getAttrOfType<FloatAttr>("dsmp.error_share"))
      entry["error_share"] = share.getValueAsDouble();
    entry["sensitivity"] =
        numbers(op->getAttrOfType<DictionaryAttr>("dsmp.sensitivity"),
                {"adapt", "energy", "operand_energy", "weight_energy"});
    entry["range"] = numbers(op->getAttrOfType<DictionaryAttr>("dsmp.range"),
                             {"min", "max", "amax", "static_lo", "static_hi"});
    if (auto stop = op->getAttrOfType<StringAttr>("dsmp.no_adjoint"))
      entry["no_adjoint"] = stop.str();
    ops.push_back(std::move(entry));
  }
  return ops;
}

} // namespace

Expected<MixedPrecisionResult>
runMixedPrecision(ModuleOp fp32, const MixedPrecisionOptions &options) {
  if (!(options.tolerance > 0))
    return llvm::createStringError("--tolerance must be positive, got " +
                                   std::to_string(options.tolerance));
  if (auto target = getTargetDescription(options.target, options.features);
      !target)
    return target.takeError();
  if (options.calibration.empty())
    return llvm::createStringError(
        "--tolerance needs --calibration=DIR (inputs to measure the model on)");
  if (options.metric != "rel-l2" && options.metric != "max-abs")
    return llvm::createStringError("--error-metric must be rel-l2 or max-abs, "
                                   "got '" +
                                   options.metric + "'");
  bool maxAbs = options.metric == "max-abs";
  auto start = std::chrono::steady_clock::now();

  AutoMixedPrecisionPipelineOptions pipeline;
  pipeline.target = options.target;
  pipeline.features = ArrayRef<std::string>(options.features);
  pipeline.tolerance = options.tolerance;
  pipeline.margin = options.margin;
  pipeline.calibration = options.calibration;
  pipeline.defaultFormat = options.defaultFormat;
  pipeline.denyOps = ArrayRef<std::string>(options.denyOps);
  pipeline.allowOps = ArrayRef<std::string>(options.allowOps);
  pipeline.sensitiveLayers = options.sensitiveLayers;
  pipeline.weightsDir = options.weightsDir;
  pipeline.sensitivitySeeds = options.sensitivitySeeds;
  pipeline.metric = options.metric;

  OwningOpRef<ModuleOp> analyzed(fp32.clone());
  if (Error err = runPasses(*analyzed, "precision analysis", options.timing,
                            [&](PassManager &pm) {
                              buildPrecisionAnalysisPipeline(pm, pipeline);
                            }))
    return std::move(err);
  double analysisSeconds = secondsSince(start);

  std::string validationDir =
      options.validation.empty() ? options.calibration : options.validation;
  auto sets = readInputSets(validationDir);
  if (!sets)
    return llvm::createStringError("validation: " +
                                   llvm::toString(sets.takeError()));
  std::string referenceEngine;
  TimingScope referenceTimer = phase(options.timing, "validation (FP32 run)");
  auto reference = runOnSets(*analyzed, *sets, &referenceEngine);
  referenceTimer.stop();
  if (!reference)
    return llvm::createStringError("validation (FP32 run): " +
                                   llvm::toString(reference.takeError()));
  auto expected = readOutputSets(validationDir);

  MixedPrecisionResult result;
  json::Array attempts;
  json::Array opsReport;
  Measurement final;
  OutputSets finalOutputs; // the assigned model's, on the validation sets
  std::string validationEngine;
  double predicted = 0;
  // A failed round first steps f8 ops back to 16 bits (where there are
  // any), then recalibrates the prediction (the budget shrinks by how far
  // the measurement exceeded it, keeping the cost order), then raises the
  // largest predicted contributors to f32 outright.
  static const double kDemote[] = {0.25, 0.5, 1.0};
  double margin = pipeline.margin;
  const double maxMargin = 4.0;
  int demotions = 0, recalibrations = 0, f8StepBacks = 0;
  // The model that met the budget before a widening round.
  struct Candidate {
    OwningOpRef<ModuleOp> module;
    json::Array ops;
    Measurement measurement;
    OutputSets outputs;
    double predicted;
    double margin;
  };
  std::optional<Candidate> best;
  // The smallest widened margin whose model missed the budget.
  double overshot = INFINITY;
  // Set when the rounds ran out over budget: one more round with every op
  // the budget moved off f32 back on it.
  bool fallbackRound = false;
  for (int attempt = 0; attempt <= options.maxRetries + (fallbackRound ? 1 : 0);
       ++attempt) {
    OwningOpRef<ModuleOp> candidate(analyzed->clone());
    if (Error err =
            runPasses(*candidate, "precision assignment", options.timing,
                      [&](PassManager &pm) {
                        AssignPrecisionPassOptions assign;
                        assign.target = pipeline.target;
                        assign.features.assign(pipeline.features.begin(),
                                               pipeline.features.end());
                        assign.tolerance = pipeline.tolerance;
                        assign.margin = margin;
                        assign.defaultFormat = pipeline.defaultFormat;
                        assign.denyOps.assign(pipeline.denyOps.begin(),
                                              pipeline.denyOps.end());
                        assign.allowOps.assign(pipeline.allowOps.begin(),
                                               pipeline.allowOps.end());
                        assign.sensitiveLayers = pipeline.sensitiveLayers;
                        pm.addPass(createAssignPrecisionPass(assign));
                      }))
      return std::move(err);
    opsReport = describeOps(*candidate);
    if (auto info =
            (*candidate)->getAttrOfType<DictionaryAttr>("dsmp.precision"))
      if (auto p = info.getAs<FloatAttr>("predicted_error"))
        predicted = p.getValueAsDouble();
    // Indices of the ops the budget moved off f32, largest share first.
    SmallVector<std::pair<double, size_t>> contributors;
    llvm::DenseSet<size_t> inF8; // indices of ops assigned an f8 format
    for (auto [index, op] : llvm::enumerate(graphOps(*candidate))) {
      if (auto share = op->getAttrOfType<FloatAttr>("dsmp.error_share"))
        contributors.push_back({share.getValueAsDouble(), index});
      if (auto format = op->getAttrOfType<FormatAttr>("dsmp.assigned");
          format && isF8(format.getValue()))
        inF8.insert(index);
    }
    llvm::sort(contributors,
               [](auto &a, auto &b) { return a.first > b.first; });

    if (Error err = runPasses(
            *candidate, "cast insertion", options.timing, [&](PassManager &pm) {
              pm.addNestedPass<func::FuncOp>(createInsertCastsPass());
              pm.addNestedPass<func::FuncOp>(createMinimizeCastsPass());
              pm.addPass(createCSEPass());
            }))
      return std::move(err);
    TimingScope validationTimer =
        phase(options.timing, "validation (assigned model)");
    auto outputs = runOnSets(*candidate, *sets, &validationEngine);
    validationTimer.stop();
    if (!outputs)
      return llvm::createStringError("validation (assigned model): " +
                                     llvm::toString(outputs.takeError()));
    final = measure(*outputs, *reference, maxAbs);
    finalOutputs = std::move(*outputs);
    bool met = final.worst() <= options.tolerance &&
               (!options.keepTop1 || final.top1Same);
    json::Object record;
    record["measured_error"] = final.worst();
    record["predicted_error"] = predicted;
    record["margin"] = margin;
    if (options.keepTop1)
      record["top1_unchanged"] = final.top1Same;
    record["raised_to_f32"] = 0;
    double worst = final.worst();
    bool budgetBound = llvm::any_of(opsReport, [](const json::Value &v) {
      auto reason = v.getAsObject()->getString("reason");
      return reason == StringRef("budget") ||
             reason == StringRef("budget_fallback");
    });
    if (!met && best) {
      attempts.push_back(std::move(record));
      // A widened budget overshot: try halfway (geometrically) to the last
      // margin that met it while rounds remain and the two differ by 10 %;
      // else keep that model.
      overshot = std::min(overshot, margin);
      if (attempt < options.maxRetries && overshot > 1.1 * best->margin) {
        margin = std::sqrt(overshot * best->margin);
        continue;
      }
      result.module = std::move(best->module);
      opsReport = std::move(best->ops);
      final = std::move(best->measurement);
      finalOutputs = std::move(best->outputs);
      predicted = best->predicted;
      result.met = true;
      break;
    }
    if (met && budgetBound && attempt < options.maxRetries &&
        worst < 0.8 * options.tolerance && margin < maxMargin &&
        overshot > 1.1 * margin) {
      // The prediction was pessimistic and the budget stopped ops from
      // going 16-bit: widen it by how much room the measurement left (not
      // past halfway to a margin that overshot). No error at all (no op
      // fitted the budget) says nothing of how much: probe 4x wider.
      best = Candidate{std::move(candidate),
                       json::Array(opsReport),
                       final,
                       finalOutputs,
                       predicted,
                       margin};
      double wider =
          worst > 0 ? margin * 0.9 * options.tolerance / worst : 4 * margin;
      if (std::isfinite(overshot))
        wider = std::min(wider, std::sqrt(overshot * margin));
      margin = std::min(wider, maxMargin);
      attempts.push_back(std::move(record));
      continue;
    }
    result.module = std::move(candidate);
    result.met = met;
    if (met || fallbackRound || contributors.empty()) {
      attempts.push_back(std::move(record));
      break;
    }
    if (attempt == options.maxRetries) {
      // No round met the budget (the prediction kept missing, as a max-abs
      // budget on errors that concentrate in a few outputs can): rather
      // than a model over budget, one more round with no op the budget
      // may move off f32, which computes what the FP32 reference does.
      for (Operation *op : graphOps(*analyzed))
        op->setAttr("dsmp.keep_f32", UnitAttr::get(fp32.getContext()));
      record["raised_to_f32"] = static_cast<int64_t>(contributors.size());
      record["last_resort"] = true;
      attempts.push_back(std::move(record));
      fallbackRound = true;
      continue;
    }
    if (!inF8.empty() && f8StepBacks < 2) {
      // f8's error model (independent roundings, the calibrated amax as
      // the scale) is the least certain: step the f8 ops with the largest
      // predicted shares (half of them, then all) back to 16 bits before
      // touching the rest.
      SmallVector<std::pair<double, size_t>> f8Ops;
      for (auto &c : contributors)
        if (inF8.contains(c.second))
          f8Ops.push_back(c);
      size_t count = f8StepBacks++ == 0 ? (f8Ops.size() + 1) / 2 : f8Ops.size();
      SmallVector<Operation *> ops = graphOps(*analyzed);
      for (size_t k = 0; k < count; ++k)
        ops[f8Ops[k].second]->setAttr("dsmp.no_f8",
                                      UnitAttr::get(fp32.getContext()));
      record["f8_stepped_back"] = static_cast<int64_t>(count);
      attempts.push_back(std::move(record));
      continue;
    }
    if (recalibrations < 2 && predicted > 0 && worst > options.tolerance &&
        std::isfinite(worst)) {
      ++recalibrations;
      // Predicted `predicted`, measured `worst`: aim the next prediction at
      // 0.8 tau / (worst / predicted).
      margin *= std::min(0.8 * options.tolerance / worst, 0.8);
      attempts.push_back(std::move(record));
      continue;
    }
    // Raise the largest predicted contributors to f32 and try again.
    double fraction =
        kDemote[std::min<size_t>(demotions++, std::size(kDemote) - 1)];
    size_t count = std::max<size_t>(
        1, static_cast<size_t>(std::ceil(contributors.size() * fraction)));
    SmallVector<Operation *> ops = graphOps(*analyzed);
    for (size_t k = 0; k < count && k < contributors.size(); ++k)
      ops[contributors[k].second]->setAttr("dsmp.keep_f32",
                                           UnitAttr::get(fp32.getContext()));
    record["raised_to_f32"] = static_cast<int64_t>(count);
    attempts.push_back(std::move(record));
  }

  // Summary.
  std::map<std::string, double> flopsByFormat;
  double totalFlops = 0;
  for (const json::Value &v : opsReport) {
    const json::Object &op = *v.getAsObject();
    double flops = op.getInteger("flops").value_or(0);
    flopsByFormat[op.getString("format")->str()] += flops;
    totalFlops += flops;
  }
  json::Object share;
  double low16 = 0, reduced = 0, eightBit = 0;
  for (auto &[format, flops] : flopsByFormat) {
    double s = totalFlops > 0 ? flops / totalFlops : 0;
    share[format] = s;
    if (format != "f32")
      reduced += s;
    if (format != "f32" && format != "tf32")
      low16 += s;
    if (StringRef(format).starts_with("f8"))
      eightBit += s;
  }
  InputShapes shapes = shapesOf(sets->front());
  TimingScope summaryTimer = phase(options.timing, "summary");
  auto actBefore = activationBytes(fp32, shapes);
  auto actAfter = activationBytes(*result.module, shapes);
  if (!actBefore || !actAfter)
    return llvm::createStringError("activation sizes: " +
                                   llvm::toString(actBefore
                                                      ? actAfter.takeError()
                                                      : actBefore.takeError()));

  json::Object summary;
  summary["target"] = options.target;
  summary["tolerance"] = options.tolerance;
  summary["error_metric"] = options.metric;
  summary["margin"] = options.margin;
  summary["met"] = result.met;
  // The rounds missed the budget and the model kept every op the budget
  // could choose in f32.
  summary["last_resort"] = fallbackRound;
  summary["flop_share"] = std::move(share);
  summary["low_precision_flop_share"] = low16; // 16- and 8-bit
  summary["f8_flop_share"] = eightBit;
  summary["reduced_precision_flop_share"] = reduced;
  summary["total_flops"] = totalFlops;
  summary["weight_bytes_before"] = weightBytes(fp32);
  summary["weight_bytes_after"] = weightBytes(*result.module);
  summary["activation_bytes_before"] = *actBefore;
  summary["activation_bytes_after"] = *actAfter;
  summary["predicted_error"] = predicted;
  summary["measured_error"] = final.worst();
  json::Object perOutput;
  for (auto [name, error] : llvm::zip(final.names, final.error))
    perOutput[name] = error;
  summary["measured_error_per_output"] = std::move(perOutput);
  if (options.keepTop1)
    summary["top1_unchanged"] = final.top1Same;
  summary["validation"] = validationDir;
  // "evaluate": the reference evaluator, rounding each op to its format;
  // "compile": an LLVM build for the host (ops the evaluator cannot hold).
  summary["validation_engine"] = validationEngine;
  summary["reference_engine"] = referenceEngine;
  summary["validated_on_calibration_data"] = options.validation.empty();
  summary["calibration"] = options.calibration;
  summary["analysis_seconds"] = analysisSeconds;
  summary["total_seconds"] = secondsSince(start);
  if (auto stopped =
          (*analyzed)->getAttrOfType<ArrayAttr>("dsmp.adjoint_stopped_at")) {
    json::Array names;
    for (Attribute a : stopped)
      names.push_back(cast<StringAttr>(a).str());
    summary["adjoint_stopped_at"] = std::move(names);
  }
  if (!expected) {
    llvm::consumeError(expected.takeError());
  } else if (expected->size() == sets->size()) {
    // How far the assigned model is from the stored reference outputs
    // (onnxruntime's, in the shared test data).
    json::Object fromStored;
    for (size_t o = 0; o < final.names.size(); ++o) {
      double worst = 0;
      for (size_t s = 0; s < expected->size(); ++s)
        for (const HostTensor &want : (*expected)[s])
          if (want.name == final.names[o])
            worst =
                std::max(worst, maxAbs ? maxAbsError(finalOutputs[s][o], want)
                                       : relativeL2(finalOutputs[s][o], want));
      fromStored[final.names[o]] = worst;
    }
    summary["error_vs_stored_outputs"] = std::move(fromStored);
  }

  result.report["summary"] = std::move(summary);
  result.report["attempts"] = std::move(attempts);
  result.report["ops"] = std::move(opsReport);
  return result;
}

Expected<MixedPrecisionResult>
compileWithPrecision(StringRef modelPath, StringRef outputDir,
                     MixedPrecisionOptions options, CompileOptions compile,
                     StringRef reportPath, MLIRContext &context) {
  llvm::SmallString<256> modelDir(modelPath);
  llvm::sys::path::remove_filename(modelDir);
  options.weightsDir = modelDir.empty() ? "." : std::string(modelDir);
  // Weights stay in memory: the analyses read them and the cast folding
  // rewrites them in the low format.
  EvaluatorWarmUp warmUp; // overlaps with the import
  auto importStart = std::chrono::steady_clock::now();
  TimingScope importTimer = phase(options.timing, "import");
  auto loaded = loadModel(modelPath, context, "");
  if (!loaded)
    return loaded.takeError();
  importTimer.stop();
  double importSeconds = secondsSince(importStart);
  // Control flow (If) and recurrences (LSTM) resolve only with shapes and
  // fixed inputs: then the whole flow works on the graph specialized to the
  // calibration shapes (when the artifact is compiled for them), so every
  // op inside is analysed and assigned. Other graphs keep their dynamic dims
  // (the ONNX export stays as general as the model).
  auto graph = (*loaded->module).lookupSymbol<func::FuncOp>("main_graph");
  bool structured = !compile.fixedInputs.empty();
  graph.walk([&](Operation *op) { structured |= isa<IfOp, LSTMOp>(op); });
  InputShapes calibrationShapes;
  if (structured) {
    auto sets = readInputSets(options.calibration);
    if (!sets)
      return sets.takeError();
    calibrationShapes = shapesOf(sets->front());
  }
  auto sameShapes = [&](const InputShapes &v) {
    if (v.size() != calibrationShapes.size())
      return false;
    for (auto &entry : v) {
      auto it = calibrationShapes.find(entry.getKey());
      if (it == calibrationShapes.end() || it->second != entry.second)
        return false;
    }
    return true;
  };
  if (structured && llvm::all_of(compile.variants, sameShapes)) {
    if (Error err =
            specializeGraph(*loaded->module, calibrationShapes, 1,
                            /*requireAllInputs=*/false, compile.fixedInputs))
      return llvm::createStringError(modelPath + ": " +
                                     llvm::toString(std::move(err)));
  } else if (Error err = fixInputValues(graph, compile.fixedInputs)) {
    return llvm::createStringError(modelPath + ": " +
                                   llvm::toString(std::move(err)));
  }
  auto result = runMixedPrecision(*loaded->module, options);
  if (!result)
    return llvm::createStringError(modelPath + ": " +
                                   llvm::toString(result.takeError()));
  json::Object &summary = *result->report.getObject("summary");
  summary["artifact_cpu"] = compile.target.name;
  // Reading the ONNX file into the dialect, before total_seconds' flow.
  summary["import_seconds"] = importSeconds;
  if (!reportPath.empty())
    if (Error err = writePrecisionReport(result->report, reportPath))
      return std::move(err);
  TimingScope artifactTimer = phase(options.timing, "artifact");
  if (compile.variants.empty()) {
    auto sets = readInputSets(options.calibration);
    if (!sets)
      return sets.takeError();
    compile.variants.push_back(shapesOf(sets->front()));
  }
  if (Error err = compileModuleArtifact(*result->module, "",
                                        llvm::sys::path::filename(modelPath),
                                        outputDir, compile))
    return std::move(err);
  return result;
}

} // namespace mlir::dsmp
