#!/usr/bin/env python3
"""max |output - stored output| over every element of a run's outputs.

usage: max_abs_error.py REFERENCE_SET RELAXED_OUTPUTS BOUNDED_OUTPUTS
Prints, for the first folder of outputs, whether its error exceeds 1e-2,
and for the second whether it stays within 1e-2 + 1e-4."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from shared_models import load_outputs  # noqa: E402


def read(folder):
    return {k: v.astype(np.float64) for k, v in load_outputs(folder).items()}


reference = read(sys.argv[1])


def error(folder):
    got = read(folder)
    return max(float(np.max(np.abs(got[k] - v))) for k, v in reference.items())


relaxed, bounded = error(sys.argv[2]), error(sys.argv[3])
print(f"{os.path.basename(sys.argv[2])}: max abs error {relaxed:.3e} over 1e-2: {relaxed > 1e-2}")
print(f"{os.path.basename(sys.argv[3])}: max abs error {bounded:.3e} within 1e-2 + 1e-4: "
      f"{bounded <= 1e-2 + 1e-4}")
