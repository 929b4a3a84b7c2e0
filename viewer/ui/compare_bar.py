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
    QInputDialog,
    QMenu,
    QToolButton,
    QWidget,
)

from ..core.browse import error_unit
from ..core.compare import COMPARISONS, NEEDS_B
from ..core.diagnostics import UserError
from ..core.review.views import ViewStore, resolve_view, view_document
from ..core.scene.alone import is_scene_alone
from ..core.state import InspectorState
from .bindings import KEEP, Bindings
from .flow_layout import FlowLayout, labelled


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
        # A flow: one line in a wide browser, two in a narrow one; a label stays with its box.
        lay = FlowLayout(self, spacing=4)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.compare_box, 2)
        lay.addWidget(labelled("B", self.b_box), 2)
        lay.addWidget(labelled(self.error_on, self.error_min), 1)
        lay.addWidget(self.views_button)
        b = self.bindings = Bindings(state)
        b.combo(self.compare_box, "filter.compare", write=lambda compare: self._write(compare=compare))
        b.combo(self.b_box, "filter.model_b", write=lambda model_b: self._write(model_b=model_b))
        # "error above" is an error range open at the top; a brushed range shows in the plots instead.
        b.check(self.error_on, "filter", to_widget=_error_above, write=lambda _on: self._write())
        b.value(self.error_min, "filter", to_widget=lambda f: f.error_min if _error_above(f) else KEEP,
                write=lambda _value: self.error_on.isChecked() and self._write())
        state.events.session.connect(self._session_changed)
        state.events.models.connect(self._fill_models)
        state.events.filter.connect(self._enable_b)

    # ------------------------------------------------------------ binding
    def _session_changed(self) -> None:
        self.close_store()
        path = self.state.release_path
        # A scene alone has no questions to filter: no views database.
        self.store = ViewStore.for_release(path) if path and self.state.session is not None \
            and not is_scene_alone(self.state.session) else None
        self._fill_models()

    def close_store(self) -> None:
        """Another release, or the window is closing: close the saved views' database."""
        if self.store is not None:
            self.store.close()
            self.store = None

    def _fill_models(self) -> None:
        with self.bindings.refilling(self.b_box):
            self.b_box.addItem("(no model)", None)
            for m, name in enumerate(self.state.models):
                self.b_box.addItem(name, m)
        self.bindings.show_all()          # a new release's filter was set with its events blocked
        self._enable_b(self.state.filter)

    def _enable_b(self, f) -> None:
        self.b_box.setEnabled(f.compare in NEEDS_B)
        self._show_unit(f)

    def _show_unit(self, f) -> None:
        """ "error >" in the listed columns' unit; said plainly when they mix units."""
        s = self.state.session
        unit = error_unit(s.release, f.columns) if s is not None else ""
        self.error_min.setSuffix(" (mixed units)" if unit is None else unit)
        self.error_min.setToolTip("The selected model's error is above this, in the unit of the listed column"
                                  + ("; the columns listed mix units (degrees, map units, relative "
                                     "distances): choose one column in the browser" if unit is None else ""))

    def _write(self, **changed) -> None:
        """The user's comparison: B is another model than A when the comparison needs one."""
        f = replace(self.state.filter, **changed)
        b = f.model_b
        if f.compare in NEEDS_B and (b is None or b == f.model):
            b = next((m for m in range(len(self.state.models)) if m != f.model), None)
        if self.error_on.isChecked():
            error_min, error_max = self.error_min.value(), None
        else:
            error_min, error_max = (None, None) if f.error_max is None else (f.error_min, f.error_max)
        if f.compare in NEEDS_B and f.model is None:
            self.message.emit("choose model A in the browser's model box to compare it")
        self.state.filter = replace(f, model_b=b, error_min=error_min, error_max=error_max)

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
            self.store.save(name, view_document(s.filter, s.sort, s.visible_models, s.models,
                                                [i for i, _ in s.model_identities()]))
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
        view = resolve_view(name, doc, self.state.models, self.state.model_identities())
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


def _error_above(f) -> bool:
    return f.error_min is not None and f.error_max is None
