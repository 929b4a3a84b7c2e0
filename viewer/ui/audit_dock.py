"""Audit findings as a filterable list; choosing one emits its sample's uid.

The panel only shows an `AuditReport` (viewer.core.audit); running the audit
is the window's job (on a worker thread), started by `runRequested`. Which
findings it lists is its own small state, `FindingsFilter`, bound to the
check and severity boxes (`ui.bindings`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from psygnal import evented
from PyQt6.QtCore import QAbstractTableModel, QModelIndex, QRect, Qt, QTimer, pyqtSignal
from PyQt6.QtGui import QBrush, QColor, QPixmap
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from .bindings import Bindings
from .images import array_to_qimage

if TYPE_CHECKING:           # viewer.core.audit registers every check on import: read when an audit is run
    from ..core.audit import AuditReport, Finding

SEVERITIES = ("error", "warning", "info")
SEVERITY_COLORS = {"error": QColor(200, 40, 40), "warning": QColor(190, 120, 0), "info": QColor(60, 110, 180)}
HEADERS = ("severity", "check", "sample", "what")


@evented
@dataclass
class FindingsFilter:
    """The findings listed: of one check and one severity (None: all)."""
    check: str | None = None
    severity: str | None = None


class FindingsModel(QAbstractTableModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.findings: list[Finding] = []

    def set_findings(self, findings: list[Finding]) -> None:
        self.beginResetModel()
        self.findings = list(findings)
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.findings)

    def columnCount(self, parent=QModelIndex()) -> int:
        return len(HEADERS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        f = self.findings[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            # A dependent finding sits under the finding whose question explains it (report.listed()).
            sample = f.uid or "(whole release)"
            return (f.severity, f.check, f"↳ {sample}" if f.depends_on is not None else sample, f.message)[col]
        if role == Qt.ItemDataRole.ForegroundRole and col == 0:
            return QBrush(SEVERITY_COLORS.get(f.severity, QColor(0, 0, 0)))
        if role == Qt.ItemDataRole.ToolTipRole:
            return f.message
        return None


class AuditPanel(QWidget):
    """Findings filtered by check and severity, with the selected one's measured details."""
    uidSelected = pyqtSignal(str)
    findingSelected = pyqtSignal(object)      # the Finding, for the window to render its evidence
    runRequested = pyqtSignal()
    EVIDENCE_HEIGHT = 220         # pixels, at most, of an evidence picture
    EVIDENCE_MIN = 120            # and at least: smaller, a target's red outline is a few pixels
    KEEP_FOR_DETAILS = 70         # splitter pixels left to the details above the pictures

    def __init__(self, parent=None):
        super().__init__(parent)
        self.report: AuditReport | None = None
        self.run_button = QPushButton("Run audit")
        self.run_button.setToolTip("Check every question against its scene's geometry and the benchmark's promises")
        self.run_button.clicked.connect(self.runRequested)
        self.check_box = QComboBox()
        self.severity_box = QComboBox()
        self.severity_box.addItem("all severities", None)
        for s in SEVERITIES:
            self.severity_box.addItem(s, s)
        self.status = QLabel("not run yet")
        self.status.setWordWrap(True)
        self.filter = FindingsFilter()
        self.bindings = Bindings(self.filter)
        self.bindings.combo(self.check_box, "check")
        self.bindings.combo(self.severity_box, "severity")
        self._checks_listed = False          # the check names are listed when first painted (or a report comes)
        self.filter.events.check.connect(self._refilter)
        self.filter.events.severity.connect(self._refilter)

        self.model = FindingsModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        for c in range(3):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        self.details = QPlainTextEdit(readOnly=True)
        self.details.setPlaceholderText("the measured numbers of the selected finding")
        self.evidence = QWidget()
        self.evidence_row = QHBoxLayout(self.evidence)
        self.evidence_row.setContentsMargins(0, 0, 0, 0)
        self.evidence.hide()
        # Pictures keep their size and scroll sideways when many (a choice finding shows five): squeezed
        # into the splitter, their captions ran into each other.
        self.evidence_scroll = QScrollArea(widgetResizable=True, frameShape=QFrame.Shape.NoFrame)
        self.evidence_scroll.setWidget(self.evidence)
        self.evidence_scroll.hide()

        top = QHBoxLayout()
        top.addWidget(self.run_button)
        top.addWidget(self.check_box, 1)
        top.addWidget(self.severity_box)
        # The findings on the left, as tall as the dock; the selected one's numbers and pictures on the right.
        self.split = split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.details)
        split.addWidget(self.evidence_scroll)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 3)
        self.sides = QSplitter(Qt.Orientation.Horizontal)
        self.sides.addWidget(self.table)
        self.sides.addWidget(split)
        self.sides.setStretchFactor(0, 3)
        self.sides.setStretchFactor(1, 2)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)     # the whole message is its tooltip
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(top)
        layout.addWidget(self.status)
        layout.addWidget(self.sides, 1)

    # ------------------------------------------------------------ content
    def set_running(self, text: str = "auditing…") -> None:
        self.run_button.setEnabled(False)
        self.status.setText(text)

    def set_failed(self, message: str) -> None:
        self.run_button.setEnabled(True)
        self.status.setText(f"audit failed: {message}")

    def set_report(self, report: AuditReport | None) -> None:
        self.report = report
        self.run_button.setEnabled(True)
        summary = report.summary() if report else {}
        if report is not None or self._checks_listed:
            self._fill_checks(summary)       # no report yet: listed when first shown (every check's import)
        if report is None:
            self.status.setText("not run yet")
        else:
            counts = {s: sum(1 for f in report.findings if f.severity == s) for s in SEVERITIES}
            skipped = sum(v["skipped"] for v in summary.values())
            self.status.setText(f"{len(report.findings)} findings: {counts['error']} errors, "
                                f"{counts['warning']} warnings, {counts['info']} info"
                                + (f"; {skipped} checks skipped for lack of data" if skipped else "")
                                + f" ({report.seconds:.1f} s)")
        self._refilter()

    def set_filter(self, check: str | None = None, severity: str | None = None) -> None:
        """List the findings of `check` and `severity` (None, or one the boxes do not list: all)."""
        from ..core.audit import CHECKS
        self.filter.check = check if check in CHECKS.ids() else None
        self.filter.severity = severity if severity in SEVERITIES else None

    def show_evidence(self, images: list) -> None:
        """Pictures of the selected finding: (caption, (H, W, 3) uint8 RGB) pairs, or objects with
        `caption` and `rgb`."""
        self.clear_evidence()
        items = [(item.caption, item.rgb) if hasattr(item, "rgb") else item for item in images]
        if not items:
            return
        # Pictures take the height the splitter can give under the details, between EVIDENCE_MIN and
        # EVIDENCE_HEIGHT; across, they scroll.
        # The captions' wrapped height at the pictures' widths decides how tall the pictures may be.
        bar = self.evidence_scroll.horizontalScrollBar().sizeHint().height()
        room = self.split.height() - self.KEEP_FOR_DETAILS - bar
        height = self.EVIDENCE_HEIGHT
        for _ in range(2):
            caption_height = self._caption_height(items, height)
            height = int(max(self.EVIDENCE_MIN, min(self.EVIDENCE_HEIGHT, room - caption_height)))
        caption_height = self._caption_height(items, height)
        for caption, rgb in items:
            box = QVBoxLayout()
            picture = QLabel()
            pixmap = QPixmap.fromImage(array_to_qimage(rgb)).scaledToHeight(
                height, Qt.TransformationMode.SmoothTransformation)
            picture.setPixmap(pixmap)
            picture.setFixedSize(pixmap.size())
            text = QLabel(caption)
            text.setWordWrap(True)
            text.setFixedWidth(max(pixmap.width(), self.EVIDENCE_MIN))
            text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
            box.addWidget(picture)
            box.addWidget(text)
            box.addStretch(1)
            self.evidence_row.addLayout(box)
        self.evidence_row.addStretch(1)
        self.evidence.setVisible(True)
        self.evidence_scroll.setVisible(True)
        total = sum(self.split.sizes())
        wanted = height + caption_height + 8 + bar
        self.split.setSizes([max(total - wanted, self.KEEP_FOR_DETAILS), wanted])

    def _caption_height(self, items, height: int) -> int:
        """The tallest caption, wrapped to the width of its picture at `height`."""
        fm = self.fontMetrics()
        tallest = 0
        for caption, rgb in items:
            width = max(int(height * rgb.shape[1] / max(rgb.shape[0], 1)), self.EVIDENCE_MIN)
            box = fm.boundingRect(QRect(0, 0, width, 10_000), int(Qt.TextFlag.TextWordWrap), caption)
            tallest = max(tallest, box.height())
        return tallest + 12

    def clear_evidence(self) -> None:
        while self.evidence_row.count():
            item = self.evidence_row.takeAt(0)
            layout = item.layout()
            if layout is not None:
                while layout.count():
                    w = layout.takeAt(0).widget()
                    if w is not None:
                        w.deleteLater()
        self.evidence.hide()
        self.evidence_scroll.hide()

    def visible_findings(self) -> list[Finding]:
        return list(self.model.findings)

    # ------------------------------------------------------------ internals
    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if not self._checks_listed:
            # Listing the checks imports every check module (~40 ms): once the panel is on screen, after its
            # paint. Not when shown: Qt shows a dock tabbed behind another off screen, at the window's start.
            QTimer.singleShot(0, lambda: self._checks_listed or self._fill_checks({}))

    def _fill_checks(self, summary: dict) -> None:
        from ..core.audit import CHECKS
        self._checks_listed = True
        with self.bindings.refilling(self.check_box):
            self.check_box.addItem("all checks", None)
            for c in CHECKS.ids():
                n = summary.get(c)
                label = c if n is None else f"{c}  ({n['flagged']} of {n['checked']}, {n['skipped']} skipped)"
                self.check_box.addItem(label, c)

    def _refilter(self) -> None:
        check, severity = self.filter.check, self.filter.severity
        findings = self.report.listed() if self.report else []
        shown = [f for f in findings if (check is None or f.check == check)
                 and (severity is None or f.severity == severity)]
        self.model.set_findings(shown)
        self.details.clear()
        self.clear_evidence()

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            return
        f = self.model.findings[current.row()]
        self.details.setPlainText(f"{f.message}\n\n" + json.dumps(f.details, indent=1, ensure_ascii=False))
        self.clear_evidence()
        self.findingSelected.emit(f)
        if f.uid is not None:
            self.uidSelected.emit(f.uid)
