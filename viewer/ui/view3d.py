"""The 3D view (pyqtgraph.opengl): scene mesh, trajectory, camera frustums, target, direction rays.

The OpenGL widget is created on first use, so a window that never shows 3D
never touches OpenGL. While the user drags or zooms, a decimated copy of a
big mesh is drawn; the full mesh comes back when the view is still.
"""
from __future__ import annotations

import html

import numpy as np
from PyQt6.QtCore import Qt, QTimer
from PyQt6.QtGui import QColor
from PyQt6.QtWidgets import QHBoxLayout, QLabel, QStackedWidget, QToolButton, QVBoxLayout, QWidget

from ..core import primitives as pr
from ..core.overlays import frustum_lines
from ..core.primitives import Overlay
from . import style
from .jobs import Jobs

LOD_TRIANGLES = 150_000       # drawn during interaction when the mesh is bigger
FULL_AFTER_MS = 180


# Colours of the overlay's roles in 3D; models take their own.
_ROLE_COLORS = {pr.TRUTH: style.TRUTH, pr.VIEWPOINT: style.VIEWPOINT, pr.TARGET: style.TARGET,
                pr.PATH: QColor(255, 200, 0), pr.CAMERA: QColor(255, 200, 0)}


def _rgba(c: QColor, a: float = 1.0) -> tuple:
    return (c.redF(), c.greenF(), c.blueF(), a)


def prepare_mesh(scene_mesh, hide_ceiling: bool = True) -> dict:
    """Arrays for GLMeshItem (Qt-free work, run on a pool thread), with a decimated copy if big."""
    from ..render.lod import decimate_to
    m = scene_mesh
    if hide_ceiling:
        m = m.without_instances(m.kind_mask("ceiling"))
    colors = np.concatenate([m.triangle_colors.astype(np.float32) / 255.0,
                             np.ones((len(m.triangles), 1), np.float32)], axis=1)
    out = {"vertices": m.vertices, "faces": m.triangles, "colors": colors, "lod": None,
           "bounds": m.bounds(), "problem": m._cache.get("load_problem")}
    if len(m.triangles) > LOD_TRIANGLES:
        v, t, kept = decimate_to(m.vertices, m.triangles, LOD_TRIANGLES)
        out["lod"] = {"vertices": v, "faces": t, "colors": colors[kept]}
    return out


def framed_bounds(mesh_bounds, overlay: Overlay | None) -> tuple[np.ndarray, np.ndarray]:
    """The box the camera frames: the mesh's, grown to hold the video path, so a path that leaves the
    mesh (or lies beside it) is in the first view too."""
    lo, hi = (np.asarray(b, float) for b in mesh_bounds)
    for item in overlay.drawn() if overlay is not None else ():
        if isinstance(item, pr.Polyline) and item.role == pr.PATH:
            pts = np.asarray(item.points, float).reshape(-1, 3)
            pts = pts[np.isfinite(pts).all(axis=1)]
            if len(pts):
                lo, hi = np.minimum(lo, pts.min(axis=0)), np.maximum(hi, pts.max(axis=0))
    return lo, hi


def _gl():
    import pyqtgraph.opengl as gl
    return gl


_SHADER = None


def headlight_shader():
    """Flat colours lit from the eye, both sides of a face alike.

    pyqtgraph's "shaded" lights from a fixed side and leaves back faces
    black; indoor scenes are mostly walls seen from either side.
    """
    global _SHADER
    if _SHADER is None:
        from pyqtgraph.opengl.shaders import FragmentShader, ShaderProgram, VertexShader
        _SHADER = ShaderProgram("gst_headlight", [
            VertexShader("""
                uniform mat4 u_mvp;
                uniform mat3 u_normal;
                attribute vec4 a_position;
                attribute vec3 a_normal;
                attribute vec4 a_color;
                varying vec4 v_color;
                varying vec3 v_normal;
                void main() {
                    v_normal = normalize(u_normal * a_normal);
                    v_color = a_color;
                    gl_Position = u_mvp * a_position;
                }
            """),
            FragmentShader("""
                #ifdef GL_ES
                precision mediump float;
                #endif
                varying vec4 v_color;
                varying vec3 v_normal;
                void main() {
                    float p = abs(dot(normalize(v_normal), normalize(vec3(0.25, 0.35, 1.0))));
                    gl_FragColor = vec4(v_color.rgb * (0.45 + 0.6 * p), v_color.a);
                }
            """),
        ])
    return _SHADER


def _overlay_gl_options() -> dict:
    """Drawn over the mesh regardless of depth: a path behind a wall must stay visible."""
    from OpenGL import GL
    return {GL.GL_DEPTH_TEST: False, GL.GL_BLEND: True, GL.GL_CULL_FACE: False,
            "glBlendFunc": (GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA)}


_GL_PROBLEM: list = []


def opengl_problem() -> str | None:
    """Why OpenGL cannot be used here (e.g. the offscreen platform), or None; asked once."""
    if not _GL_PROBLEM:
        from PyQt6.QtGui import QGuiApplication, QOpenGLContext
        ctx = QOpenGLContext()
        ok = ctx.create()
        platform = QGuiApplication.platformName()
        _GL_PROBLEM.append(None if ok else f"no OpenGL context can be created on the "
                                           f"'{platform}' platform")
    return _GL_PROBLEM[0]


class InteractiveGLView:
    """Factory for a GLViewWidget that reports when the user starts and stops moving it."""

    @staticmethod
    def create(on_move, on_still):
        gl = _gl()

        class _View(gl.GLViewWidget):
            def mousePressEvent(self, ev):
                on_move()
                super().mousePressEvent(ev)

            def mouseReleaseEvent(self, ev):
                super().mouseReleaseEvent(ev)
                on_still()

            def wheelEvent(self, ev):
                on_move()
                super().wheelEvent(ev)
                on_still()

        return _View()


class View3DPanel(QWidget):
    def __init__(self, jobs: Jobs, assets, parent=None):
        super().__init__(parent)
        self.jobs, self.assets = jobs, assets
        self.view = None                      # the GLViewWidget, once created
        self.scene = None
        self.overlay: Overlay | None = None
        self._frustums: np.ndarray | None = None       # the video's frustums, one per frame
        self._mesh_items: dict[str, object] = {}
        self._overlay_items: list = []
        self._frame_item = None
        self._mesh_scene_id: str | None = None
        self._bounds = (np.zeros(3), np.ones(3))
        self._frame = 0
        self._target: str | None = None           # the question's target instance id

        self.reset_button = QToolButton(text="Reset view")
        self.top_button = QToolButton(text="Top-down")
        self.info = QLabel()
        self.info.setStyleSheet("color: gray")
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        for w in (self.reset_button, self.top_button):
            bar.addWidget(w)
        bar.addWidget(self.info, 1)
        # The legend: what each colour is (the roles drawn, then each shown model in its palette colour), on
        # its own line under the buttons and wrapped, so that no model's name is cut off.
        self.legend = QLabel(objectName="legend3d")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        self.legend.setContentsMargins(6, 0, 6, 2)
        self.message = QLabel("No scene.")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.message)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addLayout(bar)
        lay.addWidget(self.legend)
        lay.addWidget(self.stack, 1)
        self._still_timer = QTimer(self, singleShot=True, interval=FULL_AFTER_MS)
        self._still_timer.timeout.connect(lambda: self._use_lod(False))
        self.reset_button.clicked.connect(self.reset_camera)
        self.top_button.clicked.connect(self.top_down)

    # ------------------------------------------------------------------ api
    def set_scene(self, scene, overlay: Overlay | None, message: str, target: str | None = None,
                  names: list[str] | None = None) -> None:
        self.scene, self.overlay, self._target = scene, overlay, target
        # The legend before any OpenGL: it names the models even where the 3D view cannot be drawn.
        self.legend.setText(self._legend_text(names or []) if scene is not None else "")
        if scene is None:
            self.message.setText(message or "No scene.")
            self.stack.setCurrentWidget(self.message)
            return
        if not self._ensure_view():
            return
        self.stack.setCurrentWidget(self.view)
        self._draw_overlay(names or [])
        if scene.id != self._mesh_scene_id:
            self._clear_mesh()
            self.info.setText("loading mesh…")
            sid = scene.id
            self.jobs.submit(lambda s: prepare_mesh(self.assets.mesh(s)), scene, lane="mesh3d",
                             label="loading mesh", done=lambda d: self._mesh_ready(sid, d),
                             failed=lambda msg: self._mesh_failed(sid, msg))

    def set_frame(self, k: int) -> None:
        self._frame = k
        frustums = self._frustums
        if self._frame_item is None or frustums is None or not len(frustums):
            return
        k = min(max(int(k), 0), len(frustums) - 1)
        f = frustums[k]
        if not np.isfinite(f).all():
            self._frame_item.setVisible(False)
            return
        self._frame_item.setData(pos=frustum_lines(f).reshape(-1, 3))
        self._frame_item.setVisible(True)

    def reset_camera(self) -> None:
        if self.view is None:
            return
        lo, hi = framed_bounds(self._bounds, self.overlay)
        c = (lo + hi) / 2
        from PyQt6.QtGui import QVector3D
        self.view.setCameraPosition(pos=QVector3D(*map(float, c)), distance=float(np.linalg.norm(hi - lo)) * 1.1,
                                    elevation=40, azimuth=-70)

    def top_down(self) -> None:
        if self.view is None:
            return
        lo, hi = framed_bounds(self._bounds, self.overlay)
        c = (lo + hi) / 2
        from PyQt6.QtGui import QVector3D
        self.view.setCameraPosition(pos=QVector3D(*map(float, c)),
                                    distance=float(np.linalg.norm(hi[:2] - lo[:2])) * 1.15,
                                    elevation=90, azimuth=-90)

    # ------------------------------------------------------------ internals
    def _ensure_view(self) -> bool:
        if self.view is not None:
            return True
        problem = opengl_problem()
        if problem:
            self.message.setText(f"The 3D view needs OpenGL: {problem}. The map, video and answers "
                                 "work without it.")
            self.stack.setCurrentWidget(self.message)
            return False
        try:
            self.view = InteractiveGLView.create(lambda: self._use_lod(True), self._still_timer.start)
            self.view.setBackgroundColor(QColor(*BACKGROUND))
        except Exception as e:          # no OpenGL here: say so, keep the rest working
            self.view = None
            self.message.setText(f"The 3D view needs OpenGL, which is not available: {e}")
            self.stack.setCurrentWidget(self.message)
            return False
        self.stack.addWidget(self.view)
        return True

    def _clear_mesh(self) -> None:
        for it in self._mesh_items.values():
            self.view.removeItem(it)
        self._mesh_items = {}
        self._mesh_scene_id = None

    def _mesh_failed(self, sid: str, message: str) -> None:
        if self.scene is not None and self.scene.id == sid:
            self.info.setText(f"mesh: {message}")

    def _mesh_ready(self, sid: str, data: dict) -> None:
        if self.view is None or self.scene is None or self.scene.id != sid:
            return
        gl = _gl()
        self._clear_mesh()
        self._mesh_scene_id = sid
        self._bounds = data["bounds"]
        for key, d in (("full", data), ("lod", data["lod"])):
            if d is None:
                continue
            item = gl.GLMeshItem(vertexes=d["vertices"], faces=d["faces"], faceColors=d["colors"],
                                 smooth=False, shader=headlight_shader(), glOptions="opaque")
            item.setVisible(key == "full")
            self.view.addItem(item)
            self._mesh_items[key] = item
        n = len(data["faces"])
        self.info.setText(f"{n:,} triangles" + (" (coarse copy while moving)" if data["lod"] else "")
                          + (f" · {data['problem']}" if data["problem"] else ""))
        self.reset_camera()

    def _use_lod(self, on: bool) -> None:
        lod, full = self._mesh_items.get("lod"), self._mesh_items.get("full")
        if lod is None or full is None:
            return
        lod.setVisible(on)
        full.setVisible(not on)

    def _path(self, gl, points: np.ndarray) -> None:
        """The video path coloured by time (viridis), drawn under the other lines."""
        pts = points[np.isfinite(points).all(axis=1)]
        if len(pts) < 2:
            return
        import pyqtgraph as pg
        cols = pg.colormap.get("viridis").map(np.linspace(0, 1, len(pts)), mode="float")
        item = gl.GLLinePlotItem(pos=pts.astype(np.float32), color=cols.astype(np.float32),
                                 width=3, mode="line_strip", antialias=True, glOptions=_overlay_gl_options())
        item.setDepthValue(5)
        self.view.addItem(item)
        self._overlay_items.append(item)

    def _legend_text(self, names: list[str]) -> str:
        target = self.scene.instances.get(self._target) if self.scene is not None and self._target else None
        return legend_html(self.overlay, names, target_estimated=target is not None and target.size_estimated)

    def _draw_overlay(self, names: list[str]) -> None:
        gl = _gl()
        for it in self._overlay_items:
            self.view.removeItem(it)
        self._overlay_items = []
        self._frame_item = None
        self._frustums = None
        ov = self.overlay
        self.legend.setText(self._legend_text(names))
        if ov is None:
            return

        def lines(segments: np.ndarray, color, width: float):
            item = gl.GLLinePlotItem(pos=np.asarray(segments, np.float32).reshape(-1, 3), color=color,
                                     width=width, mode="lines", antialias=True, glOptions=_overlay_gl_options())
            item.setDepthValue(10)
            self.view.addItem(item)
            self._overlay_items.append(item)
            return item

        for item in ov.drawn():
            color = _rgba(style.model_color(item.model) if item.role == pr.MODEL else _ROLE_COLORS[item.role])
            wide = 5 if item.role == pr.TRUTH else 4 if item.role == pr.TARGET else 3
            if isinstance(item, pr.Polyline) and item.role == pr.PATH:
                self._path(gl, item.points)
            elif isinstance(item, pr.FrameFrustums):
                self._frame_item = lines(np.zeros((2, 3)), (1.0, 0.75, 0.0, 1.0), 3)
                self._frustums = item.frustums
            elif isinstance(item, pr.Polyline):
                pts = np.asarray(item.points, float)
                lines(np.stack([pts[:-1], pts[1:]], axis=1), color, wide)
            elif isinstance(item, (pr.Arrow, pr.Segments)):
                lines(item.points if isinstance(item, pr.Arrow) else item.segments, color, wide)
            elif isinstance(item, pr.PointCloud):
                self._cloud(gl, item)
        self.set_frame(self._frame)


    def _cloud(self, gl, item: pr.PointCloud) -> None:
        pts = np.asarray(item.points, np.float32).reshape(-1, 3)
        # Blended over what is behind, not added to it (pyqtgraph's default for points): added to the light
        # background every point came out white, whatever its colour.
        cloud = gl.GLScatterPlotItem(pos=pts, color=cloud_rgba(item.colors, len(pts)), size=3.0, pxMode=True,
                                     glOptions="translucent")
        self.view.addItem(cloud)
        self._overlay_items.append(cloud)


BACKGROUND = (235, 236, 240)
CLOUD_SHADE = 0.6        # a point's colour times this: white walls' points stay visible on the light background


def cloud_rgba(colors, n: int):
    """The colours a point cloud is drawn in: its own, darkened so that the points of white walls and ceilings
    (most of a room's) still stand out against the view's light background; a cloud without colours (or with a
    colour count that does not match) in one slate grey."""
    if colors is None or len(colors) != n:
        return (0.35, 0.35, 0.4, 1.0)
    rgb = np.asarray(colors, np.float32).reshape(-1, 3) / 255.0 * CLOUD_SHADE
    return np.concatenate([rgb, np.ones((n, 1), np.float32)], axis=1)


_SHAPE_GLYPH = {"circle": "●", "square": "■", "triangle": "▲", "diamond": "◆"}


def legend_html(ov: Overlay | None, names: list[str], target_estimated: bool = False) -> str:
    """The 3D view's legend: truth, target and current view when drawn, then each model drawn, by name.
    `target_estimated`: the target's box size is a guess (an import had no extents), said as on the map."""
    if ov is None:
        return ""
    drawn = list(ov.drawn())
    roles = {item.role for item in drawn}
    target = "target (size estimated)" if target_estimated else "target"
    # Each entry's mark and name kept on one line (&nbsp;) when the legend wraps.
    parts = [f"<span style='color:{c.name()}'>━</span>&nbsp;{text.replace(' ', '&nbsp;')}"
             for role, c, text in ((pr.TRUTH, style.TRUTH, "truth"), (pr.TARGET, style.TARGET, target),
                                   (pr.VIEWPOINT, style.VIEWPOINT, "current view")) if role in roles]
    # The path's line says where it came from when that is not the scene's files (structure from motion).
    path = next((e.text for e in ov.legend if e.kind == "path" and e.text.startswith("video path, ")), None)
    if path:
        parts.append(f"<span style='color:{_ROLE_COLORS[pr.PATH].name()}'>━</span>&nbsp;{html.escape(path)}")
    for m in sorted({item.model for item in drawn if item.role == pr.MODEL and item.model is not None}):
        name = names[m] if m < len(names) else f"model {m + 1}"
        parts.append(f"<span style='color:{style.model_color(m).name()}'>{_SHAPE_GLYPH[style.model_shape(m)]}</span>"
                     f"&nbsp;{html.escape(name).replace(' ', '&nbsp;')}")
    return " &nbsp; ".join(parts)
