"""`gst-viewer import-scene OUT_DIR SOURCE...`: a real scene as a gst-scene/1 folder (docs/scene-import.md)."""
from __future__ import annotations

import argparse
import sys

from .core.diagnostics import UserError, collapsed
from .core.scene.formats import ALIGNMENTS, FORMATS, UP_CHOICES


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="gst-viewer import-scene",
        description="Import an OmniGibson scene file, or a mesh with a camera trajectory, as a gst-scene/1 "
                    "folder (OUT_DIR/scene.json plus its files), ready to drop into <release>/scenes/<scene>/. "
                    "Conventions per format: docs/scene-import.md.")
    p.add_argument("out_dir", metavar="OUT_DIR", help="the scene folder to write (must not exist, or be empty)")
    src = p.add_argument_group("scene source (one of)")
    src.add_argument("--omnigibson", metavar="SCENE.json", help="an OmniGibson / BEHAVIOR-1K scene file")
    src.add_argument("--mesh", metavar="MESH", help="a mesh trimesh reads: ply, obj, glb/gltf, ...")
    p.add_argument("--meshes", metavar="DIR", help="with --omnigibson: decrypted per-object meshes, used instead of "
                                                   "the boxes (<model>.glb or <category>/<model>/*)")
    p.add_argument("--up", choices=UP_CHOICES, default="auto",
                   help="the up axis of the mesh and trajectory; auto (the default) decides it from the data: the "
                        "format's convention (glTF y, OmniGibson z), else the cameras' up, the path's plane, the "
                        "floors, else z, and says which and why")
    p.add_argument("--trajectory", metavar="FILE", help="camera poses (a file, or a ScanNet/COLMAP folder)")
    p.add_argument("--trajectory-format", choices=FORMATS,
                   help="the trajectory's format; guessed from the file when omitted (and said so)")
    p.add_argument("--align-trajectory", choices=ALIGNMENTS, default="none",
                   help="center: move the path so that its centre is the mesh's (a trajectory in another frame)")
    p.add_argument("--trajectory-scale", type=float, default=1.0, metavar="S",
                   help="scale the camera centres by S first (e.g. 0.001 for a trajectory in millimetres)")
    p.add_argument("--intrinsics", metavar="FILE", help="a .pincam (ARKitScenes), when not beside the .traj")
    p.add_argument("--video", metavar="FILE", help="the video the poses belong to (copied into the scene)")
    p.add_argument("--tie", choices=("index", "timestamp"),
                   help="pose k is frame k (index), or the pose nearest each frame's time (timestamp; the "
                        "default when the trajectory has timestamps)")
    p.add_argument("--id", dest="scene_id", help="the scene's id (default: OUT_DIR's name)")
    p.add_argument("--replace", action="store_true", help="replace OUT_DIR if it exists")
    p.add_argument("--quiet", "-q", action="store_true", help="print only errors")
    return p


def cmd_import_scene(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    from .render.scene_import import ImportRequest, import_scene

    request = ImportRequest(out_dir=args.out_dir, omnigibson=args.omnigibson, meshes=args.meshes, mesh=args.mesh,
                            up=args.up, trajectory=args.trajectory, align_trajectory=args.align_trajectory,
                            trajectory_scale=args.trajectory_scale, trajectory_format=args.trajectory_format,
                            intrinsics=args.intrinsics, video=args.video, tie=args.tie, scene_id=args.scene_id,
                            replace=args.replace)
    try:
        result = import_scene(request)
    except OSError as e:
        raise UserError(f"{getattr(e, 'filename', None) or args.out_dir}: {e.strerror or e}") from None
    for line in collapsed(d for d in result.diagnostics if not args.quiet or d.level == "error"):
        print(line, file=sys.stderr)
    if not args.quiet:
        print(result.summary())
        times = ", ".join(f"{k} {v:.2f} s" for k, v in result.timings.items())
        print(f"time: {times}")
    return 1 if result.failed else 0

