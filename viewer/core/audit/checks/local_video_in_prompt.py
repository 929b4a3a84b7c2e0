"""local_video_in_prompt: a Local-Image variant must not show the video; a Local-Video one must.

Local-Image (core/settings_table.py) is the question from the view alone: a
video left in its prompt makes it Local-Video again, and Table 2 would
compare two copies of one setting. A Local-Video variant without its video
is flagged too, as a warning. Counts only the local variants.
"""
from __future__ import annotations

from ...settings_table import LOCAL_IMAGE, LOCAL_VIDEO
from ..auditors import ReleaseAuditor
from ..registry import Check
from ..types import OBJECT_COLUMNS, Finding


class LocalVideoInPrompt(Check):
    def check_release(self, audit: ReleaseAuditor) -> list[Finding]:
        release, tally = audit.release, audit.tally
        if getattr(release, "setting", None) is None:
            return []
        out = []
        for i in range(len(release)):
            q = release.question_for_now(i) if release.setting[i] > 0 else None
            if q is None or q.setting not in (LOCAL_IMAGE, LOCAL_VIDEO) or q.column is None \
                    or not self.columns.matches(q.column):
                continue
            has_video = q.video is not None
            if (q.setting == LOCAL_IMAGE) != has_video:
                tally.passed(self.id)
                continue
            tally.flag(self.id)
            if has_video:
                out.append(Finding(q.uid, self.id, self.severity,
                                   f"Local-Image variant with the video {q.video.declared} in its prompt",
                                   {"setting": q.setting, "video": q.video.declared, "base_uid": q.base_uid}))
            else:
                out.append(Finding(q.uid, self.id, "warning", "Local-Video variant without a video in its prompt",
                                   {"setting": q.setting, "base_uid": q.base_uid}))
        return out


LOCAL_VIDEO_IN_PROMPT = LocalVideoInPrompt("local_video_in_prompt", "error", "Local-Image variant shows the video",
                                           OBJECT_COLUMNS, per_question=False)
