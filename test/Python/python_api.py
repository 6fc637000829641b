#!/usr/bin/env python3
"""The dsmp Python package: dsmp.compile + Module.run against the stored
onnxruntime outputs of a shared model, variants by shape, dtypes, and the
errors a caller gets (ValueError naming the input) for bad input."""
import os
import sys

import numpy as np
import onnx
import onnx.numpy_helper as nh

import dsmp

models = sys.argv[1]
model = os.path.join(models, "digits_mlp", "model.onnx")
sets = [os.path.join(models, "digits_mlp", f"test_data_set_{k}") for k in (0, 1)]
load = lambda path: nh.to_array(onnx.load_tensor(path))
images = [load(os.path.join(s, "input_0.pb")) for s in sets]
logits = [load(os.path.join(s, "output_0.pb")) for s in sets]

module = dsmp.compile(model, target="x86_64",
                      shapes=[{"image": x.shape} for x in images])
print("inputs", module.input_names, "outputs", module.output_names, module.target)
print("specs", module.inputs, module.outputs)
for x, want in zip(images, logits):
    got = module.run({"image": x})["logits"]
    rel = float(np.abs(got - want).max() / np.abs(want).max())
    print(f"batch {x.shape[0]}: {got.dtype} {got.shape} rel {rel:.2e}",
          "ok" if rel <= 1e-5 else "MISMATCH")

# A non-contiguous float32 view is copied, not rejected.
got = module.run({"image": np.asfortranarray(images[1])})["logits"]
print("fortran-order input:", "ok" if np.allclose(got, logits[1], rtol=1e-5, atol=1e-5) else "MISMATCH")

for label, feeds in [("wrong name", {"img": images[1]}),
                     ("wrong shape", {"image": images[1][:3, :, :, :4]}),
                     ("wrong dtype", {"image": images[1].astype(np.float64)})]:
    try:
        module.run(feeds)
        print(label, "ACCEPTED")
    except ValueError as error:
        print(label, "->", error)

try:
    dsmp.compile(model, target="riscv")
except RuntimeError as error:
    print("unknown target ->", error)

# Cross-compiling returns a Module this host cannot run; it shows the
# artifact's tensors all the same.
arm = dsmp.compile(model, target="aarch64", output=os.path.join(sys.argv[2], "arm"))
print("aarch64 artifact:", sorted(os.listdir(arm.artifact)), arm.target, "runnable", arm.runnable,
      arm.inputs[0])
try:
    arm.run({"image": images[0]})
    print("aarch64 run ACCEPTED")
except RuntimeError as error:
    print("aarch64 run ->", error)

# Formats for an A100 within 1e-2, calibrated on set 0 and validated on set
# 1; the returned module runs them on the host (exact f16 emulation).
report = os.path.join(sys.argv[2], "precision.json")
folder = os.path.dirname(model)
mixed = dsmp.compile(model, target="sm_80", tolerance=1e-2,
                     calibration=os.path.join(folder, "test_data_set_0"),
                     validation=os.path.join(folder, "test_data_set_1"), report=report,
                     shapes=[{"image": x.shape} for x in images])
got = mixed.run({"image": images[1]})["logits"]
rel = float(np.linalg.norm(got - logits[1]) / np.linalg.norm(logits[1]))
import json
summary = json.load(open(report))["summary"]
print("report dict is the file:", mixed.report == json.load(open(report)))
print("precision:", module.precision, mixed.precision["formats_of"], mixed.precision["metric"],
      mixed.precision["tolerance"], sorted(mixed.precision["ops_per_format"]))
print(f"sm_80 formats: 16-bit share {summary['low_precision_flop_share']:.0%}, error {rel:.1e}",
      "ok" if 0 < rel <= 1e-2 else "MISMATCH")
# Recompiled into the folder a loaded module came from, in the same
# process: the new code runs (the runtime keeps each library it loaded
# mapped, so a changed one loads from a copy).
same = os.path.join(sys.argv[2], "same")
shapes = [{"image": x.shape} for x in images]
first = dsmp.compile(model, target="x86_64", output=same, shapes=shapes)
y_first = first.run({"image": images[1]})["logits"]
again = dsmp.compile(model, target="sm_80", tolerance=1e-2, output=same, shapes=shapes,
                     calibration=os.path.join(folder, "test_data_set_0"),
                     validation=os.path.join(folder, "test_data_set_1"))
y_again = again.run({"image": images[1]})["logits"]
print("recompiled in place:", "ok" if np.array_equal(y_again, got)
      and not np.array_equal(y_again, y_first) else "STALE")
# A budget on every logit's absolute error (error_metric="max-abs").
bounded = dsmp.compile(model, target="sm_80", tolerance=3e-2, error_metric="max-abs",
                       calibration=os.path.join(folder, "test_data_set_0"),
                       validation=os.path.join(folder, "test_data_set_1"),
                       shapes=[{"image": x.shape} for x in images])
worst = float(np.max(np.abs(bounded.run({"image": images[1]})["logits"] - logits[1])))
print(f"sm_80 max-abs: largest error {worst:.1e}", "ok" if 0 < worst <= 3e-2 + 1e-4 else "OVER")
try:
    dsmp.compile(model, target="sm_80", tolerance=1e-2, error_metric="linf",
                 calibration=folder)
except RuntimeError as error:
    print("unknown metric ->", error)
try:
    dsmp.compile(model, target="sm_80", tolerance=-1, calibration=folder)
except RuntimeError as error:
    print("negative tolerance ->", error)
# Every precision option of dsmp-compile; the report comes back with no
# path given, and no temporary folder outlives a compile or its Module.
import glob, tempfile
before = set(glob.glob(os.path.join(tempfile.gettempdir(), "dsmp-*")))
tuned = dsmp.compile(model, target="sm_80", tolerance=1e-2, margin=0.25, max_retries=1,
                     keep_top1=True, sensitivity_seeds=2, error_floor=0.5,
                     calibration=os.path.join(folder, "test_data_set_0"),
                     shapes=[{"image": x.shape} for x in images])
s = tuned.report["summary"]
print("options reach the report:", "top1_unchanged" in s, "seeds=2" in s["pipeline"][0],
      s["error_floor"], s["error_floor_source"])
try:
    dsmp.compile(model, target="sm_80", tolerance=1e-2, calibration=folder, error_floor=-1)
except ValueError as error:
    print("negative error floor ->", error)
try:
    tuned.run({"image": images[1][:3, :, :, :4]})
except ValueError as error:
    print("owned module error names the model:", "digits_mlp" not in str(error) and
          tempfile.gettempdir() not in str(error), str(error)[:60])
del tuned
print("temporary folders left:", len(set(glob.glob(os.path.join(tempfile.gettempdir(), "dsmp-*"))) - before))

# silero_vad branches on its sample rate: compiled for 16 kHz (fix_inputs),
# it matches onnxruntime's output; another rate is refused at run time.
vad_dir = os.path.join(models, "silero_vad_v5")
def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, nh.to_array(t)
feeds = dict(load_pb(os.path.join(vad_dir, "test_data_set_1", f"input_{k}.pb")) for k in range(3))
want = load_pb(os.path.join(vad_dir, "test_data_set_1", "output_0.pb"))[1]
vad = dsmp.compile(os.path.join(vad_dir, "model.onnx"), fix_inputs={"sr": 16000},
                   shapes={"input": feeds["input"].shape, "state": feeds["state"].shape})
got = vad.run(feeds)["output"]
print("silero_vad 16 kHz:", "ok" if np.allclose(got, want, rtol=1e-4, atol=1e-6) else "MISMATCH")
try:
    vad.run(dict(feeds, sr=np.array(8000, np.int64)))
    print("8 kHz ACCEPTED")
except (ValueError, RuntimeError) as error:
    print("8 kHz ->", error)

# Outputs of different dtypes each come back in their own: f32, int64 and
# bf16 (as ml_dtypes.bfloat16), whatever order they are in.
from onnx import TensorProto, helper
import ml_dtypes
x_info = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5])
mixed_outputs = helper.make_model(helper.make_graph(
    [helper.make_node("Cast", ["x"], ["index"], to=TensorProto.INT64, name="index"),
     helper.make_node("Relu", ["x"], ["relu"], name="relu"),
     helper.make_node("Cast", ["x"], ["narrow"], to=TensorProto.BFLOAT16, name="narrow")],
    "dtypes", [x_info],
    [helper.make_tensor_value_info("index", TensorProto.INT64, [2, 5]),
     helper.make_tensor_value_info("relu", TensorProto.FLOAT, [2, 5]),
     helper.make_tensor_value_info("narrow", TensorProto.BFLOAT16, [2, 5])]),
    opset_imports=[helper.make_opsetid("", 17)])
dtypes_path = os.path.join(sys.argv[2], "dtypes.onnx")
onnx.save(mixed_outputs, dtypes_path)
x = np.array([[0.5, -1.0, 3.25, 2.0, -0.125], [1.0, 7.0, -2.0, 0.0, 1.5]], np.float32)
got = dsmp.compile(dtypes_path).run({"x": x})
want = {"index": x.astype(np.int64), "relu": np.maximum(x, 0),
        "narrow": x.astype(ml_dtypes.bfloat16)}
for name in ("index", "relu", "narrow"):
    same = got[name].dtype == want[name].dtype and np.array_equal(got[name], want[name])
    print(f"output {name}: {got[name].dtype}", "ok" if same else f"MISMATCH {got[name]!r}")
