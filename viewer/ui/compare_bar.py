"""The browser's comparison row: A-versus-B filters, "error above", and the saved views menu.

A is the browser's selected model (`filter.model`), B the one chosen here
(`filter.model_b`); both, and the comparison itself, are fields of the
state's filter, so they combine with every other filter. Saved views
(`core.views`) live in the release's SQLite beside the flags; opening one
whose models are not all loaded skips those and says so on `message`.
"""
from __future__ import annotations

from dataclasses import replace

from PyQt6.QtCore import pyqtSignal
from PyQt6.QtGui import QAction
from PyQt6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMenu,
    QToolButton,
    QWidget,
)

from ..core.compare import COMPARISONS, NEEDS_B
from ..core.diagnostics import UserError
from ..core.review.views import ViewStore, resolve_view, view_document
from ..core.state import InspectorState


class CompareBar(QWidget):
    message = pyqtSignal(str)

    def __init__(self, state: InspectorState, parent=None):
        super().__init__(parent)
        self.state = state
        self.store: ViewStore | None = None
        self.compare_box = QComboBox(toolTip="Compare the selected model (A) with another (B), or all models")
        for key, text in COMPARISONS.items():
            self.compare_box.addItem("compare: off" if key == "none" else text, key)
        self.b_box = QComboBox(toolTip="Model B of the comparison")
        self.error_on = QCheckBox("error >", toolTip="Only questions where the selected model's error is above")
        self.error_min = QDoubleSpinBox(minimum=0.0, maximum=99999.0, decimals=1, singleStep=1.0, value=10.0)
        for box in (self.compare_box, self.b_box):         # long model names must not widen the browser
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(8)
        self.views_button = QToolButton(text="Views", toolTip="Saved views: filters, sort and shown models")
        self.views_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.views_menu = QMenu("Saved views", self)
        self.views_menu.aboutToShow.connect(self.fill_menu)
        self.views_button.setMenu(self.views_menu)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.compare_box, 2)
        lay.addWidget(QLabel("B"))
        lay.addWidget(self.b_box, 2)
        lay.addWidget(self.error_on)
        lay.addWidget(self.error_min, 1)
        lay.addWidget(self.views_button)
        self._filling = False
        self.compare_box.currentIndexChanged.connect(lambda _: self._changed())
        self.b_box.currentIndexChanged.connect(lambda _: self._changed())
        self.error_on.toggled.connect(lambda _: self._changed())
        self.error_min.valueChanged.connect(lambda _: self.error_on.isChecked() and self._changed())
        state.events.session.connect(self._session_changed)
        state.events.models.connect(self._fill_models)
        state.events.filter.connect(self._show)

    # ------------------------------------------------------------ binding
    def _session_changed(self) -> None:
        self.close_store()
        path = self.state.release_path
        self.store = ViewStore.for_release(path) if path and self.state.session is not None else None
        self._fill_models()

    def close_store(self) -> None:
        """Another release, or the window is closing: close the saved views' database."""
        if self.store is not None:
            self.store.close()
            self.store = None

    def _fill_models(self) -> None:
        self._filling = True
        self.b_box.clear()
        self.b_box.addItem("(no model)", None)
        for m, name in enumerate(self.state.models):
            self.b_box.addItem(name, m)
        self._filling = False
        self._show(self.state.filter)

    def _show(self, f) -> None:
        self._filling = True
        self.compare_box.setCurrentIndex(max(self.compare_box.findData(f.compare), 0))
        self.b_box.setCurrentIndex(max(self.b_box.findData(f.model_b), 0))
        self.b_box.setEnabled(f.compare in NEEDS_B)
        # "error above" is an error range open at the top; a brushed range shows in the plots instead.
        above = f.error_min is not None and f.error_max is None
        self.error_on.setChecked(above)
        if above:
            self.error_min.setValue(f.error_min)
        self._filling = False

    def _changed(self) -> None:
        if self._filling:
            return
        f = self.state.filter
        compare = self.compare_box.currentData()
        b = self.b_box.currentData()
        if compare in NEEDS_B and (b is None or b == f.model):
            b = next((m for m in range(len(self.state.models)) if m != f.model), None)
        error_min, error_max = (self.error_min.value(), None) if self.error_on.isChecked() else \
            ((None, None) if f.error_max is None else (f.error_min, f.error_max))
        if compare in NEEDS_B and f.model is None:
            self.message.emit("choose model A in the browser's model box to compare it")
        self.state.filter = replace(f, compare=compare, model_b=b, error_min=error_min, error_max=error_max)

    # -------------------------------------------------------- saved views
    def fill_menu(self) -> None:
        menu = self.views_menu
        menu.clear()
        if self.store is None:
            menu.addAction("(open a release first)").setEnabled(False)
            return
        save = QAction("Save view as…", menu)
        save.triggered.connect(self.ask_save)
        menu.addAction(save)
        docs = self.store.documents()
        if docs:
            menu.addSeparator()
        for name in docs:
            a = QAction(name, menu)
            a.triggered.connect(lambda _=False, n=name: self.open_view(n))
            menu.addAction(a)
        if docs:
            delete = menu.addMenu("Delete")
            for name in docs:
                delete.addAction(name, lambda n=name: self._delete(n))
        if self.store.problem:
            menu.addSeparator()
            menu.addAction(self.store.problem).setEnabled(False)

    def ask_save(self) -> None:
        name, ok = QInputDialog.getText(self, "Save view", "Name of this view (filters, sort, shown models):")
        if ok and name.strip():
            self.save_view(name)

    def save_view(self, name: str) -> bool:
        s = self.state
        try:
            self.store.save(name, view_document(s.filter, s.sort, s.visible_models, s.models))
        except UserError as e:
            self.message.emit(str(e))
            return False
        self.message.emit(f"saved view {name.strip()!r}")
        return True

    def open_view(self, name: str) -> bool:
        """Show a saved view: its filter, sort and shown models; models not loaded are skipped, and said so."""
        doc = self.store.documents().get(name) if self.store is not None else None
        if doc is None:
            self.message.emit(f"no saved view {name!r}")
            return False
        view = resolve_view(name, doc, self.state.models)
        s = self.state
        s.visible_models = view.visible
        s.filter = view.filter
        s.sort = view.sort
        text = f"view {name!r}"
        if view.skipped:
            text += f": skipped {', '.join(view.skipped)} (not loaded)"
        self.message.emit(text)
        return True

    def _delete(self, name: str) -> None:
        try:
            self.store.delete(name)
        except UserError as e:
            self.message.emit(str(e))


