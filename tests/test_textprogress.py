"""The command line's progress: a bar on a terminal, plain quarter lines in a log, nothing when asked."""
from __future__ import annotations

import io
import sys

from viewer.textprogress import ProgressBar


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_on_a_terminal(monkeypatch):
    err = _Tty()
    monkeypatch.setattr(sys, "stderr", err)
    with ProgressBar("clip", 10, plain=True) as bar:
        for k in range(1, 11):
            bar(k)
    text = err.getvalue()
    assert "\rclip [" in text and text.endswith("10/10\n")
    assert "%" not in text                                  # no plain lines on a terminal


def test_plain_lines_in_a_log(capsys):
    with ProgressBar("gallery", 13, plain=True) as bar:
        for k in range(1, 14):
            bar(k)
    lines = capsys.readouterr().err.splitlines()
    assert [x.split()[1] for x in lines] == ["25%", "50%", "75%", "100%"]
    assert lines[1] == "gallery: 50% (7/13)" and lines[-1].startswith("gallery: 100% (13/13, ")


def test_silent_in_a_log_unless_plain(capsys):
    with ProgressBar("scoring", 13) as bar:
        for k in range(1, 14):
            bar(k)
    assert capsys.readouterr().err == ""
