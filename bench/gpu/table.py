#!/usr/bin/env python3
"""Prints device.py's JSON lines as one table of times and ratios, against
the targets of issue 25 (docs/gpu.md)."""
import json
import sys


def main():
    records = [json.loads(line) for path in sys.argv[1:]
               for line in open(path) if line.strip()]
    for r in records:
        if "device" in r:
            print(f"# {r['device']}, torch {r['torch']} ({r['part']})")
    print(f"{'case':34} {'check / dsmp':>28} {'ms':>9} {'torch ms':>9} {'ratio':>7}")
    models = {}
    for r in records:
        if "model" in r:
            models.setdefault(r["model"], {})[r["kind"]] = r
            time = "" if r.get("dsmp_ms") is None else f"{r['dsmp_ms']:9.2f}"
            print(f"{r['model'] + ' ' + r['kind']:34} {r.get('check', r.get('skipped', ''))[:28]:>28} {time}")
    for name, kinds in sorted(models.items()):
        fp32, mixed = kinds.get("fp32", {}), kinds.get("mixed", {})
        if fp32.get("dsmp_ms") and mixed.get("dsmp_ms"):
            print(f"{name + ' mixed vs fp32 (>= 2x)':34} {'':>28} "
                  f"{mixed['dsmp_ms']:9.2f} {fp32['dsmp_ms']:9.2f} "
                  f"{fp32['dsmp_ms'] / mixed['dsmp_ms']:6.2f}x")
        for kind, torch_key in (("fp32", "torch_fp32_ms"),
                                ("mixed", "torch_autocast_f16_ms")):
            r = kinds.get(kind, {})
            reference = fp32.get(torch_key)
            if r.get("dsmp_ms") and reference:
                print(f"{name + ' ' + kind + ' vs torch (<= 1.5x)':34} {'':>28} "
                      f"{r['dsmp_ms']:9.2f} {reference:9.2f} "
                      f"{r['dsmp_ms'] / reference:6.2f}x")
    for r in records:
        if "gemm" not in r:
            continue
        for route, key, target in (("cuBLASLt", "dsmp", ">= 0.95x"),
                                   ("generated", "generated", ">= 0.6x")):
            name = f"gemm {r['gemm']} {r['n']}^3 {route} ({target})"
            ms = r.get(f"{key}_ms")
            if ms:
                print(f"{name:34} {r[key + '_tflops']:22.1f} TF/s {ms:9.2f} "
                      f"{r['torch_ms']:9.2f} {r['torch_ms'] / ms:6.2f}x")
            else:
                print(f"{name:34} {r.get('check', r.get('skipped', 'not run'))[:28]:>28}")
    print("e4m3: FP8 against torch._scaled_mm; the generated route runs loops "
          "(no f8 tensor-core kernel yet); times include dsmprt-run's copies "
          "in and out")


if __name__ == "__main__":
    main()
