"""A study's HTML report: its settings, parameters and metrics, and plots as embedded PNGs."""
from __future__ import annotations

import base64
import html
import io

import numpy as np


AXIS_LABELS = {"time": "t (s)", "ay": "lateral acceleration (m/s^2)"}


def figure_png(h: dict, plots, decorate=None) -> bytes:
    """The manoeuvre's panels (title, x name, y names, y unit) as one PNG; ``decorate(title,
    axes, h)``, if given, draws what else a panel shows (a course's cones)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = len(plots)
    cols = 2 if n > 1 else 1
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5.5 * cols, 3.6 * rows), squeeze=False)
    for ax, (title, x, ys, unit) in zip(axes.flat, plots):
        for y in ys:
            if y in h:
                ax.plot(h[x], h[y], label=y)
        if decorate is not None:
            decorate(title, ax, h)
        ax.set(title=title, xlabel=AXIS_LABELS.get(x, x), ylabel=unit)
        ax.grid(True, alpha=0.3)
        if len(ys) > 1:
            ax.legend(fontsize=8)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return buf.getvalue()


def _table(title: str, values: dict, units: dict | None = None) -> str:
    rows = "".join(
        f"<tr><td>{html.escape(str(k))}</td><td>{_fmt(v)}</td>"
        f"<td>{html.escape((units or {}).get(k, ''))}</td></tr>" for k, v in values.items())
    return (f"<h2>{html.escape(title)}</h2><table><tr><th>name</th><th>value</th><th>unit</th></tr>"
            f"{rows}</table>")


def _fmt(value) -> str:
    if isinstance(value, float):
        return "NaN" if np.isnan(value) else f"{value:.6g}"
    return html.escape(str(value))


def html_report(title: str, description: str, settings: dict, setting_units: dict,
                parameters: dict, metrics: dict, metric_units: dict, png: bytes) -> str:
    """The report as one self-contained HTML page."""
    image = base64.b64encode(png).decode()
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
             "td,th{border:1px solid #bbb;padding:3px 8px;text-align:left}</style></head><body>",
             f"<h1>{html.escape(title)}</h1><p>{html.escape(description)}</p>",
             _table("Metrics", metrics, metric_units), _table("Settings", settings, setting_units)]
    if parameters:
        parts.append(_table("FMU parameters", parameters))
    parts.append(f"<h2>Time histories</h2><img alt='time histories' src='data:image/png;base64,{image}'>")
    parts.append("</body></html>")
    return "\n".join(parts)
