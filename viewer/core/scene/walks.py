"""Which of a release's video files are one walkthrough: a visual question's red-box copy and its original.

GST-Bench's visual questions show a copy of the scene's walkthrough video with the target drawn in a red box,
named after the video and the target: `video3_obj_armchair_vzhxuf_0.mp4` for the uid `..._video_3` (the real
sample, tests/data/gst-bench-page/04_...); the demo writes `video0_obj_<target>.mp4` beside `video_0.mp4`. The
copy and the original carry the same video id (the uid's `video_N`, or `meta.video`) and, frame for frame, the
same walk. So structure from motion runs once per walk (`Walk.video`: the original when the release holds it,
else the first copy), its result serves every file of the walk, and the query views of all their questions are
localised in it. Used by `gst-viewer reconstruct`, the window's reconstruct job and the sfm scene source alike.

Whether a copy really is the same walk (same frame count) needs the video reader, which core does not have:
the caller passes `same_walk(original, copy)`; without it the names and ids are trusted.
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from typing import Callable

RED_BOX_MARK = "_obj_"          # `<video>_obj_<target>`: a copy with the target's red box drawn


@dataclass
class Walk:
    """One walkthrough of a scene: the file to reconstruct, its red-box copies, the video ids they show and
    the query images (path relative to the release -> file) of their questions."""
    scene: str
    video: str                                      # the file reconstructed (absolute, real path)
    copies: list[str] = field(default_factory=list)  # the same walk with a red box drawn: not reconstructed
    ids: list[str] = field(default_factory=list)
    queries: dict[str, str] = field(default_factory=dict)

    @property
    def files(self) -> list[str]:
        return [self.video, *self.copies]


def red_box_copy(path: str, target: str | None) -> bool:
    """Whether `path` is a question's red-box copy of a video: named `<video>_obj_<target>` (any target when
    the question names none)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    if target:
        return stem.endswith(RED_BOX_MARK + target) and len(stem) > len(RED_BOX_MARK + target)
    return RED_BOX_MARK in stem[1:]


def release_walks(release, scenes: set[str] | None = None,
                  same_walk: Callable[[str, str], bool] | None = None) -> dict[str, list[Walk]]:
    """Per scene, its walks, the shortest file name first (the scene's main walk before its parts). A question
    counts when its video file exists; `scenes` keeps only those scenes."""
    root = os.path.realpath(release.root)
    # (scene, video id or the file itself) -> file -> (is a copy, the questions' query images, their ids)
    groups: dict[tuple[str, str], dict[str, list]] = {}
    real = functools.lru_cache(maxsize=None)(os.path.realpath)      # many questions share a video
    for q in release.each_question():
        if scenes is not None and q.scene not in scenes:
            continue
        if q.video is None or not q.video.exists or not q.video.path:
            continue
        video = real(q.video.path)
        entry = groups.setdefault((q.scene, q.video_id or video), {}).setdefault(
            video, [red_box_copy(video, q.target), {}, set()])
        if q.video_id:
            entry[2].add(q.video_id)
        column = q.column
        view = q.role_image("view") if column is not None and column.has_view else None
        if view is not None and view.exists and view.path:
            entry[1][os.path.relpath(view.path, root).replace(os.sep, "/")] = view.path
    out: dict[str, list[Walk]] = {}
    for (scene, _), files in groups.items():
        for walk in _walks(scene, files, same_walk):
            out.setdefault(scene, []).append(walk)
    for walks in out.values():
        walks.sort(key=lambda w: (len(os.path.basename(w.video)), w.video))
    return out


def _walks(scene: str, files: dict[str, list], same_walk) -> list[Walk]:
    """The walks of one video id: each original with the copies that are its walk; copies with no original
    form one walk led by the first of them."""
    names = sorted(files, key=lambda f: (files[f][0], len(os.path.basename(f)), f))     # originals first
    walks: list[Walk] = []
    for f in names:
        is_copy, queries, ids = files[f]
        home = next((w for w in walks if is_copy and (same_walk is None or same_walk(w.video, f))), None)
        if home is None:
            home = Walk(scene, f)
            walks.append(home)
        else:
            home.copies.append(f)
        home.queries.update(queries)
        home.ids = sorted(set(home.ids) | ids)
    return walks


def walk_of(walks: dict[str, list[Walk]], scene: str, video: str) -> Walk | None:
    """The walk of `scene` holding the file `video`."""
    video = os.path.realpath(video)
    return next((w for w in walks.get(scene, ()) if video in w.files), None)


def walk_jobs(release, scenes: set[str] | None = None, only: str | None = None,
              same_walk: Callable[[str, str], bool] | None = None) -> list[dict]:
    """The structure-from-motion jobs of a read release, one per walk (whose files include `only` when given):
    {video, scene, queries (name -> image file), intrinsics (when the release's scene metadata gives the
    camera), copies}. `gst-viewer reconstruct` runs them all; the window's reconstruct job one."""
    from .sources import SceneLibrary  # the sources import this module
    library = SceneLibrary(release.root)
    only = os.path.realpath(only) if only is not None else None
    jobs = []
    for scene, walks in release_walks(release, scenes, same_walk).items():
        for w in walks:
            if only is None or only in w.files:
                jobs.append({"video": w.video, "scene": scene, "queries": dict(w.queries),
                             "intrinsics": known_intrinsics(library, scene, w.ids), "copies": list(w.copies)})
    return jobs


def known_intrinsics(library, scene_id: str, video_ids: list[str]):
    """The video's camera when the release's scene metadata gives it (its field of view), else None; a scene
    served from a reconstruction (its `provenance` set) knows only what SfM estimated, so it is not used."""
    scene = library.get(scene_id) if video_ids else None
    if scene is None or scene.provenance:
        return None
    track = next((scene.videos[v] for v in video_ids if v in scene.videos), None)
    return track.intrinsics if track is not None else None
