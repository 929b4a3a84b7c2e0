"""The leaderboard as CSV, Markdown or LaTeX, for `score --format` and the window's Export.

One table (`board_rows`: a header, then one row per model, the Random
reference row and any published rows, `score --reference`) written three ways; numbers have one decimal as in the paper,
and a missing value is empty (CSV) or a dash. A board with intervals
(`score --ci`, core/intervals.py) adds `ErrorBars`: each value's interval and
each column's n (CSV: "ci_low", "ci_high" and "n" columns; Markdown and LaTeX:
"41.9 ± 2.3" cells, an n row with the columns under 30 marked, and a note).
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from ..evaluate import average
from ..intervals import count_text, interval_note
from ..reference_rows import label_of

RANDOM = "Random (uniform)"


@dataclass(frozen=True)
class ErrorBars:
    """Per model row, each value's (ci_low, ci_high) in board_rows' order; each column's n; what they mean."""
    intervals: dict[str, list[tuple[float | None, float | None]]]
    counts: list[int]
    note: str

    def half(self, name: str, c: int) -> float | None:
        low, high = self.intervals.get(name, [(None, None)] * len(self.counts))[c]
        return None if low is None or high is None else (high - low) / 2


def error_bars(board: dict, benchmark, models: list[str] | None = None) -> ErrorBars | None:
    """The board's intervals and counts as board_rows lays them out; None for a board without (no --ci)."""
    if "intervals" not in board:
        return None
    keys = benchmark.table_keys
    shown = {name: m["intervals"] for name, m in board["models"].items() if models is None or name in models}
    bars = {name: [(iv["columns"][k]["ci_low"], iv["columns"][k]["ci_high"]) for k in keys]
            + [(iv["avg"]["ci_low"], iv["avg"]["ci_high"])] for name, iv in shown.items()}
    # Every model of a release counts the same questions (whether one can be scored is the release's).
    first = next(iter(shown.values()), None)
    counts = [] if first is None else [first["columns"][k]["n"] for k in keys] + [first["avg"]["n"]]
    return ErrorBars(bars, counts, interval_note(board["intervals"]))


def board_rows(board: dict, random_row: dict | None, benchmark,
               models: list[str] | None = None) -> tuple[list[str], list[tuple[str, list[float | None]]]]:
    """(header, [(name, values)]) as `benchmark`'s leaderboard has them; `models` keeps only those (None: all)."""
    keys = benchmark.table_keys
    header = ["Model"] + [benchmark.label(k) for k in keys] + ["Avg"]
    rows = [(name, [m["columns"][k] for k in keys] + [m["avg"]])
            for name, m in board["models"].items() if models is None or name in models]
    if random_row is not None:
        rows.append((RANDOM, [random_row.get(k) for k in keys] + [average(random_row)]))
    for ref in board.get("reference", ()):          # score --reference: published rows, named with their origin
        rows.append((label_of(ref), [ref["columns"].get(k) for k in keys] + [ref["avg"]]))
    return header, rows


def published_names(board: dict) -> frozenset[str]:
    """The rows that are not loaded models: Random and the reference rows (never bold, no error bars)."""
    return frozenset({RANDOM, *(label_of(ref) for ref in board.get("reference", ()))})


def _num(v: float | None, none: str) -> str:
    return none if v is None else f"{v:.1f}"


def _pm(v: float | None, half: float | None, none: str, pm: str = " ± ") -> str:
    return _num(v, none) if v is None or half is None else f"{v:.1f}{pm}{half:.1f}"


def to_csv(header: list[str], rows, bars: ErrorBars | None = None, published=frozenset({RANDOM})) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    if bars is None:
        w.writerow(header)
        for name, values in rows:
            w.writerow([name] + [_num(v, "") for v in values])
        return out.getvalue()
    w.writerow(header[:1] + [f"{h}{part}" for h in header[1:] for part in ("", " ci_low", " ci_high", " n")])
    for name, values in rows:
        ends = bars.intervals.get(name, [(None, None)] * len(values))
        counts = bars.counts if name in bars.intervals else [None] * len(values)
        w.writerow([name] + [x for v, (lo, hi), n in zip(values, ends, counts)
                             for x in (_num(v, ""), _num(lo, ""), _num(hi, ""), "" if n is None else n)])
    return out.getvalue()


def to_markdown(header: list[str], rows, bars: ErrorBars | None = None, published=frozenset({RANDOM})) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|")
    lines = ["| " + " | ".join(cell(h) for h in header) + " |",
             "|" + "|".join([" --- "] + [" ---: "] * (len(header) - 1)) + "|"]
    if bars is not None:
        lines.append("| *n* | " + " | ".join(count_text(n) for n in bars.counts) + " |")
    for name, values in rows:
        halves = [None if bars is None else bars.half(name, c) for c in range(len(values))]
        lines.append("| " + " | ".join([cell(name)] + [_pm(v, h, "–") for v, h in zip(values, halves)]) + " |")
    if bars is not None:
        lines += ["", bars.note]
    return "\n".join(lines) + "\n"


_TEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def tex_escape(text: str) -> str:
    return "".join(_TEX_SPECIAL.get(ch, ch) for ch in text)


def to_latex(header: list[str], rows, bars: ErrorBars | None = None, published=frozenset({RANDOM})) -> str:
    """A booktabs tabular; each column's best model value is bold (the `published` rows, Random's and the
    reference rows, never are; a rule comes before the first). With error bars, each value is followed by
    its ± in small type, an n row follows the header and the note is a comment."""
    models = [(n, v) for n, v in rows if n not in published]
    best = [max((v[c] for _, v in models if v[c] is not None), default=None) for c in range(len(header) - 1)]
    lines = [r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}", r"\toprule",
             " & ".join(tex_escape(h) for h in header) + r" \\"]
    if bars is not None:
        lines.append(" & ".join([r"\textit{n}"] + [count_text(n).replace("†", r"$^\dagger$") for n in bars.counts])
                     + r" \\")
    lines.append(r"\midrule")
    ruled = False
    for name, values in rows:
        if name in published and not ruled:
            lines.append(r"\midrule")
            ruled = True
        cells = []
        for c, v in enumerate(values):
            text = _num(v, "--")
            bold = name not in published and v is not None and best[c] is not None and \
                round(v, 1) == round(best[c], 1)
            text = r"\textbf{" + text + "}" if bold else text
            half = None if bars is None or v is None else bars.half(name, c)
            cells.append(text if half is None else text + r"{\scriptsize\,$\pm$\," + f"{half:.1f}" + "}")
        lines.append(" & ".join([tex_escape(name)] + cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if bars is not None:
        lines.append("% " + bars.note.replace("†", "dagger"))
    return "\n".join(lines) + "\n"


FORMATS = {"csv": to_csv, "md": to_markdown, "tex": to_latex}
SUFFIXES = {"csv": ".csv", "md": ".md", "tex": ".tex"}


def export_board(fmt: str, board: dict, random_row: dict | None, benchmark,
                 models: list[str] | None = None) -> str:
    header, rows = board_rows(board, random_row, benchmark, models)
    return FORMATS[fmt](header, rows, error_bars(board, benchmark, models), published_names(board))
