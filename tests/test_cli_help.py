"""The help texts say what the commands do today (issue 28, item 12)."""
from __future__ import annotations

import re

import pytest

from viewer.cli import COMMANDS, main


def _help(capsys, *argv) -> str:
    with pytest.raises(SystemExit) as e:
        main([*argv, "--help"])
    assert e.value.code == 0
    return capsys.readouterr().out


def test_top_level_help_lists_the_window_options(capsys):
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    for option in ("--scene", "--size", "--version", "--uid", "--screenshot"):
        assert option in text, option


def test_clip_help_names_the_writers_in_use(capsys):
    text = " ".join(_help(capsys, "clip").split())
    assert "OpenCV" not in text
    assert "MP4 (H.264) or GIF" in text


def test_make_demo_scenes_and_seed_are_explained(capsys):
    text = " ".join(_help(capsys, "make-demo").split())
    assert "--scenes SCENES how many apartments" in text
    assert "--seed SEED random seed" in text


def bare_options(text: str) -> list[str]:
    """Options listed in an argparse help with no text of their own: an option line with nothing after
    its name, followed by another option line, a blank line or the end."""
    lines = text.split("options:", 1)[1].splitlines()
    out = []
    for i, line in enumerate(lines):
        if re.match(r"^  -", line) and not re.search(r"\S\s{2,}\S", line.strip()):
            following = lines[i + 1] if i + 1 < len(lines) else ""
            if re.match(r"^  -|^\s*$", following):
                out.append(line.strip())
    return out


def test_bare_options_are_found():
    text = "options:\n  -h, --help  show this\n  --seed SEED\n  --theme {a,b}\n                        colours\n"
    assert bare_options(text) == ["--seed SEED"]


@pytest.mark.parametrize("name", [c for c in COMMANDS if not c.startswith("-")])
def test_every_option_of_every_command_has_help(capsys, name):
    assert bare_options(_help(capsys, name)) == []
