#!/usr/bin/env python3
"""Trains the shared digits_cnn architecture in FP32, BF16 and FP16.

From a fresh initialization (seed 0) on scikit-learn's 8x8 digits minus the
450 held out in ../shared/models/digits_cnn/test_data_set_0, with
dsmp.MixedPrecisionTrainer: FP16 runs with a static loss scale of 1024. The
formats are sm_80's, emulated exactly on this CPU. Prints one line per mode.

    PYTHONPATH=build/python python examples/train_digits.py [SHARED_MODELS]
        [--epochs N] [--modes fp32,bf16,fp16]
"""
import argparse
import os
import sys
import time

import dsmp

# The data split the C++ example's data files come from.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "train_digits"))
from make_data import split  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shared", nargs="?", default=os.path.join(
        os.path.dirname(__file__), "..", "..", "shared", "models"))
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--modes", default="fp32,bf16,fp16")
    args = parser.parse_args()
    train, test = split(args.shared)
    model = os.path.join(args.shared, "digits_cnn", "model.onnx")
    for mode in args.modes.split(","):
        trainer = dsmp.MixedPrecisionTrainer(
            model,
            precision_config={"default": mode, "sensitive_layers": [],
                              "optimizer_precision": "fp32"},
            learning_rate=2e-3, loss_scale=1024 if mode == "fp16" else 1,
            fresh_init=True, seed=0, verbose=False)
        start = time.perf_counter()
        history = trainer.train(train, epochs=args.epochs, batch_size=64)
        seconds = time.perf_counter() - start
        result = trainer.evaluate(test)
        skipped = sum(epoch["skipped"] for epoch in history)
        print(f"{mode}: test accuracy {100 * result['accuracy']:.2f} %, "
              f"test loss {result['loss']:.4f}, final train loss "
              f"{history[-1]['loss']:.4f}, {args.epochs} epochs in "
              f"{seconds:.1f} s, {skipped} steps skipped")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
