#!/usr/bin/env python3
"""The dynamic loss scaler: injected inf and NaN gradients skip their steps
(weights and Adam state bit-identical), the scale backs off and grows back,
training goes on; its state survives save/load; bad settings are refused.

    scaler_checks.py SHARED_MODELS OUT_DIR
"""
import os
import sys

import numpy as np

import dsmp

models, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
mlp = os.path.join(models, "digits_mlp", "model.onnx")
rng = np.random.default_rng(0)
X = rng.uniform(0, 1, (64, 1, 8, 8)).astype(np.float32)
y = rng.integers(0, 10, 64)


def state_bytes(trainer, name):
    """The weights and optimizer state of a checkpoint (its data part)."""
    path = os.path.join(out, name)
    trainer.save(path)
    data = open(path, "rb").read()
    return data[data.index(b"\n\n") + 2:]


t = dsmp.MixedPrecisionTrainer(mlp, precision_config={"default": "fp16"},
                               batch_size=16, fresh_init=True, verbose=False,
                               fault_injection=True, scaler={"growth_interval": 3})
t.train((X, y), epochs=1)
print(f"clean: step {t.step}, scale {t.loss_scale:g}, skipped {t.skipped_steps}")
before = state_bytes(t, "before.ckpt")
t.inject_fault(1, "f.3.weight", float("inf"))
t.inject_fault(2, "f.1.bias", float("nan"))
history = t.train((X[:32], y[:32]), epochs=1)
after = state_bytes(t, "after.ckpt")
print(f"faults: {history[0]['skipped']} of 2 steps skipped, step {t.step}, "
      f"scale {t.loss_scale:g}, state bit-identical {before == after}")
t.train((X, y), epochs=1)
print(f"after: step {t.step}, scale {t.loss_scale:g}, skipped {t.skipped_steps}")

# The scaler's state round-trips through a checkpoint.
saved = os.path.join(out, "scaler.ckpt")
t.save(saved)
scale, skipped, step = t.loss_scale, t.skipped_steps, t.step
t.inject_fault(1, "f.5.weight", float("inf"))
t.train((X, y), epochs=2)
moved = (t.loss_scale, t.skipped_steps, t.step) != (scale, skipped, step)
t.load(saved)
print(f"checkpoint: moved {moved}, restored "
      f"{(t.loss_scale, t.skipped_steps, t.step) == (scale, skipped, step)}")
resaved = os.path.join(out, "resaved.ckpt")
t.save(resaved)
print("checkpoint bytes equal:", open(saved, "rb").read() == open(resaved, "rb").read())


def refused(what, **kwargs):
    try:
        dsmp.MixedPrecisionTrainer(mlp, precision_config={"default": "fp16"},
                                   batch_size=16, verbose=False, **kwargs)
    except Exception as e:  # noqa: BLE001 - the message is what is checked
        print(f"{what}: {type(e).__name__}: {e}")
        return
    print(f"{what}: not refused")


refused("growth", scaler={"growth_factor": 1.0})
refused("backoff", scaler={"backoff_factor": 1.0})
refused("bounds", scaler={"min_scale": 8.0, "max_scale": 4.0, "init_scale": 4.0})
refused("unknown setting", scaler={"growth": 2})
refused("scale text", loss_scale="auto")
refused("scale value", loss_scale=0.0)

# The gradient monitor: every 2nd step into a JSON-lines log; the faulted
# step shows the inf (amax null: JSON has no inf) and is not applied.
import json  # noqa: E402

log = os.path.join(out, "monitor.jsonl")
m = dsmp.MixedPrecisionTrainer(mlp, precision_config={"default": "fp16"},
                               batch_size=16, fresh_init=True, verbose=False,
                               fault_injection=True,
                               monitor={"every": 2, "log": log})
m.inject_fault(2, "f.3.weight", float("inf"))
m.train((X, y), epochs=2)
records = [json.loads(line) for line in open(log)]
faulted = records[0]
print(f"monitor: {len(records)} records, attempts {[r['attempt'] for r in records]}; "
      f"attempt 2 applied {faulted['applied']}, f.3.weight amax "
      f"{faulted['tensors']['f.3.weight']['amax']}, scale "
      f"{faulted['loss_scale']:g} -> {faulted['next_loss_scale']:g}")
last = m.gradient_stats()
print(f"monitor query: {sorted(last)}, finite amax "
      f"{all(v['amax'] is not None and v['amax'] > 0 for v in last.values())}")
refused("monitor log", monitor={"every": 2, "log": os.path.join(out, "missing", "m.jsonl")})
