"""Problems found while reading user data, reported instead of raised.

Every loader returns its result together with a list of `Diagnostic`s so
that one bad record never hides the good ones; the CLI prints them and the
window shows them in its status bar and log.

Each diagnostic has a machine-readable `code`, "<area>.<what>" (e.g.
"json.malformed", "prediction.unknown_uid", "media.missing"): code that
reacts to a kind of problem tests the code, never the message, whose
wording is for people and may change.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


class UserError(Exception):
    """An input problem that stops a command; its text is shown as is."""


@dataclass(frozen=True)
class Diagnostic:
    level: str                  # "error" | "warning" | "info"
    code: str                   # "<area>.<what>", e.g. "json.malformed"
    message: str
    file: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = f"{self.file}:{self.line}: " if self.line else f"{self.file}: "
        return f"{self.level}: {where}{self.message}"


@dataclass
class Diagnostics:
    items: list[Diagnostic] = field(default_factory=list)

    def error(self, message: str, file: str | Path | None = None, line: int | None = None, *, code: str) -> None:
        self.items.append(Diagnostic("error", code, message, _s(file), line))

    def warning(self, message: str, file: str | Path | None = None, line: int | None = None, *, code: str) -> None:
        self.items.append(Diagnostic("warning", code, message, _s(file), line))

    def info(self, message: str, file: str | Path | None = None, line: int | None = None, *, code: str) -> None:
        self.items.append(Diagnostic("info", code, message, _s(file), line))

    def extend(self, other: "Diagnostics") -> None:
        self.items.extend(other.items)

    def of_level(self, level: str) -> list[Diagnostic]:
        return [d for d in self.items if d.level == level]

    def with_code(self, code: str) -> list[Diagnostic]:
        """The diagnostics of one code, or of a whole area when `code` ends with a dot ("prediction.")."""
        if code.endswith("."):
            return [d for d in self.items if d.code.startswith(code)]
        return [d for d in self.items if d.code == code]

    def __iter__(self):
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


def collapsed(diagnostics) -> list[str]:
    """One line per distinct message, in first-seen order, with a count when it repeats (`... (x161)`):
    a file that repeats one problem says it once."""
    counts: dict[str, int] = {}
    for d in diagnostics:
        counts[str(d)] = counts.get(str(d), 0) + 1
    return [line if n == 1 else f"{line} (x{n})" for line, n in counts.items()]


def _s(file: str | Path | None) -> str | None:
    return None if file is None else str(file)
