#!/usr/bin/env python3
"""dsmp.MixedPrecisionTrainer's API and its refusals: warnings, bad data,
checkpoints (round trip, another model's, truncated, not one), export to
ONNX (checked with onnxruntime), the precision schedule.

    trainer_checks.py SHARED_MODELS OUT_DIR
"""
import os
import sys
import warnings

import numpy as np
import onnxruntime as ort

import dsmp

models, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
mlp = os.path.join(models, "digits_mlp", "model.onnx")
cnn = os.path.join(models, "digits_cnn", "model.onnx")
rng = np.random.default_rng(0)
X = rng.uniform(0, 1, (64, 1, 8, 8)).astype(np.float32)
y = rng.integers(0, 10, 64)


def refused(what, call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the message is what is checked
        print(f"{what}: {type(e).__name__}: {e}")
        return
    print(f"{what}: not refused")


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    t = dsmp.MixedPrecisionTrainer(
        mlp, precision_config={"default": "fp16",
                               "sensitive_layers": ["nothing_.*", "/f/f.5/Gemm"]},
        batch_size=16, fresh_init=True, seed=1, verbose=False)
    for w in caught:
        print(f"warning: {w.message}")

history = t.train((X, y), epochs=2)
print(f"trained: {len(history)} epochs, {history[-1]['steps']} steps each, step {t.step}")
checkpoint = os.path.join(out, "mlp.ckpt")
t.save(checkpoint)
saved = t.weights()
t.train((X, y), epochs=1)
moved = any(not np.array_equal(saved[k], v) for k, v in t.weights().items())
t.load(checkpoint)
same = all(np.array_equal(saved[k], v) for k, v in t.weights().items())
print(f"checkpoint: weights moved {moved}, restored {same}, step {t.step}")

refused("float labels", lambda: t.train((X, y.astype(np.float32)), epochs=1))
refused("label count", lambda: t.train((X, y[:10]), epochs=1))
refused("label range", lambda: t.train((X, np.full(64, 12)), epochs=1))
refused("input shape", lambda: t.train((X[:, :, :4], y), epochs=1))
refused("unknown config", lambda: dsmp.MixedPrecisionTrainer(
    mlp, precision_config={"defualt": "fp16"}, batch_size=16))
refused("unknown optimizer", lambda: dsmp.MixedPrecisionTrainer(
    mlp, optimizer="lamb", batch_size=16))

other = dsmp.MixedPrecisionTrainer(cnn, batch_size=16, verbose=False)
foreign = os.path.join(out, "cnn.ckpt")
other.save(foreign)
before = t.weights()
refused("another model's checkpoint", lambda: t.load(foreign))
data = open(checkpoint, "rb").read()
truncated = os.path.join(out, "truncated.ckpt")
open(truncated, "wb").write(data[: len(data) // 2])
refused("truncated checkpoint", lambda: t.load(truncated))
flipped = os.path.join(out, "flipped.ckpt")
open(flipped, "wb").write(data[:-5] + bytes([data[-5] ^ 1]) + data[-4:])
refused("damaged checkpoint", lambda: t.load(flipped))
refused("not a checkpoint", lambda: t.load(mlp))
print("weights untouched:", all(np.array_equal(before[k], v) for k, v in t.weights().items()))

# The trained model as ONNX, run by onnxruntime: the FP32 trainer's own
# predictions.
t32 = dsmp.MixedPrecisionTrainer(mlp, batch_size=16, fresh_init=True, seed=2,
                                 learning_rate=1e-2, verbose=False)
t32.train((X, y), epochs=3)
exported = os.path.join(out, "trained.onnx")
t32.export_onnx(exported)
ours = t32.predict(X)
theirs = ort.InferenceSession(exported).run(None, {"image": X})[0]
original = ort.InferenceSession(mlp).run(None, {"image": X})[0]
print(f"export: onnxruntime vs trainer max |diff| {np.abs(ours - theirs).max():.1e}, "
      f"{'ok' if np.abs(ours - theirs).max() <= 1e-4 else 'FAIL'}; "
      f"trained weights in it: {np.abs(original - theirs).max() > 1e-2}")

# FP32 for the first 3 steps, then fp16: 8 steps in all.
scheduled = dsmp.MixedPrecisionTrainer(
    mlp, precision_config={"default": "fp16", "precision_schedule": 3},
    batch_size=16, fresh_init=True, verbose=False)
scheduled.train((X, y), epochs=2)
print(f"schedule: step {scheduled.step}")
