#!/usr/bin/env python3
"""A trainer killed (SIGKILL) at random points while it saves never leaves a
checkpoint that loads wrong: the file at the path is always a whole earlier
save, which loads with the step and weights that save had.

The child trains digits_mlp one step at a time and saves after each step to
one path, appending "STEP CHECKSUM" to a log once each save returned; the
parent kills it after a random delay, then loads the path and checks that
its step and weights' checksum are a logged pair (or the save that was
under way: one step past the last logged one).

    kill_during_save.py SHARED_MODELS OUT_DIR [ROUNDS]
"""
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np

import dsmp


def checksum(weights):
    return float(sum(np.float64(v).sum() for v in weights.values()))


def trainer(models):
    return dsmp.MixedPrecisionTrainer(
        os.path.join(models, "digits_mlp", "model.onnx"), batch_size=16,
        fresh_init=True, seed=5, verbose=False)


def child(models, path, log):
    t = trainer(models)
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (16, 1, 8, 8)).astype(np.float32)
    y = rng.integers(0, 10, 16)
    with open(log, "a") as f:
        while True:
            t.train((X, y), epochs=1)
            t.save(path)
            f.write(f"{t.step} {checksum(t.weights())!r}\n")
            f.flush()


def main():
    if sys.argv[1] == "--child":
        child(*sys.argv[2:5])
        return 0
    models, out = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    os.makedirs(out, exist_ok=True)
    path, log = os.path.join(out, "run.ckpt"), os.path.join(out, "saves.log")
    random.seed(11)
    checker = trainer(models)
    bad = 0
    for r in range(rounds):
        proc = subprocess.Popen([sys.executable, __file__, "--child", models, path, log])
        # Wait for its first save, then kill it somewhere in a later one.
        deadline = time.time() + 120
        while (not os.path.exists(log) or os.path.getsize(log) == 0) and time.time() < deadline:
            time.sleep(0.01)
        time.sleep(random.uniform(0, 0.3))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        saves = {}
        for line in open(log):
            parts = line.split()
            if len(parts) == 2:
                saves[int(parts[0])] = float(parts[1])
        try:
            checker.load(path)
        except RuntimeError as e:
            print(f"round {r}: the checkpoint does not load: {e}")
            bad += 1
            continue
        step, weights = checker.step, checksum(checker.weights())
        logged = saves.get(step)
        ok = logged == weights or (logged is None and step == max(saves) + 1)
        bad += not ok
        print(f"round {r}: killed after {len(saves)} saves; loads step {step} "
              f"({'ok' if ok else 'WRONG'})")
        os.unlink(log)
    leftovers = [f for f in os.listdir(out) if ".tmp-" in f]
    print(f"{rounds - bad} of {rounds} rounds load a whole save; "
          f"{len(leftovers)} temporary files left by the kills")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
