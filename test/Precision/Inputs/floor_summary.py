#!/usr/bin/env python3
"""Prints what error-floor.test checks of a precision report (read by a
strict parser): the floor's source and value for z, the zero outputs,
whether the budget was met, z's measured error and the MatMul's format."""
import json
import sys


def refuse(constant):
    raise ValueError("non-JSON constant " + constant)


report = json.loads(open(sys.argv[1]).read(), parse_constant=refuse)
s = report["summary"]
print("source", s["error_floor_source"])
print("zero outputs", s["outputs_zero_on_calibration"])
print("floor z", s["error_floor"]["z"])
print("met", s["met"])
z = s["measured_error_per_output"]["z"]
print("z error", z if z == 0 else "in (3e-4, 1.5e-3)" if 3e-4 < z < 1.5e-3 else z)
matmul = [op for op in report["ops"] if op.get("name") == "matmul"]
print("matmul", matmul[0]["format"] if matmul else "missing")
