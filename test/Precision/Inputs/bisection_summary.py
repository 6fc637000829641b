#!/usr/bin/env python3
"""Prints a precision report's bisection: the first round's miss against
its prediction, the ops each bisection run raised, the carriers found, the
ops left in f32 by bisection and whether the budget was met."""
import json
import sys

report = json.load(open(sys.argv[1]))
attempts, summary = report["attempts"], report["summary"]
first = attempts[0]
print("first round measured/predicted over 4:",
      first["measured_error"] > 4 * first["predicted_error"])
print("bisection runs:", [a["raised_to_f32"] for a in attempts if a.get("bisection")])
bisection = summary["bisection"]
print("carriers:", bisection["carriers"], "runs:", bisection["runs"])
print("f32 ops:", [(o["name"], o["reason"]) for o in report["ops"]
                   if o["format"] == "f32" and o["reason"] == "bisection"])
print("met:", summary["met"], "last resort:", summary["last_resort"])
