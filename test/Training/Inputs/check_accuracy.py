#!/usr/bin/env python3
"""Checks the train_digits examples' summary lines: every mode reaches
--floor % test accuracy and lands within --spread points of fp32's.

    check_accuracy.py OUTPUT... (lines "MODE: test accuracy X %, ...")
"""
import argparse
import re
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("outputs", nargs="+")
    p.add_argument("--floor", type=float, default=97.5)
    p.add_argument("--spread", type=float, default=0.5)
    args = p.parse_args()
    failed = 0
    for path in args.outputs:
        accuracy = {}
        for line in open(path):
            m = re.match(r"(\w+): test accuracy ([0-9.]+) %", line)
            if m:
                accuracy[m.group(1)] = float(m.group(2))
        if "fp32" not in accuracy:
            print(f"{path}: no fp32 line")
            failed += 1
            continue
        for mode, value in accuracy.items():
            ok = value >= args.floor and abs(value - accuracy["fp32"]) <= args.spread
            failed += not ok
            print(f"{mode}: {value:.2f} % ({'ok' if ok else 'FAIL'}: floor "
                  f"{args.floor} %, fp32 {accuracy['fp32']:.2f} % +- {args.spread})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
