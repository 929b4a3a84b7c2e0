"""The leaderboard as CSV, Markdown or LaTeX, for `score --format` and the window's Export.

One table (`board_rows`: a header, then one row per model and the Random
reference row) written three ways; numbers have one decimal as in the paper,
and a missing value is empty (CSV) or a dash.
"""
from __future__ import annotations

import csv
import io

from .evaluate import average

RANDOM = "Random (uniform)"


def board_rows(board: dict, random_row: dict | None, benchmark,
               models: list[str] | None = None) -> tuple[list[str], list[tuple[str, list[float | None]]]]:
    """(header, [(name, values)]) as `benchmark`'s leaderboard has them; `models` keeps only those (None: all)."""
    keys = benchmark.table_keys
    header = ["Model"] + [benchmark.label(k) for k in keys] + ["Avg"]
    rows = [(name, [m["columns"][k] for k in keys] + [m["avg"]])
            for name, m in board["models"].items() if models is None or name in models]
    if random_row is not None:
        rows.append((RANDOM, [random_row.get(k) for k in keys] + [average(random_row)]))
    return header, rows


def _num(v: float | None, none: str) -> str:
    return none if v is None else f"{v:.1f}"


def to_csv(header: list[str], rows) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    for name, values in rows:
        w.writerow([name] + [_num(v, "") for v in values])
    return out.getvalue()


def to_markdown(header: list[str], rows) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|")
    lines = ["| " + " | ".join(cell(h) for h in header) + " |",
             "|" + "|".join([" --- "] + [" ---: "] * (len(header) - 1)) + "|"]
    for name, values in rows:
        lines.append("| " + " | ".join([cell(name)] + [_num(v, "–") for v in values]) + " |")
    return "\n".join(lines) + "\n"


_TEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def tex_escape(text: str) -> str:
    return "".join(_TEX_SPECIAL.get(ch, ch) for ch in text)


def to_latex(header: list[str], rows) -> str:
    """A booktabs tabular; each column's best model value is bold (the Random row never is)."""
    models = [(n, v) for n, v in rows if n != RANDOM]
    best = [max((v[c] for _, v in models if v[c] is not None), default=None) for c in range(len(header) - 1)]
    lines = [r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}", r"\toprule",
             " & ".join(tex_escape(h) for h in header) + r" \\", r"\midrule"]
    for name, values in rows:
        if name == RANDOM:
            lines.append(r"\midrule")
        cells = []
        for c, v in enumerate(values):
            text = _num(v, "--")
            bold = name != RANDOM and v is not None and best[c] is not None and round(v, 1) == round(best[c], 1)
            cells.append(r"\textbf{" + text + "}" if bold else text)
        lines.append(" & ".join([tex_escape(name)] + cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


FORMATS = {"csv": to_csv, "md": to_markdown, "tex": to_latex}
SUFFIXES = {"csv": ".csv", "md": ".md", "tex": ".tex"}


def export_board(fmt: str, board: dict, random_row: dict | None, benchmark,
                 models: list[str] | None = None) -> str:
    header, rows = board_rows(board, random_row, benchmark, models)
    return FORMATS[fmt](header, rows)
