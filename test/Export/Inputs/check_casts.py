#!/usr/bin/env python3
"""Checks test/Export/casts.mlir's exported model: onnx.checker, the Cast
nodes and initializer types, and onnxruntime's results against ml_dtypes
(bit-exact: rounding to nearest even, f8 values kept inside their range)."""
import sys

import ml_dtypes
import numpy as np
import onnx
import onnxruntime as ort

path = sys.argv[1]
model = onnx.load(path)
onnx.checker.check_model(model, full_check=True)
print("checker: ok")
name = onnx.TensorProto.DataType.Name
inferred = onnx.shape_inference.infer_shapes(model)
types = {v.name: v.type.tensor_type.elem_type for v in
         list(inferred.graph.value_info) + list(inferred.graph.input) +
         list(inferred.graph.initializer and [])}
types.update({i.name: i.data_type for i in model.graph.initializer})
for node in model.graph.node:
    if node.op_type == "Cast":
        to = next(a.i for a in node.attribute if a.name == "to")
        print(f"Cast to={name(to)}")
    elif node.op_type == "Mul":
        print("Mul inputs=" + ",".join(name(types[i]) for i in node.input))
for init in model.graph.initializer:
    print(f"initializer {init.name}: {name(init.data_type)}")

rng = np.random.default_rng(0)
x = (rng.standard_normal(64) * 4).astype(np.float32)
# ORT's graph optimizer removes Cast pairs around f16 ops it runs in f32 on
# the CPU, which changes the rounding; run the graph as written.
options = ort.SessionOptions()
options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
bf16, f16, e4m3, e5m2, table = session.run(None, {"x": x})


def report(label, got, want):
    ok = np.array_equal(got.view(np.uint32), want.astype(np.float32).view(np.uint32))
    print(f"{label}: {'exact' if ok else 'MISMATCH'}")


report("bf16 round trip", bf16, x.astype(ml_dtypes.bfloat16).astype(np.float32))
report("f16 round trip", f16, x.astype(np.float16).astype(np.float32))
report("f8E4M3FN round trip", e4m3,
       x.astype(ml_dtypes.float8_e4m3fn).astype(np.float32))
report("f8E5M2 round trip", e5m2,
       x.astype(ml_dtypes.float8_e5m2).astype(np.float32))
report("bf16 constant", table,
       np.array([1.0, 0.333333343, -2.5, 1000.0], np.float32)
       .astype(ml_dtypes.bfloat16).astype(np.float32))
