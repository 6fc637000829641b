#!/usr/bin/env python3
"""Writes input sets of MODEL at given sizes of its symbolic dims, with
onnxruntime's outputs, in the test_data_set layout: one folder
OUT/<name><size>_... per SET.

A SET names the symbolic dims (ONNX dim_param) and their sizes, as
`batch=3,seq=7`; every symbolic dim of every input must be named. Float
inputs are standard normal; integer inputs (token ids, masks) are drawn
from the values the same input holds in STORED (a test_data_set folder),
or 0/1 without one, so the inputs stay valid for the model.

usage: dim_sets.py MODEL OUT SET [SET ...] [--stored DIR] [--seed N]"""
import argparse
import glob
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("out")
    parser.add_argument("sets", nargs="+")
    parser.add_argument("--stored")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    graph = onnx.load(args.model, load_external_data=False).graph
    initializers = {i.name for i in graph.initializer}
    inputs = [i for i in graph.input if i.name not in initializers]
    stored = {}
    if args.stored:
        for path in sorted(glob.glob(os.path.join(args.stored, "input_*.pb"))):
            tensor = onnx.TensorProto()
            with open(path, "rb") as f:
                tensor.ParseFromString(f.read())
            stored[tensor.name] = numpy_helper.to_array(tensor)
    session = ort.InferenceSession(args.model, providers=["CPUExecutionProvider"])
    for text in args.sets:
        sizes = {k: int(v) for k, v in (p.split("=") for p in text.split(","))}
        folder = os.path.join(
            args.out, "_".join(f"{k}{v}" for k, v in sorted(sizes.items())))
        os.makedirs(folder, exist_ok=True)
        feeds = {}
        for k, info in enumerate(inputs):
            tensor_type = info.type.tensor_type
            shape = []
            for d in tensor_type.shape.dim:
                if d.HasField("dim_value"):
                    shape.append(d.dim_value)
                elif d.dim_param in sizes:
                    shape.append(sizes[d.dim_param])
                else:
                    raise SystemExit(f"{info.name}: dim '{d.dim_param}' has no size in '{text}'")
            dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor_type.elem_type)
            if np.issubdtype(dtype, np.floating):
                value = rng.standard_normal(shape).astype(dtype)
            else:
                pool = np.unique(stored[info.name]) if info.name in stored else np.array([0, 1])
                value = rng.choice(pool, size=shape).astype(dtype)
            feeds[info.name] = value
            with open(os.path.join(folder, f"input_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(value, info.name).SerializeToString())
        results = session.run(None, feeds)
        for k, (info, value) in enumerate(zip(session.get_outputs(), results)):
            with open(os.path.join(folder, f"output_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(value, info.name).SerializeToString())


if __name__ == "__main__":
    main()
