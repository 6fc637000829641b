"""Opens a precision report page (REPORT.html beside REPORT.json) in headless
Chromium and checks what a reader sees after its scripts ran: no console
message and no script error on the page, every section present, and the
graph drawn with one node per op of the JSON report and one edge per
producer/consumer pair (plus the model inputs and outputs). Optionally saves
a screenshot.

usage: check_report_page.py REPORT.json [--screenshot PNG]
"""

import argparse
import html.parser
import json
import os
import subprocess
import sys
import tempfile

SECTIONS = ["summary", "budget", "rounds", "outputs", "data", "legend",
            "graph", "sensitivity", "ops"]


class Page(html.parser.HTMLParser):
    """Counts what the rendered DOM holds."""

    def __init__(self):
        super().__init__()
        self.ids = set()
        self.nodes = 0
        self.io_nodes = 0
        self.edges = 0
        self.canvas = {}
        self.errors_hidden = None
        self.in_errors = False
        self.error_text = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if a.get("id") == "graph-canvas":
            self.canvas = a
        if a.get("id") == "page-errors":
            self.errors_hidden = "hidden" in a
            self.in_errors = True
        if tag == "g" and a.get("class") == "node":
            self.nodes += 1
        if tag == "g" and a.get("class") == "io":
            self.io_nodes += 1
        if tag == "path" and a.get("class") == "edge":
            self.edges += 1

    def handle_endtag(self, tag):
        if tag == "pre":
            self.in_errors = False

    def handle_data(self, data):
        if self.in_errors:
            self.error_text += data


def chromium(args, profile):
    return subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
         "--enable-logging=stderr", "--v=0", "--user-data-dir=" + profile]
        + args, capture_output=True, text=True, timeout=300)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("--screenshot")
    args = parser.parse_args()
    report = json.load(open(args.report))
    page = os.path.splitext(os.path.abspath(args.report))[0] + ".html"
    ops = report["ops"]
    want_edges = sum(len(op.get("inputs", [])) + len(op.get("model_inputs", []))
                     + len(op.get("model_outputs", [])) for op in ops)
    want_io = len({n for op in ops for n in op.get("model_inputs", [])}) + \
        len({n for op in ops for n in op.get("model_outputs", [])})

    failures = []
    with tempfile.TemporaryDirectory() as profile:
        run = chromium(["--dump-dom", "file://" + page], profile)
        console = [line for line in run.stderr.splitlines() if ":CONSOLE" in line]
        if run.returncode != 0:
            failures.append("chromium exited with %d" % run.returncode)
        for line in console:
            failures.append("console: " + line)
        dom = Page()
        dom.feed(run.stdout)
        if args.screenshot:
            shot = chromium(["--screenshot=" + os.path.abspath(args.screenshot),
                             "--window-size=1280,2400", "--hide-scrollbars",
                             "file://" + page], profile)
            if shot.returncode != 0 or not os.path.exists(args.screenshot):
                failures.append("no screenshot")

    for section in SECTIONS:
        if section not in dom.ids:
            failures.append("section #%s missing" % section)
    if dom.errors_hidden is not True or dom.error_text.strip():
        failures.append("script errors on the page: " + dom.error_text.strip())
    if dom.nodes != len(ops) or dom.canvas.get("data-nodes") != str(len(ops)):
        failures.append("graph: %d op nodes drawn (data-nodes %s) for %d ops"
                        % (dom.nodes, dom.canvas.get("data-nodes"), len(ops)))
    if dom.io_nodes != want_io:
        failures.append("graph: %d input/output nodes for %d" % (dom.io_nodes, want_io))
    if dom.edges != want_edges:
        failures.append("graph: %d edges drawn for %d" % (dom.edges, want_edges))

    name = os.path.basename(page)
    if failures:
        for f in failures:
            print("%s: FAIL %s" % (name, f))
        sys.exit(1)
    print("%s: %d sections, graph of %d ops, %d edges, %d inputs/outputs; "
          "no console messages" % (name, len(SECTIONS), dom.nodes, dom.edges,
                                   dom.io_nodes))


if __name__ == "__main__":
    main()
