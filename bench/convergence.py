#!/usr/bin/env python3
"""How often a small ViT converges on the digits in each precision mode.

The seed's claim: live monitoring of gradient ranges with automatic scale
adjustment raised a ViT's convergence rate from 62 % to 91 %. This bench
measures it. A ViT (2x2 patch embedding of the 8x8 digits: 16 patches and a
class token, --dim wide, --depth pre-LN blocks of --heads-head attention and
a GELU MLP) trains from --seeds seeds (torch's initialization per seed, the
same weights in every mode) on the 1347 training digits, Adam, batch 64:

  fp32          dsmp, FP32
  fp16-naive    dsmp, fp16 (sm_80's, emulated exactly), no loss scaling
  fp16-static   dsmp, fp16, a static loss scale (--static-scale)
  fp16-dynamic  dsmp, fp16, the dynamic loss scaler and the per-layer FP32
                fallback (fallback_threshold --fallback-threshold)
  torch-amp     torch, autocast(cpu, float16) + torch.amp.GradScaler

A run converges when the mean training loss of its last epoch is below
--loss within --epochs epochs, with every weight finite. One line per mode:
`MODE: converged K/N`, with the mean fraction of skipped steps after the
first 100, the fallbacks, the mean final loss and the time taken.

    PYTHONPATH=build/python python bench/convergence.py [--models DIR]
"""
import argparse
import math
import os
import sys
import tempfile
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "examples", "train_digits"))
from make_data import split  # noqa: E402


def vit_class(torch):
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self, dim, heads, hidden):
            super().__init__()
            self.heads = heads
            self.ln1 = nn.LayerNorm(dim)
            self.q = nn.Linear(dim, dim)
            self.k = nn.Linear(dim, dim)
            self.v = nn.Linear(dim, dim)
            self.proj = nn.Linear(dim, dim)
            self.ln2 = nn.LayerNorm(dim)
            self.fc1 = nn.Linear(dim, hidden)
            self.fc2 = nn.Linear(hidden, dim)

        def forward(self, t):
            b, n, d = t.shape
            h = self.ln1(t)

            def split_heads(x):
                return x.reshape(b, n, self.heads, d // self.heads).transpose(1, 2)

            q, k, v = split_heads(self.q(h)), split_heads(self.k(h)), split_heads(self.v(h))
            att = torch.softmax(q @ k.transpose(-1, -2) * (d // self.heads) ** -0.5, -1)
            o = (att @ v).transpose(1, 2).reshape(b, n, d)
            t = t + self.proj(o)
            return t + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(t))))

    class ViT(nn.Module):
        def __init__(self, dim, depth, heads, hidden):
            super().__init__()
            self.patch = nn.Conv2d(1, dim, 2, stride=2)
            self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
            self.pos = nn.Parameter(torch.randn(1, 17, dim) * 0.02)
            self.blocks = nn.ModuleList(Block(dim, heads, hidden) for _ in range(depth))
            self.norm = nn.LayerNorm(dim)
            self.head = nn.Linear(dim, 10)

        def forward(self, x):
            t = self.patch(x).flatten(2).transpose(1, 2)
            t = torch.cat([self.cls.expand(x.shape[0], -1, -1), t], 1) + self.pos
            for block in self.blocks:
                t = block(t)
            return self.head(self.norm(t)[:, :1].flatten(1))

    return ViT


def export(torch, model, path, batch):
    x = torch.zeros(batch, 1, 8, 8)
    torch.onnx.export(model, (x,), path, input_names=["image"],
                      output_names=["logits"], opset_version=17, dynamo=False)


def initializers(path):
    import onnx
    from onnx import numpy_helper
    m = onnx.load(path)
    return {t.name: numpy_helper.to_array(t) for t in m.graph.initializer
            if t.data_type == onnx.TensorProto.FLOAT and np.prod(t.dims) >= 2}


def run_dsmp(trainer, weights, seed, data, epochs):
    trainer.restart(seed, weights)
    history = trainer.train(data, epochs=epochs)
    finite = all(np.isfinite(w).all() for w in trainer.weights().values())
    return history, finite, len(trainer.fallback_events())


def run_torch(torch, model, data, epochs, lr, seed):
    X = torch.from_numpy(data[0])
    y = torch.from_numpy(data[1])
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    scaler = torch.amp.GradScaler("cpu")
    g = torch.Generator().manual_seed(seed)
    history = []
    for _ in range(epochs):
        order = torch.randperm(len(y), generator=g)
        losses, skipped, steps = [], 0, 0
        for s in range(len(y) // 64):
            rows = order[s * 64:(s + 1) * 64]
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cpu", dtype=torch.float16):
                loss = torch.nn.functional.cross_entropy(model(X[rows]), y[rows])
            before = scaler.get_scale()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            steps += 1
            if scaler.get_scale() < before:
                skipped += 1
            else:
                losses.append(float(loss))
        history.append({"loss": float(np.mean(losses)) if losses else math.nan,
                        "skipped": skipped, "steps": steps - skipped})
    finite = all(torch.isfinite(p).all() for p in model.parameters())
    return history, bool(finite), 0


def summarize(mode, runs, args, seconds):
    converged = sum(1 for h, finite, _ in runs
                    if finite and h[-1]["loss"] < args.loss)
    late = []
    for h, _, _ in runs:
        # Epochs of 21 steps: the ones that start after step 100.
        tail = h[5:]
        total = sum(e["steps"] + e["skipped"] for e in tail)
        late.append(sum(e["skipped"] for e in tail) / total if total else 0.0)
    fallbacks = sum(f for _, _, f in runs)
    final = [h[-1]["loss"] for h, _, _ in runs]
    finite_final = [v for v in final if math.isfinite(v)]
    print(f"{mode}: converged {converged}/{len(runs)}, skipped after step 100 "
          f"{100 * float(np.mean(late)):.2f} %, fallbacks {fallbacks}, mean final "
          f"loss {np.mean(finite_final) if finite_final else math.nan:.3f}, "
          f"{seconds:.0f} s", flush=True)
    print(f"  final losses: {' '.join(f'{v:.3f}' for v in sorted(final))}",
          flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=os.path.join(here, "..", "..", "shared", "models"))
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--loss", type=float, default=0.5,
                        help="converged: last epoch's mean training loss below this")
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--dim", type=int, default=32)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--heads", type=int, default=2)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--static-scale", type=float, default=65536.0)
    parser.add_argument("--fallback-threshold", type=float, default=0.25)
    parser.add_argument("--modes", default="fp32,fp16-naive,fp16-static,fp16-dynamic,torch-amp")
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()

    import torch
    import dsmp
    if args.threads:
        torch.set_num_threads(args.threads)
    train, _ = split(args.models)
    ViT = vit_class(torch)
    work = tempfile.mkdtemp(prefix="dsmp-convergence-")
    seeds = list(range(args.seeds))
    weights, models = {}, {}
    for seed in seeds:
        torch.manual_seed(seed)
        model = ViT(args.dim, args.depth, args.heads, args.hidden)
        models[seed] = model
        path = os.path.join(work, f"vit_{seed}.onnx")
        export(torch, model, path, 64)
        weights[seed] = initializers(path)
    model0 = os.path.join(work, "vit_0.onnx")
    print(f"ViT: dim {args.dim}, {args.depth} pre-LN blocks, {args.heads} heads, "
          f"MLP {args.hidden}, 17 tokens; {args.seeds} seeds x {args.epochs} epochs "
          f"of 21 steps (batch 64, Adam {args.lr:g}); converged: last epoch's "
          f"mean loss < {args.loss:g}, weights finite", flush=True)

    configs = {
        "fp32": dict(precision_config={"default": "fp32"}),
        "fp16-naive": dict(precision_config={"default": "fp16"}, loss_scale=1.0),
        "fp16-static": dict(precision_config={"default": "fp16"},
                            loss_scale=args.static_scale),
        "fp16-dynamic": dict(precision_config={
            "default": "fp16", "fallback_threshold": args.fallback_threshold},
            loss_scale="dynamic"),
    }
    for mode in args.modes.split(","):
        start = time.perf_counter()
        runs = []
        if mode == "torch-amp":
            for seed in seeds:
                model = ViT(args.dim, args.depth, args.heads, args.hidden)
                model.load_state_dict(models[seed].state_dict())
                runs.append(run_torch(torch, model, train, args.epochs, args.lr, seed))
        else:
            trainer = dsmp.MixedPrecisionTrainer(
                model0, learning_rate=args.lr, batch_size=64, verbose=False,
                **configs[mode])
            for seed in seeds:
                runs.append(run_dsmp(trainer, weights[seed], seed, train, args.epochs))
        summarize(mode, runs, args, time.perf_counter() - start)


if __name__ == "__main__":
    main()
