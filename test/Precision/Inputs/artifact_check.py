#!/usr/bin/env python3
"""Prints what artifact-validation.test checks of a precision report (read
by a strict parser) beside dsmprt-run --compare's own measurement of the
same artifact against the stored outputs: whether the compile ran the
artifact, its measured error and whether the two agree."""
import json
import re
import subprocess
import sys


def refuse(constant):
    raise ValueError("non-JSON constant " + constant)


report, runner, artifact, inputs = sys.argv[1:5]
s = json.loads(open(report).read(), parse_constant=refuse)["summary"]
check = s["artifact_validation"]
print("ran", check["ran"])
if not check["ran"]:
    print("reason", check["reason"])
    print("artifact error", s.get("artifact_measured_error", "absent"))
    sys.exit(0)
print("runs", len(check["runs"]), "first budget", check["runs"][0]["budget"])
mine = s["artifact_measured_error"]
print("met", s["met"], "artifact within budget", mine <= s["tolerance"])
out = subprocess.run([runner, artifact, "--inputs", inputs, "--compare"],
                     capture_output=True, text=True).stdout
theirs = float(re.search(r"rel-l2 ([0-9.e+-]+)", out).group(1))
# The compile measures against its own FP32 run, dsmprt-run against
# onnxruntime's stored outputs: they differ by FP32's own noise (~1e-7).
print("agrees with dsmprt-run", abs(mine - theirs) <= 1e-2 * theirs and mine > 0,
      f"({mine:.3e} vs {theirs:.3e})")
