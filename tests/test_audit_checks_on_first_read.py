"""The built-in audit checks are registered when CHECKS is first read, not when viewer.core.audit is imported
(the window imports the package for its image check and the audit dock; issue 30)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}).stdout.strip()


def test_importing_the_package_does_not_import_the_checks_and_reading_lists_them_all():
    out = _run("import sys\n"
               "import viewer.core.audit.image_check\n"
               "from viewer.core.audit import CHECKS\n"
               "print('viewer.core.audit.checks' in sys.modules)\n"
               "ids = CHECKS.ids()\n"
               "print('viewer.core.audit.checks' in sys.modules, len(ids), ids[0], 'vsi_meta_info' in ids)")
    assert out.splitlines() == ["False", "True 25 missing_media True"]


def test_a_check_registered_before_the_first_read_comes_after_the_built_in_ones():
    from viewer.core.audit.checks import REPORT_ORDER
    out = _run("import sys\n"
               "from viewer.core.audit import CHECKS, Check, register\n"
               "from viewer.core.audit.types import VIEW_TARGET_COLUMNS\n"
               "class Mine(Check):\n"
               "    def check_release(self, audit):\n"
               "        return []\n"
               "register(Mine('my_check', 'warning', 'mine', VIEW_TARGET_COLUMNS))\n"
               "print(','.join(CHECKS.ids()))")
    ids = out.split(",")
    assert ids[-1] == "my_check" and ids[:-1] == list(REPORT_ORDER)


def test_a_module_of_the_package_is_imported_without_the_audits_run():
    """The window's image loading imports image_check; the package's names (run_audit, the report types) are
    imported when first used, not with it (~20 ms at the window's start-up)."""
    out = _run("import sys\n"
               "import viewer.core.audit.image_check\n"
               "print(sorted(m for m in ('viewer.core.audit.run', 'viewer.core.audit.types') if m in sys.modules))\n"
               "from viewer.core.audit import AuditReport, run_audit\n"
               "import viewer.core.audit as audit\n"
               "print(run_audit.__module__, AuditReport.__module__, sorted(audit.__all__) == sorted(audit._FROM))\n"
               "try:\n"
               "    audit.no_such_name\n"
               "except AttributeError as e:\n"
               "    print('AttributeError', e)")
    assert out.splitlines() == ["[]", "viewer.core.audit.run viewer.core.audit.types True",
                                "AttributeError module 'viewer.core.audit' has no attribute 'no_such_name'"]
