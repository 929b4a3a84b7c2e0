"""A terminal progress bar on stderr, for commands that may take a while."""
from __future__ import annotations

import sys
import time


class ProgressBar:
    """Draws `label [#####.....] 12/40` on stderr, at most ~10 times a second.

    Silent when stderr is not a terminal (logs, CI) unless `force` is set,
    and for jobs too small to be worth a bar.
    """

    def __init__(self, label: str, total: int, force: bool = False, min_total: int = 2):
        self.label, self.total = label, max(int(total), 0)
        self.enabled = (force or sys.stderr.isatty()) and self.total >= min_total
        self._last = 0.0
        self._shown = False

    def __call__(self, done: int, total: int | None = None) -> None:
        if total is not None:
            self.total = total
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
