"""One wing per benchmark: outside `viewer/core/benchmarks/<name>/`, no module names a benchmark.

"Names" means, in the code (docstrings and comments are prose and may mention a benchmark):
- imports a benchmark's package (`viewer.core.benchmarks.<name>`), or one of the registered
  benchmark objects (`GST`, `VSI`, ...) from `viewer.core.benchmarks`;
- writes one of a registered benchmark's column keys or task names as a string literal, which is
  how code dispatches on a benchmark's specifics (`key == "Ori"`, `{"TDS_E": ...}`).

The registry (`benchmarks/registry.py`, `benchmarks/__init__.py`) is the one place that lists the
built-in packages. The demo generator and the self-test write GST-Bench releases of their own, so
they are GST-Bench's by definition (`EXEMPT`).
"""
from __future__ import annotations

import ast
from pathlib import Path

import viewer
from viewer.core.benchmarks import BENCHMARKS

PKG = Path(viewer.__file__).parent
WINGS = PKG / "core" / "benchmarks"
REGISTRY = {WINGS / "__init__.py", WINGS / "registry.py"}
# Modules that generate a GST-Bench release (not read one): the bundled demo and the self-test's release.
EXEMPT = {PKG / "demo", PKG / "selftest.py"}
# Strings that equal a column key but are words of their own in that module (kept short, each with why).
ALLOWED: dict[str, set[str]] = {
    # The angle families' names in a finding's details ("ED", "Ori"), as docs/audit.md documents them.
    "viewer/core/audit/checks/angle_convention.py": {"Ori"},
}


def _inside(path: Path, folder: Path) -> bool:
    return folder == path or folder in path.parents


def _modules() -> list[Path]:
    out = []
    for f in sorted(PKG.rglob("*.py")):
        if f in REGISTRY or any(_inside(f, e) for e in EXEMPT):
            continue
        if _inside(f, WINGS) and f.parent != WINGS:
            continue                     # inside a wing: benchmarks/<name>/...
        out.append(f)
    return out


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _specifics() -> tuple[set[str], set[str]]:
    """Every registered benchmark's column keys and task names, and the benchmarks' package names."""
    words = set()
    for b in BENCHMARKS.values():
        words |= {c.key for c in b.columns} | {c.task for c in b.columns} | set(b.task_aliases)
    return words, set(BENCHMARKS)


def _violations(path: Path, words: set[str], names: set[str]) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    docs = _docstrings(tree)
    rel = path.relative_to(PKG.parent)
    module = ".".join(rel.with_suffix("").parts)
    out = []
    objects = {b.upper() for b in names}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = module.split(".")[: len(module.split(".")) - node.level]
                base = ".".join(pkg + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                hit = any(x.startswith(f"viewer.core.benchmarks.{n}") for n in names for x in (full, base))
                if hit or (base == "viewer.core.benchmarks" and alias.name in objects):
                    out.append(f"{rel}:{node.lineno}: imports {full}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if any(alias.name.startswith(f"viewer.core.benchmarks.{n}") for n in names):
                    out.append(f"{rel}:{node.lineno}: imports {alias.name}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            if node.value in words and node.value not in ALLOWED.get(str(rel), set()):
                out.append(f"{rel}:{node.lineno}: names {node.value!r}")
    return out


def test_no_module_outside_a_wing_names_a_benchmark():
    words, names = _specifics()
    assert {"gst", "vsi"} <= names and "Ori" in words and "object_counting" in words
    found = [v for f in _modules() for v in _violations(f, words, names)]
    assert found == [], "\n".join(found)


def test_the_check_catches_what_it_should(tmp_path):
    """The check itself can fail: a module importing a wing and dispatching on a key is caught."""
    words, names = _specifics()
    bad = PKG / "core" / "_wing_probe.py"
    bad.write_text("from .benchmarks.gst.columns import COLUMNS\nfrom .benchmarks import VSI\n"
                   "def f(c):\n    '''Ori is fine in a docstring.'''\n    return c.key == 'Ori'\n")
    try:
        found = _violations(bad, words, names)
    finally:
        bad.unlink()
    assert len(found) == 3 and "imports viewer.core.benchmarks.gst.columns.COLUMNS" in found[0]
    assert "imports viewer.core.benchmarks.VSI" in found[1] and "names 'Ori'" in found[2]


def test_viewer_core_stays_small():
    """Folders, not prefixes: at most 30 modules directly in viewer/core."""
    direct = sorted(p.name for p in (PKG / "core").glob("*.py"))
    assert len(direct) <= 30, direct
