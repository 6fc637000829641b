#!/usr/bin/env python3
"""The profiler on a training run: digits_cnn in fp16 with the per-layer
fallback, its first layer forced to overflow in every step. The profile
says which variant of that layer actually ran: the fp16 convolution in the
5 steps before the fallback and their 5 diagnosis reruns, the FP32 one in
the 15 steps after; and it counts the steps, skipped steps and fallbacks.

    profile_checks.py SHARED_MODELS
"""
import json
import os
import sys

import dsmp

models = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "examples", "train_digits"))
from make_data import split  # noqa: E402

cnn = os.path.join(models, "digits_cnn", "model.onnx")
(X, y), _ = split(models)
common = dict(learning_rate=2e-3, fresh_init=True, seed=0, verbose=False,
              batch_size=64)
t = dsmp.MixedPrecisionTrainer(
    cnn, precision_config={"default": "fp16", "fallback_threshold": 0.25},
    fault_injection=True, fallback={"window": 20}, profile=True, **common)
first = next(iter(t.layer_formats()))
t.force_layer_overflow(first)
t.train((X[:640], y[:640]), epochs=2)  # 20 steps


def no_constants(name):
    raise ValueError(f"not strict JSON: {name}")


profile = json.loads(t._ready().profile_json(), parse_constant=no_constants)
print("training:", profile["training"])
print("runs:", profile["runs"])
for op in profile["ops"]:
    if op["name"] == first and op["type"] == "Conv":
        print(f"{first} Conv {op['format']}: {op['runs']} runs, "
              f"flops per run {op['flops'] // op['runs']}")
shares = {f["format"]: f for f in profile["formats"]}
print("16-bit FLOP share over 90 %:", shares["f16"]["flop_share"] > 0.9)
print("f32 ops ran:", shares["f32"]["ops"] > 0)

# reset=True starts a new profile; the counts of the run stay.
t.profile(reset=True)
t.train((X[:640], y[:640]), epochs=1)
again = t.profile()
print("after reset:", again["runs"], "runs,", again["training"])

# Not compiled with profile=True.
plain = dsmp.MixedPrecisionTrainer(cnn, precision_config={"default": "fp16"},
                                   **common)
plain.train((X[:64], y[:64]), epochs=1)
try:
    plain.profile()
except RuntimeError as error:
    print("plain:", error)
