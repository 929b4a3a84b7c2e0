"""Resolving media paths inside a release, cheaply and safely.

A release at training-set size names hundreds of thousands of media files;
stat-ing each one would dominate loading, so existence is answered from one
directory listing per folder, taken on first use and cached.
"""
from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class MediaRef:
    declared: str            # the path as written in the record
    path: str | None         # absolute, normalised; None when refused
    exists: bool
    problem: str | None = None   # why it cannot be shown, for the UI and reports

    @property
    def name(self) -> str:
        return os.path.basename(self.declared)


class MediaIndex:
    def __init__(self, root: str):
        self.root = os.path.normpath(os.path.abspath(root))
        self._listings: dict[str, frozenset[str]] = {}
        self._all: set[str] | None = None
        self._complete = False

    def resolve(self, declared: str, base_dir: str) -> MediaRef:
        """A media path relative to `base_dir`, which must stay in the release."""
        if not isinstance(declared, str) or not declared.strip():
            return MediaRef(str(declared), None, False, "empty media path")
        if os.path.isabs(declared):
            return MediaRef(declared, None, False,
                            "absolute media path refused (paths are relative to the question file)")
        path = os.path.normpath(os.path.join(base_dir, declared))
        if not within(path, self.root):
            return MediaRef(declared, None, False, "media path escapes the release folder")
        exists = self._exists(path)
        return MediaRef(declared, path, exists, None if exists else "file not found")

    def check(self, declared, base_dir: str) -> str | None:
        """Why `declared` cannot be shown, or None when the file is there.

        The hot path of loading a large release (~10^6 files): one walk of
        the release folder answers ordinary paths with a set lookup; only
        unusual ones (refused, "./a.png", below a symlinked folder) get the
        exact check by resolve().
        """
        if type(declared) is str and declared:
            files = self.all_files()
            if base_dir + "/" + declared in files:
                return None
            if self._complete and _plain(declared):
                return "file not found"
        return self.resolve(declared, base_dir).problem

    def all_files(self) -> set[str]:
        """Absolute paths of every file below the release root (symlinked folders not followed)."""
        if self._all is None:
            walked = list(os.walk(self.root))
            self._all = {dirpath + "/" + f for dirpath, _, files in walked for f in files}
            # A symlinked folder is not entered: below it, the walk proves nothing.
            self._complete = not any(os.path.islink(os.path.join(dirpath, d))
                                     for dirpath, dirs, _ in walked for d in dirs)
        return self._all

    def _listing(self, folder: str) -> frozenset[str]:
        try:
            listing = frozenset(e.name for e in os.scandir(folder) if not e.is_dir())
        except OSError:
            listing = frozenset()
        self._listings[folder] = listing
        return listing

    def _exists(self, path: str) -> bool:
        folder, name = os.path.split(path)
        listing = self._listings.get(folder)
        if listing is None:
            listing = self._listing(folder)
        return name in listing


def _plain(declared: str) -> bool:
    """A relative path already in normal form, which cannot leave the folder it is joined to."""
    return declared[0] not in "/\\." and ".." not in declared and "\\" not in declared \
        and "//" not in declared and "/./" not in declared and ":" not in declared


def within(path: str, root: str) -> bool:
    """True when normalised `path` is `root` or below it."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
