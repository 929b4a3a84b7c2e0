"""missing_media: every video and image a question names exists, is what its name says and, for PNG and
JPEG, is whole (walked to its end by `core/audit/image_check`, so a cut or damaged image is named here rather
than dropped from a panel)."""
from __future__ import annotations

import os

from ...media import LFS_PROBLEM, is_lfs_pointer
from ..auditors import ReleaseAuditor
from ..image_check import IMAGE_CHECKS, check_for
from ..registry import Check
from ..types import ALL_COLUMNS, Finding

_SIGNATURES = {
    ".png": (b"\x89PNG",), ".jpg": (b"\xff\xd8\xff",), ".jpeg": (b"\xff\xd8\xff",),
    ".gif": (b"GIF8",), ".bmp": (b"BM",), ".webp": (b"RIFF",), ".avi": (b"RIFF",),
    ".mkv": (b"\x1a\x45\xdf\xa3",), ".webm": (b"\x1a\x45\xdf\xa3",),
}


VIDEO_SUFFIXES = (".mp4", ".mov", ".m4v", ".avi", ".mkv", ".webm")


def media_problem(path: str, videos=None) -> str | None:
    """Why an existing media file cannot be read: empty, unopenable, or not what its name says; a video, with
    `videos` (run_audit's probe), also when its first or last frame cannot be decoded."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError as e:
        return f"cannot be opened ({e.strerror or e})"
    if not head:
        return "empty file"
    if is_lfs_pointer(head):
        return LFS_PROBLEM
    ext = os.path.splitext(path)[1].lower()
    if ext in (".mp4", ".mov", ".m4v") and head[4:8] != b"ftyp":
        return f"not an {ext[1:].upper()} file"
    check = check_for(head, path)
    sigs = _SIGNATURES.get(ext)
    if sigs and not head.startswith(sigs) and check is IMAGE_CHECKS.get(ext):
        # Not what its name says, nor a PNG or JPEG under another name (which is checked as what it is).
        return f"not a {ext[1:].upper()} file"
    if ext in VIDEO_SUFFIXES:
        return videos(path) if videos is not None else None
    if check is None:
        return None
    try:
        with open(path, "rb") as f:
            return check(f)
    except (OSError, ValueError) as e:
        return f"cannot be read ({getattr(e, 'strerror', None) or e})"


class MissingMedia(Check):
    def check_release(self, audit: ReleaseAuditor) -> list[Finding]:
        release, tally = audit.release, audit.tally
        missing: dict[int, list[dict]] = {}
        for i, kind, declared, why in release.missing:
            missing.setdefault(i, []).append({"kind": kind, "path": declared, "problem": why})
        checked_paths: dict[str, str | None] = {}
        out = []
        for i, q in enumerate(release.each_question()):     # builds none to keep (the audit has built them)
            problems = list(missing.get(i, []))
            for kind, ref in [("video", q.video)] + [("image", im) for im in q.images]:
                if ref is None or not ref.exists or ref.path is None:
                    continue
                if ref.path not in checked_paths:
                    checked_paths[ref.path] = media_problem(ref.path, audit.videos)
                why = checked_paths[ref.path]
                if why:
                    problems.append({"kind": kind, "path": ref.declared, "problem": why})
            if not problems:
                tally.passed(self.id)
                continue
            tally.flag(self.id)
            first = problems[0]
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            out.append(Finding(q.uid, self.id, self.severity,
                               f"{first['kind']} {first['path']}: {first['problem']}{more}",
                               {"media": problems}))
        return out


MISSING_MEDIA = MissingMedia("missing_media", "error", "video or image missing or unreadable", ALL_COLUMNS)
