#!/usr/bin/env python3
"""Export dsmp's model zoo: standard architectures with random weights.

    scripts/make-zoo.py OUT [--only NAME ...] [--list] [--dry-run] [--hf | --timm] [--dynamo] [--opset N]

Writes OUT/<name>/model.onnx and test_data_set_0 (batch 2) and
test_data_set_1 (batch 1; the sequence models also 4-25 % longer), each with
input_*.pb and the FP32 outputs (output_*.pb) of torch, in ONNX's
backend-test layout, as ../shared/models has it. BatchNorm statistics are
re-estimated on random data first, so activations have the ranges a trained
network's would rather than the identity statistics of a fresh one. Every
export is checked against torch with onnxruntime (3e-4 relative) before it
is written. Needs torch and torchvision (CPU wheels will do) and onnx.
"""
import argparse
import os
import sys
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zoo_models import DYNAMO_ZOO, ZOO  # noqa: E402


def registry(hf, timm=False, dynamo=False):
    """The zoo's own architectures, or HuggingFace's (--hf, needs
    transformers) or timm's (--timm, needs timm); with --dynamo also those
    only the dynamo exporter exports."""
    if timm:
        from timm_zoo_models import TIMM_ZOO
        return TIMM_ZOO
    if not hf:
        return {**ZOO, **DYNAMO_ZOO} if dynamo else ZOO
    from hf_zoo_models import HF_DYNAMO_ZOO, HF_ZOO
    return {**HF_ZOO, **HF_DYNAMO_ZOO} if dynamo else HF_ZOO


def reestimate_batchnorm(model, make_inputs, gen):
    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    for m in norms:
        m.reset_running_stats()
        m.momentum = None  # a cumulative average over the batches below
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(*make_inputs(8, gen, 0))
    model.eval()


def write_set(folder, names, arrays, prefix):
    os.makedirs(folder, exist_ok=True)
    for i, (name, a) in enumerate(zip(names, arrays)):
        with open(os.path.join(folder, f"{prefix}_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(np.ascontiguousarray(a), name).SerializeToString())


def export(zoo, name, out_root, dynamo=False, opset_override=None):
    build, make_inputs, axes, opset = zoo[name]
    opset = opset_override or opset
    if dynamo:
        opset = max(opset, 18)  # the dynamo exporter's oldest
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    model = build().eval()
    reestimate_batchnorm(model, make_inputs, gen)
    sets = [make_inputs(2, gen, 0), make_inputs(1, gen, 1)]
    with torch.no_grad():
        expected = [model(*inputs) for inputs in sets]
    expected = [e if isinstance(e, tuple) else (e,) for e in expected]
    input_names = [f"input_{i}" for i in range(len(sets[0]))]
    output_names = [f"output_{i}" for i in range(len(expected[0]))]
    dynamic = {n: {d: a for a, d in ax.items()} for n, ax in zip(input_names, axes)}
    for n in output_names:
        dynamic[n] = {0: "batch"}
    folder = os.path.join(out_root, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            # What torch.onnx.export does by default since torch 2.9: the
            # dynamo exporter (onnxscript), opset 18 or later.
            torch.onnx.export(model, sets[0], path, opset_version=opset, dynamo=True,
                              input_names=input_names, output_names=output_names,
                              dynamic_axes=dynamic, external_data=False, verbose=False)
        else:
            torch.onnx.export(model, sets[0], path, opset_version=opset, dynamo=False,
                              input_names=input_names, output_names=output_names,
                              dynamic_axes=dynamic, do_constant_folding=True)
    onnx.checker.check_model(onnx.load(path))
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for i, (inputs, outputs) in enumerate(zip(sets, expected)):
        feeds = {n: t.numpy() for n, t in zip(input_names, inputs)}
        got = session.run(None, feeds)
        for g, e in zip(got, outputs):
            e = e.numpy()
            err = np.linalg.norm(g - e) / max(np.linalg.norm(e), 1e-30)
            # 3e-4: inception_v3's 94 convolutions differ by 1.3e-4 in f32.
            if err > 3e-4:
                raise RuntimeError(f"{name}: onnxruntime differs from torch on set {i}: {err:.2e}")
        set_dir = os.path.join(folder, f"test_data_set_{i}")
        write_set(set_dir, input_names, feeds.values(), "input")
        write_set(set_dir, output_names, [e.numpy() for e in outputs], "output")
    params = sum(p.numel() for p in model.parameters())
    nodes = len(onnx.load(path).graph.node)
    print(f"{name:20} opset {opset:2}  {params / 1e6:6.2f} M parameters  {nodes:4} nodes",
          flush=True)


def dry_run(zoo, names):
    """Each entry's constructor and input maker, run as export() runs them:
    a registry mistake (a renamed helper, a config transformers no longer
    takes) shows in seconds instead of in a long export."""
    torch.set_num_threads(2)
    failed = 0
    for name in names:
        build, make_inputs, axes, _ = zoo[name]
        try:
            torch.manual_seed(0)
            gen = torch.Generator().manual_seed(1)
            model = build().eval()
            with torch.no_grad():
                for which, batch in enumerate((2, 1)):
                    inputs = make_inputs(batch, gen, which)
                    if len(axes) < len(inputs):
                        raise RuntimeError(f"{len(inputs)} inputs, dynamic axes for {len(axes)}")
                    model(*inputs)
        except Exception as e:  # noqa: BLE001 - report every model, then fail
            failed += 1
            print(f"{name:20} FAILED: {str(e).splitlines()[0][:200] if str(e) else repr(e)}", flush=True)
    print(f"dry run: {len(names) - failed} of {len(names)} models build and run both input sets")
    return 1 if failed else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out", nargs="?")
    p.add_argument("--only", nargs="*")
    p.add_argument("--hf", action="store_true",
                   help="HuggingFace transformers architectures instead (scripts/hf_zoo_models.py; "
                        "pip install transformers)")
    p.add_argument("--timm", action="store_true",
                   help="timm (PyTorch Image Models) architectures instead "
                        "(scripts/timm_zoo_models.py; pip install timm)")
    p.add_argument("--list", action="store_true", help="print the zoo's names and stop")
    p.add_argument("--dry-run", action="store_true",
                   help="build each model and run its two input sets in torch; export nothing")
    p.add_argument("--opset", type=int,
                   help="export every model at this opset (23: the dynamo exporter writes "
                        "Attention for scaled_dot_product_attention)")
    p.add_argument("--dynamo", action="store_true",
                   help="export with torch's dynamo exporter (its default since 2.9; needs onnxscript)")
    args = p.parse_args()
    zoo = registry(args.hf, args.timm, args.dynamo)
    args.only = args.only or sorted(zoo)
    if args.list:
        print("\n".join(sorted(zoo)))
        return 0
    if args.dry_run:
        return dry_run(zoo, args.only)
    if not args.out:
        p.error("OUT is required")
    unknown = [n for n in args.only if n not in zoo]
    if unknown:
        p.error(f"not in the zoo: {', '.join(unknown)} (--list names them)")
    torch.set_num_threads(2)
    failed = []
    for name in args.only:
        try:
            export(zoo, name, args.out, args.dynamo, args.opset)
        except Exception as e:  # noqa: BLE001 - report every model, then fail
            failed.append(name)
            print(f"{name:20} FAILED: {str(e).splitlines()[0][:200]}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
