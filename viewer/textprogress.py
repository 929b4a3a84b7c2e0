"""A terminal progress bar on stderr, for commands that may take a while."""
from __future__ import annotations

import sys
import time


class ProgressBar:
    """Draws `label [#####.....] 12/40` on stderr, at most ~10 times a second.

    When stderr is not a terminal (logs, CI) it is silent, unless `force` is set, or `plain`: then a
    plain line per quarter done (`clip: 50% (75/150)`), which a log keeps readably. Silent for jobs
    too small to be worth a bar.
    """

    def __init__(self, label: str, total: int, force: bool = False, min_total: int = 2, plain: bool = False):
        self.label, self.total = label, max(int(total), 0)
        tty = force or sys.stderr.isatty()
        self.enabled = tty and self.total >= min_total
        self.plain = plain and not tty and self.total >= min_total
        self._quarter = 0
        self._start = time.monotonic()
        self._last = 0.0
        self._shown = False

    def _plain(self, done: int) -> None:
        quarter = 4 * done // self.total if self.total else 4
        if quarter > self._quarter:
            self._quarter = quarter
            took = f", {time.monotonic() - self._start:.0f} s" if quarter >= 4 else ""
            print(f"{self.label}: {25 * quarter}% ({done}/{self.total}{took})", file=sys.stderr, flush=True)

    def __call__(self, done: int, total: int | None = None) -> None:
        if total is not None:
            self.total = total
        if self.plain:
            self._plain(done)
        if not self.enabled:
            return
        now = time.monotonic()
        if done < self.total and now - self._last < 0.1:
            return
        self._last = now
        width = 30
        filled = int(width * done / self.total) if self.total else width
        sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{self.total}")
        sys.stderr.flush()
        self._shown = True

    def close(self) -> None:
        if self._shown:
            sys.stderr.write("\n")
            sys.stderr.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
