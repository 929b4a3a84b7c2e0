"""The audit and review docks' controller: runs the audit, opens a finding's sample, keeps the review store.

The window lays out the two panels (AuditPanel, FlagsPanel) and hands them
here with the state and the jobs: the audit runs on a worker thread (its
per-scene work in processes), choosing a finding sets the state's question,
and each release opened gets its reviewer flag store, which the flags panel
writes and publishes as the state's verdicts.
"""
from __future__ import annotations

from functools import partial

import numpy as np
from PyQt6.QtCore import QObject, QRectF, pyqtSignal
from PyQt6.QtGui import QImage, QPainter

from ..core.review.flags import FlagStore
from ..core.scene.alone import is_scene_alone
from ..core.state import InspectorState
from .audit_dock import AuditPanel
from .flags_panel import FlagsPanel
from .jobs import Jobs


def objects_evidence(release, question, finding) -> list[tuple[str, np.ndarray]]:
    """The question's objects drawn from above (its benchmark's `objects_overlay`), captioned with what the
    finding stored and recomputed; [] when the benchmark draws no objects for it."""
    from ..core.view.plan import MapCanvas  # painting modules: imported when a finding is chosen
    from ..figures.canvas import qimage_to_rgb, rgb_to_qimage
    from ..figures.map_painter import paint_map
    from ..figures.theme import PAPER
    overlay = release.benchmark.objects_overlay(release, question)
    if overlay is None or not overlay.width or not overlay.height:
        return []
    canvas = MapCanvas(overlay.width, overlay.height)
    image = rgb_to_qimage(canvas.image())
    painted = QImage(image.width(), image.height(), QImage.Format.Format_RGB888)
    p = QPainter(painted)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    paint_map(p, QRectF(0, 0, image.width(), image.height()), image, overlay, PAPER)
    p.end()
    d = finding.details
    said = [f"{k} {d[k]:g}" for k in ("stored", "recomputed") if isinstance(d.get(k), (int, float))]
    used = sorted({f"{o['category']}" for o in d["objects"] if isinstance(o, dict) and "category" in o})
    caption = (f"{', '.join(used) or 'the objects'} from above (the scene's object boxes)"
               + (f": {', '.join(said)}" if said else ""))
    return [(caption, qimage_to_rgb(painted))]


class AuditController(QObject):
    message = pyqtSignal(str)             # for the status bar
    problem = pyqtSignal(str, str)        # level, text: a problem of the input the audit came across

    def __init__(self, state: InspectorState, jobs: Jobs, panel: AuditPanel, flags: FlagsPanel, parent=None):
        super().__init__(parent)
        self.state, self.jobs, self.panel, self.flags = state, jobs, panel, flags
        self.store: FlagStore | None = None
        panel.uidSelected.connect(self._open_uid)
        panel.findingSelected.connect(self._render_evidence)
        panel.runRequested.connect(self.run)
        flags.message.connect(self.message)
        state.events.session.connect(self._session_loaded)

    def run(self) -> None:
        session = self.state.session
        if session is None:
            self.message.emit("open a release before auditing it")
            return
        self.panel.set_running()
        # Rays cast, images read and maps rendered by the render layer.
        # The checks and their renderers are read when an audit is first run.
        from ..core.audit import run_audit
        from ..render.audit_images import SceneImages
        from ..render.video import probe_video
        from ..render.visibility import SceneVisibility
        audit = partial(run_audit, visibility=SceneVisibility, images=SceneImages, videos=probe_video)
        self.jobs.submit(audit, session.release, list(session.results), lane="audit", scope="session",
                         label="auditing", with_progress=True, done=self._audited, failed=self.panel.set_failed)

    def _audited(self, report) -> None:
        self.panel.set_report(report)
        for text in sorted(set(report.problems)):       # scene.json problems, mesh fallbacks
            self.problem.emit(text.split(":", 1)[0], text)
        self.message.emit(self.panel.status.text())

    def _render_evidence(self, finding) -> None:
        from ..render.evidence import CHECKS_WITH_PICTURES, finding_evidence
        session = self.state.session
        question = session.release.get(finding.uid) if session is not None and finding.uid is not None else None
        if question is not None and finding.details.get("objects"):
            # A finding recomputed from the scene's object boxes (VSI-Bench's meta_info): those boxes, from above.
            self.jobs.cancel_lane("evidence")
            self.panel.show_evidence(objects_evidence(session.release, question, finding))
            return
        if question is None or finding.code not in CHECKS_WITH_PICTURES:
            self.jobs.cancel_lane("evidence")
            return
        self.jobs.submit(finding_evidence, self.state.release_path, question, finding, lane="evidence",
                         scope="session", label="rendering evidence", done=self.panel.show_evidence,
                         failed=lambda msg: self.message.emit(f"evidence: {msg}"))

    def _open_uid(self, uid: str) -> None:
        if not self.state.select_uid(uid):
            self.message.emit(f"{uid}: not in this release")

    def _session_loaded(self) -> None:
        self.close_store()
        self.panel.set_report(None)
        if self.state.session is None or is_scene_alone(self.state.session):
            return                           # a scene alone has no question to flag: no database
        self.store = FlagStore.for_release(self.state.release_path)
        self.flags.set_store(self.store)
        if self.store.problem:
            self.message.emit(self.store.problem)
            self.problem.emit("warning", self.store.problem)

    def close_store(self) -> None:
        """Another release, or the window is closing: keep a note typed but not yet saved, and close the
        flags database (its WAL checkpointed, -wal and -shm removed)."""
        if self.store is not None:
            self.flags.set_store(None)           # saves the note being typed
            self.store.close()
            self.store = None
