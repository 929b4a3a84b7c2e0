"""Ctrl+K: find any of the window's actions by name and run it; and the Help → Keys text, from the same list.

Both read the actions the window has (`QWidget.actions()` and the menus), so
a new action with a shortcut is listed without editing either.
"""
from __future__ import annotations

from PyQt6.QtCore import Qt
from PyQt6.QtGui import QAction, QKeySequence
from PyQt6.QtWidgets import QDialog, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout

# Keys handled by widgets rather than by actions, for Help → Keys.
WIDGET_KEYS = (
    ("Up / Down", "previous / next sample in the browser"),
    ("Map", "drag to pan, wheel to zoom, Fit to reset"),
    ("3D", "drag to orbit, Ctrl+drag or middle-drag to pan, wheel to zoom"),
    ("Plots", "drag across the error histogram to filter the browser; click a scatter point to show it"),
    ("Presentation", "Right/Left or Page Down/Up: next/previous stage; Esc, F5 or Q: leave"),
)


def _text(action: QAction) -> str:
    return action.text().replace("&", "").rstrip("…").strip()


def window_actions(window) -> list[tuple[str, QAction]]:
    """Every named action of the window, with the menu path it is found under, once each."""
    seen: set[int] = set()
    out: list[tuple[str, QAction]] = []

    def walk(menu, path: str) -> None:
        for a in menu.actions():
            if a.menu() is not None:
                walk(a.menu(), f"{path}{_text(a)} › ")
            elif not a.isSeparator() and _text(a) and id(a) not in seen:
                seen.add(id(a))
                out.append((f"{path}{_text(a)}", a))
    for top in window.menuBar().actions():
        if top.menu() is not None:
            walk(top.menu(), f"{_text(top)} › ")
    for a in window.actions():
        if not a.isSeparator() and _text(a) and id(a) not in seen:
            seen.add(id(a))
            out.append((_text(a), a))
    return out


def keys_text(window) -> str:
    """Help → Keys: every action with a shortcut, then the keys widgets handle."""
    lines = [f"{a.shortcut().toString(QKeySequence.SequenceFormat.NativeText)}: {name}"
             for name, a in window_actions(window) if not a.shortcut().isEmpty()]
    lines.sort(key=lambda t: t.split(":")[1])
    return "\n".join(lines + [""] + [f"{k}: {what}" for k, what in WIDGET_KEYS])


class CommandPalette(QDialog):
    def __init__(self, window):
        super().__init__(window, Qt.WindowType.Popup)
        self.window_ = window
        self.search = QLineEdit(placeholderText="Type to find a command…")
        self.list = QListWidget()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addWidget(self.search)
        lay.addWidget(self.list)
        self.resize(520, 380)
        self.search.textChanged.connect(self.filter)
        self.search.returnPressed.connect(self.run_current)
        self.list.itemActivated.connect(lambda _: self.run_current())
        self.search.installEventFilter(self)

    def open(self) -> None:
        self.search.clear()
        self.filter("")
        w = self.window_
        self.move(w.mapToGlobal(w.rect().center()) - self.rect().center() - w.rect().center() / 3)
        self.show()
        self.search.setFocus()

    def filter(self, text: str) -> None:
        words = text.lower().split()
        self.list.clear()
        for name, action in window_actions(self.window_):
            if all(w in name.lower() for w in words) and action.isEnabled():
                keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
                item = QListWidgetItem(f"{name}    {keys}" if keys else name)
                item.setData(Qt.ItemDataRole.UserRole, action)
                self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)

    def run_current(self) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        self.close()
        item.data(Qt.ItemDataRole.UserRole).trigger()

    def eventFilter(self, obj, event) -> bool:
        # Up/Down in the search box move the list's selection.
        if obj is self.search and event.type() == event.Type.KeyPress and event.key() in (Qt.Key.Key_Up,
                                                                                            Qt.Key.Key_Down):
            step = 1 if event.key() == Qt.Key.Key_Down else -1
            self.list.setCurrentRow(min(max(self.list.currentRow() + step, 0), self.list.count() - 1))
            return True
        return super().eventFilter(obj, event)
