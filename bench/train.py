#!/usr/bin/env python3
"""Training step time: dsmp's compiled step against torch eager.

Pairs, on the same architecture, batch, optimizer (Adam), loss (cross
entropy) and thread count:
  dsmp FP32 step            vs torch eager FP32
  dsmp BF16 step            vs torch eager under autocast(bfloat16)
  dsmp FP16 step (scale 1024) vs torch eager under autocast(bfloat16)
    (torch's CPU autocast has no float16 GEMMs worth timing)
Then the runtime's own cost: the fp16 step with the dynamic scaler and the
gradient monitor (every 100th step) against a static scale, and the same
with the per-layer FP32 variants compiled in (none switched).
Models: digits_cnn at batch 64; tiny_bert's architecture (2 encoder layers,
d 128, 4 heads, FF 512, GELU) at batch 16, sequence 32. dsmp's 16-bit
formats are sm_80's, emulated exactly on this CPU (each rounding is extra
work), so its 16-bit steps measure the emulation, not a GPU. Prints one
line per pair with the median step time of each and their ratio
(dsmp / torch; below 1.0 is dsmp faster).
"""
import argparse
import os
import statistics
import time

import numpy as np


def torch_digits_cnn(torch):
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(512, 64), nn.ReLU(), nn.Linear(64, 10))


def torch_tiny_bert(torch):
    nn = torch.nn

    class TinyBert(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(1000, 128)
            self.pos = nn.Embedding(128, 128)
            self.ln = nn.LayerNorm(128)
            layer = nn.TransformerEncoderLayer(128, 4, 512, activation="gelu",
                                               batch_first=True, dropout=0.0)
            self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.pool = nn.Linear(128, 128)
            self.cls = nn.Linear(128, 2)

        def forward(self, ids, mask):
            positions = torch.arange(ids.shape[1])
            h = self.ln(self.tok(ids) + self.pos(positions))
            h = self.enc(h, src_key_padding_mask=mask == 0)
            return self.cls(torch.tanh(self.pool(h[:, 0])))

    return TinyBert()


def time_steps(step, warmup, steps, mean=False):
    for _ in range(warmup):
        step()
    if mean:  # a cost paid every N-th step shows in the mean only
        start = time.perf_counter()
        for _ in range(steps):
            step()
        return (time.perf_counter() - start) / steps
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def torch_step_time(torch, model, inputs, labels, bf16, warmup, steps):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        optimizer.zero_grad(set_to_none=True)
        if bf16:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = loss_fn(model(*inputs), labels)
        else:
            loss = loss_fn(model(*inputs), labels)
        loss.backward()
        optimizer.step()

    return time_steps(step, warmup, steps)


def dsmp_step_time(dsmp, model_path, mode, data, batch, shapes, warmup, steps,
                   loss_scale=None, monitor=None, mean=False, fallback=None):
    if loss_scale is None:
        loss_scale = 1024 if mode == "fp16" else 1
    config = {"default": mode}
    if fallback:
        config["fallback_threshold"] = fallback
    trainer = dsmp.MixedPrecisionTrainer(
        model_path, precision_config=config, batch_size=batch,
        loss_scale=loss_scale, shapes=shapes, verbose=False, monitor=monitor)
    inputs, labels = data
    one = ([x[:batch] for x in inputs], labels[:batch])
    return time_steps(lambda: trainer.train(one, epochs=1), warmup, steps, mean)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", required=True)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    args = p.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import torch
    import dsmp
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    cases = []
    images = rng.uniform(0, 1, (64, 1, 8, 8)).astype(np.float32)
    digits_labels = rng.integers(0, 10, 64)
    cases.append(("digits_cnn", 64, os.path.join(args.models, "digits_cnn", "model.onnx"),
                  ([images], digits_labels), {}, torch_digits_cnn(torch),
                  (torch.from_numpy(images),), torch.from_numpy(digits_labels)))
    ids = rng.integers(0, 1000, (16, 32)).astype(np.int64)
    mask = np.ones((16, 32), np.int64)
    mask[:, 24:] = 0
    bert_labels = rng.integers(0, 2, 16)
    cases.append(("tiny_bert", 16, os.path.join(args.models, "tiny_bert_op13", "model.onnx"),
                  ([ids, mask], bert_labels),
                  {"input_ids": [16, 32], "attention_mask": [16, 32]}, torch_tiny_bert(torch),
                  (torch.from_numpy(ids), torch.from_numpy(mask)), torch.from_numpy(bert_labels)))
    print(f"training step, median of {args.steps} after {args.warmup}, {args.threads} threads")
    for name, batch, path, data, shapes, module, tinputs, tlabels in cases:
        t32 = torch_step_time(torch, module, tinputs, tlabels, False, args.warmup, args.steps)
        t16 = torch_step_time(torch, module, tinputs, tlabels, True, args.warmup, args.steps)
        for mode, reference, label in (("fp32", t32, "torch fp32"),
                                       ("bf16", t16, "torch autocast(bf16)"),
                                       ("fp16", t16, "torch autocast(bf16)")):
            mine = dsmp_step_time(dsmp, path, mode, data, batch, shapes,
                                  args.warmup, args.steps)
            print(f"{name} batch {batch}: dsmp {mode} {mine * 1e3:.2f} ms vs {label} "
                  f"{reference * 1e3:.2f} ms: ratio {mine / reference:.2f}")
        # The runtime's own cost: the dynamic scaler and the gradient
        # monitor (its twin step every 100th step) against a static scale,
        # mean step times over 200 steps.
        fp16_static = dsmp_step_time(dsmp, path, "fp16", data, batch, shapes,
                                     args.warmup, 200, mean=True)
        watched = dsmp_step_time(dsmp, path, "fp16", data, batch, shapes,
                                 args.warmup, 200, loss_scale="dynamic",
                                 monitor={"every": 100}, mean=True)
        print(f"{name} batch {batch}: dsmp fp16 with dynamic scale + monitor/100 "
              f"{watched * 1e3:.2f} ms vs static scale {fp16_static * 1e3:.2f} ms: "
              f"overhead {100 * (watched / fp16_static - 1):+.1f} %")
        # The same with every layer's FP32 variant compiled in (none
        # switched): the cost of carrying them.
        layered = dsmp_step_time(dsmp, path, "fp16", data, batch, shapes,
                                 args.warmup, 200, loss_scale="dynamic",
                                 monitor={"every": 100}, mean=True, fallback=0.25)
        print(f"{name} batch {batch}: dsmp fp16 with dynamic scale + monitor/100 + "
              f"fallback variants {layered * 1e3:.2f} ms vs static scale "
              f"{fp16_static * 1e3:.2f} ms: overhead "
              f"{100 * (layered / fp16_static - 1):+.1f} %")


if __name__ == "__main__":
    main()
