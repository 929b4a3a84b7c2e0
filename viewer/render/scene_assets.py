"""Per-scene meshes and rendered top-down maps, built once and shared by the views.

Safe to call from worker threads: each scene's mesh is built under its own
lock, so two views asking for the same scene wait for one load.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from ..core.diagnostics import UserError
from ..core.scene.model import Scene
from ..core.scene.sources import scene_mesh_file

MAP_SIZE = (640, 512)        # the benchmark's map size, for scenes that declare none


@dataclass
class RenderedMap:
    image: np.ndarray          # (h, w, 3) uint8
    world_to_pixel: np.ndarray  # (2, 3) affine of this image
    level: str


class SceneAssets:
    def __init__(self):
        self._meshes: dict[str, object] = {}
        self._errors: dict[str, str] = {}
        self._maps: dict[tuple, RenderedMap] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        # Called once per scene with what its mesh met (refused, boxes drawn instead), from the loading thread:
        # the window lists it in Problems.
        self.on_problem = None

    def _lock(self, key: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    def mesh(self, scene: Scene):
        """The scene's SceneMesh: the mesh its source names, else its instance boxes. UserError if neither."""
        with self._lock(scene.id):
            if scene.id in self._meshes:
                return self._meshes[scene.id]
            if scene.id in self._errors:
                raise UserError(self._errors[scene.id])
            try:
                mesh = self._build(scene)
            except UserError as e:
                self._errors[scene.id] = str(e)
                self._say(str(e))
                raise
            self._meshes[scene.id] = mesh
            if "load_problem" in mesh._cache:
                self._say(mesh._cache["load_problem"])
            return mesh

    def _say(self, text: str) -> None:
        if self.on_problem is not None:
            self.on_problem(text)

    def problems(self) -> list[str]:
        """What loading the scenes' meshes met so far: a scene with nothing to draw, a mesh refused (and its
        boxes drawn instead), for a command to say."""
        with self._guard:
            meshes, errors = list(self._meshes.values()), list(self._errors.values())
        return errors + [m._cache["load_problem"] for m in meshes if "load_problem" in m._cache]

    def _build(self, scene: Scene):
        from .scene_mesh import boxes_mesh, load_scene_mesh
        semantics = {k: v.semantic for k, v in scene.instances.items() if v.semantic}
        boxes = {k: v.bbox for k, v in scene.instances.items() if v.bbox is not None}
        mesh_file = scene_mesh_file(scene)
        if mesh_file is not None:
            try:
                return load_scene_mesh(mesh_file.path, semantics)
            except UserError as e:
                if not boxes:
                    raise
                # Fall back to boxes, but keep the reason visible to the user.
                mesh = boxes_mesh(boxes, semantics)
                mesh._cache["load_problem"] = f"{e}; showing instance boxes instead"
                return mesh
        if not boxes:
            raise UserError(f"scene {scene.id}: no mesh and no instance boxes to draw")
        return boxes_mesh(boxes, semantics)

    @staticmethod
    def _map_key(scene: Scene, level: str, world_to_pixel, size) -> tuple:
        width, height = size or MAP_SIZE
        return (scene.id, level, width, height,
                None if world_to_pixel is None else np.asarray(world_to_pixel, float).tobytes())

    def cached_topdown(self, scene: Scene, level: str, world_to_pixel=None,
                       size: tuple[int, int] | None = None) -> RenderedMap | None:
        """The map if it was rendered already (no waiting), else None."""
        return self._maps.get(self._map_key(scene, level, world_to_pixel, size))

    def topdown(self, scene: Scene, level: str, world_to_pixel=None,
                size: tuple[int, int] | None = None) -> RenderedMap:
        """A map of the scene at `level`; through the given affine, else fitted to the mesh."""
        from .topdown import fit_world_to_pixel, render_topdown
        width, height = size or MAP_SIZE
        key = self._map_key(scene, level, world_to_pixel, size)
        with self._lock(f"map:{scene.id}"):
            hit = self._maps.get(key)
            if hit is not None:
                return hit
            mesh = self.mesh(scene)
            if world_to_pixel is None:
                lo, hi = mesh.bounds()
                W = fit_world_to_pixel(lo, hi, width, height)
            else:
                W = np.asarray(world_to_pixel, float)
            rooms = {k: v.room for k, v in scene.instances.items() if v.room}
            image = render_topdown(mesh, W, width, height, level, rooms=rooms)
            self._maps[key] = RenderedMap(image, W, level)
            return self._maps[key]
