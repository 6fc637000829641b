"""Runs an ONNX graph with torch ops, so that torch's autograd gives the
reference gradients of its initializers (the training gradient checks).

Covers the op types of the shared digits and tiny_bert models (opset 13-17):
elementwise arithmetic, Gemm/MatMul/Conv/MaxPool, Softmax, the shape ops
torch exports write, Gather, Where, ReduceMean.
"""
import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper

_DTYPES = {1: torch.float32, 6: torch.int32, 7: torch.int64, 9: torch.bool,
           11: torch.float64, 10: torch.float16}


def _attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _ints(t):
    return [int(v) for v in t.reshape(-1).tolist()]


def run(model, inputs, weights):
    """inputs: {name: torch tensor}; weights: {initializer name: tensor}
    (others are the model's). Returns {output name: tensor}."""
    env = dict(inputs)
    for init in model.graph.initializer:
        if init.name in weights:
            env[init.name] = weights[init.name]
        else:
            env[init.name] = torch.from_numpy(numpy_helper.to_array(init).copy())
    for node in model.graph.node:
        a = _attrs(node)
        x = [env[n] if n else None for n in node.input]
        op = node.op_type
        if op == "Add":
            y = x[0] + x[1]
        elif op == "Sub":
            y = x[0] - x[1]
        elif op == "Mul":
            y = x[0] * x[1]
        elif op == "Div":
            y = x[0] / x[1] if x[0].is_floating_point() else torch.div(x[0], x[1], rounding_mode="trunc")
        elif op == "Pow":
            y = torch.pow(x[0], x[1])
        elif op == "Sqrt":
            y = torch.sqrt(x[0])
        elif op == "Erf":
            y = torch.erf(x[0])
        elif op == "Tanh":
            y = torch.tanh(x[0])
        elif op == "Relu":
            y = torch.relu(x[0])
        elif op == "Equal":
            y = x[0] == x[1]
        elif op == "Where":
            y = torch.where(x[0], x[1], x[2])
        elif op == "Softmax":
            y = torch.softmax(x[0], dim=a.get("axis", -1))
        elif op == "Cast":
            y = x[0].to(_DTYPES[a["to"]])
        elif op == "Constant":
            y = torch.from_numpy(numpy_helper.to_array(a["value"]).copy())
        elif op == "ConstantOfShape":
            value = numpy_helper.to_array(a["value"]) if "value" in a else np.zeros(1, np.float32)
            y = torch.full(_ints(x[0]), value.reshape(-1)[0].item(),
                           dtype=torch.from_numpy(value.copy()).dtype)
        elif op == "Expand":
            shape = _ints(x[1])
            y = x[0] * torch.ones(shape, dtype=x[0].dtype) if x[0].dtype != torch.bool else x[0].expand(
                *torch.broadcast_shapes(x[0].shape, tuple(shape)))
        elif op == "Gather":
            axis = a.get("axis", 0)
            idx = x[1].long()
            idx = torch.where(idx < 0, idx + x[0].shape[axis], idx)
            y = torch.index_select(x[0], axis, idx.reshape(-1)).reshape(
                tuple(x[0].shape[:axis]) + tuple(idx.shape) + tuple(x[0].shape[axis + 1:]))
        elif op == "Gemm":
            A = x[0].t() if a.get("transA", 0) else x[0]
            B = x[1].t() if a.get("transB", 0) else x[1]
            y = a.get("alpha", 1.0) * (A @ B)
            if len(x) > 2 and x[2] is not None:
                y = y + a.get("beta", 1.0) * x[2]
        elif op == "MatMul":
            y = x[0] @ x[1]
        elif op == "Identity":
            y = x[0]
        elif op == "Range":
            y = torch.arange(x[0].item(), x[1].item(), x[2].item(), dtype=x[0].dtype)
        elif op == "ReduceMean":
            axes = a.get("axes") if "axes" in a else (_ints(x[1]) if len(x) > 1 else None)
            y = torch.mean(x[0], dim=axes, keepdim=bool(a.get("keepdims", 1)))
        elif op == "Reshape":
            shape = _ints(x[1])
            shape = [x[0].shape[i] if d == 0 and not a.get("allowzero", 0) else d
                     for i, d in enumerate(shape)]
            y = x[0].reshape(shape)
        elif op == "Flatten":
            axis = a.get("axis", 1)
            y = x[0].reshape(int(np.prod(x[0].shape[:axis])), -1)
        elif op == "Shape":
            y = torch.tensor(list(x[0].shape), dtype=torch.int64)
        elif op == "Slice":
            starts, ends = _ints(x[1]), _ints(x[2])
            axes = _ints(x[3]) if len(x) > 3 and x[3] is not None else list(range(len(starts)))
            steps = _ints(x[4]) if len(x) > 4 and x[4] is not None else [1] * len(starts)
            y = x[0]
            for s, e, ax, st in zip(starts, ends, axes, steps):
                n = y.shape[ax]
                s = max(0, min(n, s + n if s < 0 else s))
                e = max(0, min(n, e + n if e < 0 else e))
                y = y.narrow(ax, s, max(0, e - s))[::1] if st == 1 else torch.index_select(
                    y, ax, torch.arange(s, e, st))
        elif op == "Transpose":
            y = x[0].permute(*a["perm"])
        elif op == "Unsqueeze":
            axes = a.get("axes") if "axes" in a else _ints(x[1])
            y = x[0]
            for ax in sorted(ax + y.dim() + len(axes) if ax < 0 else ax for ax in axes):
                y = y.unsqueeze(ax)
        elif op == "Concat":
            y = torch.cat(x, dim=a["axis"])
        elif op == "Conv":
            pads = a.get("pads", [0, 0, 0, 0])
            assert pads[:2] == pads[2:], "asymmetric pads"
            y = F.conv2d(x[0], x[1], x[2] if len(x) > 2 else None,
                         stride=a.get("strides", [1, 1]), padding=pads[:2],
                         dilation=a.get("dilations", [1, 1]), groups=a.get("group", 1))
        elif op == "MaxPool":
            y = F.max_pool2d(x[0], a["kernel_shape"], a.get("strides", a["kernel_shape"]),
                             a.get("pads", [0, 0, 0, 0])[:2])
        else:
            raise NotImplementedError(f"onnx_torch: op {op} (node {node.name})")
        outs = y if isinstance(y, tuple) else (y,)
        for name, value in zip(node.output, outs):
            if name:
                env[name] = value
    return {o.name: env[o.name] for o in model.graph.output}
