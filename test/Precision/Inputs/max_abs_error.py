#!/usr/bin/env python3
"""max |output - stored output| over every element of a run's outputs.

usage: max_abs_error.py TAU REFERENCE_SET RELAXED_OUTPUTS BOUNDED_OUTPUTS
Prints, for the first folder of outputs, whether its error exceeds TAU,
and for the second whether it stays within TAU + 1e-4."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from shared_models import load_outputs  # noqa: E402


def read(folder):
    return {k: v.astype(np.float64) for k, v in load_outputs(folder).items()}


tau = float(sys.argv[1])
reference = read(sys.argv[2])


def error(folder):
    got = read(folder)
    return max(float(np.max(np.abs(got[k] - v))) for k, v in reference.items())


relaxed, bounded = error(sys.argv[3]), error(sys.argv[4])
print(f"{os.path.basename(sys.argv[3])}: max abs error {relaxed:.3e} over {sys.argv[1]}: "
      f"{relaxed > tau}")
print(f"{os.path.basename(sys.argv[4])}: max abs error {bounded:.3e} within {sys.argv[1]} + 1e-4: "
      f"{bounded <= tau + 1e-4}")
