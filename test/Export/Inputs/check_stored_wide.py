#!/usr/bin/env python3
"""Checks test/Export/matmul-stored-wide.mlir's export: onnx.checker (full
check), the nodes in order (Casts with their source, destination and `to`;
others with their input/output element types), and onnxruntime's output
against a float64 numpy product of the f16-rounded operands (2e-6
relative: onnxruntime sums the exact f16 products in f32)."""
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

path = sys.argv[1]
model = onnx.load(path)
onnx.checker.check_model(model, full_check=True)
print("checker: ok")
name = onnx.TensorProto.DataType.Name
inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
types = {v.name: v.type.tensor_type.elem_type for v in
         list(inferred.graph.value_info) + list(inferred.graph.input) +
         list(inferred.graph.output)}
types.update({i.name: i.data_type for i in model.graph.initializer})
for node in model.graph.node:
    if node.op_type == "Cast":
        to = next(a.i for a in node.attribute if a.name == "to")
        print(f"Cast {node.input[0]} -> {node.output[0]} to={name(to)}")
    else:
        print(f"{node.op_type} {node.name} inputs="
              + ",".join(name(types[i]) for i in node.input if i)
              + " outputs=" + ",".join(name(types[o]) for o in node.output))

e = numpy_helper.to_array(next(i for i in model.graph.initializer if i.name == "e_f16"))
x = (np.random.default_rng(3).standard_normal((3, 8)) * 2).astype(np.float32)
got = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
want = x.astype(np.float16).astype(np.float64) @ e.astype(np.float64)
rel = np.linalg.norm(got - want) / np.linalg.norm(want)
print(f"relative error {rel:.2e}", "within 2e-6" if got.dtype == np.float32 and rel <= 2e-6
      else "OUT OF BOUNDS")
