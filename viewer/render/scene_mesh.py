"""A scene as one flat triangle mesh that knows which instance each triangle belongs to.

Ray casting answers "which triangle", the viewer asks "which object": keeping
a per-triangle instance index next to the triangles makes that one array
lookup. Loaded from a mesh file (node names = instance ids) or, when a scene
has no mesh, built from the instances' 3D boxes.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from viewer.core.diagnostics import UserError
from viewer.core.geometry import quaternion_to_matrix

from . import scene_colors

# Beyond this many triangles a scene is refused: building its ray-casting BVH would hold the
# process for minutes, deaf to Ctrl-C. Raise it with GST_VIEWER_MAX_TRIANGLES for a big machine.
DEFAULT_MAX_TRIANGLES = 8_000_000


def max_triangles() -> int:
    try:
        return int(os.environ.get("GST_VIEWER_MAX_TRIANGLES", DEFAULT_MAX_TRIANGLES))
    except ValueError:
        return DEFAULT_MAX_TRIANGLES


@dataclass(eq=False)
class SceneMesh:
    vertices: np.ndarray            # (V, 3) float32, world metres, z up
    triangles: np.ndarray           # (T, 3) int32 vertex indices
    triangle_instance: np.ndarray   # (T,) int32 index into instance_ids
    instance_ids: list[str]
    instance_colors: np.ndarray     # (I, 3) uint8
    # Category per instance (from scene.json `semantic` when known, else the id).
    instance_categories: list[str] = field(default_factory=list)
    # (T, 3) uint8 colours painted in the mesh file (vertex/face colours); where a
    # part has none, its instance colour. Rendering may use either.
    triangle_colors: np.ndarray | None = None
    # Ray-casting structures built from this mesh, reused by raycast/topdown.
    _cache: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.vertices = np.ascontiguousarray(self.vertices, np.float32).reshape(-1, 3)
        self.triangles = np.ascontiguousarray(self.triangles, np.int32).reshape(-1, 3)
        self.triangle_instance = np.ascontiguousarray(self.triangle_instance, np.int32).reshape(-1)
        self.instance_colors = np.ascontiguousarray(self.instance_colors, np.uint8).reshape(-1, 3)
        if not self.instance_categories:
            self.instance_categories = [scene_colors.category_of(i) for i in self.instance_ids]
        if len(self.triangle_instance) != len(self.triangles):
            raise ValueError("triangle_instance must have one entry per triangle")
        if len(self.instance_colors) != len(self.instance_ids):
            raise ValueError("instance_colors must have one row per instance")
        if self.triangle_colors is None:
            self.triangle_colors = self.instance_colors[self.triangle_instance]
        self.triangle_colors = np.ascontiguousarray(self.triangle_colors, np.uint8).reshape(-1, 3)
        if len(self.triangle_colors) != len(self.triangles):
            raise ValueError("triangle_colors must have one row per triangle")

    @property
    def instance_kinds(self) -> list[str | None]:
        """Per instance: "wall", "floor", "ceiling" or None (an object)."""
        return [scene_colors.structure_kind(c) for c in self.instance_categories]

    def kind_mask(self, *kinds: str) -> np.ndarray:
        """(I,) bool: instances whose structure kind is one of `kinds`."""
        return np.array([k in kinds for k in self.instance_kinds], bool)

    def index_of(self, instance_id: str) -> int | None:
        try:
            return self.instance_ids.index(instance_id)
        except ValueError:
            return None

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(min xyz, max xyz) of the vertices."""
        if len(self.vertices) == 0:
            return np.zeros(3), np.zeros(3)
        return self.vertices.min(axis=0).astype(float), self.vertices.max(axis=0).astype(float)

    def without_instances(self, drop: np.ndarray) -> "SceneMesh":
        """The same instances (indices unchanged) minus the triangles of those where drop[i]."""
        keep = ~np.asarray(drop, bool)[self.triangle_instance]
        return SceneMesh(self.vertices, self.triangles[keep], self.triangle_instance[keep],
                         self.instance_ids, self.instance_colors, self.instance_categories,
                         self.triangle_colors[keep])


# One part of an instance: vertices, faces, and face colours (None = use the instance colour).
Part = tuple[np.ndarray, np.ndarray, "np.ndarray | None"]


def _from_parts(parts: Mapping[str, list[Part]], semantics: Mapping[str, str] | None) -> SceneMesh:
    ids = list(parts)
    semantics = semantics or {}
    categories = [(semantics.get(i) or scene_colors.category_of(i)) for i in ids]
    inst_colors = scene_colors.instance_colors(ids, dict(semantics))
    verts, tris, owner, colors = [], [], [], []
    offset = 0
    for index, iid in enumerate(ids):
        for v, f, c in parts[iid]:
            verts.append(v)
            tris.append(f + offset)
            owner.append(np.full(len(f), index, np.int32))
            colors.append(np.broadcast_to(inst_colors[index], (len(f), 3)) if c is None else c)
            offset += len(v)
    return SceneMesh(
        vertices=np.concatenate(verts) if verts else np.zeros((0, 3), np.float32),
        triangles=np.concatenate(tris) if tris else np.zeros((0, 3), np.int32),
        triangle_instance=np.concatenate(owner) if owner else np.zeros(0, np.int32),
        instance_ids=ids,
        instance_colors=inst_colors,
        instance_categories=categories,
        triangle_colors=np.concatenate(colors) if colors else np.zeros((0, 3), np.uint8),
    )


def _face_colors(mesh) -> np.ndarray | None:
    """(F, 3) uint8 colours painted on a trimesh mesh, or None when it carries none."""
    visual = mesh.visual
    try:
        if getattr(visual, "kind", None) == "texture":
            visual = visual.to_color()
        if getattr(visual, "kind", None) not in ("vertex", "face"):
            return None
        return np.asarray(visual.face_colors, np.uint8)[:, :3]
    except Exception:  # an odd material is no reason to drop the geometry
        return None


def _instance_node(graph, node: str, wrapper: str | None) -> str:
    """The instance a geometry node belongs to: its top-most named ancestor.

    A generator may write one node per instance or a group node with one
    child per part; either way the node just below the root names the
    instance. A single wrapper node holding everything (`Scene`, `RootNode`)
    is looked through.
    """
    parents = graph.transforms.parents
    chain = [node]
    while chain[-1] in parents and parents[chain[-1]] != graph.base_frame:
        chain.append(parents[chain[-1]])
    if wrapper is not None and chain[-1] == wrapper and len(chain) > 1:
        chain.pop()
    return chain[-1]


def load_scene_mesh(path: str | Path, semantics: Mapping[str, str] | None = None) -> SceneMesh:
    """Read a GLB/glTF/OBJ/PLY scene; node names are instance ids, node transforms applied.

    `semantics` (instance id -> category, from scene.json) picks colours when given.
    Raises UserError naming the file when it cannot be read or holds no triangles.
    """
    import trimesh  # heavy; only when a mesh is actually opened

    from .mesh_check import array_problem, file_problem

    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: scene mesh not found")
    problem = file_problem(path)          # before trimesh: a glTF node cycle would hold it for ever
    if problem:
        raise UserError(f"{path}: cannot load the scene mesh: {problem}")
    try:
        # process=False: trimesh would otherwise drop NaN vertices and their faces unsaid; the arrays are
        # checked below as read.
        scene = trimesh.load(str(path), force="scene", process=False)
    except Exception as exc:  # trimesh raises many types for bad files
        why = "the binary PLY is cut short or damaged (its size does not match its header)" \
            if "unexpected length" in str(exc) else f"{type(exc).__name__}: {exc}"
        raise UserError(f"{path}: cannot load the scene mesh ({why})") from None

    graph = scene.graph
    geometry_nodes = [n for n in graph.nodes_geometry
                      if isinstance(scene.geometry.get(graph[n][1]), trimesh.Trimesh)]
    total = sum(len(scene.geometry[graph[n][1]].faces) for n in geometry_nodes)
    if total > max_triangles():
        raise UserError(f"{path}: the scene mesh has {total:,} triangles, beyond the budget of "
                        f"{max_triangles():,} (set GST_VIEWER_MAX_TRIANGLES to allow more)")
    children = graph.transforms.children.get(graph.base_frame, [])
    wrapper = children[0] if len(children) == 1 and len(geometry_nodes) > 1 else None
    single = len(geometry_nodes) == 1 and path.suffix.lower() not in (".glb", ".gltf")

    parts: dict[str, list[Part]] = {}
    for node in geometry_nodes:
        transform, geometry_name = graph[node]
        mesh = scene.geometry[geometry_name]
        if len(mesh.faces) == 0:
            continue
        v = np.asarray(mesh.vertices, np.float64)
        problem = array_problem(v, np.asarray(mesh.faces), f"part {node!r}")
        if problem:
            raise UserError(f"{path}: cannot load the scene mesh: {problem}")
        v = v @ transform[:3, :3].T + transform[:3, 3]
        iid = path.stem if single else _instance_node(graph, node, wrapper)
        parts.setdefault(iid, []).append(
            (v.astype(np.float32), np.asarray(mesh.faces, np.int32), _face_colors(mesh)))
    if not parts:
        raise UserError(f"{path}: the scene mesh holds no triangles")
    result = _from_parts(parts, semantics)
    if not np.isfinite(result.vertices).all():
        raise UserError(f"{path}: the scene mesh has NaN or infinite vertex coordinates")
    return result


# A unit cube's corners and its 12 triangles (winding irrelevant: shading is two-sided).
_CUBE_CORNERS = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
_CUBE_TRIANGLES = np.array([
    [0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5],     # -x, +x
    [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],     # -y, +y
    [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3],     # -z, +z
], np.int32)


def _box_parts(box: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if isinstance(box, Mapping):
        t, s, q = box["translation"], box["size"], box.get("rotation", (0, 0, 0, 1))
    elif hasattr(box, "translation"):
        t, s, q = box.translation, box.size, getattr(box, "rotation", (0, 0, 0, 1))
    else:
        t, s, q = box
    return np.asarray(t, float), np.asarray(s, float), np.asarray(q, float)


def boxes_mesh(boxes: Mapping[str, Any], semantics: Mapping[str, str] | None = None) -> SceneMesh:
    """Instances as solid boxes: id -> (translation, size, [qx, qy, qz, qw]), a dict or a Box3."""
    ids = list(boxes)
    if not ids:
        return _from_parts({}, semantics)
    t, s, q = (np.stack(a) for a in zip(*(_box_parts(boxes[i]) for i in ids)))
    rot = quaternion_to_matrix(q)                                   # (N, 3, 3)
    local = _CUBE_CORNERS[None] * s[:, None, :]                     # (N, 8, 3)
    corners = np.einsum("nij,nkj->nki", rot, local) + t[:, None, :]
    n = len(ids)
    tris = _CUBE_TRIANGLES[None] + 8 * np.arange(n, dtype=np.int32)[:, None, None]
    semantics = semantics or {}
    return SceneMesh(
        vertices=corners.reshape(-1, 3),
        triangles=tris.reshape(-1, 3),
        triangle_instance=np.repeat(np.arange(n, dtype=np.int32), 12),
        instance_ids=ids,
        instance_colors=scene_colors.instance_colors(ids, dict(semantics)),
        instance_categories=[(semantics.get(i) or scene_colors.category_of(i)) for i in ids],
    )
