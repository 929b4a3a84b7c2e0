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
        self._folders: set[str] = set()
        self._has_links = False

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

    def check(self, declared: str, base_dir: str) -> str | None:
        """Why `declared` cannot be shown, or None when the file is there.

        The hot path of loading a large release: plain relative paths (no
        "..", the common case) skip normalisation entirely.
        """
        if type(declared) is str and declared and declared[0] not in "/\\" \
                and ".." not in declared and "\\" not in declared and ":" not in declared:
            folder, _, name = declared.rpartition("/")
            key = base_dir + "/" + folder if folder else base_dir
            listing = self._listings.get(key)
            if listing is None:
                listing = self._listing(key)
            return None if name in listing else "file not found"
        return self.resolve(declared, base_dir).problem

    def all_files(self) -> set[str]:
        """Absolute paths of every file below the release root (symlinked folders not followed)."""
        if self._all is None:
            walked = list(os.walk(self.root))
            self._folders = {dirpath for dirpath, _, _ in walked}
            self._all = {dirpath + "/" + f for dirpath, _, files in walked for f in files}
            self._has_links = any(os.path.islink(os.path.join(dirpath, d))
                                  for dirpath, dirs, _ in walked for d in dirs)
        return self._all

    def walked_folders(self) -> set[str]:
        self.all_files()
        return self._folders

    def walk_is_complete(self) -> bool:
        """True when the walk saw every file: no symlinked folder it did not enter."""
        self.all_files()
        return not self._has_links

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


def within(path: str, root: str) -> bool:
    """True when normalised `path` is `root` or below it."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
