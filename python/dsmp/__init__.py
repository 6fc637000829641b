"""dsmp: a mixed-precision graph compiler for ONNX models.

    import dsmp, numpy as np
    module = dsmp.compile("model.onnx", target="x86_64",
                          shapes={"image": [1, 1, 8, 8]})
    outputs = module.run({"image": np.zeros((1, 1, 8, 8), np.float32)})

`compile` builds an artifact folder (model.so, model.h, weights.bin,
manifest.txt) with dsmp's compiler driver and returns a Module; `Module.run`
runs it through the runtime (libdsmprt). `load` opens an artifact that
dsmp-compile wrote. `MixedPrecisionTrainer` trains a model's weights in
mixed precision:

    trainer = dsmp.MixedPrecisionTrainer(
        "digits_cnn.onnx",
        precision_config={"default": "fp16", "sensitive_layers": [],
                          "optimizer_precision": "fp32"},
        loss_scale=1024, fresh_init=True, seed=0)
    trainer.train((images, labels), epochs=40, batch_size=64)
    print(trainer.evaluate((test_images, test_labels))["accuracy"])
"""
import collections
import json
import os
import shutil
import tempfile

import numpy as np

from ._dsmp import __version__
from ._dsmp import Model as _Model
from ._dsmp import compile_artifact as _compile_artifact
from ._dsmp import compile_with_precision as _compile_with_precision
from ._dsmp import PrecisionOptions as _PrecisionOptions
from ._dsmp import read_manifest as _read_manifest
from ._dsmp import Trainer as _Trainer

__all__ = ["compile", "load", "Module", "MixedPrecisionTrainer", "TensorSpec",
           "__version__"]


# The manifest's element type names as numpy's (bf16 is ml_dtypes').
_NUMPY_DTYPES = {"f32": "float32", "f64": "float64", "f16": "float16",
                 "bf16": "bfloat16", "i64": "int64", "i32": "int32",
                 "i16": "int16", "i8": "int8", "u64": "uint64", "u32": "uint32",
                 "u16": "uint16", "u8": "uint8", "bool": "bool"}

TensorSpec = collections.namedtuple("TensorSpec", "name dtype shapes any_batch",
                                    defaults=(False,))
TensorSpec.__doc__ = """An input or output: its name, numpy dtype name, the
shapes it has, one per compiled variant (-1 for a dim the dynamic variant
sizes at run time: docs/dynamic-shapes.md), and whether its first dim may
be any batch (the model computes each sample alone, and the runtime splits
a batch no variant has into slices of theirs)."""


def _host_target():
    return "aarch64" if os.uname().machine in ("aarch64", "arm64") else "x86_64"


class Module:
    """A compiled model: its artifact folder, tensors and (when dsmp.compile
    made it with a tolerance) its precision report; it runs on this host
    when its target's code does (`runnable`)."""

    def __init__(self, artifact, owned=False, report=None, source=None):
        self.artifact = os.fspath(artifact)
        self._owned = owned
        # Messages name the model, not a temporary folder the caller never saw.
        self._shown = os.path.basename(os.fspath(source)) if owned and source else None
        manifest = self._translate(_read_manifest, self.artifact)
        self.target = manifest["target"]
        # The GPU its kernels run on (a device artifact), else None.
        self.device = manifest.get("device")
        # A precision compile's budget and choices: {formats_of ("sm_80"),
        # metric, tolerance, ops_per_format}; None for a plain compile.
        self.precision = manifest.get("precision")
        self.report = report

        def specs(kind):
            variants = manifest["variants"]
            batched = manifest["batch_" + kind] or [False] * len(variants[0][kind])
            return [TensorSpec(name, _NUMPY_DTYPES.get(dtype, dtype),
                               [v[kind][i][2] for v in variants], batched[i])
                    for i, (name, dtype, _) in enumerate(variants[0][kind])]

        self.inputs = specs("inputs")
        self.outputs = specs("outputs")
        self.runnable = self.target == _host_target()
        # A device artifact loads where its GPU and driver are; elsewhere
        # run() raises why (no CUDA driver, no device, another GPU).
        self._unloadable = None
        self._model = None
        if self.runnable:
            try:
                self._model = self._translate(_Model, self.artifact)
            except RuntimeError as error:
                if self.device is None:
                    raise
                self.runnable = False
                self._unloadable = str(error)

    def _scrub(self, message):
        return message.replace(self.artifact, self._shown) if self._shown else message

    def _translate(self, call, *args):
        try:
            return call(*args)
        except RuntimeError as error:
            raise RuntimeError(self._scrub(str(error))) from None

    @property
    def input_names(self):
        return [t.name for t in self.inputs]

    @property
    def output_names(self):
        return [t.name for t in self.outputs]

    def run(self, inputs):
        """Runs the model on {input name: ndarray}; returns {output name:
        ndarray}. Raises ValueError on a wrong name, dtype or shape, or a
        missing input, and RuntimeError for an artifact of another CPU."""
        if self._unloadable:
            raise RuntimeError(self._unloadable)
        if not self.runnable:
            raise RuntimeError(f"the artifact is {self.target} code; this host runs "
                               f"{_host_target()} (copy {self.artifact} there and use "
                               "dsmp.load or dsmprt-run)")
        try:
            return self._model.run(dict(inputs))
        except (RuntimeError, TypeError, ValueError) as error:
            raise ValueError(self._scrub(str(error))) from None

    @property
    def profiled(self):
        """Whether the artifact times its ops (compile(..., profile=True))."""
        return self._model is not None and self._model.profiled

    def profile(self, reset=False):
        """The runs since load (or the last reset=True call) of an artifact
        compiled with profile=True: {runs, seconds, timed_seconds, flops,
        formats: [{format, ops, seconds, time_share, flops, flop_share}],
        ops: [{name, type, format, runs, seconds, time_share, flops}]}
        (docs/profiling.md); reset=True then starts a new profile."""
        if self._model is None:
            raise RuntimeError("the artifact does not run on this host")
        report = json.loads(self._translate(self._model.profile_json))
        if reset:
            self._model.reset_profile()
        return report

    def __del__(self):
        if getattr(self, "_owned", False):
            self._model = None
            # The artifact and the temporary folder compile() made for it.
            shutil.rmtree(os.path.dirname(self.artifact), ignore_errors=True)


def compile(path, target="x86_64", shapes=None, output=None, tolerance=None,
            calibration=None, validation=None, report=None, default_format="auto",
            deny_ops=(), allow_ops=(), sensitive_layers="", fix_inputs=None,
            error_metric="rel-l2", margin=None, max_retries=None, keep_top1=False,
            sensitivity_seeds=None, features=(), error_floor=None,
            bisection_runs=None, profile=False, keep_branches=False):
    """Compiles an ONNX (or dsmp .mlir) model for `target` and returns a
    Module over the artifact (`Module.runnable` says whether this host runs
    it: a cross-compiled one is there to copy).

    target: "x86_64" or "aarch64", or a GPU ("sm_80", "sm_90", "gfx90a",
    "gfx942"): kernels for it (`Module.device`), which run where its driver
    and GPU are; with `tolerance`, the host emulates that GPU's formats
    exactly instead.
    shapes: {input name: shape} for dynamic inputs, or a list of such dicts,
    one compiled variant each (the runtime picks the variant by the shapes
    passed to run). Unnamed dynamic dims become 1.
    output: the artifact folder to write; a temporary one (removed with the
    Module) if None.
    tolerance: choose a format per op so that each output's relative L2
    error against FP32 stays within it (docs/precision.md), or with
    error_metric="max-abs" every output element's absolute error; needs
    `calibration` (a folder of input_*.pb or of test_data_set_* folders).
    The other precision options are dsmp-compile's of the same names:
    `validation` (held-out inputs, default the calibration ones),
    `default_format`, `deny_ops`/`allow_ops` (ONNX op types),
    `sensitive_layers` (a regex of node names kept in FP32), `margin`,
    `max_retries`, `bisection_runs`, `keep_top1`, `sensitivity_seeds`, `features` ("+bf16")
    and `error_floor` (rel-l2's absolute floor; must be positive).
    The report is Module.report (a dict); `report` also writes it to a
    .json path (an .html page beside it). Raises RuntimeError when the
    budget is not met.
    fix_inputs: {input name: value or list of values} of integer inputs to
    compile for one value (dsmp-compile --fix-input, e.g. {"sr": 16000} for
    silero_vad); running with another value is an error. With `tolerance`,
    an integer input that an If branches on and that has one value in all
    the calibration and validation data is fixed to it the same way (the
    report's inputs_fixed_by_data says so) unless `keep_branches` is set:
    then the branches no data takes stay, in f32.
    profile: time every op the artifact runs (dsmp-compile --profile; CPU
    code only): Module.profile() reports per op time, FLOPs and format.
    """
    fixed = {k: [int(x) for x in (v if isinstance(v, (list, tuple)) else [v])]
             for k, v in (fix_inputs or {}).items()}
    if shapes is None:
        variants = []
    elif isinstance(shapes, dict):
        variants = [shapes]
    else:
        variants = list(shapes)
    variants = [{k: [int(d) for d in v] for k, v in s.items()} for s in variants]
    owned = output is None
    scratch = tempfile.mkdtemp(prefix="dsmp-")
    if owned:
        output = os.path.join(scratch, "artifact")
    output = os.fspath(output)
    summary = None
    try:
        if tolerance is not None:
            if calibration is None:
                raise ValueError("tolerance needs calibration (a folder of input_*.pb)")
            options = _PrecisionOptions()
            options.target = target
            options.tolerance = float(tolerance)
            options.metric = error_metric
            options.calibration = os.fspath(calibration)
            options.validation = os.fspath(validation) if validation else ""
            options.default_format = default_format
            options.deny_ops = list(deny_ops)
            options.allow_ops = list(allow_ops)
            options.sensitive_layers = sensitive_layers
            options.keep_top1 = bool(keep_top1)
            options.fix_branch_inputs_by_data = not keep_branches
            options.features = list(features)
            if margin is not None:
                options.margin = float(margin)
            if max_retries is not None:
                options.max_retries = int(max_retries)
            if bisection_runs is not None:
                options.bisection_runs = int(bisection_runs)
            if error_floor is not None:
                if not float(error_floor) > 0:
                    raise ValueError(f"error_floor must be positive, got {error_floor}")
                options.error_floor = float(error_floor)
            if sensitivity_seeds is not None:
                options.sensitivity_seeds = int(sensitivity_seeds)
            report_path = os.fspath(report) if report else os.path.join(scratch, "report.json")
            _compile_with_precision(os.fspath(path), output, variants, options,
                                    report_path, fixed, bool(profile))
            with open(report_path) as file:
                summary = json.load(file)
        else:
            _compile_artifact(os.fspath(path), output, target, variants, fixed,
                              bool(profile))
        module = Module(output, owned=owned, report=summary, source=path)
    except BaseException as error:
        # Nothing of a failed compile stays in the temporary folder, and no
        # message names it.
        shutil.rmtree(scratch, ignore_errors=True)
        if owned and isinstance(error, RuntimeError):
            raise RuntimeError(str(error).replace(output, os.path.basename(os.fspath(path)))) from None
        raise
    if not owned:
        shutil.rmtree(scratch, ignore_errors=True)
    return module


def load(artifact):
    """Opens an artifact folder written by dsmp-compile or dsmp.compile."""
    return Module(artifact)


class MixedPrecisionTrainer:
    """Trains an ONNX model's float initializers in mixed precision.

    precision_config: {"default": "fp32" | "tf32" | "fp16" | "bf16",
    "sensitive_layers": [node names or regexes kept in FP32],
    "optimizer_precision": "fp32" | "bf16", "target": "sm_80" (whose format
    table applies; the code runs on this CPU, formats emulated exactly),
    "precision_schedule": K (FP32 for the first K steps; 0: off),
    "loss_scale": "dynamic" or a number (default: dynamic for fp16, 1
    otherwise; the `loss_scale` argument says the same)}.

    The dynamic scale starts at 2^16, halves on a step whose gradients are
    not finite (that step is skipped: weights and optimizer state stay as
    they were) and doubles after 2000 clean steps; `scaler` overrides
    init_scale, growth_factor, backoff_factor, growth_interval, min_scale,
    max_scale and hysteresis. monitor={"every": N, "log": PATH} samples
    each weight's gradient (amax, the fraction that is zero in its format,
    inf and NaN counts) every N steps into a JSON-lines log; the
    precision_config's "monitor" key says the same.

    "fallback_threshold": t in (0, 1] turns on the per-layer FP32 fallback:
    every layer (a weight's contraction and the ops after it) is compiled
    in its format and in FP32; a layer that caused at least t of the last
    `fallback={"window": 20}` steps' overflows (its forward pass, which no
    loss scale fixes, or its gradients with the scale at its minimum), or
    whose format rounds at least t of its incoming gradient to zero with
    the scale at its maximum, runs FP32 from then on (or for
    fallback={"probation": N} steps). layer_formats(), fallback_events()
    and layer_stats() say what happened; the switches go to the monitor's
    log.

    profile=True times every op of the train steps: profile() reports per
    op time, FLOPs and format, each format's share of the time and FLOPs,
    and the steps, skipped steps and fallbacks (docs/profiling.md).

    The step is compiled (dsmp-compile --train) for one batch size: the
    first train() call's, or batch_size here; a later call with another
    batch size recompiles and carries the weights and optimizer state over.
    Data is (inputs, labels): inputs an array or a list of arrays (one per
    model input), samples along the first dim.
    """

    def __init__(self, model, precision_config=None, loss="cross_entropy",
                 optimizer="adam", learning_rate=1e-3, weight_decay=None,
                 momentum=0.0, batch_size=None, trainable="", loss_scale=None,
                 fresh_init=False, seed=0, shapes=None, verbose=True,
                 scaler=None, fault_injection=False, monitor=None,
                 fallback=None, profile=False):
        import warnings
        self.model = os.fspath(model)
        self.precision_config = dict(precision_config or {})
        layers = self.precision_config.get("sensitive_layers", [])
        if isinstance(layers, str):
            layers = [layers]
        self.precision_config["sensitive_layers"] = list(layers)
        if loss_scale is None:
            loss_scale = self.precision_config.pop("loss_scale", None)
        else:
            self.precision_config.pop("loss_scale", None)
        monitor = self.precision_config.pop("monitor", None) or monitor
        threshold = self.precision_config.pop("fallback_threshold", None)
        if threshold is not None and not 0 < float(threshold) <= 1:
            raise ValueError("fallback_threshold must be in (0, 1], got %r"
                             % (threshold,))
        fallback = dict(fallback or {})
        unknown = set(fallback) - {"window", "probation"}
        if unknown:
            raise ValueError("fallback: unknown setting(s) %s (window, "
                             "probation)" % ", ".join(sorted(unknown)))
        if loss_scale is None:
            fp16 = self.precision_config.get("default", "fp32") in ("fp16", "f16")
            loss_scale = "dynamic" if fp16 else 1.0
        self._options = {"loss": loss, "optimizer": optimizer,
                         "learning_rate": float(learning_rate),
                         "momentum": float(momentum), "trainable": trainable,
                         "loss_scale": loss_scale if isinstance(loss_scale, str)
                         else float(loss_scale),
                         "scaler": dict(scaler or {}),
                         "fault_injection": bool(fault_injection),
                         "monitor_every": int((monitor or {}).get("every", 0)),
                         "monitor_log": os.fspath((monitor or {}).get("log", "")),
                         "fallback_threshold": float(threshold or 0.0),
                         "fallback_window": int(fallback.get("window", 20)),
                         "fallback_probation": int(fallback.get("probation", 0)),
                         "profile": bool(profile),
                         "fresh_init": bool(fresh_init), "seed": int(seed),
                         "verbose": bool(verbose),
                         "shapes": {k: [int(d) for d in v]
                                    for k, v in (shapes or {}).items()}}
        if weight_decay is not None:
            self._options["weight_decay"] = float(weight_decay)
        self._warnings = warnings
        self._native = None
        if batch_size is not None:
            self._build(int(batch_size))

    def _build(self, batch_size):
        carried = None
        if self._native is not None:
            if self._native.batch_size == batch_size:
                return
            # Another batch size: a new step, the state carried over.
            fd, carried = tempfile.mkstemp(prefix="dsmp-carry-")
            os.close(fd)
            self._native.save(carried)
        options = dict(self._options, batch_size=batch_size)
        if carried:
            options["fresh_init"] = False
        try:
            native = _Trainer(self.model, self.precision_config, options)
            if carried:
                native.load(carried)
        finally:
            if carried:
                os.unlink(carried)
        if self._native is None:
            for message in native.warnings:
                self._warnings.warn(message, stacklevel=3)
        self._native = native

    @staticmethod
    def _split(data):
        inputs, labels = data
        if not isinstance(inputs, (list, tuple)):
            inputs = [inputs]
        return [np.asarray(x) for x in inputs], labels

    def _prepare(self, inputs, labels):
        # numpy's float64 and int defaults, as the step's f32 and i64.
        def fit(a):
            a = np.asarray(a)
            if a.dtype == np.float64:
                return a.astype(np.float32)
            if a.dtype.kind in "iu" and a.dtype != np.int64:
                return a.astype(np.int64)
            return a
        return [fit(x) for x in inputs], (None if labels is None else fit(labels))

    def train(self, data, epochs=1, batch_size=None):
        """Trains for `epochs` passes over (inputs, labels); returns one dict
        per epoch (loss, samples_per_second, steps, skipped)."""
        inputs, labels = self._prepare(*self._split(data))
        if batch_size is not None:
            self._build(int(batch_size))
        elif self._native is None:
            self._build(32)
        return self._native.train(inputs, labels, int(epochs))

    def _ready(self):
        if self._native is None:
            self._build(32)
        return self._native

    def evaluate(self, data):
        """Mean loss and top-1 accuracy (cross entropy) over every sample."""
        inputs, labels = self._prepare(*self._split(data))
        return self._ready().evaluate(inputs, labels)

    def predict(self, inputs):
        """The model's first output for each sample, as [samples, ...]."""
        if not isinstance(inputs, (list, tuple)):
            inputs = [inputs]
        inputs, _ = self._prepare(inputs, None)
        return self._ready().predict(inputs)

    def save(self, path):
        """Weights, optimizer state, step and config in one file, written
        atomically."""
        self._ready().save(os.fspath(path))

    def load(self, path):
        """Restores a checkpoint of this model; refuses another model's or a
        damaged one and leaves the weights as they were."""
        self._ready().load(os.fspath(path))

    def export_onnx(self, path):
        """The inference model with the trained weights."""
        self._ready().export_onnx(os.fspath(path))

    @property
    def step(self):
        """Optimizer steps applied (skipped ones do not count)."""
        return self._ready().step

    @property
    def loss_scale(self):
        return self._ready().loss_scale

    @property
    def skipped_steps(self):
        return self._ready().skipped_steps

    def gradient_stats(self):
        """The last monitored step's gradients, {weight: {amax,
        zero_fraction, inf, nan}} (monitor={"every": N, "log": path})."""
        return self._ready().gradient_stats()

    def restart(self, seed=0, weights=None):
        """A new run on the compiled step: fresh weights from `seed` (or
        `weights`, {initializer name: values}, for those it names), the
        optimizer state, step, loss scaler, fallbacks and monitor as new;
        no recompilation."""
        native = self._ready()
        native.restart(int(seed))
        for name, value in (weights or {}).items():
            native.set_weight(name, value)

    def layer_stats(self):
        """The last monitored or diagnosed step's layers: {layer: {format,
        amax, forward_nonfinite, gradient_nonfinite, underflow}}."""
        return self._ready().layer_stats()

    def layer_formats(self):
        """{layer: "16-bit" | "f32"}: which variant each layer runs now."""
        return self._ready().layer_formats()

    def profile(self, reset=False):
        """The train steps' profile since the start (or restart, or the last
        reset=True call): Module.profile()'s keys and training: {steps,
        skipped_steps, fallbacks}; needs profile=True."""
        native = self._ready()
        report = json.loads(native.profile_json())
        if reset:
            native.reset_profile()
        return report

    def fallback_events(self):
        """Every fallback and return so far: [{attempt, step, layer, action,
        reason, rate}]."""
        return self._ready().fallback_events()

    def force_layer_overflow(self, layer, factor=float("inf")):
        """Makes `layer`'s 16-bit variant overflow in every step (its
        contraction's result times `factor`, divided again: inf makes every
        value non-finite, 65504 those above 1) until called with factor 1;
        needs fault_injection=True and fallback_threshold."""
        self._ready().force_layer_overflow(layer, float(factor))

    def inject_fault(self, step, weight, value):
        """Adds `value` (inf, nan) to `weight`'s gradient in the step-th
        training step from now; needs fault_injection=True."""
        self._ready().inject_fault(int(step), weight, float(value))

    def weights(self):
        """{initializer name: current FP32 values}."""
        return self._ready().weights()

    def set_weight(self, name, value):
        self._ready().set_weight(name, value)
