"""`gst-viewer`: the one entry point, a table of commands; each command lives in its own module.

    gst-viewer [RELEASE] [--predictions P ...]   open the window (default: bundled demo)  (viewer/window_cli.py)
    gst-viewer score RELEASE [-p] PRED [PRED ...] [--parser strict|lenient] [--format csv|md|tex] [--ci]   Table 1
                                                 (viewer/score_cli.py)
    gst-viewer compare RELEASE A B [--json]      two models: differences, intervals, paired tests
                                                 (viewer/intervals_cli.py)
    gst-viewer frames RELEASE --frames POLICY [-p PRED ...]   sampled frames, target frames, k  (viewer/frames_cli.py)
    gst-viewer make-demo OUT                     generate a demo release (viewer/demo_cli.py)
    gst-viewer --selftest [--no-window]          check, headless, that the app works (viewer/selftest.py)
    gst-viewer audit RELEASE [--json] ...        ground-truth audit (viewer/audit_cli.py)
    gst-viewer flags export RELEASE --format F   reviewer verdicts and notes (viewer/audit_cli.py)
    gst-viewer render|clip|gallery RELEASE ...   figures, clips, task gallery (viewer/export_cli.py)
    gst-viewer reconstruct RELEASE [--scene S]  camera path per video by structure from motion
                                                 (viewer/reconstruct_cli.py)
    gst-viewer import-scene OUT_DIR SOURCE...     a real scene as gst-scene/1 (viewer/import_cli.py)
    gst-viewer --scene DIR                       open one scene on its own (viewer/window_cli.py)

What the commands share about their arguments is `viewer/cli_args.py`; no command module imports this one.

Exit codes (README "Exit codes"): 0 success; 1 the command ran but found what it was asked to
fail on (`score`: an input could not be read or matched no question; `audit --fail-on`: findings of
that severity); 2 a user error (bad arguments, nothing usable), as a one-line message on stderr,
never a traceback; 130 interrupted.
"""
from __future__ import annotations

import difflib
import importlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from .cli_args import EXIT_INTERRUPTED, EXIT_OK, EXIT_USER_ERROR
from .core.diagnostics import UserError


@dataclass(frozen=True)
class Command:
    module: str          # viewer.<module>, imported only when the command runs
    function: str        # its `(argv) -> exit code`
    summary: str         # its line in `gst-viewer --help`

    def __call__(self, argv: list[str]) -> int:
        return getattr(importlib.import_module(f"{__package__}.{self.module}"), self.function)(argv)


COMMANDS = {
    "score": Command("score_cli", "cmd_score",
                     "Score prediction files against a release: the paper's Table 1, or JSON"),
    "compare": Command("intervals_cli", "cmd_compare",
                       "Two models on the same questions: differences, their intervals, paired tests"),
    "frames": Command("frames_cli", "cmd_frames",
                      "What each model saw: sampled frames, the target's frames (red box), k, box size"),
    "make-demo": Command("demo_cli", "cmd_make_demo",
                         "Generate a demo release with 3D scenes, videos and simulated models' predictions"),
    "--selftest": Command("selftest", "main", "Check, headless, that the app works on this machine"),
    "audit": Command("audit_cli", "cmd_audit",
                     "Audit the ground truth against the scenes' geometry (--fail-on for CI)"),
    "flags": Command("audit_cli", "cmd_flags", "Reviewer verdicts and notes: export, import, set"),
    "render": Command("export_cli", "cmd_render", "A figure of one question: map, panel or 3D still (PNG, SVG, PDF)"),
    "clip": Command("export_cli", "cmd_clip", "A short clip of one question (MP4 or GIF)"),
    "gallery": Command("export_cli", "cmd_gallery", "One slide per Table-1 task and a grid of all, for talks"),
    "reconstruct": Command("reconstruct_cli", "cmd_reconstruct",
                           "The camera path and sparse points of each video by structure from motion "
                           "(pycolmap), and the query views localised in them"),
    "import-scene": Command("import_cli", "cmd_import_scene",
                            "Import a scene (OmniGibson scene file, or a mesh and a camera trajectory) "
                            "as a gst-scene/1 folder"),
}
OPEN_WINDOW = Command("window_cli", "cmd_open", "")      # no command: the window


def _dump_tracebacks_on_crash() -> None:
    """A crash in native code (Qt, a decoder) prints every thread's Python stack on stderr, so a report
    of one says where it happened; nothing is printed otherwise."""
    import faulthandler
    try:
        if not faulthandler.is_enabled():
            faulthandler.enable(file=sys.stderr, all_threads=True)
    except (AttributeError, ValueError, OSError):      # stderr closed or not a real file (embedded, pythonw)
        pass


def run() -> None:
    """The process's entry (`gst-viewer`, `python -m viewer`, the packaged app): main(), then exit.

    A process whose command used Qt (the window, a screenshot, a gallery) ends with os._exit once its
    output is flushed. Letting the interpreter's finalisation tear down Qt's C++ objects, in an order
    neither Qt nor Python controls, crashed about 1 run in 30 under load (SIGSEGV in the main thread with
    no Python frame, after the window had closed and every file was written). The app registers no
    atexit handler, and every file it writes is complete (and atomic) before main() returns."""
    code = main()
    widgets = sys.modules.get("PyQt6.QtWidgets")
    if widgets is not None and widgets.QApplication.instance() is not None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        os._exit(code if isinstance(code, int) else 1)
    sys.exit(code)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _dump_tracebacks_on_crash()
    try:
        if argv and argv[0] in COMMANDS:
            return COMMANDS[argv[0]](argv[1:])
        if argv and argv[0] in ("-h", "--help"):
            print(top_help(COMMANDS))
            return EXIT_OK
        if argv and not argv[0].startswith("-"):
            _unknown_command(argv[0], COMMANDS)
        return OPEN_WINDOW(argv)
    except UserError as e:
        print(f"gst-viewer: {e}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("gst-viewer: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def top_help(commands: dict[str, Command]) -> str:
    """`gst-viewer --help`: the window's usage, then every subcommand with its one line."""
    width = max(len(name) for name in commands)
    from .core.benchmarks import BENCHMARKS
    lines = [f"usage: gst-viewer [RELEASE] [-p PRED ...] [--uid UID] [--benchmark {'|'.join(BENCHMARKS)}] "
             "[--screenshot OUT.png [--size WxH]]",
             "       gst-viewer --scene DIR        open one scene folder on its own (3D view, maps, path)",
             "       gst-viewer --version",
             "       gst-viewer COMMAND ... (COMMAND --help for its options)",
             "",
             "Inspect GST-Bench releases and model predictions: without a command, open the window",
             "(on the bundled demo when no release is given).",
             "",
             "commands:"]
    for name, command in commands.items():
        lines.append(f"  {name.ljust(width)}  {command.summary}")
    lines += ["",
              "exit codes: 0 done; 1 done, but an input failed (score) or findings reached --fail-on (audit);",
              "            2 user error (message on stderr); 130 interrupted"]
    return "\n".join(lines)


def _unknown_command(word: str, commands: dict) -> None:
    """A first argument that is neither a command nor an existing path: say what was probably meant."""
    if Path(word).expanduser().exists() or os.sep in word or "." in word:
        return
    close = difflib.get_close_matches(word, [c for c in commands if not c.startswith("-")], n=1, cutoff=0.6)
    if close:
        raise UserError(f"unknown command {word!r}; did you mean {close[0]!r}? (gst-viewer --help lists them)")
    raise UserError(f"{word!r} is neither a command nor a file or folder (gst-viewer --help lists the commands)")


if __name__ == "__main__":
    sys.exit(main())

