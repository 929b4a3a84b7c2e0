"""`viewer/cli.py` is a table of commands; the commands live in their own modules and share argument
helpers through `viewer/cli_args.py`, never through `viewer.cli` (no import cycle between them)."""
import ast
import json
import subprocess
import sys
from pathlib import Path

import viewer
from viewer.cli import COMMANDS, OPEN_WINDOW

PKG = Path(viewer.__file__).parent
TOP_LEVEL = {f.stem for f in PKG.glob("*.py")}


def imported_top_level_modules(path: Path) -> set[str]:
    """The modules directly in viewer/ that a file imports anywhere in it (in functions too: the commands
    import lazily, and a lazy import closes a cycle as surely as one at the top)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module is None:                 # from . import x
                found.update(a.name for a in node.names)
            elif node.level == 1:                                       # from .x(.y) import z
                found.add(node.module.split(".")[0])
            elif node.level == 0 and (node.module or "").startswith("viewer."):
                found.add(node.module.split(".")[1])
            elif node.level == 0 and node.module == "viewer":
                found.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("viewer."))
    return found & TOP_LEVEL


def top_level_graph() -> dict[str, set[str]]:
    """Who imports whom among the modules directly in viewer/; cli.py's command table counts as its imports."""
    graph = {f.stem: imported_top_level_modules(f) - {f.stem} for f in PKG.glob("*.py")}
    graph["cli"] |= {c.module for c in (*COMMANDS.values(), OPEN_WINDOW)}
    return graph


def test_import_walker_sees_lazy_and_relative_imports(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("from . import cli_args\n\ndef run():\n    from .cli import main\n    import viewer.score_cli\n")
    assert imported_top_level_modules(f) == {"cli_args", "cli", "score_cli"}


def test_no_module_but_the_entry_point_imports_cli():
    importers = sorted(m for m, deps in top_level_graph().items() if "cli" in deps)
    assert importers == ["__main__"], f"viewer.cli is imported by {importers}: put shared helpers in cli_args.py"


def test_the_modules_directly_in_viewer_import_each_other_without_a_cycle():
    graph = top_level_graph()
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        if module in path:
            raise AssertionError("import cycle: " + " -> ".join((*path[path.index(module):], module)))
        if module in done:
            return
        for dep in sorted(graph.get(module, ())):
            visit(dep, (*path, module))
        done.add(module)

    for module in sorted(graph):
        visit(module, ())


def test_every_command_runs_its_help_with_viewer_cli_blocked():
    """Each command, imported in a fresh interpreter where `import viewer.cli` fails, still builds its parser."""
    targets = [(c.module, c.function, name) for name, c in COMMANDS.items()]
    targets.append((OPEN_WINDOW.module, OPEN_WINDOW.function, "(window)"))
    code = (
        "import contextlib, importlib, io, json, sys\n"
        "sys.modules['viewer.cli'] = None\n"            # any import of it now raises ImportError
        "codes = {}\n"
        f"for module, function, name in {targets!r}:\n"
        "    run = getattr(importlib.import_module('viewer.' + module), function)\n"
        "    out = io.StringIO()\n"
        "    try:\n"
        "        with contextlib.redirect_stdout(out):\n"
        "            run(['--help'])\n"
        "    except SystemExit as e:\n"
        "        codes[name] = [e.code, 'usage: gst-viewer' in out.getvalue()]\n"
        "print(json.dumps(codes))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PKG.parent)
    assert p.returncode == 0, p.stderr
    codes = json.loads(p.stdout)
    assert codes == {name: [0, True] for *_, name in targets}
