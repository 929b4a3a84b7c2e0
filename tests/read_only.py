"""Read-only folders in tests: a folder's exact listing, and code run where it truly cannot write one.

CI runs the tests as root, and root writes through any file mode (CAP_DAC_OVERRIDE), so
`chmod -R a-w` alone proves nothing there. The child keeps uid 0, and so still reads the interpreter
and the venv wherever they are, but starts with CAP_DAC_OVERRIDE dropped from its capability bounding
set: after exec it is in neither the permitted nor the effective set, and file modes stop it as they
stop anyone. When the capability cannot be dropped (no CAP_SETPCAP), the child runs as nobody
instead. Either way the child first checks that it cannot create a file in the folders it was given,
so a test that would prove nothing fails instead.
"""
from __future__ import annotations

import ctypes
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PR_CAPBSET_DROP, CAP_DAC_OVERRIDE = 24, 1
NOBODY = 65534

_PRELUDE = """
import json, os, sys
for folder in json.loads(os.environ.pop("UNWRITABLE_FOLDERS")):
    probe = os.path.join(folder, ".write-probe")
    try:
        open(probe, "x").close()
    except PermissionError:
        continue
    os.remove(probe)
    sys.exit(f"unprivileged: {folder} can still be written; the test would prove nothing")
"""


def _drop_write_override() -> None:
    """In the child, before exec: lose root's power to write through file modes."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, 0, 0, 0) == 0:
        return
    os.setgid(NOBODY)                     # no CAP_SETPCAP: become nobody (needs a world-readable interpreter)
    os.setgroups([])
    os.setuid(NOBODY)


def listing(folder: Path) -> dict[str, tuple]:
    """Every file and folder under `folder` (itself included) with its kind, size and modification time:
    equal listings mean nothing was created, removed or written there."""
    out = {}
    for p in [folder, *folder.rglob("*")]:
        st = p.lstat()
        out[str(p.relative_to(folder))] = (stat.S_IFMT(st.st_mode), st.st_size, st.st_mtime_ns)
    return out


def make_read_only(folder: Path) -> None:
    """`chmod -R a-w folder`."""
    for p in [folder, *folder.rglob("*")]:
        if not p.is_symlink():
            p.chmod(stat.S_IMODE(p.stat().st_mode) & ~0o222)


def make_writable(folder: Path) -> None:
    """Undo make_read_only (for the cleanup of tmp_path)."""
    for p in [folder, *folder.rglob("*")]:
        if not p.is_symlink():
            p.chmod(stat.S_IMODE(p.stat().st_mode) | 0o200)


def run_python(code: str, unwritable: list[Path], env: dict | None = None, args=(), timeout: float = 180):
    """Run `code` (with `args` as sys.argv[1:]) in a child that cannot write the `unwritable` folders,
    nor files without a write mode; returns the last line of its stdout parsed as JSON. Fails with the
    child's stderr when it exits non-zero."""
    path = os.pathsep.join([str(REPO), str(REPO / "tests"), os.environ.get("PYTHONPATH", "")])
    child_env = {**os.environ, **(env or {}), "PYTHONPATH": path,
                 "UNWRITABLE_FOLDERS": json.dumps([str(f) for f in unwritable])}
    result = subprocess.run([sys.executable, "-c", _PRELUDE + code, *map(str, args)], env=child_env,
                            capture_output=True, text=True, timeout=timeout,
                            preexec_fn=_drop_write_override if os.geteuid() == 0 else None)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])
