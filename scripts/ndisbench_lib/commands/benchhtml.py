"""bench.html, beside bench.md: the bench's figures as tables with inline
SVG bar charts beside them (report.html.page(): no script, nothing
fetched, so the page works offline and from an untrusted folder).

Device labels, kernel names and run ids come from bench.json: untrusted
text, escaped like everything on the run pages."""
import dataclasses
import math
import os
import pathlib
import re
from typing import List, Optional, Sequence

from . import benchresult
from ..report.html import esc, href, page as html_page

# Bar colours, also looked for in the headless-Chromium test: references
# (e1000, the native driver) and wrapped devices; goals met or missed.
REFERENCE = "#78909c"
WRAPPED = "#1e88e5"
MET = "#43a047"
MISSED = "#e53935"
MARK = "#212121"
NO_DATA = "#757575"

# Chart geometry (px). Bars are horizontal, each under its label: device
# labels like "bcm43xx/ndiswrapper" stay readable and a chart is narrow
# enough to sit beside the table.
TITLE_H = 22
ROW_H = 34
LABEL_Y = 12        # label baseline, from the row's top
BAR_Y = 16          # bar top, from the row's top
BAR_H = 12
PAD = 2
SVG_NS = "http://www.w3.org/2000/svg"

# (metric, chart title), the charts beside the traffic table.
CHARTS = (("tcp_mbps", "TCP MB/s (more is better)"),
          ("rtt_p50_us", "RTT p50 us (less is better)"),
          ("udp_pps", "64 B pkt/s (more is better)"))
TRAFFIC = ("tcp_mbps", "rtt_p50_us", "rtt_p99_us", "udp_pps")
# Protected against open, a table of its own under the goals.
PROTECTED = "wpa2_tcp_mbps"

# Tables and charts side by side where the window is wide enough: the
# chart box takes what the table leaves (two 330 px charts a row beside
# the traffic table at 1366 px), else goes under it.
CSS = f"""
.figs {{ display: flex; flex-wrap: wrap; gap: 1em 2em;
  align-items: flex-start; }}
.charts {{ flex: 1 1 340px; display: flex; flex-wrap: wrap;
  gap: .6em 1.5em; }}
.charts p {{ flex-basis: 100%; margin: 0; }}
td.num {{ text-align: right; font-variant-numeric: tabular-nums; }}
td.met-met {{ color: {MET}; font-weight: 600; }}
td.met-missed {{ color: {MISSED}; font-weight: 600; }}
.swatch {{ display: inline-block; width: 1.2em; height: .8em;
  margin: 0 .3em 0 .8em; }}
.swatch.reference {{ background: {REFERENCE}; }}
.swatch.wrapped {{ background: {WRAPPED}; }}
"""


@dataclasses.dataclass(frozen=True)
class Bar:
    label: str
    value: Optional[float]          # None: no figure (a check failed)
    text: str = ""                  # after the bar; default: the value
    colour: str = WRAPPED
    mark: Optional[float] = None    # a goal, on the bars' scale


def _known(value: Optional[float]) -> bool:
    return value is not None and math.isfinite(value)


def bar_chart(title: str, bars: Sequence[Bar], width: int = 330,
              figure_w: int = 80) -> str:
    """One inline SVG: a bar per value, lengths proportional to the values
    (and marks) on one scale from 0; figure_w is kept free right of the
    longest bar for its figure."""
    plot = width - 2 * PAD - figure_w
    top = max([b.value for b in bars if _known(b.value)] +
              [b.mark for b in bars if _known(b.mark)] + [0.0])
    scale = plot / top if top > 0 else 0.0
    height = TITLE_H + ROW_H * len(bars) + 4
    out = [f'<svg xmlns="{SVG_NS}" class="chart" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
           f'aria-label="{esc(title)}" font-size="12">',
           f"<title>{esc(title)}</title>",
           f'<text x="{PAD}" y="15" font-weight="600">{esc(title)}</text>']
    for n, bar in enumerate(bars):
        out.append(_bar_row(bar, TITLE_H + n * ROW_H, scale))
    return "\n".join(out + ["</svg>"])


def _bar_row(bar: Bar, y: int, scale: float) -> str:
    parts = [f'<g><text x="{PAD}" y="{y + LABEL_Y}">{esc(bar.label)}</text>']
    base = y + BAR_Y + BAR_H - 2        # figure text baseline
    mark = (PAD + (bar.mark or 0.0) * scale) if _known(bar.mark) else None
    if not _known(bar.value):
        parts.append(f'<text x="{PAD}" y="{base}" fill="{NO_DATA}">'
                     f"{esc(bar.text or 'no data')}</text>")
    else:
        length = max(bar.value or 0.0, 0.0) * scale
        parts.append(f'<rect x="{PAD}" y="{y + BAR_Y}" width="{length:.1f}" '
                     f'height="{BAR_H}" fill="{esc(bar.colour)}"/>')
        figure = bar.text or benchresult.fmt_figure(bar.value)
        # After the bar, or after the goal line if that ends further right.
        x = max(PAD + length, mark or 0.0) + 4
        parts.append(f'<text x="{x:.1f}" y="{base}">{esc(figure)}</text>')
    if mark is not None:
        parts.append(f'<line class="mark" x1="{mark:.1f}" x2="{mark:.1f}" '
                     f'y1="{y + BAR_Y - 3}" y2="{y + BAR_Y + BAR_H + 3}" '
                     f'stroke="{MARK}" stroke-width="2"/>')
    return "".join(parts + ["</g>"])


def _references() -> set:
    return {ref for _, _, ref, _, _, _ in benchresult.TARGETS}


def device_chart(res: benchresult.BenchResult, metric: str, title: str) -> str:
    refs = _references()
    return bar_chart(title, [
        Bar(dev, res.median(dev, metric),
            colour=REFERENCE if res.device_of(dev) in refs else WRAPPED)
        for dev in res.samples])


def goals_chart(res: benchresult.BenchResult) -> str:
    bars = []
    for row in res.ratios():
        what, dev, ref = row["what"], row["device"], row["reference"]
        ratio = row["ratio"] if isinstance(row["ratio"], float) else None
        met = row["met"]
        op, target = str(row["target"]).split()
        bars.append(Bar(f"{what} ({dev} / {ref}) {op} {target}", ratio,
                        text="" if ratio is None else
                        f"{benchresult.fmt_figure(ratio)} "
                        f"{'met' if met else 'missed'}",
                        colour=MET if met else MISSED, mark=float(target)))
    return bar_chart("Goals: ratio to the reference (line: the goal)", bars,
                     width=520, figure_w=90)


def figures_table(res: benchresult.BenchResult, metrics: Sequence[str]) -> str:
    heads = dict(benchresult.METRICS)
    rows = ["<table><thead><tr><th>device</th>"
            + "".join(f"<th>{esc(heads[m])}</th>" for m in metrics)
            + "</tr></thead><tbody>"]
    for dev in res.samples:
        rows.append(f"<tr><th>{esc(dev)}</th>" + "".join(
            '<td class="num">'
            f'{esc(benchresult.fmt_figure(res.median(dev, m)))}'
            "</td>" for m in metrics) + "</tr>")
    return "\n".join(rows + ["</tbody></table>"])


def goals_table(res: benchresult.BenchResult) -> str:
    rows = ["<table><thead><tr><th>goal</th><th>ratio</th><th>target</th>"
            "<th>met</th></tr></thead><tbody>"]
    for row in res.ratios():
        ratio = row["ratio"] if isinstance(row["ratio"], float) else None
        met = {None: "no data", True: "met", False: "missed"}[row["met"]]
        rows.append(
            f"<tr><td>{esc(row['what'])} ({esc(row['device'])} / "
            f"{esc(row['reference'])})</td><td class=\"num\">"
            f"{esc(benchresult.fmt_figure(ratio))}"
            f"</td><td>{esc(row['target'])}</td>"
            f'<td class="met-{esc(met.replace(" ", "-"))}">{esc(met)}</td>'
            "</tr>")
    return "\n".join(rows + ["</tbody></table>"])


def protected_table(res: benchresult.BenchResult) -> str:
    rows = ["<table><thead><tr><th>radio row</th><th>open TCP MB/s</th>"
            "<th>WPA2 TCP MB/s</th><th>protected/open</th></tr></thead>"
            "<tbody>"]
    for row in res.protected():
        ratio = row["ratio"] if isinstance(row["ratio"], float) else None
        rows.append(
            f"<tr><th>{esc(str(row['device']))}</th>" + "".join(
                f'<td class="num">{esc(benchresult.fmt_figure(v))}</td>'
                for v in (row["open"], row["wpa2"]))  # type: ignore
            + '<td class="num">' + esc(benchresult.fmt_figure(ratio)
                                       if ratio is not None
                                       else "no wpa2 figure")
            + "</td></tr>")
    return "\n".join(rows + ["</tbody></table>"])


def paragraph(line: str) -> str:
    """A benchresult.notes() line: escaped, its `code spans` as <code>."""
    return "<p>" + re.sub(r"`([^`]*)`", r"<code>\1</code>", esc(line)) + \
        "</p>"


def header(res: benchresult.BenchResult) -> List[str]:
    # The rounds' run folders are siblings of the bench folder in out/.
    runs = ", ".join(f'<a href="{href(f"../{r}/report.html")}">{esc(r)}</a>'
                     for r in res.runs) or "-"
    load = " -> ".join(f"{x:.1f}" for x in res.load) or "-"
    return ['<dl class="meta">',
            f"<dt>kernel</dt><dd>{esc(', '.join(res.kernels))}</dd>",
            f"<dt>rounds</dt><dd>{res.rounds} (medians; one guest at a "
            "time)</dd>",
            f"<dt>accel</dt><dd>{esc(res.accel or '-')}</dd>",
            f"<dt>host load</dt><dd>{esc(load)} on {os.cpu_count()} "
            "CPUs</dd>",
            f"<dt>runs</dt><dd>{runs}</dd>", "</dl>"]


def page(res: benchresult.BenchResult) -> str:
    phases = [m for m, _ in benchresult.METRICS
              if m not in TRAFFIC and m != PROTECTED]
    body = [f"<h1>ndisbench bench {esc(res.bench_id)}</h1>", *header(res),
            "<h2>Traffic</h2>", '<div class="figs">',
            figures_table(res, TRAFFIC), '<div class="charts">',
            '<p><span class="swatch reference"></span>reference'
            '<span class="swatch wrapped"></span>wrapped</p>',
            *[device_chart(res, m, t) for m, t in CHARTS],
            "</div>", "</div>",
            "<h2>Goals</h2>", '<div class="figs">', goals_table(res),
            goals_chart(res), "</div>",
            *(["<h2>Protected against open</h2>", protected_table(res)]
              if res.protected() else []),
            "<h2>Where the time goes</h2>", figures_table(res, phases),
            *[paragraph(line) for line in benchresult.notes(res)]]
    return html_page(f"ndisbench bench {res.bench_id}", body, CSS)


def write(bench_dir: pathlib.Path, res: benchresult.BenchResult
          ) -> pathlib.Path:
    path = bench_dir / "bench.html"
    path.write_text(page(res), encoding="utf-8")
    return path
