"""Widgets bound to fields of an evented state (psygnal), both ways, with the re-entrancy guard written once.

A panel makes one `Bindings(state)` and binds each widget to a field, or to
an attribute of a frozen dataclass field (`"filter.status"`):

    b = Bindings(state)
    b.combo(self.status_box, "filter.status")
    b.text(self.search, "filter.text", debounce_ms=150)

The user's change writes the field (one emission); a change of the field
from anywhere else sets the widget under the guard, so the widget's own
signal is not taken for the user's and nothing is written back. A widget is
set only when what it shows changed: a field whose other attribute changed
leaves the widget alone, so an edit still being typed (debounced) is not
overwritten, and a value the widget cannot show (two columns in a one-column
box) is not replaced by what the box happens to show. Refilling a box's items
(`refilling`) and custom cases (`guard`, `user`) use the same guard.
A binding ends when its widget is destroyed.

glue/echo's `connect_*` helpers and `autoconnect_callbacks_to_qt` are the
model; unlike echo, the state here is a psygnal object whose fields are
often immutable records, hence the dotted paths.
"""
from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import replace

from PyQt6.QtCore import QObject, QSignalBlocker, Qt, QTimer

KEEP = object()        # returned by a `to_widget`: leave the widget as it is
NO_VALUE = object()    # returned by a `read`: the widget holds nothing to write (e.g. no row selected)
_UNSET = object()


def _identity(value):
    return value


def _same(a, b) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):          # arrays: compared by identity only
        return False


class Binding:
    """One widget bound to one state path; made by `Bindings`' methods."""

    def __init__(self, bindings: Bindings, widget: QObject, path: str, *, changed, read: Callable[[], object],
                 show: Callable[[object], None] | None, to_widget: Callable = _identity,
                 from_widget: Callable = _identity, write: Callable[[object], None] | None = None,
                 debounce_ms: int = 0):
        self.bindings = bindings
        self.widget = widget
        self.path = path
        self.field, _, self.attr = path.partition(".")
        self._read, self._show = read, show
        self._to_widget, self._from_widget = to_widget, from_widget
        self._write = write or self.set
        self._timer = None
        if debounce_ms:
            self._timer = QTimer(widget, singleShot=True, interval=debounce_ms)
            self._timer.timeout.connect(self.push)
        changed.connect(self._widget_changed)
        self._signal = getattr(bindings.state.events, self.field) if show is not None else None
        if self._signal is not None:
            self._signal.connect(self._state_changed)
        widget.destroyed.connect(self.unbind)

    # ------------------------------------------------------------ values
    def value(self, record=_UNSET):
        """The path's value in the state, or in `record` (a value of the field)."""
        if record is _UNSET:
            record = getattr(self.bindings.state, self.field)
        return getattr(record, self.attr) if self.attr else record

    def set(self, value) -> None:
        """Write `value` to the path: the field, or a copy of the field's record with the attribute replaced."""
        state = self.bindings.state
        if self.attr:
            value = replace(getattr(state, self.field), **{self.attr: value})
        setattr(state, self.field, value)

    @property
    def pending(self) -> bool:
        """A debounced user change not yet written."""
        return self._timer is not None and self._timer.isActive()

    # --------------------------------------------------------- directions
    def _widget_changed(self, *_args) -> None:
        if self.bindings.filling:
            return
        if self._timer is not None:
            self._timer.start()
        else:
            self.push()

    def push(self) -> None:
        """Widget → state: write what the widget shows."""
        if self._timer is not None:
            self._timer.stop()
        value = self._read()
        if value is not NO_VALUE:
            self._write(self._from_widget(value))

    def _state_changed(self, new, old=_UNSET) -> None:
        shown = self._to_widget(self.value(new))
        if old is not _UNSET and _same(shown, self._to_widget(self.value(old))):
            return
        self._put(shown)

    def pull(self) -> None:
        """State → widget: show the path's value (the guard held: nothing is written back)."""
        if self._show is not None:
            self._put(self._to_widget(self.value()))

    def _put(self, shown) -> None:
        if self._timer is not None:
            self._timer.stop()          # the state's value replaces an edit not yet written
        if shown is KEEP:
            return
        with self.bindings.guard():
            self._show(shown)

    def unbind(self, *_args) -> None:
        if self._signal is not None:
            self._signal.disconnect(self._state_changed, missing_ok=True)
            self._signal = None
        if self in self.bindings.bound:
            self.bindings.bound.remove(self)


class Bindings:
    """A panel's widgets bound to one evented state, sharing one guard."""

    def __init__(self, state):
        self.state = state
        self.bound: list[Binding] = []
        self._depth = 0

    # -------------------------------------------------------------- guard
    @property
    def filling(self) -> bool:
        """True while the program sets widgets: their signals are not the user's."""
        return self._depth > 0

    @contextmanager
    def guard(self):
        """Set widgets inside: no binding writes their changes back (nests)."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    def user(self, slot: Callable) -> Callable:
        """`slot`, called for the user's changes only (not while the guard is held)."""
        def run(*args):
            if not self.filling:
                slot(*args)
        return run

    @contextmanager
    def refilling(self, *widgets):
        """Replace the items of `widgets` (combo boxes, lists) inside; then their bindings show the state."""
        with self.guard():
            for w in widgets:
                w.clear()
            yield
        for b in list(self.bound):
            if b.widget in widgets:
                b.pull()

    def show_all(self) -> None:
        """Every bound widget shows the state (after fields changed with their events blocked)."""
        for b in list(self.bound):
            b.pull()

    # ------------------------------------------------------------ binding
    def bind(self, widget: QObject, path: str, *, changed, read, show, **options) -> Binding:
        """Any widget: `changed` is its user-change signal, `read()` its value, `show(value)` sets it.

        `to_widget` / `from_widget` convert between the state's value and the
        widget's; `write(value)` replaces the plain write (for a change that
        sets more than the path); `show=None` binds one way, widget → state.
        """
        b = Binding(self, widget, path, changed=changed, read=read, show=show, **options)
        self.bound.append(b)
        b.pull()
        return b

    def combo(self, box, path: str, *, signal: str = "currentIndexChanged", **options) -> Binding:
        """A combo box by its items' data; a value it does not list shows its first item."""
        def show(value):
            box.setCurrentIndex(max(box.findData(value), 0))
        options.setdefault("show", show)
        return self.bind(box, path, changed=getattr(box, signal), read=box.currentData, **options)

    def check(self, button, path: str, **options) -> Binding:
        """A check box or checkable button, as a bool."""
        options.setdefault("show", lambda v: button.setChecked(bool(v)))
        return self.bind(button, path, changed=button.toggled, read=button.isChecked, **options)

    def value(self, spin, path: str, **options) -> Binding:
        """A spin box (or slider) by its value."""
        options.setdefault("show", spin.setValue)
        return self.bind(spin, path, changed=spin.valueChanged, read=spin.value, **options)

    def text(self, edit, path: str, **options) -> Binding:
        """A line edit by its text; set only when it differs, so the cursor stays where the user left it."""
        def show(value):
            if edit.text() != value:
                edit.setText(value)
        options.setdefault("show", show)
        return self.bind(edit, path, changed=edit.textChanged, read=edit.text, **options)

    def checked_rows(self, items, path: str, **options) -> Binding:
        """A QListWidget's check boxes as the set of the checked rows (members past its last row kept)."""
        def read():
            n = items.count()
            rest = {m for m in self.value_of(path) if m >= n}
            return frozenset({m for m in range(n) if items.item(m).checkState() == Qt.CheckState.Checked} | rest)

        def show(rows):
            for m in range(items.count()):
                items.item(m).setCheckState(Qt.CheckState.Checked if m in rows else Qt.CheckState.Unchecked)
        options.setdefault("show", show)
        return self.bind(items, path, changed=items.itemChanged, read=read, **options)

    def current_row(self, view, path: str, *, value_of_row: Callable[[int], object],
                    row_of_value: Callable[[object], int], column: int = 0, **options) -> Binding:
        """An item view's current row, as the value `value_of_row` gives; a value not listed selects nothing.
        `column` is the cell made current when the state selects a row."""
        def read():
            idx = view.currentIndex()
            return value_of_row(idx.row()) if idx.isValid() else NO_VALUE

        def show(value):
            row = row_of_value(value)
            if row >= 0 and row != view.currentIndex().row():
                idx = view.model().index(row, column)
                view.setCurrentIndex(idx)
                view.scrollTo(idx, view.ScrollHint.EnsureVisible)
        options.setdefault("show", show)
        return self.bind(view, path, changed=view.selectionModel().currentRowChanged, read=read, **options)

    def value_of(self, path: str):
        field, _, attr = path.partition(".")
        record = getattr(self.state, field)
        return getattr(record, attr) if attr else record


@contextmanager
def signals_blocked(widget: QObject):
    """Set `widget` with none of its signals heard, Qt's own connections included (a header's sort
    indicator, which a sorting table view would act on)."""
    blocker = QSignalBlocker(widget)
    try:
        yield
    finally:
        blocker.unblock()
