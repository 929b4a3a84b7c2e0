"""What pyproject.toml cannot say: the checkout's top-level `assets/` ships inside
the package as `viewer/_assets/`, where `viewer.assets` looks when installed.

Everything else (metadata, dependencies, packages) is in pyproject.toml.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ASSETS = Path(__file__).resolve().parent / "assets"
SHIPPED = ("demo", "README.md")          # what of assets/ goes into the wheel


class BuildPyWithAssets(build_py):
    """Copies the shipped assets into the built package (not for editable installs:
    there `viewer.assets` finds the checkout's own `assets/`)."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "viewer" / "_assets"
        shutil.rmtree(target, ignore_errors=True)      # no stale files from an earlier build
        target.mkdir(parents=True)
        for name in SHIPPED:
            src = ASSETS / name
            if src.is_dir():
                shutil.copytree(src, target / name, ignore=shutil.ignore_patterns("__pycache__", ".*"))
            elif src.is_file():
                shutil.copy2(src, target / name)


setup(cmdclass={"build_py": BuildPyWithAssets})
