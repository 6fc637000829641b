#!/usr/bin/env python3
"""dsmp's training-step gradients against torch's autograd.

Compiles MODEL's training step in FP32 (dsmp-compile --train
--emit-gradients), runs train_step once on a random batch and compares each
weight's gradient of the mean loss with torch autograd's on the same
weights, batch and loss (the ONNX graph run with torch ops, onnx_torch.py).
Prints the loss, each tensor's relative L2 difference and the whole
gradient's; exits 1 when the whole gradient differs by more than --rtol.

    check_gradients.py --bin BIN MODEL OUT [--batch N] [--shape NAME=DIMS]
"""
import argparse
import os
import subprocess
import sys

from urllib.parse import unquote

import numpy as np
import onnx
import torch

sys.path.insert(0, os.path.dirname(__file__))
import onnx_torch  # noqa: E402


def read_state(art):
    """[(name, role, dims)] from training.txt, and state.bin's arrays."""
    entries = []
    with open(os.path.join(art, "training.txt")) as f:
        for line in f:
            fields = line.split()
            if fields and fields[0] == "state":
                rank = int(fields[5])
                entries.append((fields[1], fields[2],
                                [int(d) for d in fields[6:6 + rank]]))
    raw = np.fromfile(os.path.join(art, "state.bin"), dtype=np.float32)
    arrays, offset = {}, 0
    for name, role, dims in entries:
        n = int(np.prod(dims)) if dims else 1
        arrays[name] = raw[offset:offset + n].reshape(dims)
        offset += n
    return entries, arrays


def decode(name):
    """A manifest name (percent-encoded) as the model spells it."""
    return unquote(name)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("model")
    p.add_argument("out")
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--shape", action="append", default=[])
    p.add_argument("--rtol", type=float, default=1e-5)
    args = p.parse_args()
    art = os.path.join(args.out, "step")
    cmd = [os.path.join(args.bin, "dsmp-compile"), args.model, "--train", "--force",
           f"--batch={args.batch}", "--emit-gradients", "--optimizer=sgd", "-o", art]
    cmd += [f"--shape={s}" for s in args.shape]
    subprocess.run(cmd, check=True)

    import dsmp
    step = dsmp.load(os.path.join(art, "train_step"))
    entries, state = read_state(art)
    model = onnx.load(args.model)
    rng = np.random.default_rng(3)
    feeds = {}
    for spec in step.inputs:
        if spec.name in ("labels", "loss_scale", "learning_rate", "step"):
            continue
        if decode(spec.name) in state:
            continue
        shape = spec.shapes[0]
        if spec.dtype == "float32":
            feeds[spec.name] = rng.uniform(0, 1, shape).astype(np.float32)
        elif spec.name == "attention_mask":
            mask = np.ones(shape, np.int64)
            mask[:, shape[1] * 3 // 4:] = 0
            feeds[spec.name] = mask
        else:  # token ids: below the embedding table's rows
            rows = min(a.shape[0] for n, r, d in entries if r == "weight" and len(d) == 2
                       for a in [state[n]])
            feeds[spec.name] = rng.integers(0, rows, shape).astype(np.int64)
    labels_spec = next(s for s in step.inputs if s.name == "labels")
    out0 = model.graph.output[0].name
    predict = dsmp.load(os.path.join(art, "predict"))
    classes = next(s.shapes[0][-1] for s in predict.outputs if s.name == out0)
    labels = rng.integers(0, classes, labels_spec.shapes[0]).astype(np.int64)
    run = dict(feeds, labels=labels, loss_scale=np.float32(1),
               learning_rate=np.float32(0), step=np.float32(1))
    for name, role, dims in entries:
        run[decode(name)] = state[name] if role == "weight" else np.zeros(dims, np.float32)
    outputs = step.run(run)

    weights = {decode(n): torch.tensor(state[n], requires_grad=True)
               for n, r, d in entries if r == "weight"}
    inputs = {k: torch.from_numpy(v) for k, v in feeds.items()}
    logits = onnx_torch.run(model, inputs, weights)[out0]
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, classes),
                                             torch.from_numpy(labels).reshape(-1))
    loss.backward()
    print(f"loss: dsmp {float(outputs['loss']):.7f} torch {loss.item():.7f}")
    diff = ref = 0.0
    for name, w in weights.items():
        mine = outputs.get(name + ":grad")
        theirs = w.grad.numpy() if w.grad is not None else np.zeros(w.shape, np.float32)
        if mine is None:
            print(f"{name}: no gradient from dsmp")
            continue
        d = float(np.sum((mine.astype(np.float64) - theirs) ** 2))
        r = float(np.sum(theirs.astype(np.float64) ** 2))
        diff, ref = diff + d, ref + r
        print(f"{name}: relative L2 {np.sqrt(d / max(r, 1e-300)):.2e}")
    rel = np.sqrt(diff / ref)
    ok = rel <= args.rtol
    print(f"gradient: relative L2 {rel:.2e} over {len(weights)} tensors "
          f"({'ok' if ok else 'FAIL'}, rtol {args.rtol:g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
