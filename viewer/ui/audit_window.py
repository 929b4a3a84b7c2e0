"""The audit and review docks in the inspector window, and their wiring.

Kept out of main_window.py so the window only creates one AuditController:
it adds the Audit and Review docks, runs the audit on a worker thread
(its per-scene work in processes), opens the sample of a chosen finding,
and points the flags panel at the sample on show.
"""
from __future__ import annotations

from functools import partial

from PyQt6.QtCore import QEvent, QObject, Qt

from ..core.audit import AuditReport, run_audit
from ..core.flags import FlagStore
from ..render.visibility import SceneVisibility
from .audit_dock import AuditPanel
from .flags_panel import FlagsPanel


class AuditController(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.store: FlagStore | None = None
        self.panel = AuditPanel()
        self.flags = FlagsPanel()
        self.audit_dock = window._dock("Audit", self.panel, Qt.DockWidgetArea.BottomDockWidgetArea)
        window.tabifyDockWidget(window.problems_dock, self.audit_dock)
        window.board_dock.raise_()
        self.review_dock = window._dock("Review", self.flags, Qt.DockWidgetArea.RightDockWidgetArea)
        view_menu = next((a.menu() for a in window.menuBar().actions() if a.text() == "&View"), None)
        if view_menu is not None:
            view_menu.addAction(self.audit_dock.toggleViewAction())
            view_menu.addAction(self.review_dock.toggleViewAction())
        for a in (*self.flags.verdict_actions.values(), self.flags.clear_action, self.flags.undo_action,
                  self.flags.save_action):
            window.addAction(a)          # window-wide shortcuts, wherever the focus is

        self.panel.uidSelected.connect(self._open_uid)
        self.panel.findingSelected.connect(self._render_evidence)
        self.panel.runRequested.connect(self.run)
        self.flags.message.connect(window.show_status)
        self.flags.flagChanged.connect(lambda _uid: self._verdicts_changed())
        window.sessionLoaded.connect(self._session_loaded)
        window.questionShown.connect(self._question_shown)
        window.installEventFilter(self)

    def run(self) -> None:
        session = self.window.session
        if session is None:
            self.window.show_status("open a release before auditing it")
            return
        self.panel.set_running()
        release = session.release
        audit = partial(run_audit, visibility=SceneVisibility)      # rays cast by the render layer
        self.window.jobs.submit(audit, release, list(session.results), lane="audit", label="auditing",
                                with_progress=True, done=lambda report: self._audited(release, report),
                                failed=self.panel.set_failed)

    def _audited(self, release, report: AuditReport) -> None:
        if self.window.session is None or self.window.session.release is not release:
            return                        # a newer release was opened meanwhile
        self.panel.set_report(report)
        for text in sorted(set(report.problems)):       # scene.json problems, mesh fallbacks
            self.window._add_problem(text.split(":", 1)[0], text)
        self.window.show_status(self.panel.status.text())

    def _render_evidence(self, finding) -> None:
        from ..render.evidence import CHECKS_WITH_PICTURES, finding_evidence
        session = self.window.session
        if session is None or finding.uid is None or finding.code not in CHECKS_WITH_PICTURES:
            self.window.jobs.cancel_lane("evidence")
            return
        question = session.release.get(finding.uid)
        if question is None:
            return
        self.window.jobs.submit(finding_evidence, self.window.release_path, question, finding, lane="evidence",
                                label="rendering evidence", done=self.panel.show_evidence,
                                failed=lambda msg: self.window.show_status(f"evidence: {msg}"))

    def _open_uid(self, uid: str) -> None:
        if not self.window.select_uid(uid):
            self.window.show_status(f"{uid}: not in this release")

    def _session_loaded(self) -> None:
        if self.store is not None:
            self.flags.set_store(None)
            self.store.close()
        self.store = FlagStore.for_release(self.window.release_path)
        self.flags.set_store(self.store)
        self._verdicts_changed()
        self.panel.set_report(None)
        if self.store.problem:
            self.window.show_status(self.store.problem)

    def _verdicts_changed(self) -> None:
        self.window.browser.set_verdicts(self.store.verdicts() if self.store is not None else {})

    def _question_shown(self, qi: int) -> None:
        session = self.window.session
        self.flags.set_uid(session.release.uids[qi] if session is not None else None)

    def eventFilter(self, obj, event) -> bool:
        if obj is self.window and event.type() == QEvent.Type.Close:
            self.flags.save_note()        # a note typed but not yet saved
        return False
