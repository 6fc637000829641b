//===- MixedPrecision.cpp - Choose formats, validate, report ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The flow around the precision pipeline: the analyses once, then rounds of
// assignment and validation under the round policy below, then the report.
// Every round's decisions are options of the assignment pipeline (margin,
// keep-f32-ops, no-f8-ops), so the final round prints as a pipeline that
// dsmp-opt replays.
//
//===----------------------------------------------------------------------===//

#include "dsmp/Driver/MixedPrecision.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/MainGraph.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "dsmp/Execution/Evaluator.h"
#include "dsmp/Execution/HostRun.h"
#include "dsmp/Support/DeclinableAction.h"
#include "dsmp/Target/TargetDescription.h"
#include "lib/Driver/Artifact/RunPasses.h"
#include "lib/Driver/BranchInputs.h"
#include "lib/Driver/PrecisionMetrics.h"
#include "lib/Driver/PrecisionReport.h"
#include "passes/Precision/Calibration.h"
#include "passes/Precision/F8Scaling.h"
#include "passes/Precision/Formats.h"
#include "passes/Precision/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
namespace json = llvm::json;

namespace mlir::dsmp {

Expected<std::unique_ptr<AutoMixedPrecisionPipelineOptions>>
precisionPipelineOptions(const MixedPrecisionOptions &options) {
  auto pipeline = std::make_unique<AutoMixedPrecisionPipelineOptions>();
  pipeline->target = options.target;
  pipeline->features = ArrayRef<std::string>(options.features);
  pipeline->tolerance = options.tolerance;
  pipeline->metric = options.metric;
  pipeline->errorFloor = options.errorFloor;
  pipeline->margin = options.margin;
  pipeline->calibration = options.calibration;
  pipeline->defaultFormat = options.defaultFormat;
  pipeline->denyOps = ArrayRef<std::string>(options.denyOps);
  pipeline->allowOps = ArrayRef<std::string>(options.allowOps);
  pipeline->sensitiveLayers = options.sensitiveLayers;
  pipeline->sensitivitySeeds = options.sensitivitySeeds;
  pipeline->weightsDir = options.weightsDir;
  return pipeline;
}

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Announces a phase (progress lines) and times it under --mlir-timing
/// (a no-op scope otherwise). `shown` is what the progress line says, when
/// it says more than the timer's name.
TimingScope phase(const MixedPrecisionOptions &options, StringRef name,
                  StringRef shown = "") {
  if (options.progress)
    options.progress->phase(shown.empty() ? name : shown);
  return options.timing ? options.timing->nest(name) : TimingScope();
}

/// Runs `pm` on `module` as phase `what`; its errors follow "`what`: ".
Error runPhase(PassManager &pm, ModuleOp module, StringRef what,
               const MixedPrecisionOptions &options, StringRef shown = "") {
  TimingScope scope = phase(options, what, shown);
  if (options.timing)
    pm.enableTiming(scope);
  std::string errors;
  if (failed(runPasses(pm, module, errors)))
    return llvm::createStringError(what + ": " + errors);
  return Error::success();
}

/// Validation runs both models in the evaluator, which rounds every op
/// to its format as the artifact does; what it cannot hold is compiled.
/// A run of a model on every validation input set, as an action that an
/// interrupted compile declines (DeclinableAction.h).
class ValidationRunAction : public tracing::ActionImpl<ValidationRunAction> {
public:
  using ActionImpl::ActionImpl;
  static constexpr StringLiteral tag = "dsmp-validation-run";
};

Expected<OutputSets> runOnSets(ModuleOp module,
                               const std::vector<HostInputs> &sets,
                               std::string *engineUsed) {
  OutputSets outputs;
  Error err =
      runDeclinable<ValidationRunAction>(module.getContext(), [&]() -> Error {
        std::string whyCompiled;
        auto run = runOnInputSets(module, sets, HostEngine::Auto, &whyCompiled);
        if (!run)
          return run.takeError();
        outputs = std::move(*run);
        *engineUsed =
            whyCompiled.empty() ? "evaluate" : "compile (" + whyCompiled + ")";
        return Error::success();
      });
  if (err)
    return std::move(err);
  return outputs;
}

/// One assignment of the analysed model and how it measured.
struct Round {
  OwningOpRef<ModuleOp> module;
  json::Array ops;
  Measurement measurement;
  OutputSets outputs;
  double predicted = 0;
  /// The assignment options that made it.
  double margin = 0;
  std::vector<int64_t> keepF32, noF8, carriers;
};

/// The validation rounds: assign, measure on held-out inputs, and decide
/// the next round from how the measurement compares with the budget.
///  - Met with room to spare while the budget bound some ops: widen the
///    margin by the room the measurement left (the prediction was
///    pessimistic), keeping the model that met it; a widened round that
///    misses goes halfway back, else the kept model is final.
///  - Missed: step the f8 ops with the largest shares back to 16 bits (half,
///    then all); recalibrate the margin by how far the measurement missed
///    (twice); then raise the largest predicted contributors to f32 (a
///    quarter, half, all).
///  - Missed where the prediction cannot be trusted (measured over 4x the
///    prediction, or raising ops to f32 did not move the measurement, or
///    no rounds remain): bisect the 16-bit ops on the measured error to
///    find the ones that carry it, keep those in f32 and go on.
///  - Missed in every round: one last round with every op the budget may
///    move kept in f32 (the FP32 model's values).
/// With `stopWhenUnderPredicted`, a first round that measures over 4x its
/// prediction ends the rounds (`underPredicted`): the caller re-analyzes
/// with more seed vectors and starts again (assignFormats).
class RoundPolicy {
public:
  RoundPolicy(ModuleOp analyzed, AutoMixedPrecisionPipelineOptions &pipeline,
              const MixedPrecisionOptions &options,
              const std::vector<HostInputs> &sets, const OutputSets &reference,
              ArrayRef<double> floors)
      : analyzed(analyzed), pipeline(pipeline), options(options), sets(sets),
        reference(reference), floors(floors), margin(options.margin) {}

  /// Runs the rounds; the final one is `final`.
  Error run();
  /// Starts from `earlier`'s measurements: a round whose model computes
  /// what one of them did is not run again.
  void reuseMeasurements(RoundPolicy &earlier) {
    measured = std::move(earlier.measured);
  }

  bool stopWhenUnderPredicted = false;
  bool underPredicted = false;
  Round final;
  bool met = false;
  bool lastResort = false;
  json::Array attempts;
  std::string validationEngine;
  /// Ops bisection found carrying the measured error (graph indices), and
  /// the validation runs it took.
  std::vector<int64_t> carriers;
  int bisectionRuns = 0;
  /// The missed round that started the bisection.
  double bisectedMeasured = 0, bisectedPredicted = 0;

private:
  Expected<Round> assignAndMeasure(std::string label = "");
  Expected<bool> bisect(const json::Array &ops);
  bool meets(const Measurement &m) const {
    return m.worst() <= options.tolerance && (!options.keepTop1 || m.top1Same);
  }

  ModuleOp analyzed;
  AutoMixedPrecisionPipelineOptions &pipeline;
  const MixedPrecisionOptions &options;
  const std::vector<HostInputs> &sets;
  const OutputSets &reference;
  ArrayRef<double> floors; // rel-l2's, by output
  double margin;
  std::set<int64_t> keepF32, noF8;
  /// Measurements by what the measured model computes (numericsOf).
  std::map<size_t, std::pair<Measurement, OutputSets>> measured;
};

/// `value` as the printed pipeline gives it back (pass options print
/// doubles with seven significant digits), so that a replay chooses what
/// the round chose.
double asPrinted(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << value;
  return std::strtod(text.c_str(), nullptr);
}

/// What a model with formats computes, as a hash: each op's name and
/// result types (the formats, casts included), accumulation format and,
/// for constants, values (weights stored in 16 or 8 bits).
llvm::hash_code numericsOf(ModuleOp module) {
  llvm::hash_code hash = 0;
  module.walk([&](Operation *op) {
    hash = llvm::hash_combine(hash, op->getName().getAsOpaquePointer());
    for (Type type : op->getResultTypes())
      hash = llvm::hash_combine(hash, type.getAsOpaquePointer());
    if (Attribute acc = op->getAttr("acc"))
      hash = llvm::hash_combine(hash, acc.getAsOpaquePointer());
    if (auto constant = dyn_cast<ConstantOp>(op))
      hash = llvm::hash_combine(hash, constant.getValue().getAsOpaquePointer());
  });
  return hash;
}

Expected<Round> RoundPolicy::assignAndMeasure(std::string label) {
  margin = asPrinted(margin);
  Round round;
  round.margin = margin;
  round.keepF32.assign(keepF32.begin(), keepF32.end());
  round.noF8.assign(noF8.begin(), noF8.end());
  round.carriers = carriers;
  pipeline.margin = margin;
  pipeline.carrierOps = ArrayRef<int64_t>(round.carriers);
  pipeline.keepF32Ops = ArrayRef<int64_t>(round.keepF32);
  pipeline.noF8Ops = ArrayRef<int64_t>(round.noF8);
  round.module = analyzed.clone();
  MLIRContext *context = analyzed.getContext();
  PassManager assign(context);
  addAssignPrecisionPass(assign, pipeline);
  std::string roundName =
      label.empty()
          ? llvm::formatv("round {0} (margin {1})", attempts.size() + 1, margin)
                .str()
          : label;
  if (Error err = runPhase(assign, *round.module, "precision assignment",
                           options, roundName + ": assignment"))
    return std::move(err);
  round.ops = describeOps(*round.module);
  if (auto info =
          (*round.module)->getAttrOfType<DictionaryAttr>("dsmp.precision"))
    if (auto p = info.getAs<FloatAttr>("predicted_error"))
      round.predicted = p.getValueAsDouble();
  PassManager casts(context);
  addCastPasses(casts);
  if (Error err = runPhase(casts, *round.module, "cast insertion", options,
                           roundName + ": cast insertion"))
    return std::move(err);
  // A round whose model computes what an earlier one did (another margin,
  // the same formats) takes that round's measurement.
  llvm::hash_code computes = numericsOf(*round.module);
  if (auto it = measured.find(computes); it != measured.end()) {
    round.measurement = it->second.first;
    round.outputs = it->second.second;
    return round;
  }
  TimingScope timer = phase(options, "validation (assigned model)",
                            llvm::formatv("{0}: validation on {1} input set(s)",
                                          roundName, sets.size())
                                .str());
  auto outputs = runOnSets(*round.module, sets, &validationEngine);
  if (!outputs)
    return llvm::createStringError("validation (assigned model): " +
                                   llvm::toString(outputs.takeError()));
  round.measurement =
      measure(*outputs, reference, options.metric == "max-abs", floors);
  round.outputs = std::move(*outputs);
  measured[computes] = {round.measurement, round.outputs};
  return round;
}

/// Which of the ops a missed round put below f32 carry its error, found by
/// measuring: halves of them (in graph order) are raised to f32, with every
/// op that round kept f32 pinned there so that the budget cannot move
/// others in, and the search follows the half whose raise alone meets the
/// budget. It stops at one op, when neither half alone meets it (both
/// carry part), or after `--bisection-runs` validation runs. On success
/// the carriers are `carriers` (kept f32 by the assignment's carrier-ops).
Expected<bool> RoundPolicy::bisect(const json::Array &ops) {
  std::set<int64_t> before = keepF32, pinned = keepF32;
  SmallVector<int64_t> candidates;
  for (const json::Value &v : ops) {
    const json::Object &op = *v.getAsObject();
    int64_t index = *op.getInteger("index");
    if (op.getString("format") == StringRef("f32"))
      pinned.insert(index);
    else
      candidates.push_back(index);
  }
  llvm::sort(candidates);
  if (candidates.size() < 2)
    return false;
  ArrayRef<int64_t> carrying = candidates;
  bool narrowed = false;
  // Whether raising `raised` (with the pinned ops) meets the budget.
  auto holdsWith = [&](ArrayRef<int64_t> raised) -> Expected<bool> {
    keepF32 = pinned;
    keepF32.insert(raised.begin(), raised.end());
    ++bisectionRuns;
    auto round = assignAndMeasure(
        llvm::formatv("bisection run {0}: {1} of {2} op(s) in f32",
                      bisectionRuns, raised.size(), candidates.size()));
    if (!round)
      return round.takeError();
    bool held = meets(round->measurement);
    json::Object record;
    record["measured_error"] = round->measurement.worst();
    record["predicted_error"] = round->predicted;
    record["margin"] = margin;
    record["raised_to_f32"] = static_cast<int64_t>(raised.size());
    record["bisection"] = true;
    attempts.push_back(std::move(record));
    return held;
  };
  while (carrying.size() > 1 && bisectionRuns < options.bisectionRuns) {
    size_t half = carrying.size() / 2;
    ArrayRef<int64_t> first = carrying.take_front(half),
                      second = carrying.drop_front(half);
    auto firstHolds = holdsWith(first);
    if (!firstHolds)
      return firstHolds.takeError();
    if (*firstHolds) {
      carrying = first;
      narrowed = true;
      continue;
    }
    if (bisectionRuns >= options.bisectionRuns)
      break;
    auto secondHolds = holdsWith(second);
    if (!secondHolds)
      return secondHolds.takeError();
    if (!*secondHolds)
      break;
    carrying = second;
    narrowed = true;
  }
  keepF32 = std::move(before);
  if (!narrowed)
    return false;
  carriers.assign(carrying.begin(), carrying.end());
  return true;
}

Error RoundPolicy::run() {
  static const double kDemote[] = {0.25, 0.5, 1.0};
  // The widest-margin probe's margin (4x the budget predicted: in practice
  // every op the policies allow).
  const double maxMargin = 4.0;
  // How far measured room may widen the budget past the probe's 4, from a
  // round that met it at 4: where the prediction is far more pessimistic
  // than that (a 12-block GroupNorm(1) net before InstanceNormalization's
  // VJP model: 1000x), ops stayed in f32 at margin 4 with the measurement
  // 10x under tau; each widening is validated, and one that overshoots is
  // bisected back.
  const double widestMargin = 64.0;
  int demotions = 0, recalibrations = 0, f8StepBacks = 0;
  // The round that met the budget before a widening round.
  std::optional<Round> best;
  // The smallest widened margin whose model missed the budget.
  double overshot = INFINITY;
  size_t numOps = graphOps(analyzed).size();
  // The measurement before the last raise to f32 (NaN: no raise yet), and
  // the rounds granted beyond --max-retries (the last resort's, the one
  // after a bisection).
  double beforeRaise = NAN;
  int extraRounds = 0;
  bool bisected = false;
  // The probe at the widest margin: taken once, after a round that met the
  // budget with ops held back and no room left to widen by prediction.
  bool probed = false, probing = false;
  for (int attempt = 0; attempt <= options.maxRetries + extraRounds;
       ++attempt) {
    auto round = assignAndMeasure();
    if (!round)
      return round.takeError();
    // Ops the budget moved off f32 (by graph index), largest share first,
    // and those assigned an f8 format.
    SmallVector<std::pair<double, int64_t>> contributors;
    llvm::DenseSet<int64_t> inF8;
    for (const json::Value &v : round->ops) {
      const json::Object &op = *v.getAsObject();
      int64_t index = *op.getInteger("index");
      if (auto share = op.getNumber("error_share"))
        contributors.push_back({*share, index});
      if (StringRef(*op.getString("format")).starts_with("f8"))
        inF8.insert(index);
    }
    llvm::sort(contributors,
               [](auto &a, auto &b) { return a.first > b.first; });
    double worst = round->measurement.worst();
    bool roundMet = meets(round->measurement);
    json::Object record;
    record["measured_error"] = worst;
    record["predicted_error"] = round->predicted;
    record["margin"] = margin;
    if (options.keepTop1)
      record["top1_unchanged"] = round->measurement.top1Same;
    record["raised_to_f32"] = 0;
    if (probing)
      record["widest_margin_probe"] = true;
    if (attempt == 0 && stopWhenUnderPredicted && std::isfinite(worst) &&
        worst > 4 * round->predicted) {
      record["under_predicted"] = true;
      attempts.push_back(std::move(record));
      final = std::move(*round);
      underPredicted = true;
      return Error::success();
    }
    bool budgetBound = llvm::any_of(round->ops, [](const json::Value &v) {
      auto reason = v.getAsObject()->getString("reason");
      return reason == StringRef("budget") ||
             reason == StringRef("budget_fallback");
    });
    if (!roundMet && best && probing) {
      // The widest margin missed: the round that met the budget is final.
      attempts.push_back(std::move(record));
      final = std::move(*best);
      met = true;
      return Error::success();
    }
    if (!roundMet && best) {
      attempts.push_back(std::move(record));
      // A widened budget overshot: try halfway (geometrically) to the last
      // margin that met it while rounds remain and the two differ by 10 %;
      // else keep that model.
      overshot = std::min(overshot, margin);
      if (attempt < options.maxRetries + extraRounds &&
          overshot > 1.1 * best->margin) {
        margin = std::sqrt(overshot * best->margin);
        continue;
      }
      final = std::move(*best);
      met = true;
      return Error::success();
    }
    if (roundMet && budgetBound && attempt < options.maxRetries + extraRounds &&
        worst < 0.8 * options.tolerance && margin < widestMargin &&
        overshot > 1.1 * margin) {
      // The prediction was pessimistic and the budget stopped ops from
      // going 16-bit: widen it by how much room the measurement left (not
      // past halfway to a margin that overshot). No error at all (no op
      // fitted the budget) says nothing of how much: probe 4x wider.
      double wider =
          worst > 0 ? margin * 0.9 * options.tolerance / worst : 4 * margin;
      if (std::isfinite(overshot))
        wider = std::min(wider, std::sqrt(overshot * margin));
      best = std::move(*round);
      // Up to the probe's margin first; past it only from a round that
      // met the budget there with room (a measurement barely above zero
      // would otherwise leap far past what a bisection can return from).
      margin = std::min(wider, margin >= maxMargin ? widestMargin : maxMargin);
      attempts.push_back(std::move(record));
      continue;
    }
    if (roundMet && budgetBound && !probed && !lastResort &&
        attempt < options.maxRetries + extraRounds && margin < maxMargin &&
        overshot > maxMargin) {
      // The measurement left no room to widen by, yet the prediction may
      // be pessimistic about the ops it held back (efficientnet_v2_s at
      // 95.4 %: predicted 5.0e-3, measured 9.03e-3, tau 1e-2; a peer's
      // all-f16 model measures 9.14e-3). One validation run at the widest
      // margin (4x the budget predicted, in practice every op), as a
      // peer's first all-f16 attempt; if that misses, this round is final.
      probed = probing = true;
      best = std::move(*round);
      margin = maxMargin;
      attempts.push_back(std::move(record));
      continue;
    }
    final = std::move(*round);
    met = roundMet;
    if (roundMet || lastResort || contributors.empty()) {
      attempts.push_back(std::move(record));
      return Error::success();
    }
    // Where this round's record goes (before a failed bisection's runs).
    std::optional<size_t> recordAt;
    auto pushRecord = [&] {
      attempts.insert(attempts.begin() + recordAt.value_or(attempts.size()),
                      std::move(record));
    };
    bool lastRound = attempt >= options.maxRetries + extraRounds;
    bool predictionOff =
        !(worst <= 4 * final.predicted) || // NaN and inf count as off
        (!std::isnan(beforeRaise) && worst > 0.8 * beforeRaise);
    if (!bisected && options.bisectionRuns > 0 &&
        (inF8.empty() || f8StepBacks >= 2) && (predictionOff || lastRound)) {
      // The prediction does not say where the error is: measure it.
      bisected = true;
      bisectedMeasured = worst;
      bisectedPredicted = final.predicted;
      size_t at = attempts.size();
      auto found = bisect(final.ops);
      if (!found)
        return found.takeError();
      if (*found) {
        // One round with the carriers in f32 (and the budget free again).
        attempts.insert(attempts.begin() + at, std::move(record));
        ++extraRounds;
        beforeRaise = NAN;
        continue;
      }
      // Nothing narrower than all of them: the steps below decide, and
      // this round's record goes before the bisection's runs.
      recordAt = at;
    }
    if (lastRound) {
      // No round met the budget (the prediction kept missing, as a max-abs
      // budget on errors that concentrate in a few outputs can): rather
      // than a model over budget, one more round with no op the budget
      // may move off f32, which computes what the FP32 reference does.
      for (size_t index = 0; index < numOps; ++index)
        keepF32.insert(index);
      record["raised_to_f32"] = static_cast<int64_t>(contributors.size());
      record["last_resort"] = true;
      pushRecord();
      lastResort = true;
      ++extraRounds;
      continue;
    }
    if (!inF8.empty() && f8StepBacks < 2) {
      // f8's error model (independent roundings, the calibrated amax as
      // the scale) is the least certain: step the f8 ops with the largest
      // predicted shares (half of them, then all) back to 16 bits before
      // touching the rest.
      SmallVector<int64_t> f8Ops;
      for (auto &c : contributors)
        if (inF8.contains(c.second))
          f8Ops.push_back(c.second);
      size_t count = f8StepBacks++ == 0 ? (f8Ops.size() + 1) / 2 : f8Ops.size();
      for (size_t k = 0; k < count; ++k)
        noF8.insert(f8Ops[k]);
      record["f8_stepped_back"] = static_cast<int64_t>(count);
      pushRecord();
      continue;
    }
    if (recalibrations < 2 && round->predicted > 0 &&
        worst > options.tolerance && std::isfinite(worst)) {
      ++recalibrations;
      // Predicted `predicted`, measured `worst`: aim the next prediction at
      // 0.8 tau / (worst / predicted).
      margin *= std::min(0.8 * options.tolerance / worst, 0.8);
      pushRecord();
      continue;
    }
    // Raise the largest predicted contributors to f32 and try again.
    double fraction =
        kDemote[std::min<size_t>(demotions++, std::size(kDemote) - 1)];
    size_t count = std::max<size_t>(
        1, static_cast<size_t>(std::ceil(contributors.size() * fraction)));
    for (size_t k = 0; k < count && k < contributors.size(); ++k)
      keepF32.insert(contributors[k].second);
    beforeRaise = worst;
    record["raised_to_f32"] = static_cast<int64_t>(count);
    pushRecord();
  }
  return Error::success();
}

/// Where the rounds (and the artifact) are measured: the validation
/// inputs, else the calibration inputs.
std::string validationDirOf(const MixedPrecisionOptions &options) {
  return options.validation.empty() ? options.calibration : options.validation;
}

Expected<std::vector<HostInputs>>
readValidationSets(const MixedPrecisionOptions &options) {
  auto sets = readInputSets(validationDirOf(options));
  if (!sets)
    return llvm::createStringError("validation: " +
                                   llvm::toString(sets.takeError()));
  return sets;
}

Error checkOptions(const MixedPrecisionOptions &options) {
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
  if (!(options.errorFloor >= 0))
    return llvm::createStringError(
        "--error-floor must be positive, got " +
        llvm::formatv("{0}", options.errorFloor).str());
  if (options.bisectionRuns < 0)
    return llvm::createStringError("--bisection-runs must be 0 or more, got " +
                                   std::to_string(options.bisectionRuns));
  if (options.errorFloor > 0 && options.metric == "max-abs")
    return llvm::createStringError(
        "--error-floor is rel-l2's floor; max-abs errors are absolute already");
  return Error::success();
}

} // namespace

namespace {

/// The flow's work that does not depend on the budget: the analyses'
/// annotated module, the validation inputs and the FP32 reference on them.
/// A rerun under a tighter budget (compileWithPrecision) starts from it.
struct PrecisionAnalysis {
  /// Every evaluation of the flow (analysis, reference, rounds) decodes the
  /// same weights once.
  std::unique_ptr<EvaluatorConstantCache> decodedConstants;
  OwningOpRef<ModuleOp> analyzed;
  std::string analysisText; // its passes, as pipeline elements
  std::string validationDir;
  std::vector<HostInputs> sets;
  OutputSets reference;
  std::string referenceEngine;
  std::vector<double> floors; // rel-l2's, by output
  std::vector<std::string> zeroOutputs;
  double analysisSeconds = 0, referenceSeconds = 0;
};

/// The analysis passes on a copy of `fp32`, into `analysis`.
Error runAnalyses(ModuleOp fp32, const MixedPrecisionOptions &options,
                  PrecisionAnalysis &analysis) {
  auto pipeline = precisionPipelineOptions(options);
  if (!pipeline)
    return pipeline.takeError();
  analysis.analyzed = fp32.clone();
  PassManager passes(fp32.getContext());
  buildPrecisionAnalysisPipeline(passes, **pipeline);
  analysis.analysisText = pipelineElements(passes);
  return runPhase(passes, *analysis.analyzed, "precision analysis", options);
}

/// Seed vectors a re-analysis takes where the first round measured over 4x
/// the prediction. One vector of random signs estimates each op's energy
/// from one draw; where the outputs' error lies in a few directions (a
/// softmax whose rows are nearly all saturated: its error is a +-a pair in
/// the one or two rows that are not, which a pair of equal signs cancels),
/// that draw can be near zero (ppocr_rec_v6s: 3.1e-6 predicted, 8.1e-4
/// measured; with 4 vectors 1.0e-3).
constexpr unsigned kRecheckSeeds = 4;

/// Whether the analysis of `analyzed` estimated its energies from fewer
/// than kRecheckSeeds random seed vectors.
bool fewRandomSeeds(ModuleOp analyzed) {
  auto metric = analyzed->getAttrOfType<DictionaryAttr>("dsmp.error_metric");
  if (!metric)
    return false;
  auto exact = metric.getAs<BoolAttr>("exact_seeds");
  auto vectors = metric.getAs<IntegerAttr>("seed_vectors");
  return exact && vectors && !exact.getValue() &&
         vectors.getInt() < static_cast<int64_t>(kRecheckSeeds);
}

Expected<PrecisionAnalysis>
analyzePrecision(ModuleOp fp32, const MixedPrecisionOptions &options) {
  if (Error err = checkOptions(options))
    return std::move(err);
  auto start = std::chrono::steady_clock::now();
  PrecisionAnalysis analysis;
  analysis.decodedConstants =
      std::make_unique<EvaluatorConstantCache>(fp32.getContext());
  if (Error err = runAnalyses(fp32, options, analysis))
    return std::move(err);
  analysis.analysisSeconds = secondsSince(start);

  analysis.validationDir = validationDirOf(options);
  auto sets = readValidationSets(options);
  if (!sets)
    return sets.takeError();
  analysis.sets = std::move(*sets);
  auto referenceStart = std::chrono::steady_clock::now();
  TimingScope referenceTimer = phase(
      options, "validation (FP32 run)",
      llvm::formatv("FP32 reference on {0} input set(s)", analysis.sets.size())
          .str());
  auto reference =
      runOnSets(*analysis.analyzed, analysis.sets, &analysis.referenceEngine);
  referenceTimer.stop();
  if (!reference)
    return llvm::createStringError("validation (FP32 run): " +
                                   llvm::toString(reference.takeError()));
  analysis.reference = std::move(*reference);
  analysis.floors = errorFloors(*analysis.analyzed, analysis.reference,
                                options.errorFloor, analysis.zeroOutputs);
  analysis.referenceSeconds = secondsSince(referenceStart);
  return analysis;
}

/// The rounds under `options.tolerance` from `analysis` (which they leave
/// as it was, but for a re-analysis with more seed vectors), and the report.
Expected<MixedPrecisionResult>
assignFormats(ModuleOp fp32, PrecisionAnalysis &analysis,
              const MixedPrecisionOptions &options) {
  if (Error err = checkOptions(options))
    return std::move(err);
  bool maxAbs = options.metric == "max-abs";
  auto pipeline = precisionPipelineOptions(options);
  if (!pipeline)
    return pipeline.takeError();
  OwningOpRef<ModuleOp> &analyzed = analysis.analyzed;
  const std::vector<HostInputs> *sets = &analysis.sets;
  const std::vector<double> &floors = analysis.floors;
  auto policy = std::make_unique<RoundPolicy>(
      *analyzed, **pipeline, options, *sets, analysis.reference, floors);
  policy->stopWhenUnderPredicted = fewRandomSeeds(*analyzed);
  auto roundsStart = std::chrono::steady_clock::now();
  if (Error err = policy->run())
    return std::move(err);
  // The first round measured over 4x the prediction, estimated from few
  // random seed vectors: analyze again with more (kRecheckSeeds) and run
  // the rounds from there. The analysis keeps the better estimate for a
  // rerun under a tighter budget.
  json::Array earlierAttempts;
  std::optional<json::Object> reanalysis;
  double reanalysisSeconds = 0;
  if (policy->underPredicted) {
    auto reanalysisStart = std::chrono::steady_clock::now();
    MixedPrecisionOptions more = options;
    more.sensitivitySeeds = kRecheckSeeds;
    reanalysis = json::Object{
        {"seed_vectors", static_cast<int64_t>(kRecheckSeeds)},
        {"first_predicted_error", policy->final.predicted},
        {"first_measured_error", policy->final.measurement.worst()}};
    if (Error err = runAnalyses(fp32, more, analysis))
      return std::move(err);
    auto next = std::make_unique<RoundPolicy>(
        *analyzed, **pipeline, options, *sets, analysis.reference, floors);
    next->reuseMeasurements(*policy);
    earlierAttempts = std::move(policy->attempts);
    policy = std::move(next);
    reanalysisSeconds = secondsSince(reanalysisStart);
    analysis.analysisSeconds += reanalysisSeconds;
    if (Error err = policy->run())
      return std::move(err);
  }
  RoundPolicy &rounds = *policy;
  double roundsSeconds = secondsSince(roundsStart) - reanalysisSeconds;
  auto summaryStart = std::chrono::steady_clock::now();
  Round &final = rounds.final;

  json::Array carrierNames;
  for (const json::Value &v : final.ops)
    if (v.getAsObject()->getString("reason") == StringRef("bisection"))
      carrierNames.push_back(*v.getAsObject()->getString("name"));

  MixedPrecisionResult result;
  result.met = rounds.met;
  result.module = std::move(final.module);
  // rel-l2's floors go into the artifact's manifest, so that dsmprt-run
  // --compare judges outputs as the budget was measured.
  if (!maxAbs)
    result.errorFloors = floors;
  result.reference = analysis.reference;
  // The final round's assignment options make the printed pipeline.
  (*pipeline)->margin = final.margin;
  (*pipeline)->keepF32Ops = ArrayRef<int64_t>(final.keepF32);
  (*pipeline)->noF8Ops = ArrayRef<int64_t>(final.noF8);
  (*pipeline)->carrierOps = ArrayRef<int64_t>(final.carriers);
  PassManager assignment(fp32.getContext());
  buildPrecisionAssignmentPipeline(assignment, **pipeline);
  result.pipeline = analysis.analysisText + "," + pipelineElements(assignment);

  json::Object summary;
  summary["target"] = options.target;
  summary["tolerance"] = options.tolerance;
  summary["error_metric"] = options.metric;
  if (!maxAbs) {
    // rel-l2's floor per output, and where it came from.
    json::Object floorOf;
    for (auto [tensor, floor] : llvm::zip(result.reference.front(), floors))
      floorOf[tensor.name] = floor;
    summary["error_floor"] = std::move(floorOf);
    summary["error_floor_source"] =
        options.errorFloor > 0 ? "option" : "calibration range";
    // Zero on every calibration input: its error is absolute, against the
    // floor (dsmp-compile warns).
    json::Array zero;
    for (const std::string &name : analysis.zeroOutputs)
      zero.push_back(name);
    summary["outputs_zero_on_calibration"] = std::move(zero);
  }
  summary["margin"] = options.margin;
  summary["met"] = result.met;
  // The rounds missed the budget and the model kept every op the budget
  // could choose in f32.
  summary["last_resort"] = rounds.lastResort;
  summarizeFlops(final.ops, summary);
  InputShapes shapes = shapesOf(sets->front());
  TimingScope summaryTimer = phase(options, "summary");
  auto before = footprint(fp32, shapes);
  auto after = footprint(*result.module, shapes);
  if (!before || !after)
    return llvm::createStringError(
        "memory footprint: " +
        llvm::toString(before ? after.takeError() : before.takeError()));
  // A model that computes in 16 bits itself was measured as its f32 lift
  // (dsmp-lift-16-bit); the bytes before are the model's own.
  summary["lifted_from_16_bit"] =
      (*analyzed)->hasAttr("dsmp.lifted_from_16_bit");
  summary["weight_bytes_before"] = before->weights;
  summary["weight_bytes_after"] = after->weights;
  summary["activation_bytes_before"] = before->peakActivations;
  summary["activation_bytes_after"] = after->peakActivations;
  summary["predicted_error"] = final.predicted;
  summary["measured_error"] = final.measurement.worst();
  json::Object perOutput;
  for (auto [name, error] :
       llvm::zip(final.measurement.names, final.measurement.error))
    perOutput[name] = error;
  summary["measured_error_per_output"] = std::move(perOutput);
  if (options.keepTop1)
    summary["top1_unchanged"] = final.measurement.top1Same;
  // Ops kept in f32 because no analysis measured them (a branch no
  // calibration set takes, an op the adjoint cannot reach): counted, so
  // that a silent FP32 share shows.
  json::Array unmeasured;
  (*result.module)->walk([&](Operation *op) {
    if (auto reason = op->getAttrOfType<StringAttr>("dsmp.reason"))
      if (reason.getValue() == "no_sensitivity")
        unmeasured.push_back(nodeName(op));
  });
  summary["ops_without_sensitivity"] = static_cast<int64_t>(unmeasured.size());
  summary["ops_without_sensitivity_names"] = std::move(unmeasured);
  summary["validation"] = analysis.validationDir;
  // "evaluate": the reference evaluator, rounding each op to its format;
  // "compile": an LLVM build for the host (ops the evaluator cannot hold).
  summary["validation_engine"] = rounds.validationEngine;
  summary["reference_engine"] = analysis.referenceEngine;
  summary["validated_on_calibration_data"] = options.validation.empty();
  summary["calibration"] = options.calibration;
  summary["analysis_seconds"] = analysis.analysisSeconds;
  // Where the flow's time goes (bench/precision prints it in units of one
  // onnxruntime run): the analyses' forward + adjoint, the FP32 reference
  // on the validation sets, the rounds (assignment, casts, validation run
  // each), and this summary (sizes at the input shapes).
  summary["phase_seconds"] =
      json::Object{{"analysis", analysis.analysisSeconds},
                   {"fp32_reference", analysis.referenceSeconds},
                   {"rounds", roundsSeconds},
                   {"summary", secondsSince(summaryStart)}};
  summary["rounds"] =
      static_cast<int64_t>(earlierAttempts.size() + rounds.attempts.size());
  if (reanalysis)
    summary["reanalysis"] = std::move(*reanalysis);
  if (rounds.bisectionRuns > 0)
    // A missed round whose error the prediction did not place, the runs
    // that searched for it and the ops found carrying it (none: no half
    // alone met the budget).
    summary["bisection"] =
        json::Object{{"runs", static_cast<int64_t>(rounds.bisectionRuns)},
                     {"measured_error", rounds.bisectedMeasured},
                     {"predicted_error", rounds.bisectedPredicted},
                     {"carriers", std::move(carrierNames)}};
  // The flow that made this result: the analysis (once, however many
  // budgets it served) and this budget's rounds.
  summary["total_seconds"] = analysis.analysisSeconds +
                             analysis.referenceSeconds +
                             secondsSince(roundsStart) - reanalysisSeconds;
  // Ops the adjoint stopped at, and those it crossed by a forward estimate
  // (no VJP model: ForwardEstimate.h).
  for (StringRef key : {"adjoint_stopped_at", "adjoint_estimated_at"})
    if (auto list =
            (*analyzed)->getAttrOfType<ArrayAttr>(("dsmp." + key).str())) {
      json::Array names;
      for (Attribute a : list)
        names.push_back(cast<StringAttr>(a).str());
      summary[key] = std::move(names);
    }
  auto expected = readOutputSets(analysis.validationDir);
  if (!expected) {
    llvm::consumeError(expected.takeError());
  } else if (expected->size() == sets->size()) {
    // How far the assigned model is from the stored reference outputs
    // (onnxruntime's, in the shared test data).
    json::Object fromStored;
    const Measurement &m = final.measurement;
    for (size_t o = 0; o < m.names.size(); ++o) {
      double worst = 0;
      for (size_t s = 0; s < expected->size(); ++s)
        for (const HostTensor &want : (*expected)[s])
          if (want.name == m.names[o])
            worst =
                std::max(worst, maxAbs ? maxAbsError(final.outputs[s][o], want)
                                       : relativeL2(final.outputs[s][o], want,
                                                    floors[o]));
      fromStored[m.names[o]] = worst;
    }
    summary["error_vs_stored_outputs"] = std::move(fromStored);
  }

  result.report["summary"] = std::move(summary);
  for (json::Value &attempt : rounds.attempts)
    earlierAttempts.push_back(std::move(attempt));
  result.report["attempts"] = std::move(earlierAttempts);
  result.report["ops"] = std::move(final.ops);
  return result;
}

} // namespace

Expected<MixedPrecisionResult>
runMixedPrecision(ModuleOp fp32, const MixedPrecisionOptions &options) {
  auto analysis = analyzePrecision(fp32, options);
  if (!analysis)
    return analysis.takeError();
  return assignFormats(fp32, *analysis, options);
}

/// The flow's budget for a rerun after the artifact missed tau, given
/// artifact/flow of each build so far. The artifact's error is a second
/// sample of the same rounding noise (over the three zoos' 91 artifact
/// runs, artifact/flow has a geometric mean of 0.98 and a log standard
/// deviation of 0.145), so one miss says the artifact's draw was high, not
/// that compiled code is worse: the first rerun aims at 0.9 tau x
/// flow/artifact where that is a small step, and at 0.82 tau at most (the
/// ratio's sigma then puts the artifact over tau about one time in ten, and
/// a rerun remains). A second miss hints at a real bias: the last rerun
/// aims at 0.9 tau over the geometric mean of the ratios seen.
static double rerunBudget(double tolerance,
                          llvm::ArrayRef<double> artifactOverFlow) {
  if (artifactOverFlow.size() < 2)
    return tolerance * std::max(0.82, 0.9 / artifactOverFlow.front());
  double logSum = 0;
  for (double ratio : artifactOverFlow)
    logSum += std::log(ratio);
  return 0.9 * tolerance / std::exp(logSum / artifactOverFlow.size());
}

/// The artifact in `outputDir` run on the validation input sets and
/// measured as the rounds measure the model (against the same FP32
/// reference, with the same floors); none, with `why`, where it cannot run
/// here (GPU kernels, another CPU, no variant for the validation shapes).
static Expected<std::optional<Measurement>>
measureArtifact(StringRef outputDir, const CompileOptions &compile,
                const MixedPrecisionOptions &options,
                const MixedPrecisionResult &result, std::string &why) {
  if (!compile.device.empty()) {
    why = "its kernels run on " + compile.device + ", not on this host";
    return std::nullopt;
  }
  if (compile.target.name != hostCPUTarget()) {
    why = "its code is for " + compile.target.name + " and this host is " +
          hostCPUTarget().str();
    return std::nullopt;
  }
  if (result.reference.empty())
    return std::nullopt;
  auto sets = readValidationSets(options);
  if (!sets)
    return sets.takeError();
  auto program = HostProgram::open(outputDir);
  if (!program)
    return llvm::createStringError(
        "the artifact '" + outputDir +
        "' does not load: " + llvm::toString(program.takeError()));
  OutputSets outputs;
  for (const HostInputs &set : *sets) {
    auto out = (*program)->run(set);
    if (!out) {
      why = "it does not run the validation inputs: " +
            llvm::toString(out.takeError());
      return std::nullopt;
    }
    // In the reference's order.
    std::vector<HostTensor> ordered;
    for (const HostTensor &want : result.reference.front()) {
      auto it = llvm::find_if(
          *out, [&](const HostTensor &t) { return t.name == want.name; });
      if (it == out->end())
        return llvm::createStringError("the artifact '" + outputDir +
                                       "' has no output '" + want.name + "'");
      ordered.push_back(std::move(*it));
    }
    outputs.push_back(std::move(ordered));
  }
  return measure(outputs, result.reference, options.metric == "max-abs",
                 result.errorFloors);
}

Expected<MixedPrecisionResult>
compileWithPrecision(StringRef modelPath, StringRef outputDir,
                     MixedPrecisionOptions options, CompileOptions compile,
                     StringRef reportPath, MLIRContext &context) {
  // Where the artifact goes is checked before the flow's work.
  if (Error err = checkArtifactOutput(outputDir, compile.force))
    return std::move(err);
  llvm::SmallString<256> modelDir(modelPath);
  llvm::sys::path::remove_filename(modelDir);
  options.weightsDir = modelDir.empty() ? "." : std::string(modelDir);
  // Weights stay in memory: the analyses read them and the cast folding
  // rewrites them in the low format.
  EvaluatorWarmUp warmUp; // overlaps with the import
  auto importStart = std::chrono::steady_clock::now();
  TimingScope importTimer = phase(options, "import");
  auto loaded = loadModel(modelPath, context, "");
  if (!loaded)
    return loaded.takeError();
  importTimer.stop();
  double importSeconds = secondsSince(importStart);
  if (compile.variants.empty()) {
    // One variant per distinct shape set of the calibration and validation
    // inputs: the artifact runs both (batch 1 and 2, say) with no flags.
    std::pair<StringRef, StringRef> dataSets[] = {
        {"calibration", options.calibration},
        {"validation", options.validation}};
    for (auto [role, dir] : dataSets) {
      if (dir.empty())
        continue;
      auto sets = readInputSets(dir);
      if (!sets)
        return llvm::createStringError(modelPath +
                                       ": precision analysis: " + role + ": " +
                                       llvm::toString(sets.takeError()));
      for (const HostInputs &set : *sets) {
        InputShapes shapes = shapesOf(set);
        bool known = llvm::any_of(compile.variants, [&](const InputShapes &v) {
          if (v.size() != shapes.size())
            return false;
          return llvm::all_of(shapes, [&](const auto &entry) {
            auto it = v.find(entry.getKey());
            return it != v.end() && it->second == entry.second;
          });
        });
        if (!known)
          compile.variants.push_back(std::move(shapes));
      }
    }
  }
  // Control flow (If) and recurrences (LSTM) resolve only with shapes and
  // fixed inputs: then the whole flow works on the graph specialized to the
  // calibration shapes (when the artifact is compiled for them), so every
  // op inside is analysed and assigned. Other graphs keep their dynamic dims
  // (the ONNX export stays as general as the model).
  func::FuncOp graph = lookupMainGraph(*loaded->module);
  FixedInputs fixedByData;
  if (options.fixBranchInputsByData) {
    auto byData = inputsFixedByData(
        graph, {options.calibration, options.validation}, compile.fixedInputs);
    if (!byData)
      return llvm::createStringError(modelPath + ": precision analysis: " +
                                     llvm::toString(byData.takeError()));
    fixedByData = std::move(*byData);
    for (const auto &entry : fixedByData)
      compile.fixedInputs[entry.getKey()] = entry.getValue();
  }
  bool structured = !compile.fixedInputs.empty();
  graph.walk([&](Operation *op) {
    structured |= isa<IfOp, LSTMOp, GRUOp, RNNOp>(op);
  });
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
  std::string specialized; // the step, when the flow starts with it
  if (structured && llvm::all_of(compile.variants, sameShapes)) {
    if (Error err =
            specializeGraph(*loaded->module, calibrationShapes, 1,
                            /*requireAllInputs=*/false, compile.fixedInputs))
      return llvm::createStringError(modelPath + ": " +
                                     llvm::toString(std::move(err)));
    PassManager step(&context);
    step.addPass(createSpecializeShapesPass(specializeShapesOptions(
        calibrationShapes, 1, false, compile.fixedInputs)));
    specialized = pipelineElements(step) + ",";
  } else if (Error err = fixInputValues(graph, compile.fixedInputs)) {
    return llvm::createStringError(modelPath + ": " +
                                   llvm::toString(std::move(err)));
  }
  // The flow measures its rounds in the evaluator; the artifact is compiled
  // code that sums in other orders, so single roundings land elsewhere and
  // its error is another sample (MobileNetV4-hybrid: 8.0e-3 in the flow,
  // 1.1e-2 from the artifact, tau 1e-2). Where the artifact runs here, it
  // is measured on the validation sets too, and a miss reruns the flow's
  // rounds under a budget tightened by how far the two differed (twice at
  // most).
  std::vector<std::string> *callerPipelines = compile.pipelines;
  std::vector<std::string> pipelines;
  Expected<MixedPrecisionResult> result = MixedPrecisionResult();
  MixedPrecisionOptions flow = options;
  json::Array artifactRuns;
  std::string artifactNotRun;
  std::optional<Measurement> artifactMeasured;
  bool artifactMet = true;
  std::vector<double> artifactOverFlow;
  // The analyses and the FP32 reference do not depend on the budget: a
  // rerun repeats only the rounds.
  auto analysis = analyzePrecision(*loaded->module, options);
  if (!analysis)
    return llvm::createStringError(modelPath + ": " +
                                   llvm::toString(analysis.takeError()));
  for (int tightening = 0;; ++tightening) {
    result = assignFormats(*loaded->module, *analysis, flow);
    if (!result)
      return llvm::createStringError(modelPath + ": " +
                                     llvm::toString(result.takeError()));
    result->pipeline = specialized + result->pipeline;
    TimingScope artifactTimer =
        phase(options, "artifact",
              llvm::formatv("artifact for {0}", compile.target.name).str());
    compile.precedingPipeline = result->pipeline;
    compile.errorFloors = result->errorFloors;
    compile.pipelines = &pipelines;
    pipelines.clear();
    if (Error err = compileModuleArtifact(*result->module, "",
                                          llvm::sys::path::filename(modelPath),
                                          outputDir, compile))
      return std::move(err);
    artifactTimer.stop();
    auto measured =
        measureArtifact(outputDir, compile, options, *result, artifactNotRun);
    if (!measured)
      return measured.takeError();
    artifactMeasured = std::move(*measured);
    if (!artifactMeasured)
      break;
    const json::Object &flowSummary = *result->report.getObject("summary");
    double flowError = flowSummary.getNumber("measured_error").value_or(0);
    double artifactError = artifactMeasured->worst();
    artifactRuns.push_back(
        json::Object{{"budget", flow.tolerance},
                     {"flow_measured_error", flowError},
                     {"artifact_measured_error", artifactError}});
    // A flow that measured no error at all computes what the FP32
    // reference does: the artifact then differs by FP32's own summation
    // order, which no format choice changes.
    artifactMet =
        !(flowError > 0) || (artifactError <= options.tolerance &&
                             (!options.keepTop1 || artifactMeasured->top1Same));
    if (artifactMet || !result->met || tightening == 2 ||
        !std::isfinite(artifactError))
      break;
    artifactOverFlow.push_back(artifactError / flowError);
    flow.tolerance = std::min(0.9 * flow.tolerance,
                              rerunBudget(options.tolerance, artifactOverFlow));
    if (options.progress)
      options.progress->phase(
          llvm::formatv("the artifact measured {0:e2} over the budget "
                        "{1:e2}: the rounds again under {2:e2}",
                        artifactError, options.tolerance, flow.tolerance)
              .str());
  }
  json::Object &summary = *result->report.getObject("summary");
  summary["artifact_cpu"] = compile.target.name;
  // The user's budget (a rerun flow's own is in artifact_validation.runs).
  summary["tolerance"] = options.tolerance;
  if (artifactMeasured) {
    result->met = result->met && artifactMet;
    summary["met"] = result->met;
    summary["artifact_measured_error"] = artifactMeasured->worst();
    json::Object perOutput;
    for (auto [name, error] :
         llvm::zip(artifactMeasured->names, artifactMeasured->error))
      perOutput[name] = error;
    summary["artifact_measured_error_per_output"] = std::move(perOutput);
    summary["artifact_validation"] =
        json::Object{{"ran", true}, {"runs", std::move(artifactRuns)}};
  } else {
    summary["artifact_validation"] =
        json::Object{{"ran", false}, {"reason", artifactNotRun}};
  }
  if (!fixedByData.empty()) {
    json::Object fixedJson;
    for (const auto &entry : fixedByData)
      fixedJson[entry.getKey().str()] = json::Array(entry.getValue());
    summary["inputs_fixed_by_data"] = std::move(fixedJson);
  }
  summary["model"] = modelPath.str();
  // Reading the ONNX file into the dialect, before total_seconds' flow.
  summary["import_seconds"] = importSeconds;
  // Each variant's whole pipeline: `dsmp-opt MODEL --pass-pipeline=...`
  // gives the same formats and the same LLVM dialect module.
  if (callerPipelines)
    *callerPipelines = pipelines;
  json::Array printed;
  for (std::string &text : pipelines)
    printed.push_back(std::move(text));
  summary["pipeline"] = std::move(printed);
  if (!reportPath.empty())
    if (Error err = writePrecisionReport(result->report, reportPath))
      return std::move(err);
  return result;
}

} // namespace mlir::dsmp
