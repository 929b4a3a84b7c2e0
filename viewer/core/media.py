"""Resolving media paths inside a release, cheaply and safely.

A release at training-set size names hundreds of thousands of media files;
stat-ing each one would dominate loading, so existence is answered from one
directory listing per folder, taken on first use and cached.

Only regular files inside the release count as present: a named pipe would
block its reader for ever, and a symbolic link is followed only when it
resolves to a regular file inside the release.
"""
from __future__ import annotations

import operator
import os
import re
from dataclasses import dataclass
from itertools import compress, repeat

# A file checked out without `git lfs pull` holds this text in place of its content.
LFS_POINTER = b"version https://git-lfs.github.com/spec/"
LFS_PROBLEM = "a Git LFS pointer, not the file (run `git lfs pull`)"


def is_lfs_pointer(head: bytes) -> bool:
    """Whether a file's first bytes are a Git LFS pointer's."""
    return head.lstrip(b"\xef\xbb\xbf").startswith(LFS_POINTER)


def lfs_pointer_file(path) -> bool:
    """Whether the file at `path` is a Git LFS pointer (False when it cannot be read)."""
    try:
        with open(path, "rb") as f:
            return is_lfs_pointer(f.read(len(LFS_POINTER) + 3))
    except (OSError, ValueError):
        return False


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
        self._refused: dict[str, str] = {}     # present but not readable as media: why
        self._links: set[str] = set()          # symbolic links met by the walk: judged one by one
        self._real_root = os.path.realpath(self.root)   # links are judged on resolved paths

    def resolve(self, declared: str, base_dir: str) -> MediaRef:
        """A media path relative to `base_dir`, which must stay in the release."""
        if not isinstance(declared, str) or not declared.strip():
            return MediaRef(str(declared), None, False, "empty media path")
        if "\0" in declared or not _encodable(declared):
            return MediaRef(declared.encode("utf-8", "backslashreplace").decode("utf-8"), None, False,
                            "media path holds a NUL or a character no file name can have")
        if os.path.isabs(declared):
            return MediaRef(declared, None, False,
                            "absolute media path refused (paths are relative to the question file)")
        path = os.path.normpath(os.path.join(base_dir, declared))
        if not within(path, self.root):
            return MediaRef(declared, None, False, "media path escapes the release folder")
        exists = self._exists(path)
        if not exists:
            return MediaRef(declared, path, False, self._refused.get(path, "file not found"))
        return MediaRef(declared, path, True)

    def check(self, declared, base_dir: str) -> str | None:
        """Why `declared` cannot be shown, or None when the file is there.

        The hot path of loading a large release (~10^6 files): one walk of
        the release folder answers ordinary paths with a set lookup; only
        unusual ones (refused, "./a.png", below a symlinked folder) get the
        exact check by resolve().
        """
        if type(declared) is str and declared and "\0" not in declared:
            files = self.all_files()
            if base_dir + "/" + declared in files:
                return None
            if self._complete and _plain(declared) and base_dir + "/" + declared not in self._links:
                return "file not found"
        return self.resolve(declared, base_dir).problem

    def problems(self, declared: list, base_dirs: list[str] | str) -> tuple[list[int], list[str]]:
        """Positions in `declared` (each relative to its base dir, or all to the one `base_dirs` folder)
        of every path that cannot be shown, and why.

        check() over a list, for loading: the ordinary answers (present, plainly
        absent) are found in bulk, in C-level maps and a few substring searches over
        all the absent paths; only unusual paths go to resolve().
        """
        files = self.all_files()
        one_folder = base_dirs if isinstance(base_dirs, str) else None
        if one_folder is None and len(set(base_dirs)) == 1:
            one_folder = base_dirs[0]
        folder_of = base_dirs.__getitem__ if one_folder is None else lambda _: one_folder
        if not declared or set(map(type, declared)) != {str} or not all(declared):
            return self._problems_one_by_one(range(len(declared)), declared, folder_of, files)
        if one_folder is not None:          # a root question file: no path joined
            present = map(self._files_below(one_folder).__contains__, declared)
        else:
            present = map(files.__contains__, map(str.__add__, map(str.__add__, base_dirs, repeat("/")), declared))
        absent = list(compress(range(len(declared)), map(operator.not_, present)))
        if not absent:
            return [], []
        # Every absent path plain and without a NUL (the usual case) is told by a few substring searches over
        # them all, each preceded by a newline; a newline inside a path can only make a plain one look
        # unusual, and the unusual are judged one by one. (A present path holds no NUL: it names a file.)
        joined = "\n" + "\n".join(declared if len(absent) == len(declared) else map(declared.__getitem__, absent))
        if self._complete and not self._links and not any(map(joined.__contains__, _NOT_PLAIN_PARTS)):
            return absent, ["file not found"] * len(absent)
        return self._problems_one_by_one(absent, declared, folder_of, files)

    def _files_below(self, folder: str) -> set[str]:
        """all_files() below `folder`, relative to it."""
        start = len(folder) + 1
        return {f[start:] for f in self.all_files() if f.startswith(folder + "/")}

    def _problems_one_by_one(self, positions, declared: list, folder_of,
                             files: set[str]) -> tuple[list[int], list[str]]:
        """problems() path by path: `folder_of(j)` is the base dir of declared[j]."""
        complete = self._complete
        at, whys = [], []
        for j in positions:
            d, base = declared[j], folder_of(j)
            if type(d) is str and d and "\0" not in d:
                if base + "/" + d in files:
                    continue
                if complete and not _NOT_PLAIN.search(d) and base + "/" + d not in self._links:
                    at.append(j)
                    whys.append("file not found")
                    continue
            why = self.resolve(d, base_dir=base).problem
            if why:
                at.append(j)
                whys.append(why)
        return at, whys

    def all_files(self) -> set[str]:
        """Absolute paths of every file below the release root (symlinked folders not followed)."""
        if self._all is None:
            files: set[str] = set()
            complete = True
            stack = [self.root]
            while stack:
                folder = stack.pop()
                try:
                    entries = list(os.scandir(folder))
                except OSError:
                    continue
                for e in entries:
                    if e.is_symlink():
                        # Rare: judged exactly by resolve(); a symlinked folder makes the walk incomplete.
                        self._links.add(e.path)
                        complete = complete and not e.is_dir()
                    elif e.is_dir(follow_symlinks=False):
                        stack.append(e.path)
                    elif e.is_file(follow_symlinks=False):
                        files.add(e.path)
            self._all, self._complete = files, complete
        return self._all

    def _listing(self, folder: str) -> frozenset[str]:
        names = set()
        try:
            entries = list(os.scandir(folder))
        except (OSError, ValueError):
            entries = []
        for e in entries:
            if e.is_symlink():
                target = os.path.realpath(e.path)
                if not within(target, self._real_root):
                    self._refused[e.path] = f"escapes the release (symbolic link to {target}); refused"
                    continue
                if not os.path.isfile(target):
                    self._refused[e.path] = "a link to something that is not a regular file"
                    continue
                names.add(e.name)
            elif e.is_file(follow_symlinks=False):
                names.add(e.name)
            elif not e.is_dir(follow_symlinks=False):
                self._refused[e.path] = "not a regular file (a named pipe, socket or device)"
        listing = frozenset(names)
        self._listings[folder] = listing
        return listing

    def _exists(self, path: str) -> bool:
        folder, name = os.path.split(path)
        listing = self._listings.get(folder)
        if listing is None:
            listing = self._listing(folder)
        return name in listing


def _encodable(path: str) -> bool:
    """Whether the OS can name a file so (a lone surrogate cannot be encoded)."""
    try:
        os.fsencode(path)
    except UnicodeError:
        return False
    return True


def _plain(declared: str) -> bool:
    """A relative path already in normal form, which cannot leave the folder it is joined to."""
    return declared[0] not in "/\\." and ".." not in declared and "\\" not in declared \
        and "//" not in declared and "/./" not in declared and ":" not in declared


# What makes a path not _plain, as one search.
_NOT_PLAIN = re.compile(r"^[/\\.]|\.\.|\\|//|/\./|:")
# The same as substrings of paths each preceded by a newline.
_NOT_PLAIN_PARTS = ("\0", ":", "\\", "\n/", "\n.", "..", "//", "/./")


def within(path: str, root: str) -> bool:
    """True when normalised `path` is `root` or below it."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
