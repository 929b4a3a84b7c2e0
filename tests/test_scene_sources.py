"""Scene sources: the library asks them in order, the first that has an id wins; the registry of kinds."""
import numpy as np
import pytest

from viewer.core.diagnostics import UserError
from viewer.core.scene.model import Box3, Instance, Scene, load_scene
from viewer.core.scene.sfm_scene import SfmCacheSource
from viewer.core.scene.sources import (
    SOURCE_KINDS,
    MeshFile,
    SceneIndex,
    SceneJsonFolders,
    SceneLibrary,
    release_sources,
    scene_mesh_file,
)


class MemorySource:
    """A scene source holding scenes in memory, counting its loads."""

    def __init__(self, label: str, ids, mesh: str | None = None):
        self.label, self.ids, self.mesh_path = label, list(ids), mesh
        self.loads: list[str] = []

    def available(self) -> list[str]:
        return sorted(self.ids)

    def load(self, scene_id: str) -> Scene | None:
        self.loads.append(scene_id)
        if scene_id not in self.ids:
            return None
        box = Box3([0, 0, 0.5], [1, 1, 1])
        return Scene(scene_id, f"/{self.label}", instances={"box_aaaaaa_0": Instance("box_aaaaaa_0", "box", None, box)})

    def mesh(self, scene_id: str) -> MeshFile | None:
        return MeshFile(self.mesh_path) if self.mesh_path else None


def test_first_source_that_has_the_id_wins_and_the_other_fills_in(tmp_path):
    first, second = MemorySource("first", ["scene_1", "scene_2"]), MemorySource("second", ["scene_2", "scene_3"])
    lib = SceneLibrary(tmp_path, [first, second])
    assert lib.available() == ["scene_1", "scene_2", "scene_3"]
    assert lib.get("scene_2").folder == "/first" and lib.get("scene_2").source is first
    assert lib.get("scene_3").folder == "/second" and lib.get("scene_3").source is second
    assert second.loads == ["scene_3"]                       # never asked for what the first had
    assert lib.get("scene_9") is None and lib.get("scene_9") is None
    assert first.loads.count("scene_9") == 1 and second.loads.count("scene_9") == 1   # absent ones cached too
    assert lib.get("scene_3") is lib.get("scene_3")


def test_order_decides_between_sources_with_the_same_id(tmp_path):
    a, b = MemorySource("a", ["scene_1"]), MemorySource("b", ["scene_1"])
    assert SceneLibrary(tmp_path, [b, a]).get("scene_1").folder == "/b"
    assert SceneLibrary(tmp_path, [a, b]).get("scene_1").folder == "/a"
    assert SceneLibrary(tmp_path, []).get("scene_1") is None


def test_default_sources_are_the_registered_kinds(tmp_path, monkeypatch, make_scene):
    make_scene(tmp_path, Scene("scene_1", ""))
    assert [type(s) for s in release_sources(tmp_path)] == [SceneIndex, SceneJsonFolders, SfmCacheSource]
    assert SceneLibrary(tmp_path).available() == ["scene_1"]
    # An importer is one registration: its scenes come after the scene.json folders'.
    monkeypatch.setitem(SOURCE_KINDS, "memory", lambda root: MemorySource("memory", ["scene_1", "scene_5"]))
    lib = SceneLibrary(tmp_path)
    assert lib.available() == ["scene_1", "scene_5"]
    assert isinstance(lib.get("scene_1").source, SceneJsonFolders)
    assert lib.get("scene_5").folder == "/memory"
    assert load_scene(tmp_path, "scene_5").folder == "/memory"


def test_scene_json_folders_name_the_mesh(tmp_path, make_scene):
    folder = make_scene(tmp_path, Scene("scene_1", "", mesh="scene.glb"), placeholders=True)
    make_scene(tmp_path, Scene("scene_2", ""))
    source = SceneJsonFolders(tmp_path)
    assert source.mesh("scene_1") == MeshFile(str(folder / "scene.glb"))      # without a load first
    assert source.mesh("scene_2") is None and source.mesh("scene_9") is None
    assert source.load("../scenes/scene_1") is None                           # an id is never a path


def test_render_loads_the_mesh_its_source_names(tmp_path):
    from viewer.render.scene_assets import SceneAssets
    broken = tmp_path / "broken.glb"
    broken.write_bytes(b"glTF" + bytes(40))
    lib = SceneLibrary(tmp_path, [MemorySource("m", ["scene_1"], mesh=str(broken)), MemorySource("n", ["scene_2"])])
    mesh = SceneAssets().mesh(lib.get("scene_1"))
    assert "broken.glb" in mesh._cache["load_problem"]            # it tried the source's file, then drew boxes
    plain = SceneAssets().mesh(lib.get("scene_2"))
    assert "load_problem" not in plain._cache and np.isfinite(plain.bounds()[0]).all()
    with pytest.raises(UserError, match="no mesh and no instance boxes"):
        SceneAssets().mesh(Scene("scene_3", "/x"))


def test_a_scene_built_by_hand_names_its_own_mesh(tmp_path):
    """Without a source (a scene an importer builds before writing it), the mesh it names is its geometry."""
    assert scene_mesh_file(Scene("s", str(tmp_path), mesh=str(tmp_path / "s.glb"))) == MeshFile(str(tmp_path / "s.glb"))
    assert scene_mesh_file(Scene("s", str(tmp_path))) is None
