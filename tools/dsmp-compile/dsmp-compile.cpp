//===- dsmp-compile.cpp - Ahead-of-time compiler ----------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
//   dsmp-compile MODEL.onnx|MODEL.mlir --target=x86_64|aarch64 -o DIR
//                [--shape NAME=D0xD1x...]... | [--shapes-from DIR]...
//                [--default-dim N] [--cpu CPU]
//   dsmp-compile MODEL --target=sm_80|sm_90|gfx90a|aarch64|... -o DIR
//                --tolerance=T --calibration=DIR [--validation=DIR]
//                [--report=FILE.json] [--export-onnx=FILE] [policy options]
//
// With --tolerance the precision flow chooses each op's format for the
// target (docs/precision.md); the artifact then runs those formats on the
// CPU (the target itself where it is a CPU, else the host, emulating).
//
// Writes an artifact folder: model.so, model.h (the C entry points),
// weights.bin and manifest.txt. Dynamic input dims are fixed at compile
// time: by --shape, else --default-dim (1). Each --shapes-from adds a
// variant for the shapes of one test-data folder; the runtime picks the
// variant whose shapes the caller binds.
//
//===----------------------------------------------------------------------===//

#include "dsmp/Driver/Artifact.h"
#include "dsmp/Driver/MixedPrecision.h"
#include "dsmp/Driver/Progress.h"
#include "dsmp/Driver/Training.h"
#include "dsmp/Execution/Evaluator.h"
#include "dsmp/Export/ONNXExporter.h"
#include "dsmp/InitAll.h"
#include "dsmp/Support/CommandLine.h"
#include "dsmp/Target/GPUTarget.h"
#include "dsmp/Target/TargetDescription.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <optional>

#ifdef __GLIBC__
#include <malloc.h>
#endif

using namespace mlir;

namespace {
llvm::cl::OptionCategory compileCategory("Compile");
llvm::cl::opt<std::string> modelPath(llvm::cl::Positional,
                                     llvm::cl::desc("<model.onnx|.mlir>"),
                                     llvm::cl::Required,
                                     llvm::cl::cat(compileCategory));
llvm::cl::opt<std::string> outputDir("o", llvm::cl::desc("Artifact folder"),
                                     llvm::cl::value_desc("dir"),
                                     llvm::cl::Required,
                                     llvm::cl::cat(compileCategory));
llvm::cl::opt<std::string>
    targetName("target",
               llvm::cl::desc("x86_64, aarch64, or a GPU: sm_80, sm_90, "
                              "gfx90a, gfx942 (see --codegen)"),
               llvm::cl::init("x86_64"), llvm::cl::cat(compileCategory));
llvm::cl::opt<std::string> codegen(
    "codegen",
    llvm::cl::desc("For a GPU --target: 'device' (kernels for that GPU, "
                   "launched by host code) or 'host' (the host CPU runs the "
                   "model, emulating the GPU's formats exactly). Default: "
                   "device, or host with --tolerance"),
    llvm::cl::value_desc("device|host"), llvm::cl::cat(compileCategory));
llvm::cl::opt<std::string>
    cpu("cpu",
        llvm::cl::desc("CPU to tune for ('native': the host's where the "
                       "host is the target, a portable baseline otherwise)"),
        llvm::cl::init("native"), llvm::cl::cat(compileCategory));
llvm::cl::list<std::string>
    shapeOptions("shape", llvm::cl::desc("Static shape of an input"),
                 llvm::cl::value_desc("name=D0xD1x..."),
                 llvm::cl::cat(compileCategory));
llvm::cl::list<std::string> variantShapes(
    "shapes-from",
    llvm::cl::desc("Add a variant for the input shapes of DIR/input_*.pb "
                   "(repeatable; the runtime picks the variant by shape)"),
    llvm::cl::value_desc("dir"), llvm::cl::cat(compileCategory));
llvm::cl::list<std::string> fixInputs(
    "fix-input",
    llvm::cl::desc("Compile for one value of an integer input (repeatable); "
                   "the runtime rejects any other value"),
    llvm::cl::value_desc("name=V[,V...]"), llvm::cl::cat(compileCategory));
llvm::cl::opt<bool>
    force("force",
          llvm::cl::desc("Replace an artifact folder at -o even when it holds "
                         "files dsmp did not write"),
          llvm::cl::init(false), llvm::cl::cat(compileCategory));
llvm::cl::opt<bool> profileCalls(
    "profile",
    llvm::cl::desc("Time every op the artifact runs: the runtime's profiler "
                   "reports per op time, FLOPs and format, and the share of "
                   "each format (dsmprt-run --profile; CPU code only)"),
    llvm::cl::init(false), llvm::cl::cat(compileCategory));
llvm::cl::opt<bool>
    quiet("quiet",
          llvm::cl::desc("No progress lines and no summary line (warnings "
                         "and errors still go to stderr)"),
          llvm::cl::init(false), llvm::cl::cat(compileCategory));
llvm::cl::opt<double> progressAfter(
    "progress-after",
    llvm::cl::desc("Write progress lines (phases, calibration runs) on "
                   "stderr once the compile has run this many seconds"),
    llvm::cl::init(2.0), llvm::cl::cat(compileCategory));
llvm::cl::opt<bool> printPipeline(
    "print-pipeline",
    llvm::cl::desc("Print, per variant, the whole pass pipeline of the compile "
                   "(with --tolerance: the analyses and the final round's "
                   "assignment too); `dsmp-opt MODEL --pass-pipeline=TEXT` "
                   "replays it"),
    llvm::cl::init(false), llvm::cl::cat(compileCategory));
llvm::cl::opt<int64_t>
    defaultDim("default-dim",
               llvm::cl::desc("Value of dynamic input dims not given by "
                              "--shape"),
               llvm::cl::init(1), llvm::cl::cat(compileCategory));
llvm::cl::list<int64_t> batchSizes(
    "batch-sizes",
    llvm::cl::desc("When the model computes each sample of its first dim "
                   "alone, also compile these batch sizes, so that the "
                   "artifact runs any batch in slices of them (default "
                   "1,8; 0: only the given shapes, and no dynamic variant "
                   "unless --dynamic-variant=always)"),
    llvm::cl::CommaSeparated, llvm::cl::cat(compileCategory));
llvm::cl::opt<mlir::dsmp::CompileOptions::DynamicVariant> dynamicVariant(
    "dynamic-variant",
    llvm::cl::desc("Also compile a variant whose dynamic dims are sized at "
                   "run time (docs/dynamic-shapes.md)"),
    llvm::cl::values(
        clEnumValN(mlir::dsmp::CompileOptions::DynamicVariant::Auto, "auto",
                   "when an input has a dynamic dim the batch split does "
                   "not cover and the model lowers with it (default)"),
        clEnumValN(mlir::dsmp::CompileOptions::DynamicVariant::Always, "always",
                   "for every dynamic input dim; fail if the model "
                   "needs static shapes"),
        clEnumValN(mlir::dsmp::CompileOptions::DynamicVariant::Never, "never",
                   "static variants only")),
    llvm::cl::init(mlir::dsmp::CompileOptions::DynamicVariant::Auto),
    llvm::cl::cat(compileCategory));

llvm::cl::OptionCategory precision("Precision (with --tolerance)");
llvm::cl::opt<double> tolerance(
    "tolerance",
    llvm::cl::desc("Choose formats so that each output's error against FP32 "
                   "(relative L2, or see --error-metric) stays within this "
                   "budget"),
    llvm::cl::init(0.0), llvm::cl::cat(precision));
llvm::cl::opt<std::string>
    calibration("calibration",
                llvm::cl::desc("Calibration inputs: a folder of input_*.pb or "
                               "of test_data_set_* folders"),
                llvm::cl::value_desc("dir"), llvm::cl::cat(precision));
llvm::cl::opt<std::string> validation(
    "validation",
    llvm::cl::desc("Held-out inputs the budget is checked on (default: the "
                   "calibration inputs)"),
    llvm::cl::value_desc("dir"), llvm::cl::cat(precision));
llvm::cl::opt<std::string>
    reportPath("report",
               llvm::cl::desc("Write the precision report (JSON, and HTML "
                              "beside it; '-': the JSON alone on stdout)"),
               llvm::cl::value_desc("file.json"), llvm::cl::cat(precision));
llvm::cl::opt<std::string> exportPath(
    "export-onnx",
    llvm::cl::desc("Also write the model with its formats as ONNX "
                   "(Cast nodes, Q/DQ pairs for f8, 16- or 8-bit weights)"),
    llvm::cl::value_desc("file.onnx"), llvm::cl::cat(precision));
llvm::cl::opt<std::string>
    emitMlir("emit-mlir",
             llvm::cl::desc("Also write the model with its formats as dsmp IR"),
             llvm::cl::value_desc("file.mlir"), llvm::cl::cat(precision));
llvm::cl::list<std::string> targetFeatures(
    "target-features",
    llvm::cl::desc("Target features that add formats (+bf16 on aarch64, "
                   "+avx512bf16 on x86_64)"),
    llvm::cl::CommaSeparated, llvm::cl::cat(precision));
llvm::cl::opt<std::string> defaultFormat(
    "default-format",
    llvm::cl::desc("16-bit format to prefer: auto (f16 unless it overflows), "
                   "f16 or bf16"),
    llvm::cl::init("auto"), llvm::cl::cat(precision));
llvm::cl::list<std::string>
    denyOps("deny-ops", llvm::cl::desc("Op types (ONNX names) kept in FP32"),
            llvm::cl::CommaSeparated, llvm::cl::cat(precision));
llvm::cl::list<std::string> allowOps(
    "allow-ops",
    llvm::cl::desc("Op types removed from the default FP32 list (Exp, Log, "
                   "Pow, Softmax, reductions, normalizations, Sqrt, ...)"),
    llvm::cl::CommaSeparated, llvm::cl::cat(precision));
llvm::cl::opt<std::string>
    sensitiveLayers("sensitive-layers",
                    llvm::cl::desc("Regex of node names kept in FP32"),
                    llvm::cl::cat(precision));
llvm::cl::opt<bool> keepTop1(
    "keep-top1",
    llvm::cl::desc("Also require each output row's arg-max to stay the same"),
    llvm::cl::init(false), llvm::cl::cat(precision));
llvm::cl::opt<double>
    margin("margin",
           llvm::cl::desc("Fraction of the budget the predicted error may use"),
           llvm::cl::init(0.5), llvm::cl::cat(precision));
llvm::cl::opt<unsigned> sensitivitySeeds(
    "sensitivity-seeds",
    llvm::cl::desc("Random vectors the sensitivity adjoint is seeded with "
                   "(one backward pass each; more give a steadier "
                   "prediction)"),
    llvm::cl::init(1), llvm::cl::cat(precision));
llvm::cl::opt<std::string> errorMetric(
    "error-metric",
    llvm::cl::desc("What --tolerance bounds: rel-l2 (each output's relative "
                   "L2 error, the default) or max-abs (the largest absolute "
                   "error of any output element)"),
    llvm::cl::init("rel-l2"), llvm::cl::cat(precision));
llvm::cl::opt<double> errorFloor(
    "error-floor",
    llvm::cl::desc("rel-l2's absolute floor, in the outputs' units: each "
                   "output's error is |y' - y| / max(|y|, floor * sqrt(n)), "
                   "so one that is (near) zero in FP32 is judged by its "
                   "absolute RMS error (default: per output, 1e-3 of its "
                   "largest magnitude on the calibration data, at least "
                   "2^-14)"),
    llvm::cl::init(0), llvm::cl::cat(precision));
llvm::cl::opt<int> maxRetries(
    "max-retries",
    llvm::cl::desc("Validation rounds that raise precision, at most"),
    llvm::cl::init(4), llvm::cl::cat(precision));
llvm::cl::opt<int> bisectionRuns(
    "bisection-runs",
    llvm::cl::desc("Validation runs, at most, that search for the ops "
                   "carrying an error the prediction missed (0: none)"),
    llvm::cl::init(8), llvm::cl::cat(precision));
llvm::cl::opt<bool> keepBranches(
    "keep-branches",
    llvm::cl::desc("Keep every branch of an If on an integer input that has "
                   "one value in all the data (by default the input is "
                   "fixed to it, as --fix-input; the other branches, never "
                   "measured, would stay f32)"),
    llvm::cl::cat(precision));

llvm::cl::OptionCategory training("Training (--train)");
llvm::cl::opt<bool>
    train("train",
          llvm::cl::desc("Compile a training step instead: ART/train_step, "
                         "eval_step and predict, with the model's float "
                         "initializers as FP32 master weights"),
          llvm::cl::cat(training));
llvm::cl::opt<std::string> lossName("loss",
                                    llvm::cl::desc("cross_entropy or mse"),
                                    llvm::cl::init("cross_entropy"),
                                    llvm::cl::cat(training));
llvm::cl::opt<std::string> optimizerName(
    "optimizer",
    llvm::cl::desc("adam, adamw, sgd or sgd,momentum (--momentum, 0.9)"),
    llvm::cl::init("adam"), llvm::cl::cat(training));
llvm::cl::opt<double> momentum("momentum",
                               llvm::cl::desc("SGD's momentum (sgd,momentum)"),
                               llvm::cl::init(0.9), llvm::cl::cat(training));
llvm::cl::opt<double>
    learningRate("learning-rate",
                 llvm::cl::desc("The trainers' default learning rate"),
                 llvm::cl::init(1e-3), llvm::cl::cat(training));
llvm::cl::opt<double> weightDecay(
    "weight-decay",
    llvm::cl::desc("L2 (adam, sgd) or decoupled decay (adamw, 0.01)"),
    llvm::cl::init(-1), llvm::cl::cat(training));
llvm::cl::opt<int64_t> trainBatch("batch", llvm::cl::desc("Samples per step"),
                                  llvm::cl::init(32), llvm::cl::cat(training));
llvm::cl::opt<std::string> trainable(
    "trainable",
    llvm::cl::desc("Regex of the initializers to train (default: all)"),
    llvm::cl::cat(training));
llvm::cl::opt<bool> emitGradients(
    "emit-gradients",
    llvm::cl::desc("train_step also returns each weight's unscaled "
                   "gradient as NAME:grad (for checking them)"),
    llvm::cl::cat(training));
llvm::cl::opt<bool> faultInjection(
    "fault-injection",
    llvm::cl::desc("train_step also takes gradient_fault, one value per "
                   "weight added to its gradient (tests of the loss scaler)"),
    llvm::cl::cat(training));
llvm::cl::opt<bool> monitorStep(
    "monitor",
    llvm::cl::desc("Also compile train_step_monitor, which returns each "
                   "weight's gradient statistics (the runtime's monitor)"),
    llvm::cl::cat(training));
llvm::cl::opt<bool> fallbackLayers(
    "fallback",
    llvm::cl::desc("Carry an FP32 variant of every layer, chosen at run time "
                   "(the runtime's per-layer fallback); implies --monitor"),
    llvm::cl::cat(training));
llvm::cl::opt<std::string> optimizerPrecision(
    "optimizer-precision",
    llvm::cl::desc("fp32 or bf16: the optimizer state's format"),
    llvm::cl::init("fp32"), llvm::cl::cat(training));

/// How long a host artifact that emulates a GPU target's formats runs
/// against the FP32 build of the same model on the same host: the median
/// and range of bench/emulation.sh (sm_80, 2026-12-04: resnet18 1.0x,
/// mobilenet_v2 1.6x, tiny_bert 0.9x, digits_cnn 1.1x; docs/precision.md).
constexpr const char *kEmulationSlowdown = "about 1.1x (0.9-1.6x)";

int fail(const llvm::Twine &message) {
  llvm::errs() << "dsmp-compile: error: " << message << "\n";
  return 1;
}
} // namespace

/// --shape NAME=D0xD1x... (each occurrence) into `shapes`; the error, or
/// "".
std::string parseShapes(mlir::dsmp::InputShapes &shapes) {
  for (const std::string &text : shapeOptions) {
    auto [name, dims] = llvm::StringRef(text).rsplit('=');
    if (dims.empty() && !llvm::StringRef(text).contains('='))
      return "--shape '" + text + "': expected NAME=D0xD1x...";
    SmallVector<int64_t> shape;
    SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef part : parts) {
      int64_t d;
      if (part.getAsInteger(10, d) || d < 0)
        return "--shape '" + text + "': '" + part.str() +
               "' is not a dimension";
      shape.push_back(d);
    }
    shapes[name] = shape;
  }
  return "";
}

/// dsmp-compile MODEL --train: the training artifact
/// (include/dsmp/Driver/Training.h). --default-format is the precision
/// config's default (fp32, tf32, fp16, bf16), --target names the format
/// table; the code runs on this host's CPU.
int trainMain(DialectRegistry &registry) {
  mlir::dsmp::TrainingCompileOptions options;
  options.loss = lossName;
  llvm::StringRef optimizer = optimizerName.getValue();
  if (optimizer.consume_back(",momentum"))
    options.momentum = momentum;
  options.optimizer = optimizer.str();
  options.learningRate = learningRate;
  options.weightDecay = weightDecay;
  options.batch = trainBatch;
  options.trainable = trainable;
  options.defaultFormat =
      defaultFormat == "auto" ? "fp32" : defaultFormat.getValue();
  if (!sensitiveLayers.empty())
    options.sensitiveLayers = {sensitiveLayers};
  options.optimizerPrecision = optimizerPrecision;
  options.emitTrainStep = emitMlir;
  options.emitGradients = emitGradients;
  options.faultInjection = faultInjection;
  options.monitor = monitorStep;
  options.fallback = fallbackLayers;
  // The code runs on this host; the formats are those of --target's table
  // (sm_80 unless given), emulated exactly.
  options.target =
      targetName.getNumOccurrences() ? targetName.getValue() : "sm_80";
  if (options.optimizer != "adam" && options.optimizer != "adamw" &&
      options.optimizer != "sgd")
    return fail("unknown optimizer '" + optimizerName +
                "' (adam, adamw, sgd, sgd,momentum)");
  if (options.loss != "cross_entropy" && options.loss != "mse")
    return fail("unknown loss '" + lossName + "' (cross_entropy, mse)");
  if (optimizerPrecision != "fp32" && optimizerPrecision != "bf16")
    return fail("--optimizer-precision is fp32 or bf16, not '" +
                optimizerPrecision + "'");
  if (!mlir::dsmp::getTargetDescription(options.target))
    return fail("unknown target '" + options.target + "'");
  // A CPU target's code runs there (aarch64: under qemu here); a GPU's
  // formats are emulated on this host.
  auto cpuTarget = mlir::dsmp::lookupCPUTarget(options.target, cpu);
  if (!cpuTarget) {
    llvm::Triple host(llvm::sys::getProcessTriple());
    cpuTarget = mlir::dsmp::lookupCPUTarget(
        host.getArch() == llvm::Triple::aarch64 ? "aarch64" : "x86_64", cpu);
  }
  if (!cpuTarget)
    return fail("no CPU target for this host");
  options.artifact.target = *cpuTarget;
  options.artifact.force = force;
  options.artifact.profile = profileCalls;
  if (std::string error = parseShapes(options.shapes); !error.empty())
    return fail(error);
  std::vector<std::string> warnings;
  options.warnings = &warnings;
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  mlir::dsmp::Progress progress("dsmp-compile", !quiet, progressAfter);
  progress.attach(context);
  progress.phase("compile the training step");
  if (llvm::Error err = mlir::dsmp::compileTrainingArtifact(
          modelPath, outputDir, options, context))
    return fail(llvm::toString(std::move(err)));
  progress.finish();
  for (const std::string &warning : warnings)
    llvm::errs() << "dsmp-compile: warning: " << warning << "\n";
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  ::dsmp::installVersionPrinter();
  // --mlir-print-ir-after=PASS, --mlir-pass-statistics, ...: a compile
  // looked at pass by pass, like dsmp-opt.
  DialectRegistry registry;
  mlir::dsmp::registerAll(registry); // first: the options name passes
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions(); // --mlir-timing
  // --mlir-disable-threading (also keeps LLVM code generation on one thread)
  mlir::registerMLIRContextCLOptions();
  // --help lists dsmp's options; LLVM's and MLIR's (--mlir-print-ir-*, ...)
  // are still accepted (--help-hidden lists them).
  llvm::cl::HideUnrelatedOptions({&compileCategory, &precision, &training});
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "dsmp ahead-of-time compiler\n\n"
      "  MLIR's pass-manager options work too: --mlir-print-ir-after=PASS,\n"
      "  --mlir-print-ir-after-all, --mlir-pass-statistics, --mlir-timing,\n"
      "  --mlir-disable-threading, ...\n");

  if (train)
    return trainMain(registry);
  // Before any work: -o must be a place an artifact may go, and an
  // interrupted compile leaves no partial folder behind.
  if (llvm::Error err = mlir::dsmp::checkArtifactOutput(outputDir, force))
    return fail(llvm::toString(std::move(err)));
  mlir::dsmp::removeStagingFoldersOnInterrupt();
  bool precisionFlow = tolerance.getNumOccurrences() > 0;
  if (errorFloor.getNumOccurrences() && !(errorFloor > 0))
    return fail("--error-floor must be positive (an absolute error in the "
                "outputs' units), got " +
                llvm::formatv("{0}", errorFloor.getValue()).str());
  // Budgets that are legal but almost surely a slip (1e2 for 1e-2).
  if (precisionFlow && errorMetric == "rel-l2" && tolerance > 1)
    llvm::errs() << "dsmp-compile: warning: --tolerance="
                 << llvm::format("%g", tolerance.getValue())
                 << " lets each output's error exceed the output itself "
                    "(relative L2 above 1): no op needs f32 for it\n";
  if (precisionFlow && tolerance > 0 && tolerance < 1e-6)
    llvm::errs() << "dsmp-compile: warning: --tolerance="
                 << llvm::format("%g", tolerance.getValue())
                 << " is near f32's own rounding (6e-8 per op): expect "
                    "almost every op to stay in f32\n";
  // The analyses' evaluator set-up overlaps with everything before them.
  std::optional<mlir::dsmp::EvaluatorWarmUp> warmUp;
  if (precisionFlow)
    warmUp.emplace();
#ifdef __GLIBC__
  // The flow allocates and frees tensors of the weights' size over and
  // over; glibc maps each one above 32 MB afresh and faults its pages in
  // again (resnet34's flow: -15 %). A short-lived compiler keeps them.
  if (precisionFlow) {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  }
#endif
  mlir::dsmp::CompileOptions options;
  // A GPU target's formats run on the host CPU until GPU code generation
  // exists; a CPU target runs its own.
  std::string cpuName = targetName;
  if (!codegen.empty() && codegen != "device" && codegen != "host")
    return fail("--codegen is 'device' or 'host', not '" + codegen + "'");
  auto gpu = mlir::dsmp::lookupGPUTarget(targetName);
  if (!codegen.empty() && !gpu)
    return fail("--codegen is for a GPU --target (" +
                mlir::dsmp::knownGPUTargets() + "), not '" + targetName + "'");
  bool deviceCode =
      gpu && (codegen.empty() ? !precisionFlow : codegen == "device");
  if (deviceCode && profileCalls)
    return fail("--profile times the code that runs on the CPU; '" +
                targetName +
                "' kernels run asynchronously on the GPU (use "
                "--codegen=host with --tolerance to profile its formats "
                "emulated, or the GPU vendor's profiler)");
  if (deviceCode) {
    if (llvm::Error err = mlir::dsmp::checkGPUToolkit(*gpu))
      return fail(llvm::toString(std::move(err)));
    options.device = targetName;
  }
  if ((deviceCode || precisionFlow) &&
      !mlir::dsmp::lookupCPUTarget(targetName, cpu)) {
    auto description = mlir::dsmp::getTargetDescription(targetName);
    if (!description)
      return fail(llvm::toString(description.takeError()));
    // The host code (device code), or the emulation of the formats.
    llvm::Triple host(llvm::sys::getProcessTriple());
    cpuName = host.getArch() == llvm::Triple::aarch64 ? "aarch64" : "x86_64";
  }
  auto target = mlir::dsmp::lookupCPUTarget(cpuName, cpu);
  if (!target) {
    if (mlir::dsmp::getTargetDescription(targetName))
      return fail("--codegen=host emulates the formats that --tolerance "
                  "chooses for '" +
                  targetName +
                  "': give --tolerance and --calibration, or drop "
                  "--codegen=host for kernels that run on it");
    return fail("unknown target '" + targetName +
                "' (known: " + mlir::dsmp::knownCPUTargets() + ", " +
                mlir::dsmp::knownGPUTargets() + ")");
  }
  options.target = *target;
  options.force = force;
  options.profile = profileCalls;
  if (!precisionFlow &&
      (!calibration.empty() || !reportPath.empty() || !exportPath.empty()))
    return fail("--calibration, --report and --export-onnx need --tolerance");
  if (defaultDim < 1)
    return fail("--default-dim must be at least 1");
  options.defaultDim = defaultDim;
  options.dynamicVariant = dynamicVariant;
  if (dynamicVariant == mlir::dsmp::CompileOptions::DynamicVariant::Always &&
      (deviceCode || profileCalls))
    return fail("--dynamic-variant=always: a dynamic variant runs on the CPU "
                "and is not profiled");
  if (batchSizes.getNumOccurrences()) {
    options.batchSizes.clear();
    for (int64_t size : batchSizes) {
      if (size < 0 || (size == 0 && batchSizes.size() > 1))
        return fail("--batch-sizes takes sizes of at least 1, or 0 alone");
      if (size > 0)
        options.batchSizes.push_back(size);
    }
  }
  if (!shapeOptions.empty() && !variantShapes.empty())
    return fail("give either --shape or --shapes-from, not both");
  for (const std::string &dir : variantShapes) {
    auto shapes = mlir::dsmp::readInputShapes(dir);
    if (!shapes)
      return fail(llvm::toString(shapes.takeError()));
    options.variants.push_back(std::move(*shapes));
  }
  mlir::dsmp::InputShapes given;
  if (std::string error = parseShapes(given); !error.empty())
    return fail(error);
  if (!given.empty())
    options.variants.push_back(std::move(given));
  for (const std::string &text : fixInputs)
    if (llvm::Error err =
            mlir::dsmp::parseFixedInput(text, options.fixedInputs))
      return fail(llvm::toString(std::move(err)));

  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Phases on stderr once the compile has run --progress-after seconds
  // (none with --quiet).
  mlir::dsmp::Progress progress("dsmp-compile", !quiet, progressAfter);
  progress.attach(context);
  std::vector<std::string> pipelines;
  if (printPipeline)
    options.pipelines = &pipelines;
  // Why a model with a dynamic first dim does not run any batch.
  std::string batchNote;
  options.batchNote = &batchNote;
  // Why a model with dynamic dims has no dynamic variant.
  std::string dynamicNote;
  options.dynamicNote = &dynamicNote;
  auto noteBatch = [&] {
    if (!batchNote.empty() && !quiet)
      llvm::errs() << "dsmp-compile: note: " << outputDir
                   << " runs only the shapes it was compiled for, not any "
                      "batch: "
                   << batchNote << "\n";
    if (!dynamicNote.empty() && !quiet)
      llvm::errs() << "dsmp-compile: note: " << outputDir
                   << " has no variant for dynamic dims (it runs the shapes "
                      "of its static variants): "
                   << dynamicNote << "\n";
  };
  if (!precisionFlow) {
    progress.phase("compile for " +
                   (deviceCode ? targetName : options.target.name));
    if (llvm::Error err =
            mlir::dsmp::compileArtifact(modelPath, outputDir, options, context))
      return fail(llvm::toString(std::move(err)));
    progress.finish();
    noteBatch();
    for (const std::string &text : pipelines)
      llvm::outs() << text << "\n";
    return 0;
  }

  mlir::dsmp::MixedPrecisionOptions mp;
  mp.target = targetName;
  mp.features.assign(targetFeatures.begin(), targetFeatures.end());
  mp.tolerance = tolerance;
  mp.metric = errorMetric;
  mp.errorFloor = errorFloor;
  mp.keepTop1 = keepTop1;
  mp.calibration = calibration;
  mp.validation = validation;
  mp.defaultFormat = defaultFormat;
  mp.denyOps.assign(denyOps.begin(), denyOps.end());
  mp.allowOps.assign(allowOps.begin(), allowOps.end());
  mp.sensitiveLayers = sensitiveLayers;
  mp.margin = margin;
  mp.maxRetries = maxRetries;
  mp.bisectionRuns = bisectionRuns;
  mp.fixBranchInputsByData = !keepBranches;
  mp.sensitivitySeeds = sensitivitySeeds;
  mp.progress = &progress;
  // --mlir-timing: each phase's wall time (passes nested), printed at exit.
  mlir::DefaultTimingManager timing;
  mlir::applyDefaultTimingManagerCLOptions(timing);
  mlir::TimingScope rootTimer = timing.getRootScope();
  if (timing.isEnabled())
    mp.timing = &rootTimer;
  // The report is written below, once, with the export's facts in it.
  auto result = mlir::dsmp::compileWithPrecision(modelPath, outputDir, mp,
                                                 options, "", context);
  if (!result)
    return fail(llvm::toString(result.takeError()));
  if (!exportPath.empty())
    progress.phase("export-onnx");
  progress.finish();
  noteBatch();
  llvm::json::Object *summary = result->report.getObject("summary");
  if (!emitMlir.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(emitMlir, ec);
    if (ec)
      return fail("cannot write '" + emitMlir + "': " + ec.message());
    result->module->print(os);
  }
  if (!exportPath.empty()) {
    mlir::TimingScope exportTimer = rootTimer.nest("export-onnx");
    OwningOpRef<ModuleOp> exported(result->module->clone());
    std::vector<mlir::dsmp::WidenedNode> widened;
    mlir::dsmp::ONNXExportOptions exportOptions;
    exportOptions.widened = &widened;
    auto bytes = mlir::dsmp::exportONNXModel(*exported, exportOptions);
    if (!bytes)
      return fail(llvm::toString(bytes.takeError()));
    std::error_code ec;
    llvm::raw_fd_ostream os(exportPath, ec, llvm::sys::fs::OF_None);
    if (ec)
      return fail("cannot write '" + exportPath + "': " + ec.message());
    os << *bytes;
    // The report says which nodes the file computes in f32 (same values:
    // dsmp computes them in f32 too and rounds the result).
    llvm::json::Array nodes;
    for (const auto &w : widened) {
      nodes.push_back(llvm::json::Object{
          {"node", w.node}, {"op_type", w.opType}, {"missing_type", w.type}});
      llvm::errs() << "dsmp-compile: note: " << exportPath << ": node '"
                   << w.node << "' (" << w.opType << ") runs in f32 between "
                   << "Casts: ONNX opset " << exportOptions.opset << " "
                   << w.opType << " has no " << w.type << "\n";
    }
    (*summary)["onnx_export"] =
        llvm::json::Object{{"file", exportPath.getValue()},
                           {"opset", exportOptions.opset},
                           {"computed_in_f32", std::move(nodes)}};
  }
  if (!reportPath.empty())
    if (llvm::Error err =
            mlir::dsmp::writePrecisionReport(result->report, reportPath))
      return fail(llvm::toString(std::move(err)));
  // With --report=- stdout holds the JSON alone; the rest goes to stderr.
  llvm::raw_ostream &os = reportPath == "-" ? llvm::errs() : llvm::outs();
  for (const std::string &text : pipelines)
    os << text << "\n";
  if (const llvm::json::Array *zero =
          summary->getArray("outputs_zero_on_calibration")) {
    const llvm::json::Object *floors = summary->getObject("error_floor");
    for (const llvm::json::Value &name : *zero) {
      llvm::StringRef text = name.getAsString().value_or("");
      llvm::errs() << "dsmp-compile: warning: output '" << text
                   << "' is zero on every calibration input: its error is "
                      "judged as absolute RMS error against the floor "
                   << llvm::format("%g",
                                   floors ? floors->getNumber(text).value_or(0)
                                          : 0.0)
                   << " (--error-floor sets it)\n";
    }
  }
  if (const llvm::json::Object *byData =
          summary->getObject("inputs_fixed_by_data"))
    for (const auto &[name, values] : *byData) {
      std::string text;
      if (const llvm::json::Array *list = values.getAsArray())
        for (const llvm::json::Value &v : *list)
          text += (text.empty() ? "" : ",") +
                  std::to_string(v.getAsInteger().value_or(0));
      llvm::errs() << "dsmp-compile: warning: the graph branches on input '"
                   << name.str() << "', which is " << text
                   << " in every calibration and validation set: compiled "
                      "for that value (as --fix-input "
                   << name.str() << "=" << text
                   << "; the artifact rejects another); --keep-branches "
                      "keeps the other branches, in f32\n";
    }
  if (int64_t unmeasured =
          summary->getInteger("ops_without_sensitivity").value_or(0)) {
    const llvm::json::Array *names =
        summary->getArray("ops_without_sensitivity_names");
    std::string first;
    for (size_t i = 0; names && i < std::min<size_t>(names->size(), 3); ++i)
      first += (i ? ", '" : "'") +
               (*names)[i].getAsString().value_or("").str() + "'";
    llvm::errs()
        << "dsmp-compile: warning: " << unmeasured
        << " ops stay f32 because no analysis measured their "
           "sensitivity (first: "
        << first
        << "); the report lists them (ops_without_sensitivity_names)\n";
  }
  if (quiet)
    return result->met ? 0 : 1;
  // The prediction missed and bisection found where the error was.
  const llvm::json::Object *bisection = summary->getObject("bisection");
  if (const llvm::json::Array *carriers =
          bisection ? bisection->getArray("carriers") : nullptr;
      carriers && !carriers->empty()) {
    std::string names;
    for (const llvm::json::Value &name : *carriers)
      names += (names.empty() ? "'" : ", '") +
               name.getAsString().value_or("").str() + "'";
    llvm::errs() << llvm::formatv(
        "dsmp-compile: note: a round measured {0:E2} where {1:E2} was "
        "predicted; bisection ({2} validation runs) found the error carried "
        "by {3}, kept in f32\n",
        bisection->getNumber("measured_error").value_or(0),
        bisection->getNumber("predicted_error").value_or(0),
        bisection->getInteger("runs").value_or(0), names);
  }
  // The host runs a GPU target's formats in software, op by op.
  if (cpuName != targetName && !deviceCode)
    llvm::errs() << "dsmp-compile: note: " << outputDir << " runs on "
                 << cpuName << " and emulates " << targetName
                 << "'s formats exactly, in software: expect it "
                 << kEmulationSlowdown
                 << " the time of an FP32 build on this host "
                    "(--codegen=device compiles the GPU's own kernels)\n";
  // The artifact itself, run on the validation inputs (where this host
  // runs it), and the reruns a miss of it cost.
  std::string artifactText;
  if (auto artifactError = summary->getNumber("artifact_measured_error")) {
    artifactText = llvm::formatv(", the artifact {0:E2}", *artifactError);
    const llvm::json::Object *check = summary->getObject("artifact_validation");
    const llvm::json::Array *runs = check ? check->getArray("runs") : nullptr;
    if (runs && runs->size() > 1)
      llvm::errs() << llvm::formatv(
          "dsmp-compile: note: the artifact measured {0:E2} over the budget "
          "where the flow measured {1:E2}; the flow's rounds ran again under a "
          "tighter budget ({2} runs)\n",
          runs->front()
              .getAsObject()
              ->getNumber("artifact_measured_error")
              .value_or(0),
          runs->front()
              .getAsObject()
              ->getNumber("flow_measured_error")
              .value_or(0),
          runs->size());
  }
  double f8 = summary->getNumber("f8_flop_share").value_or(0);
  os << llvm::formatv(
      "{0}: {1} on {2}: {8} FLOP share {3:P1}{9}, predicted error {4:E2}, "
      "measured {5:E2}{11} (budget {6:E2}{10}{7})\n",
      llvm::sys::path::filename(modelPath), targetName, options.target.name,
      summary->getNumber("low_precision_flop_share").value_or(0),
      summary->getNumber("predicted_error").value_or(0),
      summary->getNumber("measured_error").value_or(0), tolerance.getValue(),
      !result->met ? ", NOT met"
      : summary->getBoolean("last_resort").value_or(false)
          ? ", met by keeping every op the budget chooses in f32 after "
            "the rounds missed it"
          : ", met",
      f8 > 0 ? "16/8-bit" : "16-bit",
      f8 > 0 ? llvm::formatv(" ({0:P1} in f8)", f8).str() : std::string(),
      errorMetric == "max-abs" ? " max-abs" : "", artifactText);
  return result->met ? 0 : 1;
}
