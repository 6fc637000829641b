"""Ctrl-C during dsmp.compile: a SIGINT one second into a precision compile
of ppocr_det (several seconds of work) raises KeyboardInterrupt while the
compile is still running, and leaves no artifact, staging folder or
temporary folder behind. The same for a plain compile interrupted during
its code generation.

usage: interrupt_compile.py MODELS WORK
"""
import glob
import os
import signal
import sys
import tempfile
import threading
import time

import dsmp


def interrupt_after(seconds):
    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.daemon = True
    timer.start()


def attempt(label, work, compile_call):
    out = os.path.join(work, label)
    temps_before = set(glob.glob(os.path.join(tempfile.gettempdir(), "dsmp-*")))
    start = time.monotonic()
    interrupt_after(1.0)
    try:
        compile_call(out)
        print(f"{label}: the compile finished before the interrupt")
    except KeyboardInterrupt:
        print(f"{label}: KeyboardInterrupt")
    elapsed = time.monotonic() - start
    # The step under way finishes first; the rest of the compile does not run.
    print(f"{label}: stopped after {elapsed:.1f} s")
    print(f"{label}: artifact left: {os.path.exists(out)}")
    print(f"{label}: staging folders left: {len(glob.glob(out + '.partial*'))}")
    temps_after = set(glob.glob(os.path.join(tempfile.gettempdir(), "dsmp-*")))
    print(f"{label}: temporary folders left: {len(temps_after - temps_before)}")


def main():
    models, work = sys.argv[1], sys.argv[2]
    # Python raises KeyboardInterrupt on SIGINT only where SIGINT was not
    # ignored when it started; a test runner may start it so. A terminal
    # user's Python has this handler.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    det = os.path.join(models, "ppocr_det_v4")
    attempt("precision", work, lambda out: dsmp.compile(
        os.path.join(det, "model.onnx"), target="sm_80", tolerance=1e-2,
        calibration=os.path.join(det, "test_data_set_0"), output=out))
    # No output folder: dsmp.compile's own temporary folder must go too.
    attempt("owned", work, lambda out: dsmp.compile(
        os.path.join(det, "model.onnx"), target="sm_80", tolerance=1e-2,
        calibration=os.path.join(det, "test_data_set_0")))


if __name__ == "__main__":
    main()
