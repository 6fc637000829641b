#!/usr/bin/env python3
"""Interrupts a compile while its staging folder exists, then checks that
nothing is left behind.

usage: interrupt.py SIGNAL OUT -- dsmp-compile ARGS... -o OUT
Prints the compile's exit status, whether a staging folder was seen, and
whether anything named OUT or OUT.partial* is left.
"""
import glob
import os
import signal
import subprocess
import sys
import time

sig = getattr(signal, sys.argv[1])
out = sys.argv[2]
cmd = sys.argv[sys.argv.index("--") + 1:]
proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
seen = False
deadline = time.time() + 180
while proc.poll() is None and time.time() < deadline:
    if glob.glob(out + ".partial*"):
        seen = True
        time.sleep(0.2)  # well inside the compile
        proc.send_signal(sig)
        break
    time.sleep(0.005)
proc.wait(timeout=600)
left = sorted(os.path.basename(p) for p in glob.glob(out + "*"))
print(f"staging seen: {seen}; killed: {proc.returncode != 0}; left: {left}")
