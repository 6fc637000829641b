#!/usr/bin/env python3
"""The profiler on resnet18 compiled for sm_80's formats (--tolerance 0.01,
emulated on this CPU) with --profile, checked against independent sources:

- the JSON is strict (no NaN or Infinity);
- each op's format is the one the precision report chose for its node;
- each Conv and Gemm's FLOPs are 2 x its multiply-adds (and a Gemm's
  bias adds), from the ONNX model's own shapes (onnx shape inference),
  times the runs;
- the times add up: the ops' times <= the time inside timed calls <= the
  runs' time <= the wall time Python measured around them;
- the convolutions, 95 % of the FLOPs, take most of the time.

    check_profile.py MODEL.onnx ARTIFACT REPORT.json INPUTS_DIR
"""
import json
import sys
import time

import onnx
from onnx import numpy_helper, shape_inference

import dsmp

model_path, artifact, report_path, inputs_dir = sys.argv[1:5]
runs = 5


def no_constants(name):
    raise ValueError(f"not strict JSON: {name}")


module = dsmp.load(artifact)
tensor = onnx.load_tensor(inputs_dir + "/input_0.pb")
inputs = {module.input_names[0]: numpy_helper.to_array(tensor)}
module.run(inputs)  # warm-up, not profiled
module.profile(reset=True)
start = time.perf_counter()
for _ in range(runs):
    module.run(inputs)
wall = time.perf_counter() - start
# The runtime's own text, parsed strictly.
profile = json.loads(module._model.profile_json(), parse_constant=no_constants)
report = json.load(open(report_path))
print(f"runs {profile['runs']} (expected {runs})")

# Formats: the report's choice per node (its ops are the model's nodes).
chosen = {op["name"]: op["format"] for op in report["ops"]}
named = [op for op in profile["ops"] if op["name"] in chosen and
         op["type"] == next(r["op_type"] for r in report["ops"]
                            if r["name"] == op["name"])]
wrong = [(op["name"], op["format"], chosen[op["name"]]) for op in named
         if op["format"] != chosen[op["name"]]]
print(f"formats: {len(named)} ops of the report, {len(wrong)} differ {wrong[:3]}")

# FLOPs from the ONNX shapes, at the input's shape.
onnx_model = onnx.load(model_path)
for dim, size in zip(onnx_model.graph.input[0].type.tensor_type.shape.dim,
                     inputs[module.input_names[0]].shape):
    dim.Clear()
    dim.dim_value = size
inferred = shape_inference.infer_shapes(onnx_model)
shapes = {}
for v in list(inferred.graph.value_info) + list(inferred.graph.input) + \
        list(inferred.graph.output):
    shapes[v.name] = [d.dim_value for d in v.type.tensor_type.shape.dim]
for init in inferred.graph.initializer:
    shapes[init.name] = list(init.dims)


def onnx_flops(node):
    if node.op_type == "Conv":
        w, y = shapes[node.input[1]], shapes[node.output[0]]
        macs = 1
        for d in y:
            macs *= d
        for d in w[1:]:
            macs *= d
        return 2 * macs
    if node.op_type == "Gemm":  # (transA = 0 here) and one add per output for C
        a, y = shapes[node.input[0]], shapes[node.output[0]]
        return 2 * y[0] * y[1] * a[1] + (y[0] * y[1] if len(node.input) > 2 else 0)
    return None


checked, mismatched = 0, []
by_name = {(op["name"], op["type"]): op for op in profile["ops"]}
for node in inferred.graph.node:
    expected = onnx_flops(node)
    if expected is None:
        continue
    op = by_name[(node.name, node.op_type)]
    checked += 1
    if op["flops"] != expected * runs:
        mismatched.append((node.name, op["flops"], expected * runs))
print(f"flops: {checked} Conv/Gemm ops, {len(mismatched)} differ {mismatched[:3]}")

ops_time = sum(op["seconds"] for op in profile["ops"])
eps = 1e-9
print("times add up:", ops_time <= profile["timed_seconds"] + eps and
      profile["timed_seconds"] <= profile["seconds"] + eps and
      profile["seconds"] <= wall)
print(f"timed share over 90 %: {profile['timed_seconds'] > 0.9 * profile['seconds']}")
shares = {f["format"]: f for f in profile["formats"]}
print(f"FLOP shares sum to 1: {abs(sum(f['flop_share'] for f in profile['formats']) - 1) < 1e-6}")
conv_time = sum(op["seconds"] for op in profile["ops"] if op["type"] == "Conv")
print(f"convolutions take most of the time: {conv_time > 0.5 * profile['seconds']}")
print("formats:", sorted(shares))
