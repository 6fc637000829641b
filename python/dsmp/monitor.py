"""The gradient monitor's log as an HTML page.

    python -m dsmp.monitor LOG.jsonl [-o PAGE.html]

LOG.jsonl is what a trainer's monitor writes (TrainingLoop.h): one sample
per line ({"attempt", "step", "applied", "loss", "grad_norm", "loss_scale",
"next_loss_scale", "tensors": {name: {amax, zero_fraction, inf, nan}},
"layers": {name: {format, amax, forward_nonfinite, gradient_nonfinite,
underflow}}}) and one line per layer switch ({"event": "fallback" |
"return", "attempt", "step", "layer", "reason", "rate", "threshold"}). The
page has the loss scale, the loss, each tensor's gradient amax and zero
fraction and each layer's amax and underflow over the attempted steps, with
the switches marked, as inline SVG: one self-contained file, no scripts.
"""
import argparse
import html
import json
import math
import os
import sys
import tempfile

_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


class LogError(ValueError):
    """A log that cannot be read or is not a monitor log."""


def read_log(path):
    """(samples, events) from a monitor log; LogError names the file and
    line of anything it cannot read."""
    samples, events = [], []
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError as e:
        raise LogError(f"cannot read the monitor log '{path}': {e.strerror}") from e
    except UnicodeDecodeError as e:
        raise LogError(f"'{path}' is not a monitor log (not UTF-8 text)") from e
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise LogError(f"{path}:{number}: not JSON ({e.msg})") from e
        if not isinstance(record, dict) or not isinstance(record.get("attempt"), int):
            raise LogError(f"{path}:{number}: not a monitor record (no attempt)")
        if "event" in record:
            if not isinstance(record.get("layer"), str):
                raise LogError(f"{path}:{number}: an event without its layer")
            events.append(record)
        elif isinstance(record.get("tensors"), dict):
            samples.append(record)
        else:
            raise LogError(f"{path}:{number}: neither a sample nor an event")
    if not samples and not events:
        raise LogError(f"'{path}' holds no monitor records")
    return samples, events


def _finite(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _ticks(lo, hi, log):
    if log:
        decades = [10.0 ** e for e in range(math.ceil(lo), math.floor(hi) + 1)]
        # Less than two decades in view: the ends instead.
        return decades if len(decades) >= 2 else [10.0 ** lo, 10.0 ** hi]
    if hi <= lo:
        return [lo]
    step = 10 ** math.floor(math.log10(hi - lo))
    while (hi - lo) / step > 6:
        step *= 2
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step) + 1)]


def chart(title, series, markers, log=False, ylabel=""):
    """An SVG line chart: series {name: [(x, y)]}, vertical markers
    [(x, label)]; y on a log10 axis when `log` (non-positive values left
    out). Non-finite points are left out."""
    width, height, left, right, top, bottom = 760, 260, 70, 170, 30, 40
    points = {name: [(x, y) for x, y in pts if _finite(x) and _finite(y) and (y > 0 or not log)]
              for name, pts in series.items()}
    xs = [x for pts in points.values() for x, _ in pts] + [x for x, _ in markers]
    ys = [math.log10(y) if log else y for pts in points.values() for _, y in pts]
    out = [f'<figure><figcaption>{html.escape(title)}</figcaption>',
           f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'role="img" aria-label="{html.escape(title)}">']
    if not xs or not ys:
        out.append(f'<text x="{left}" y="{height // 2}">no finite values</text></svg></figure>')
        return "\n".join(out)
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    if x1 == x0:
        x1 = x0 + 1
    if y1 == y0:
        y0, y1 = y0 - 0.5, y1 + 0.5
    pw, ph = width - left - right, height - top - bottom

    def px(x):
        return left + (x - x0) / (x1 - x0) * pw

    def py(y):
        v = math.log10(y) if log else y
        return top + (1 - (v - y0) / (y1 - y0)) * ph

    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>')
    for t in _ticks(y0, y1, log):
        v = math.log10(t) if log else t
        if v < y0 - 1e-9 or v > y1 + 1e-9:
            continue
        y = top + (1 - (v - y0) / (y1 - y0)) * ph
        out.append(f'<line x1="{left - 4}" y1="{y:.1f}" x2="{left}" y2="{y:.1f}" stroke="#999"/>'
                   f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{t:.3g}</text>')
    for t in _ticks(x0, x1, False):
        x = px(t)
        out.append(f'<line x1="{x:.1f}" y1="{top + ph}" x2="{x:.1f}" y2="{top + ph + 4}" stroke="#999"/>'
                   f'<text x="{x:.1f}" y="{top + ph + 16}" text-anchor="middle" font-size="11">{t:.0f}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 6}" text-anchor="middle" font-size="12">attempted step</text>')
    if ylabel:
        out.append(f'<text x="14" y="{top + ph / 2}" font-size="12" transform="rotate(-90 14 {top + ph / 2})" text-anchor="middle">{html.escape(ylabel)}</text>')
    for x, label in markers:
        out.append(f'<line class="switch" x1="{px(x):.1f}" y1="{top}" x2="{px(x):.1f}" y2="{top + ph}" '
                   f'stroke="#d62728" stroke-dasharray="4 3"><title>{html.escape(label)}</title></line>')
    for i, (name, pts) in enumerate(points.items()):
        color = _COLORS[i % len(_COLORS)]
        if pts:
            path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
            out.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.5" points="{path}">'
                       f'<title>{html.escape(name)}</title></polyline>')
        ly = top + 12 + 14 * i
        if ly < height - bottom:
            out.append(f'<rect x="{width - right + 10}" y="{ly - 9}" width="10" height="10" fill="{color}"/>'
                       f'<text x="{width - right + 24}" y="{ly}" font-size="11">{html.escape(name[-24:])}</text>')
    out.append("</svg></figure>")
    return "\n".join(out)


def render(samples, events, source=""):
    """The page for a log's samples and events, as HTML text."""
    markers = [(e["attempt"], f"{e['event']} {e['layer']} ({e.get('reason', '')})")
               for e in events]
    at = [s["attempt"] for s in samples]

    def over(get):
        return [(s["attempt"], get(s)) for s in samples]

    tensors = sorted({n for s in samples for n in s["tensors"]})
    layers = [n for n in dict.fromkeys(n for s in samples for n in s.get("layers", {}))]
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>dsmp monitor: {html.escape(os.path.basename(source))}</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:1000px}"
        "figure{margin:1em 0}figcaption{font-weight:bold}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px}</style>",
        "</head><body>",
        f"<h1>Gradient monitor: {html.escape(source)}</h1>",
        f"<p>{len(samples)} samples"
        + (f" (attempted steps {min(at)} to {max(at)})" if at else "")
        + f", {sum(1 for s in samples if not s.get('applied', True))} of them skipped, "
        f"{sum(1 for e in events if e['event'] == 'fallback')} fallbacks.</p>",
    ]
    if events:
        parts.append("<h2>Layer switches</h2><table><tr><th>attempt</th><th>step</th>"
                     "<th>layer</th><th>switch</th><th>reason</th><th>rate</th></tr>")
        for e in events:
            rate = e.get("rate")
            parts.append(
                f"<tr class='event'><td>{e['attempt']}</td><td>{e.get('step', '')}</td>"
                f"<td>{html.escape(e['layer'])}</td><td>{html.escape(e['event'])}</td>"
                f"<td>{html.escape(str(e.get('reason', '')))}</td>"
                f"<td>{rate:.3g}</td></tr>" if _finite(rate) else
                f"<tr class='event'><td>{e['attempt']}</td><td>{e.get('step', '')}</td>"
                f"<td>{html.escape(e['layer'])}</td><td>{html.escape(e['event'])}</td>"
                f"<td>{html.escape(str(e.get('reason', '')))}</td><td></td></tr>")
        parts.append("</table>")
    parts.append(chart("Loss scale", {"loss scale": over(lambda s: s.get("loss_scale"))},
                       markers, log=True, ylabel="scale"))
    parts.append(chart("Loss", {"loss": over(lambda s: s.get("loss"))}, markers,
                       ylabel="loss"))
    parts.append(chart("Gradient amax per tensor (unscaled)",
                       {n: over(lambda s, n=n: s["tensors"].get(n, {}).get("amax"))
                        for n in tensors}, markers, log=True, ylabel="amax"))
    parts.append(chart("Gradient values zero in their format, per tensor",
                       {n: over(lambda s, n=n: s["tensors"].get(n, {}).get("zero_fraction"))
                        for n in tensors}, markers, ylabel="fraction"))
    if layers:
        parts.append(chart("Forward amax per layer",
                           {n: over(lambda s, n=n: s.get("layers", {}).get(n, {}).get("amax"))
                            for n in layers}, markers, log=True, ylabel="amax"))
        parts.append(chart("Output gradient underflow per layer (non-zero values its format rounds to 0)",
                           {n: over(lambda s, n=n: s.get("layers", {}).get(n, {}).get("underflow"))
                            for n in layers}, markers, ylabel="fraction"))
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_page(log, out):
    """Reads `log`, writes the page to `out` atomically (a temporary file
    beside it, renamed into place)."""
    samples, events = read_log(log)
    text = render(samples, events, source=log)
    folder = os.path.dirname(os.path.abspath(out))
    try:
        fd, temp = tempfile.mkstemp(prefix=".dsmp-monitor-", dir=folder)
    except OSError as e:
        raise LogError(f"cannot write '{out}': {e.strerror}") from e
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(temp, out)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
    return len(samples), len(events)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m dsmp.monitor",
        description="Render a gradient monitor log (JSON lines) as an HTML page.")
    parser.add_argument("log")
    parser.add_argument("-o", "--output", help="the page (default: LOG with .html)")
    args = parser.parse_args(argv)
    out = args.output or os.path.splitext(args.log)[0] + ".html"
    try:
        samples, events = write_page(args.log, out)
    except LogError as e:
        print(f"dsmp.monitor: error: {e}", file=sys.stderr)
        return 1
    print(f"{out}: {samples} samples, {events} layer switches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
