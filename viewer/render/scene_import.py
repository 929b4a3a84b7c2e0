"""`import-scene`: an OmniGibson scene file, or a mesh with a camera trajectory, as a gst-scene/1 folder.

The core reads the formats (`viewer.core.scene_import`, numpy only); this
module adds what needs trimesh and OpenCV: reading and converting the mesh,
placing per-object meshes, rendering the top-down maps, reading the video's
frame count. Everything is written into a temporary folder beside OUT_DIR,
through the one writer (`core/scene/writer.write_scene`), and renamed into place
at the end: a failed import leaves nothing behind.

`import_scene(ImportRequest(...))` is what the CLI and the window's
File → Import scene… both call.
"""
from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from ..core.diagnostics import Diagnostics, UserError
from ..core.scene.formats import (
    Trajectory,
    UpDecision,
    UpEvidence,
    align_trajectory,
    check_units,
    decide_up,
    frame_mismatch,
    inverted_trajectory,
    read_trajectory,
    staging_folder,
    tie_to_video,
    z_up,
    z_up_points,
)
from ..core.scene.formats.omnigibson import OmniGibsonScene, read_omnigibson
from ..core.scene.formats.up import geometry_up
from ..core.scene.model import Instance, Scene, TopdownMap, VideoTrack
from ..core.scene.writer import scene_document, write_scene_document
from .scene_mesh import SceneMesh, boxes_mesh, load_scene_mesh

MAP_SIZE = (640, 512)                 # the benchmark's map size
MAP_LEVELS = ("floorplan", "occupancy")
MESH_SUFFIXES = (".glb", ".gltf", ".obj", ".ply", ".stl", ".off")
TRAJECTORY_ID = "trajectory"


@dataclass
class ImportRequest:
    out_dir: str
    omnigibson: str | None = None         # an OmniGibson scene file
    meshes: str | None = None             # with it: decrypted per-object meshes
    mesh: str | None = None               # or: one mesh (ply, obj, glb/gltf, ...)
    up: str = "auto"                      # the mesh's and trajectory's up axis; auto: decided from the data
    trajectory: str | None = None
    align_trajectory: str = "none"        # "center": the path's centre moved onto the mesh's
    trajectory_scale: float = 1.0         # camera centres scaled by this (about the origin) first
    trajectory_format: str | None = None  # None: guessed, and said so
    intrinsics: str | None = None         # a .pincam for formats that keep them apart
    video: str | None = None
    tie: str | None = None                # "index" | "timestamp"; None: timestamp when both sides allow it
    scene_id: str | None = None           # default: OUT_DIR's name
    replace: bool = False


@dataclass
class ImportResult:
    folder: Path
    scene: Scene                          # as written (paths inside `folder`)
    diagnostics: Diagnostics
    timings: dict[str, float] = field(default_factory=dict)   # seconds per step
    up: UpDecision | None = None          # the up axis used, and why

    @property
    def failed(self) -> bool:
        """True when the import wrote no geometry at all (nothing to draw, no map)."""
        return bool(self.diagnostics.with_code("import.no_geometry"))

    def summary(self) -> str:
        s = self.scene
        parts = [f"{len(s.instances)} instances" if s.instances else None,
                 "a mesh" if s.mesh else None,
                 f"{len(s.videos[TRAJECTORY_ID].poses)} camera poses" if TRAJECTORY_ID in s.videos else None,
                 f"maps: {', '.join(s.topdown)}" if s.topdown else None,
                 f"up {self.up.axis} ({self.up.source})" if self.up else None]
        return f"imported {s.id} into {self.folder}: " + ", ".join(p for p in parts if p)


def import_scene(req: ImportRequest, progress: Callable[[int, int], None] | None = None) -> ImportResult:
    """Run the import; UserError (naming the file and line or JSON path) when it must stop."""
    if bool(req.omnigibson) == bool(req.mesh):
        raise UserError("give one scene source: --omnigibson SCENE.json, or --mesh MESH (with --trajectory)")
    if req.meshes and not req.omnigibson:
        raise UserError("--meshes goes with --omnigibson (per-object meshes of that scene)")
    if req.video and not req.trajectory:
        raise UserError("--video needs --trajectory: the poses are what ties the video to the scene")
    out = Path(req.out_dir)
    scene_id = req.scene_id or out.name
    diags = Diagnostics()
    timings: dict[str, float] = {}
    steps = 5
    tick = _Ticker(timings, progress, steps)

    with staging_folder(out, replace=req.replace) as tmp:
        scene = Scene(scene_id, str(tmp), camera_convention="opencv")
        traj = read_trajectory(req.trajectory, req.trajectory_format, req.intrinsics) if req.trajectory else None
        if traj is not None:          # read first: the cameras may decide the up axis
            diags.extend(traj.diagnostics)
            tick("trajectory")
        poses = traj.poses if traj is not None else None
        if req.omnigibson:
            og = read_omnigibson(req.omnigibson)
            diags.extend(og.diagnostics)
            scene.instances = og.instances
            tick("scene file")
            up = _decide_up(req, UpEvidence("z", "OmniGibson scenes are z-up", "format"), poses, None, diags)
            geometry = _omnigibson_geometry(og, req.meshes, tmp, scene, diags)
        else:
            mesh = load_scene_mesh(Path(req.mesh))          # UserError for a missing, unreadable or empty mesh
            tick("mesh reading")
            claim = UpEvidence("y", "glTF is y-up by its specification", "format") \
                if Path(req.mesh).suffix.lower() in (".glb", ".gltf") else None
            if poses is not None and req.up == "auto" and inverted_trajectory(poses, *mesh.bounds()) is not None:
                # World-to-camera poses read as camera-to-world point every way: they cannot say which way
                # is up (the warning that they look inverted follows).
                diags.info("the cameras are not asked which way is up: they look inverted", traj.source,
                           code="import.up_cameras_ignored")
                poses = None
            up = _decide_up(req, claim, poses, lambda: geometry_up(mesh.vertices, mesh.triangles), diags)
            geometry = _mesh_geometry(req.mesh, mesh, up.axis, tmp, scene)
        tick("geometry")
        lo, hi = geometry.bounds()
        record: dict = {"up": up.record()}
        if traj is not None:
            scene.videos[TRAJECTORY_ID] = _track(req, traj, up.axis, tmp, lo, hi, diags, record)
        tick("trajectory")
        if len(geometry.triangles) == 0:
            diags.error("the import wrote no geometry at all: no object has a box or a mesh, so there is nothing "
                        "to draw and no map", req.omnigibson or req.mesh, code="import.no_geometry")
        track = scene.videos.get(TRAJECTORY_ID)
        render_maps(geometry, scene, tmp, track.poses[track.valid, :3, 3] if track is not None else None)
        tick("maps")
        write_scene_document(scene.folder, scene_document(scene, imported=record))
        tick("write")
    written = Scene(scene.id, str(out.absolute()), scene.camera_convention,
                    _moved(scene.mesh, tmp, out), scene.instances,
                    {k: TopdownMap(m.name, _moved(m.image, tmp, out), m.kind, m.width, m.height, m.world_to_pixel)
                     for k, m in scene.topdown.items()},
                    {k: VideoTrack(v.id, _moved(v.file, tmp, out), v.fps, v.intrinsics, v.poses)
                     for k, v in scene.videos.items()})
    return ImportResult(out.absolute(), written, diags, timings, up)


def _decide_up(req: ImportRequest, claim: UpEvidence | None, poses, geometry, diags: Diagnostics) -> UpDecision:
    """--up, or the axis the data says (and why), said in the import's output."""
    up = decide_up(req.up, format_claim=claim, poses=poses, geometry=geometry)
    source = req.omnigibson or req.mesh
    diags.info(f"up axis {up.axis}: {up.why}", source, code="import.up_axis")
    if up.disagreement:
        diags.warning(up.disagreement, source, code="import.up_disagreement")
    return up


class _Ticker:
    def __init__(self, timings: dict, progress, steps: int):
        self.timings, self.progress, self.steps = timings, progress, steps
        self.last = time.perf_counter()

    def __call__(self, step: str) -> None:
        now = time.perf_counter()
        self.timings[step] = self.timings.get(step, 0.0) + now - self.last
        self.last = now
        if self.progress:
            self.progress(min(len(self.timings), self.steps), self.steps)


def _moved(path: str | None, tmp: Path, out: Path) -> str | None:
    return None if path is None else str(out.absolute() / Path(path).relative_to(tmp))


# ------------------------------------------------------------------ geometry
def _mesh_geometry(path: str, mesh: SceneMesh, up: str, tmp: Path, scene: Scene) -> SceneMesh:
    """The mesh as read and checked (load_scene_mesh), z-up, written anew: never the source file copied, whose
    bytes a reader might repair differently. A GLB keeps one node per instance; anything else becomes a PLY."""
    src = Path(path)
    if up != "z" or src.suffix.lower() not in (".ply", ".glb"):
        mesh.vertices = np.ascontiguousarray(z_up_points(mesh.vertices, up), np.float32)
        dst = tmp / "mesh.ply"
        _write_ply(mesh, dst)
    elif src.suffix.lower() == ".glb":
        dst = tmp / "mesh.glb"
        _write_glb(mesh, dst)
    else:
        dst = tmp / "mesh.ply"
        _write_ply(mesh, dst)
    scene.mesh = str(dst)
    return mesh


def _write_glb(mesh: SceneMesh, dst: Path) -> None:
    """A GLB with one node per instance, named by its id (as load_scene_mesh reads them back)."""
    import trimesh
    placed = trimesh.Scene()
    for index, iid in enumerate(mesh.instance_ids):
        faces = mesh.triangles[mesh.triangle_instance == index]
        if not len(faces):
            continue
        used, local = np.unique(faces, return_inverse=True)
        part = trimesh.Trimesh(mesh.vertices[used], local.reshape(-1, 3),
                               face_colors=mesh.triangle_colors[mesh.triangle_instance == index], process=False)
        placed.add_geometry(part, node_name=iid, geom_name=iid)
    dst.write_bytes(placed.export(file_type="glb"))


def _write_ply(mesh: SceneMesh, dst: Path) -> None:
    """Binary PLY with face colours (textures were baked to colours when the mesh was read)."""
    import trimesh
    t = trimesh.Trimesh(mesh.vertices, mesh.triangles, face_colors=mesh.triangle_colors, process=False)
    dst.write_bytes(t.export(file_type="ply"))


def _omnigibson_geometry(og: OmniGibsonScene, meshes: str | None, tmp: Path, scene: Scene,
                         diags: Diagnostics) -> SceneMesh:
    """Boxes, or with --meshes each object's mesh placed at its pose (one GLB node per instance)."""
    semantics = {k: v.semantic for k, v in og.instances.items()}
    boxes = {k: v.bbox for k, v in og.instances.items() if v.bbox is not None}
    if not meshes:
        return boxes_mesh(boxes, semantics)
    import trimesh

    from .mesh_check import array_problem, file_problem
    folder = Path(meshes)
    if not folder.is_dir():
        raise UserError(f"--meshes {folder}: not a folder")
    placed = trimesh.Scene()
    missing = []
    for name, obj in og.objects.items():
        found = _object_mesh_file(folder, obj.category, obj.model)
        part = None
        if found is not None:
            try:
                problem = file_problem(found)          # before trimesh: a glTF node cycle would hold it
                if problem:
                    raise ValueError(problem)
                part = trimesh.load(str(found), force="mesh", process=False)
                if len(part.faces) == 0:
                    raise ValueError("no triangles")
                problem = array_problem(np.asarray(part.vertices), np.asarray(part.faces), found.name)
                if problem:
                    raise ValueError(problem)
            except Exception as e:   # one bad object mesh: its box instead, reported
                diags.error(f"cannot read this object mesh ({e}); {name} is drawn as its box", found,
                            code="import.bad_object_mesh")
                part = None
        if part is None:
            if found is None:
                missing.append(name)
            box = boxes.get(name)
            if box is None:
                continue
            part = trimesh.creation.box(extents=box.size)
        else:
            part.apply_scale(_object_scale(obj, og.instances[name], part))
        part.apply_transform(obj.pose)
        placed.add_geometry(part, node_name=name, geom_name=name)
    if missing:
        diags.warning(f"{len(missing)} objects have no mesh in {folder} (e.g. {missing[0]!r}); drawn as their boxes",
                      folder, code="import.object_mesh_missing")
    dst = tmp / "mesh.glb"
    dst.write_bytes(placed.export(file_type="glb"))
    scene.mesh = str(dst)
    return load_scene_mesh(dst, semantics)


def _object_mesh_file(folder: Path, category: str, model: str | None) -> Path | None:
    """`<model>.<ext>` directly in the folder, else the first mesh file under `<category>/<model>/`."""
    if not model:
        return None
    for suffix in MESH_SUFFIXES:
        if (folder / f"{model}{suffix}").is_file():
            return folder / f"{model}{suffix}"
    sub = folder / category / model
    if sub.is_dir():
        files = sorted(p for p in sub.rglob("*") if p.suffix.lower() in MESH_SUFFIXES)
        return files[0] if files else None
    return None


def _object_scale(obj, inst: Instance, part) -> np.ndarray:
    """What makes the model fill its `bounding_box` (OmniGibson's DatasetObject takes `bounding_box` or
    `scale`, not both), else the file's `scale`."""
    if inst.bbox is not None and not inst.size_estimated:
        return inst.bbox.size / np.maximum(np.asarray(part.extents, float), 1e-9)
    return obj.scale if obj.scale is not None else np.ones(3)


# ------------------------------------------------------------------ trajectory
def _track(req: ImportRequest, traj: Trajectory, up: str, tmp: Path, lo, hi, diags: Diagnostics,
           record: dict) -> VideoTrack:
    traj.poses = z_up(traj.poses, up)
    if req.align_trajectory != "none" or req.trajectory_scale != 1.0:
        traj.poses, shift = align_trajectory(traj.poses, lo, hi, req.align_trajectory, req.trajectory_scale)
        record["trajectory"] = {"scale": float(req.trajectory_scale), "translation": [float(v) for v in shift]}
        diags.info(f"trajectory scaled by {req.trajectory_scale:g} and moved by "
                   f"({', '.join(f'{v:+.4g}' for v in shift)}) m ({req.align_trajectory})", traj.source,
                   code="import.trajectory_aligned")
    mesh_name = req.mesh or req.omnigibson
    why = inverted_trajectory(traj.poses, lo, hi, up=up)
    if why:
        diags.warning(f"the trajectory looks inverted: {why}; check --trajectory-format", traj.source,
                      code="import.trajectory_inverted")
    else:             # inverted poses of an orbit all sit at one point: no scale to compare
        check_units(traj.poses[:, :3, 3], lo, hi, traj.source, mesh_name)
    outside = frame_mismatch(traj.poses, lo, hi, up=up)
    if outside:
        diags.warning(f"the trajectory and the mesh {mesh_name} do not look like one frame: {outside}", traj.source,
                      code="import.trajectory_outside_mesh")
    poses, fps, file = traj.poses, None, None
    if req.video:
        from .video import VideoError, VideoReader
        try:
            reader = VideoReader(req.video)
        except VideoError as e:
            raise UserError(str(e)) from None
        n, fps = reader.n_frames, reader.fps or None
        reader.close()
        by = req.tie or ("timestamp" if traj.timestamps is not None and fps else "index")
        poses = tie_to_video(traj, n, fps, by, diags, req.video)
        diags.info(f"poses tied to the video's {n} frames by {by}", req.video, code="import.video_tied")
        file = str(tmp / f"video{Path(req.video).suffix.lower()}")
        shutil.copyfile(req.video, file)
    return VideoTrack(TRAJECTORY_ID, file, fps, traj.intrinsics, poses)


# ------------------------------------------------------------------ maps
def render_maps(geometry: SceneMesh, scene: Scene, tmp: Path, path: np.ndarray | None = None) -> None:
    """The floor plan and the occupancy map, 640 x 512, as PNGs in maps/, fitted to the geometry and the
    camera path together when the two span at most 3x the mesh's extent (so the path is drawn inside the
    map; a path farther away was reported, and framing it would shrink the mesh to a dot). A scene with
    neither walls nor floors (objects alone) gets a floor plan of the objects' footprints."""
    from .image_io import write_png
    from .topdown import fit_world_to_pixel, render_topdown
    if len(geometry.triangles) == 0:
        return
    lo, hi = geometry.bounds()
    if path is not None and len(path):
        size = float(np.max(np.asarray(hi) - np.asarray(lo)))
        both_lo, both_hi = np.minimum(lo, path.min(axis=0)), np.maximum(hi, path.max(axis=0))
        if float(np.max(both_hi - both_lo)) <= 3 * size:
            lo, hi = both_lo, both_hi
    width, height = MAP_SIZE
    W = fit_world_to_pixel(lo, hi, width, height)
    rooms = {k: v.room for k, v in scene.instances.items() if v.room}
    images = {level: render_topdown(geometry, W, width, height, level, rooms=rooms) for level in MAP_LEVELS}
    if not geometry.kind_mask("wall", "floor").any():
        images["floorplan"] = _footprint_plan(images["occupancy"], W, geometry.bounds())
    (tmp / "maps").mkdir()
    for level, image in images.items():
        file = tmp / "maps" / f"{level}.png"
        try:
            write_png(file, image)
        except OSError as e:
            raise UserError(f"{file}: cannot write the map ({e.strerror or e})") from None
        scene.topdown[level] = TopdownMap(level, str(file), level, width, height, W)


def _footprint_plan(occupancy: np.ndarray, W: np.ndarray, bounds) -> np.ndarray:
    """A floor plan drawn from the objects alone: paper, with what stands inside the objects' footprint
    (the occupancy map's blocked cells within their bounds) in the walls' colour."""
    from .topdown import FLOORPLAN_PAPER, FLOORPLAN_WALL
    height, width = occupancy.shape[:2]
    u, v = np.meshgrid(np.arange(width) + 0.5, np.arange(height) + 0.5)
    xy = np.linalg.solve(W[:, :2], np.stack([u.ravel(), v.ravel()]) - W[:, 2:3]).T.reshape(height, width, 2)
    lo, hi = (np.asarray(b, float)[:2] for b in bounds)
    within = ((xy >= lo) & (xy <= hi)).all(axis=2)
    image = np.empty((height, width, 3), np.uint8)
    image[:] = FLOORPLAN_PAPER
    image[within & (occupancy[..., 0] < 128)] = FLOORPLAN_WALL
    return image
