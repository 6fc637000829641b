#!/usr/bin/env python3
"""Exports small torch modules (random weights, torch's TorchScript ONNX
exporter, opset 17) that carry the op families new exports use every day,
each to OUT/<family>/model.onnx with test_data_set_0 holding its inputs and
onnxruntime's outputs:

  log_softmax   a Linear head with log_softmax (LogSoftmax)
  causal_mask   attention masked with triu of the scores' shape (Trilu)
  glu           Conv1d then GLU (Split with its sizes as an input)
  t5_buckets    T5's relative-position buckets from the (dynamic) sequence
                length (Shape/Range, Greater/Abs/Log/Div/Min/Where, Cast to
                int64) and their bias embedding (Gather)
  scatter       an embedding table updated at given rows (index_put:
                ScatterND) and rows added by scatter_add (ScatterElements,
                reduction add)
  one_hot       one_hot ids (OneHot) times a weight

    torch_families.py OUT [FAMILY...]"""
import math
import os
import sys
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn.functional as F
from onnx import numpy_helper

torch.manual_seed(0)


class LogSoftmaxHead(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 11)

    def forward(self, x):
        return torch.log_softmax(self.fc(x), dim=-1)


class CausalMask(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(8, 24)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-1, -2) / math.sqrt(8)
        mask = torch.triu(torch.ones_like(scores), diagonal=1)
        scores = scores.masked_fill(mask.bool(), -1e4)
        return torch.softmax(scores, dim=-1) @ v


class Glu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv1d(6, 10, 3, padding=1)

    def forward(self, x):
        return F.glu(self.conv(x), dim=1)


class T5Buckets(torch.nn.Module):
    """T5's _relative_position_bucket (bidirectional), as HF writes it."""

    def __init__(self, buckets=8, max_distance=20, heads=2):
        super().__init__()
        self.buckets, self.max_distance = buckets, max_distance
        self.bias = torch.nn.Embedding(buckets, heads)

    def forward(self, x):
        length = x.shape[1]
        context = torch.arange(length, dtype=torch.long)[:, None]
        memory = torch.arange(length, dtype=torch.long)[None, :]
        relative = memory - context
        n = self.buckets // 2
        bucket = (relative > 0).to(torch.long) * n
        relative = torch.abs(relative)
        max_exact = n // 2
        is_small = relative < max_exact
        large = max_exact + (torch.log(relative.float() / max_exact)
                             / math.log(self.max_distance / max_exact)
                             * (n - max_exact)).to(torch.long)
        large = torch.min(large, torch.full_like(large, n - 1))
        bucket = bucket + torch.where(is_small, relative, large)
        bias = self.bias(bucket).permute(2, 0, 1)  # [heads, L, L]
        scores = x.unsqueeze(1) @ x.unsqueeze(1).transpose(-1, -2)  # [B, 1, L, L]
        return scores + bias


class Scatter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.nn.Parameter(torch.randn(12, 5))

    def forward(self, rows, values, index):
        updated = self.table.clone()
        updated[rows] = values  # ScatterND
        added = torch.zeros(4, 5).scatter_add(0, index, values)  # ScatterElements
        return updated * 2.0, added


class OneHot(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(10, 4))

    def forward(self, ids):
        return F.one_hot(ids, 10).to(torch.float32) @ self.w


def families():
    g = torch.Generator().manual_seed(1)
    return {
        "log_softmax": (LogSoftmaxHead(), (torch.randn(2, 7, 16, generator=g),), ["x"], ["logp"]),
        "causal_mask": (CausalMask(), (torch.randn(2, 6, 8, generator=g),), ["x"], ["attn"],
                        {"x": {1: "length"}}),
        "glu": (Glu(), (torch.randn(2, 6, 9, generator=g),), ["x"], ["y"]),
        "t5_buckets": (T5Buckets(), (torch.randn(2, 11, 4, generator=g),), ["x"], ["scores"],
                       {"x": {1: "length"}}),
        "scatter": (Scatter(), (torch.tensor([7, 2, 9]), torch.randn(3, 5, generator=g),
                                torch.tensor([[0, 1, 2, 3, 0], [3, 3, 1, 0, 2],
                                              [1, 0, 0, 2, 3]])),
                    ["rows", "values", "index"], ["updated", "added"]),
        "one_hot": (OneHot(), (torch.tensor([[3, 0, 9], [5, 5, 1]]),), ["ids"], ["y"]),
    }


def main():
    out = sys.argv[1]
    wanted = sys.argv[2:]
    warnings.filterwarnings("ignore")
    for name, (module, inputs, input_names, output_names, *dynamic) in families().items():
        if wanted and name not in wanted:
            continue
        folder = os.path.join(out, name)
        data = os.path.join(folder, "test_data_set_0")
        os.makedirs(data, exist_ok=True)
        path = os.path.join(folder, "model.onnx")
        module.eval()
        with torch.no_grad():
            torch.onnx.export(module, inputs, path, opset_version=17, dynamo=False,
                              input_names=input_names, output_names=output_names,
                              dynamic_axes=dynamic[0] if dynamic else None)
        feed = {n: t.numpy() for n, t in zip(input_names, inputs)}
        results = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feed)
        for i, (n, a) in enumerate(feed.items()):
            with open(os.path.join(data, f"input_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, n).SerializeToString())
        for i, (n, a) in enumerate(zip(output_names, results)):
            with open(os.path.join(data, f"output_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(np.asarray(a), n).SerializeToString())
        ops = sorted({node.op_type for node in onnx.load(path).graph.node})
        print(name, " ".join(ops))


if __name__ == "__main__":
    main()
