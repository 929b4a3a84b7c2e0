"""The audit's restricted casts (a target's projected box, early stop) count exactly what a whole-image cast does."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("open3d")

from viewer.core.scene.model import load_scene  # noqa: E402
from viewer.render.raycast import instance_bbox_2d  # noqa: E402
from viewer.render.visibility import VIEW_SAMPLES_ACROSS, SceneVisibility, stride_for  # noqa: E402

DEMO = Path(__file__).resolve().parent.parent / "assets" / "demo"


@pytest.fixture(scope="module")
def scene_vis():
    scene = load_scene(str(DEMO), "scene_1")
    return scene, SceneVisibility(scene, [])


def test_target_over_frames_matches_the_whole_frame_counts(scene_vis):
    scene, vis = scene_vis
    video = next(iter(scene.videos.values()))
    poses = video.poses[::6].copy()
    poses[1] = np.nan                                   # an invalid frame counts nothing
    full, per_frame = vis.over_frames(poses, video.intrinsics)
    for iid in vis.mesh.instance_ids[::3]:
        counts, n = vis.target_over_frames(poses, video.intrinsics, iid, min_fraction=2.0)   # never stops early
        assert n == per_frame
        assert np.array_equal(counts, full[:, vis.index(iid)]), iid


def test_rays_covered_counts_each_camera_once():
    scene = load_scene(str(DEMO), "scene_1")
    vis = SceneVisibility(scene, [])
    video = next(iter(scene.videos.values()))
    poses = video.poses[::4]
    for iid in vis.mesh.instance_ids[:3]:
        _, per_frame = vis.target_over_frames(poses, video.intrinsics, iid, min_fraction=2.0)
    assert vis.rays_covered == len(poses) * per_frame          # what one exhaustive cast of the frames takes
    assert 0 < vis.rays_cast < vis.rays_covered


def test_target_over_frames_stops_at_a_frame_that_shows_the_target(scene_vis):
    scene, vis = scene_vis
    video = next(iter(scene.videos.values()))
    full, per_frame = vis.over_frames(video.poses, video.intrinsics)
    seen = int(np.argmax(full.max(axis=0)))
    iid = vis.mesh.instance_ids[seen]
    counts, _ = vis.target_over_frames(video.poses, video.intrinsics, iid, min_fraction=1e-3)
    assert counts.max() / per_frame >= 1e-3
    assert np.all((counts == 0) | (counts == full[:, seen]))


def test_in_view_on_boxes_matches_the_whole_image(scene_vis):
    scene, vis = scene_vis
    for vp in list(scene.viewpoints.values())[:4]:
        intrinsics = vp.intrinsics or next(iter(scene.videos.values())).intrinsics
        stride = stride_for(intrinsics.width, VIEW_SAMPLES_ACROSS)
        whole = vis.caster.instance_map(vp.pose, intrinsics, stride)
        for iid in vis.mesh.instance_ids[::2]:
            got = vis.in_view(vp.pose, intrinsics, [iid])[iid]
            i = vis.index(iid)
            count = int(np.count_nonzero(whole == i))
            box = instance_bbox_2d(whole, i)
            if box is not None:
                box = [box[0] * stride, box[1] * stride, min(intrinsics.width, (box[2] + 1) * stride) - 1,
                       min(intrinsics.height, (box[3] + 1) * stride) - 1]
            assert (got.pixels, got.fraction, got.bbox, got.sampled) == \
                (count * stride * stride, count / whole.size, box, whole.size), iid
