"""A study's report: what was run (vehicle, event file, FMU and GUID, settings, date), the
metrics in their display units, and the manoeuvre's figure.

The figure's data are built apart from its drawing: a manoeuvre's :meth:`panels` returns
:class:`Panel` s whose :class:`Line` s hold the plotted arrays, already in display units, so
a test reads exactly what is drawn. Plot conventions, the same in every figure:

- time in s; every quantity in the display unit the FMU declares for it (deg, deg/s, km/h,
  g, kN, rpm); the axis label names the unit;
- plan views (a path) are drawn in the earth frame of SAE J670 seen from above, X to the
  right and Y (to the right of X) *down* the page, so a turn to the right turns down; equal
  axes where a shape is shown (a circle, a body outline), else the Y scale is stretched and
  the axis label says so;
- every line has a name saying what it is (a unit's name where there are several); a panel
  of more than one named line has one legend, in its best free corner (a single line is
  named by the axis label).
"""
from __future__ import annotations

import base64
import html
import io
import re
from dataclasses import dataclass, field

import numpy as np

from .units import format_value

#: The label of a plan view's Y axis.
PLAN_Y = "Y (m), right of X: down the page"


@dataclass
class Line:
    """One plotted line: its legend name, x and y arrays (display units) and matplotlib style."""

    label: str
    x: np.ndarray
    y: np.ndarray
    style: dict = field(default_factory=dict)


@dataclass
class Panel:
    """One panel of a report figure."""

    title: str
    xlabel: str
    ylabel: str
    lines: list[Line] = field(default_factory=list)
    #: a plan view: earth Y down the page
    plan: bool = False
    #: equal scales on x and y (a plan view whose shapes matter)
    equal: bool = False
    xlim: tuple | None = None

    def line(self, label: str) -> Line:
        """The line of legend name ``label``; KeyError if none."""
        for line in self.lines:
            if line.label == label:
                return line
        raise KeyError(f"{label!r}: no such line in panel {self.title!r} "
                       f"({', '.join(l.label for l in self.lines)})")


def figure_png(panels: list[Panel], title: str = "") -> bytes:
    """The panels as one PNG, ``title`` above them."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = len(panels)
    cols = 2 if n > 1 else 1
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.0 * cols, 4.0 * rows), squeeze=False)
    for ax, panel in zip(axes.flat, panels):
        for line in panel.lines:
            style = {"lw": 1.2, **line.style}
            label = None if line.label.startswith("_") else line.label
            ax.plot(line.x, line.y, label=label, **style)
        ax.set(title=panel.title, xlabel=panel.xlabel, ylabel=panel.ylabel)
        ax.grid(True, alpha=0.3)
        if panel.xlim is not None:
            ax.set_xlim(*panel.xlim)
        if panel.equal:
            ax.set_aspect("equal", adjustable="datalim")
        if panel.plan and not ax.yaxis_inverted():
            ax.invert_yaxis()
        if sum(not l.label.startswith("_") for l in panel.lines) > 1:
            ax.legend(fontsize=8, loc="best", framealpha=0.85)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    if title:
        fig.suptitle(title, fontsize=12)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return buf.getvalue()


# --- text ---------------------------------------------------------------------------------

_ROLE = re.compile(r":(?:func|class|meth|mod|attr|data|obj):`~?\.?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")


def plain(text: str) -> str:
    """Docstring text as plain text: ``x`` and :func:`a.b` become x and b."""
    text = _ROLE.sub(lambda m: m.group(1).split(".")[-1], text)
    text = _LITERAL.sub(r"\1", text)
    return " ".join(text.split())


def html_text(text: str) -> str:
    """Docstring text as HTML: ``x`` and :func:`a.b` become <code>x</code>, <code>b</code>."""
    text = " ".join(text.split())
    out, pos = [], 0
    for m in re.finditer(r":(?:func|class|meth|mod|attr|data|obj):`~?\.?([^`]+)`|``([^`]+)``",
                         text):
        out.append(html.escape(text[pos:m.start()]))
        name = m.group(1).split(".")[-1] if m.group(1) else m.group(2)
        out.append(f"<code>{html.escape(name)}</code>")
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


def markdown_text(text: str) -> str:
    """Docstring text as Markdown: ``x`` and :func:`a.b` become `x` and `b`."""
    text = _ROLE.sub(lambda m: "`" + m.group(1).split(".")[-1] + "`", text)
    return " ".join(_LITERAL.sub(r"`\1`", text).split())


@dataclass
class Table:
    """A report table: a title, column names and rows of strings."""

    title: str
    columns: list[str]
    rows: list[list[str]]


def html_report(title: str, description: str, tables: list[Table], png: bytes) -> str:
    """The report as one self-contained HTML page."""
    image = base64.b64encode(png).decode()
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             "<style>body{font-family:sans-serif;margin:2em;max-width:70em}"
             "table{border-collapse:collapse;margin-bottom:1em}"
             "td,th{border:1px solid #bbb;padding:3px 8px;text-align:left}"
             "td.n{text-align:right;font-variant-numeric:tabular-nums}</style></head><body>",
             f"<h1>{html.escape(title)}</h1><p>{html_text(description)}</p>"]
    for table in tables:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in table.columns)
        rows = "".join("<tr>" + "".join(
            f"<td class='n'>{html.escape(v)}</td>" if _numeric(v) else f"<td>{html_text(v)}</td>"
            for v in row) + "</tr>" for row in table.rows)
        parts.append(f"<h2>{html.escape(table.title)}</h2><table><tr>{head}</tr>{rows}</table>")
    parts.append(f"<h2>Figure</h2><img alt='{html.escape(title)}' "
                 f"src='data:image/png;base64,{image}'>")
    parts.append("</body></html>")
    return "\n".join(parts)


def markdown_report(title: str, description: str, tables: list[Table]) -> str:
    """The report as Markdown (the figure is report.png beside it)."""
    parts = [f"# {title}", "", markdown_text(description), ""]
    for table in tables:
        parts += [f"## {table.title}", "", "| " + " | ".join(table.columns) + " |",
                  "|" + " --- |" * len(table.columns)]
        parts += ["| " + " | ".join(markdown_text(v).replace("|", "\\|") for v in row) + " |"
                  for row in table.rows]
        parts.append("")
    parts += ["## Figure", "", "![figure](report.png)", ""]
    return "\n".join(parts)


def _numeric(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return text == "-"


def value_text(value) -> str:
    return format_value(value) if isinstance(value, (int, float)) else str(value)
