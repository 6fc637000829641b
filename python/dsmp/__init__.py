"""dsmp: a mixed-precision graph compiler for ONNX models.

    import dsmp, numpy as np
    module = dsmp.compile("model.onnx", target="x86_64",
                          shapes={"image": [1, 1, 8, 8]})
    outputs = module.run({"image": np.zeros((1, 1, 8, 8), np.float32)})

`compile` builds an artifact folder (model.so, model.h, weights.bin,
manifest.txt) with dsmp's compiler driver; `Module.run` runs it through the
runtime (libdsmprt). `load` opens an artifact that dsmp-compile wrote.
"""
import os
import shutil
import tempfile

import numpy as np

from ._dsmp import __version__
from ._dsmp import Model as _Model
from ._dsmp import compile_artifact as _compile_artifact
from ._dsmp import compile_with_precision as _compile_with_precision
from ._dsmp import PrecisionOptions as _PrecisionOptions

__all__ = ["compile", "load", "Module", "__version__"]


class Module:
    """A compiled model, ready to run on this host."""

    def __init__(self, artifact, owned=False):
        self.artifact = os.fspath(artifact)
        self._model = _Model(self.artifact)
        self._owned = owned

    @property
    def input_names(self):
        return self._model.input_names

    @property
    def output_names(self):
        return self._model.output_names

    @property
    def target(self):
        return self._model.target

    def run(self, inputs):
        """Runs the model on {input name: ndarray}; returns {output name:
        ndarray}. Raises ValueError on a wrong name, dtype or shape, or a
        missing input."""
        try:
            outputs = self._model.run(dict(inputs))
        except (RuntimeError, TypeError) as error:
            raise ValueError(str(error)) from None
        return outputs

    def __del__(self):
        if getattr(self, "_owned", False):
            self._model = None
            # The artifact and the temporary folder compile() made for it.
            shutil.rmtree(os.path.dirname(self.artifact), ignore_errors=True)


def compile(path, target="x86_64", shapes=None, output=None, tolerance=None,
            calibration=None, validation=None, report=None, default_format="auto",
            deny_ops=(), allow_ops=(), sensitive_layers="", fix_inputs=None,
            error_metric="rel-l2"):
    """Compiles an ONNX (or dsmp .mlir) model for `target` and returns a
    Module (when the artifact runs on this machine) that runs it.

    target: "x86_64" or "aarch64"; with `tolerance`, also a GPU target of
    the format table ("sm_80", "sm_90", "gfx90a", ...), whose formats the
    host then emulates exactly.
    shapes: {input name: shape} for dynamic inputs, or a list of such dicts,
    one compiled variant each (the runtime picks the variant by the shapes
    passed to run). Unnamed dynamic dims become 1.
    output: the artifact folder to write; a temporary one if None.
    tolerance: choose a format per op so that each output's relative L2
    error against FP32 stays within it (docs/precision.md), or with
    error_metric="max-abs" every output element's absolute error; needs
    `calibration` (a folder of input_*.pb or of test_data_set_* folders);
    `validation` (held-out inputs, default the calibration ones), `report`
    (a .json path; an .html page is written beside it), `default_format`,
    `deny_ops`/`allow_ops` (ONNX op types) and `sensitive_layers` (a regex
    of node names kept in FP32) as dsmp-compile's options of those names.
    Raises RuntimeError when the budget is not met.
    fix_inputs: {input name: value or list of values} of integer inputs to
    compile for one value (dsmp-compile --fix-input, e.g. {"sr": 16000} for
    silero_vad); running with another value is an error.
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
    if owned:
        output = os.path.join(tempfile.mkdtemp(prefix="dsmp-"), "artifact")
    host = "aarch64" if os.uname().machine in ("aarch64", "arm64") else "x86_64"
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
            _compile_with_precision(os.fspath(path), os.fspath(output), variants, options,
                                    os.fspath(report) if report else "", fixed)
            runs_here = target == host or target not in ("x86_64", "aarch64")
        else:
            _compile_artifact(os.fspath(path), os.fspath(output), target, variants, fixed)
            runs_here = target == host
    except BaseException:
        if owned:  # nothing of a failed compile stays in the temporary folder
            shutil.rmtree(os.path.dirname(output), ignore_errors=True)
        raise
    if not runs_here:
        return output  # a cross-compiled artifact: nothing to run here
    return Module(output, owned=owned)


def load(artifact):
    """Opens an artifact folder written by dsmp-compile or dsmp.compile."""
    return Module(artifact)
