#!/usr/bin/env python3
"""The per-layer FP32 fallback on digits_cnn (fp16, dynamic loss scale):

- compiled with its FP32 variants and never switched, a step is bit for
  bit the plain fp16 step;
- a layer forced to overflow in every step (its 16-bit variant's result
  times 65504) falls back after `threshold * window` skipped steps, with the
  weights untouched until then and the scale held (no scale fixes a forward
  overflow); the switch is in the monitor's log, and the run reaches the
  FP32 run's test accuracy within 0.5 points;
- with a probation, the layer returns and falls back again;
- the fallback state survives save/load;
- bad settings are refused.

    fallback_checks.py SHARED_MODELS OUT_DIR
"""
import json
import os
import sys

import numpy as np

import dsmp

models, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "examples", "train_digits"))
from make_data import split  # noqa: E402

cnn = os.path.join(models, "digits_cnn", "model.onnx")
train, test = split(models)
common = dict(learning_rate=2e-3, fresh_init=True, seed=0, verbose=False,
              batch_size=64)


def trainer(**kwargs):
    args = dict(common)
    args.update(kwargs)
    return dsmp.MixedPrecisionTrainer(cnn, **args)


def weights_bytes(t):
    return b"".join(v.tobytes() for _, v in sorted(t.weights().items()))


# 1. The variants change nothing until a layer switches.
X, y = train
plain = trainer(precision_config={"default": "fp16"}, loss_scale=1024)
layered = trainer(precision_config={"default": "fp16", "fallback_threshold": 0.5},
                  loss_scale=1024)
plain.train((X[:320], y[:320]), epochs=1)
layered.train((X[:320], y[:320]), epochs=1)
print("layers:", list(layered.layer_formats().items()))
print("unswitched step bit-identical:", weights_bytes(plain) == weights_bytes(layered))

# 2. A layer forced to overflow in every step.
log = os.path.join(out, "monitor.jsonl")
forced = trainer(precision_config={"default": "fp16", "fallback_threshold": 0.25,
                                   "monitor": {"every": 50, "log": log}},
                 fault_injection=True, fallback={"window": 20})
first = next(iter(forced.layer_formats()))
forced.force_layer_overflow(first)
start = weights_bytes(forced)
history = forced.train((X[:320], y[:320]), epochs=1)  # 5 steps
print(f"forced: {history[0]['skipped']} of 5 skipped, weights unchanged "
      f"{weights_bytes(forced) == start}, scale {forced.loss_scale:g}")
events = forced.fallback_events()
print("events:", [(e["layer"] == first, e["action"], e["reason"], e["attempt"],
                   round(e["rate"], 2)) for e in events])
print("formats:", list(forced.layer_formats().values()))
forced.train(train, epochs=40)
fallback_accuracy = forced.evaluate(test)["accuracy"]
records = [json.loads(line) for line in open(log)]
switches = [r for r in records if r.get("event")]
print("log switches:", [(r["event"], r["layer"] == first, r["reason"], r["step"])
                        for r in switches])
sampled = [r for r in records if "layers" in r]
print(f"log samples: {len(sampled)}, layer formats in the last one "
      f"{[v['format'] for v in sampled[-1]['layers'].values()]}")
fp32 = trainer(precision_config={"default": "fp32"})
fp32.train(train, epochs=40)
fp32_accuracy = fp32.evaluate(test)["accuracy"]
gap = 100 * (fp32_accuracy - fallback_accuracy)
print(f"accuracy: fp32 {100 * fp32_accuracy:.2f} %, forced fp16 with fallback "
      f"{100 * fallback_accuracy:.2f} %, within 0.5 points {gap <= 0.5}; "
      f"skipped {forced.skipped_steps}")

# 3. Probation: back to fp16 after 3 applied steps, then down again.
probe = trainer(precision_config={"default": "fp16", "fallback_threshold": 0.25},
                fault_injection=True, fallback={"window": 8, "probation": 3})
probe.force_layer_overflow(first)
probe.train((X[:640], y[:640]), epochs=1)  # 10 attempts
print("probation:", [(e["action"], e["reason"], e["attempt"])
                     for e in probe.fallback_events()])

# 4. The state survives a checkpoint.
saved = os.path.join(out, "fallback.ckpt")
forced.save(saved)
again = trainer(precision_config={"default": "fp16", "fallback_threshold": 0.25},
                fault_injection=True)
before = list(again.layer_formats().values())
again.load(saved)
print(f"checkpoint: formats {before} -> {list(again.layer_formats().values())}")


# 5. Bad settings.
def refused(what, **kwargs):
    try:
        trainer(**kwargs)
    except Exception as e:  # noqa: BLE001 - the message is what is checked
        print(f"{what}: {type(e).__name__}: {e}")
        return
    print(f"{what}: not refused")


refused("threshold 0", precision_config={"default": "fp16", "fallback_threshold": 0})
refused("threshold 1.5", precision_config={"default": "fp16", "fallback_threshold": 1.5})
refused("window", precision_config={"default": "fp16", "fallback_threshold": 0.5},
        fallback={"window": 0})
refused("fp32", precision_config={"default": "fp32", "fallback_threshold": 0.5})
refused("setting", precision_config={"default": "fp16", "fallback_threshold": 0.5},
        fallback={"windows": 3})
