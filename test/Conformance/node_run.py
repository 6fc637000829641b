#!/usr/bin/env python3
"""Runs ONNX's backend node tests through `dsmp-run --compare`.

For each node test whose op type dsmp's host lowering covers (LOWERED
below; the lowering pass's description lists the same ops), dsmp-run
compiles the model for the host, runs test_data_set_0 and compares with the
stored outputs (normwise relative error <= 1e-4, or max abs error <= 1e-6).
Prints, per op type, how many node tests there are, how many pass, and the
totals; with --show-failures the first line of each failure.

--max-per-op N keeps the first N tests of each op type (the fast subset the
default suite runs); the full run is opt-in (DSMP_LONG_TESTS=1).

Exit status 1 on a crash (a signal or an exit status other than 0 or 1) or
when the pass rate is below --min-pass-rate.
"""
import argparse
import collections
import concurrent.futures
import glob
import os
import re
import subprocess
import sys

import onnx
import onnx.numpy_helper

# ONNX op types dsmp-convert-to-linalg lowers (static shapes).
LOWERED = """Abs Acos Acosh Add And ArgMax ArgMin Asin Asinh Atan Atanh AveragePool
BatchNormalization Cast Ceil Celu Clip Concat Constant ConstantOfShape Conv
ConvTranspose Cos Cosh CumSum DepthToSpace Div Dropout Einsum Elu Equal Erf Exp
EyeLike Expand Flatten Floor GRU Gather GatherND Gelu Gemm GlobalAveragePool GlobalMaxPool
Greater GreaterOrEqual GridSample GroupNormalization HardSigmoid HardSwish Hardmax Identity IsInf IsNaN LSTM
LRN LayerNormalization LeakyRelu Less LessOrEqual Log LogSoftmax Loop MatMul Max
MaxPool MaxUnpool Mean Min Mish Mod Mul Neg Not OneHot Or PRelu Pad Pow RNN Reciprocal ReduceL1
ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax ReduceMean ReduceMin
ReduceProd ReduceSum ReduceSumSquare Relu Reshape Round ScatterElements ScatterND
Selu Shrink Sigmoid
Sign Sin Sinh Slice Softmax Softplus Softsign SpaceToDepth Split Sqrt Squeeze
ReverseSequence RoiAlign Sub Sum Tan Tanh ThresholdedRelu Tile TopK Transpose Trilu Unsqueeze Where Xor
QuantizeLinear DequantizeLinear DynamicQuantizeLinear MatMulInteger ConvInteger
QLinearConv QLinearMatMul DFT STFT HannWindow HammingWindow BlackmanWindow
MelWeightMatrix""".split()


# What the reference evaluator (--engine=evaluate) adds to those.
EVALUATED = LOWERED + """InstanceNormalization Range Resize Shape Size""".split()


def op_type_of(folder, model):
    """The op type the folder name starts with (test_reduce_mean_* ->
    ReduceMean), among the model's node types; None when none matches (the
    expanded function-body tests of op types dsmp has no lowering for)."""
    types = sorted({n.op_type for n in model.graph.node}, key=len, reverse=True)
    key = os.path.basename(folder)[len("test_"):].replace("_", "").lower()
    # Trilu's tests are named after its two modes.
    if key.startswith(("tril", "triu")) and "Trilu" in types:
        return "Trilu"
    for t in types:
        if key.startswith(t.lower()):
            return t
    return None


TRAINING_OPS = {"Adagrad", "Adam", "Momentum", "Gradient",
                "SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss"}


def tensors_only(model):
    """Whether every graph input and output is a float/integer/bool tensor."""
    for v in list(model.graph.input) + list(model.graph.output):
        t = v.type
        if not t.HasField("tensor_type") or \
                t.tensor_type.elem_type == onnx.TensorProto.STRING:
            return False
    return True


def is_training(folder, model):
    """Training-mode tests: the training ops, and those a test names so
    (Dropout and BatchNormalization in training mode)."""
    name = os.path.basename(folder)
    return "training" in name or any(n.op_type in TRAINING_OPS
                                     for n in model.graph.node)


def imports(bin_dir, folder):
    r = subprocess.run([f"{bin_dir}/dsmp-translate", "--import-onnx",
                        os.path.join(folder, "model.onnx"), "-o", os.devnull],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=60)
    return r.returncode == 0


def shape_inputs(data, first=1):
    """--fix-input options for the small integer inputs from input `first`
    on (Slice's starts/ends/axes, Reshape's shape, Pad's pads, a Loop's trip
    count and condition, ...): a compiler for static shapes needs their
    values, as `dsmp-compile --fix-input` gives them (the runtime then
    rejects other values)."""
    fixes = []
    for k in range(first, 16):
        path = os.path.join(data, f"input_{k}.pb")
        if not os.path.exists(path):
            break
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        if t.data_type not in (onnx.TensorProto.INT64, onnx.TensorProto.INT32,
                               onnx.TensorProto.BOOL):
            continue
        values = onnx.numpy_helper.to_array(t).reshape(-1)
        if values.size <= 16:
            fixes += ["--fix-input", f"{t.name}=" + ",".join(str(int(v)) for v in values)]
    return fixes


def run_one(args, folder):
    """(exit status, first failure line, whether inputs were fixed)."""
    data = os.path.join(folder, "test_data_set_0")
    base = [f"{args.bin}/dsmp-run", os.path.join(folder, "model.onnx"),
            "--inputs", data, "--compare", "--rtol", "1e-4", "--atol", "1e-6",
            f"--engine={args.engine}"]
    attempts = [[]]
    if args.fix_shape_inputs:
        # A Loop's trip count and condition come first (test_loop11), as
        # does a window's size.
        model = onnx.load(os.path.join(folder, "model.onnx"))
        first = any(n.op_type in ("Loop", "HannWindow", "HammingWindow", "BlackmanWindow")
                    for n in model.graph.node)
        fixes = shape_inputs(data, first=0 if first else 1)
        if fixes:
            attempts.append(fixes)
    for fixes in attempts:
        r = subprocess.run(base + fixes, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=300)
        if r.returncode == 0:
            break
    lines = r.stdout.strip().splitlines()
    why = next((l for l in lines if "error:" in l or "MISMATCH" in l),
               lines[-1] if lines else "")
    return r.returncode, why, bool(fixes) and r.returncode == 0


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("bin")
    p.add_argument("node_dir")
    p.add_argument("--max-per-op", type=int, default=0)
    p.add_argument("--min-pass-rate", type=float, default=0.0)
    p.add_argument("--show-failures", action="store_true")
    p.add_argument("--fix-shape-inputs", action="store_true",
                   help="when a test fails, retry it with its small integer "
                        "inputs (after the first) fixed by --fix-input")
    p.add_argument("--engine", choices=["compile", "evaluate"], default="compile",
                   help="dsmp-run's engine: the host lowering, or the reference "
                        "evaluator the precision analyses calibrate with")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--all-importable", action="store_true",
                   help="every node test that imports (float and integer "
                        "tensors; strings, sequences, optionals and training "
                        "ops left out), not only the lowered op types")
    args = p.parse_args()

    chosen = []
    per_op = collections.Counter()
    for folder in sorted(glob.glob(os.path.join(args.node_dir, "test_*"))):
        try:
            model = onnx.load(os.path.join(folder, "model.onnx"))
        except Exception:
            continue
        op = op_type_of(folder, model)
        if args.all_importable:
            if not tensors_only(model) or is_training(folder, model):
                continue
            op = op or (model.graph.node[0].op_type if model.graph.node else None)
            if op is None or not imports(args.bin, folder):
                continue
        elif op not in (EVALUATED if args.engine == "evaluate" else LOWERED):
            continue
        if args.max_per_op and per_op[op] >= args.max_per_op:
            continue
        per_op[op] += 1
        chosen.append((op, folder))

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda c: run_one(args, c[1]), chosen))

    stats = collections.defaultdict(lambda: [0, 0])
    crashes, failures = [], []
    fixed = collections.Counter()
    for (op, folder), (code, why, with_fixes) in zip(chosen, results):
        stats[op][0] += 1
        fixed[op] += with_fixes
        if code == 0:
            stats[op][1] += 1
        elif code == 1:
            failures.append(f"{os.path.basename(folder)}: {why[:160]}")
        else:
            crashes.append(f"{os.path.basename(folder)}: exit status {code}")
    print(f"{'op type':24} {'tests':>5} {'pass':>5}" +
          (f" {'of them with --fix-input':>25}" if args.fix_shape_inputs else ""))
    total = [0, 0]
    for op in sorted(stats):
        t, ok = stats[op]
        total[0] += t
        total[1] += ok
        print(f"{op:24} {t:5} {ok:5}" +
              (f" {fixed[op]:25}" if args.fix_shape_inputs else ""))
    rate = total[1] / total[0] if total[0] else 0.0
    label = "all importable tests" if args.all_importable else "all lowered op types"
    print(f"{label:24} {total[0]:5} {total[1]:5}" +
          (f" {sum(fixed.values()):25}" if args.fix_shape_inputs else ""))
    print(f"pass rate: {rate:.3f}")
    if args.show_failures:
        for f in failures:
            print("  " + f)
    for c in crashes:
        print("CRASH " + c)
    print(f"{len(crashes)} crashes")
    return 1 if crashes or rate < args.min_pass_rate else 0


if __name__ == "__main__":
    sys.exit(main())
