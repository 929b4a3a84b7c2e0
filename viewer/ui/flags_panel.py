"""A reviewer's verdict and note on the shown sample, saved as they are made, with undo.

Shortcuts (window-wide): Ctrl+1 ok, Ctrl+2 bad ground truth, Ctrl+3 ambiguous,
Ctrl+4 bad media, Ctrl+0 clear; Ctrl+Return saves the note; Ctrl+Z undoes
the last flag change (inside the note editor Ctrl+Z undoes typing, as usual).
Every change is written at once (viewer.core.review.flags); when the store is
read-only (damaged or locked database) the panel says why and stays usable
for reading. It says where the flags are saved (beside the release, or in the
user data folder when the release folder is read-only), and `whereChanged`
repeats it for the status bar. It follows the state's question.
"""
from __future__ import annotations

from PyQt6.QtCore import QEvent, Qt, pyqtSignal
from PyQt6.QtGui import QAction, QKeySequence
from PyQt6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..core.diagnostics import UserError
from ..core.review.flags import VERDICTS, FlagConflict, FlagStore
from ..core.state import InspectorState

SHORTCUTS = {"ok": "Ctrl+1", "bad_gt": "Ctrl+2", "ambiguous": "Ctrl+3", "bad_media": "Ctrl+4"}


class FlagsPanel(QWidget):
    message = pyqtSignal(str)            # for the status bar
    whereChanged = pyqtSignal(str, str)  # where flags are saved: a few words and the full path, for the status bar

    def __init__(self, state: InspectorState, parent=None):
        super().__init__(parent)
        self.state = state
        self.store: FlagStore | None = None
        self.uid: str | None = None
        self._note_seen: str = ""         # the note as last read from the store, to detect other writers

        self.buttons: dict[str, QToolButton] = {}
        self.group = QButtonGroup(self)
        self.group.setExclusive(False)   # a second click on the set verdict clears it
        row = QHBoxLayout()
        self.verdict_actions: dict[str, QAction] = {}
        for key, label in VERDICTS.items():
            b = QToolButton(text=label, checkable=True)
            b.setToolTip(f"{label} ({SHORTCUTS[key]})")
            b.clicked.connect(lambda checked, k=key: self.set_verdict(k if checked else None))
            self.group.addButton(b)
            self.buttons[key] = b
            row.addWidget(b)
            # triggered(bool) would fill a defaulted first parameter: keep the key out of its way.
            self.verdict_actions[key] = self._action(f"Verdict: {label}", SHORTCUTS[key],
                                                     lambda _checked=False, k=key: self.set_verdict(k))
        row.addStretch(1)
        self.clear_action = self._action("Clear verdict", "Ctrl+0", lambda: self.set_verdict(None))
        self.undo_button = QPushButton("Undo")
        self.undo_button.setToolTip("Undo the last flag change (Ctrl+Z)")
        self.undo_button.clicked.connect(self.undo)
        row.addWidget(self.undo_button)
        self.undo_action = self._action("Undo flag change", QKeySequence.StandardKey.Undo, self.undo)

        self.note = QPlainTextEdit()
        self.note.setPlaceholderText("note for this sample (saved with Ctrl+Return, or when you move on)")
        self.note.installEventFilter(self)
        self.save_button = QPushButton("Save note")
        self.save_button.clicked.connect(self.save_note)
        self.save_action = self._action("Save note", "Ctrl+Return", self.save_note)
        self.info = QLabel()
        self.info.setWordWrap(True)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #b00020;")
        self.problem.hide()
        self.where = QLabel()
        self.where.setWordWrap(True)
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.where.setStyleSheet("color: gray;")
        self._where_said: tuple[str, str] | None = None

        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.problem)
        layout.addLayout(row)
        layout.addWidget(self.note, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.info, 1)
        bottom.addWidget(self.save_button)
        layout.addLayout(bottom)
        layout.addWidget(self.where)
        self._refresh()
        state.events.question.connect(lambda: self.set_uid(state.uid))

    def _action(self, text, shortcut, slot) -> QAction:
        a = QAction(text, self)
        a.setShortcut(QKeySequence(shortcut))
        a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        a.triggered.connect(slot)
        self.addAction(a)
        return a

    # ------------------------------------------------------------ API
    def set_store(self, store: FlagStore | None) -> None:
        self.save_note()
        self.store = store
        self._publish_verdicts()
        self._load()

    def _publish_verdicts(self) -> None:
        """The browser's verdict filter reads them from the state."""
        self.state.verdicts = self.store.verdicts() if self.store is not None else {}

    def set_uid(self, uid: str | None) -> None:
        """Show another sample; a note being typed for the previous one is saved first."""
        if uid == self.uid:
            return
        self.save_note()
        self.uid = uid
        self._load()

    @property
    def writable(self) -> bool:
        return self.store is not None and not self.store.readonly and self.uid is not None

    def set_verdict(self, verdict: str | None) -> None:
        if not self.writable:
            self._refresh()
            return
        self._do(lambda: self.store.set_verdict(self.uid, verdict),
                 f"{self.uid}: {VERDICTS[verdict] if verdict else 'verdict cleared'}")

    def save_note(self) -> None:
        if not self.writable:
            return
        text = self.note.toPlainText().strip()
        if text == self._note_seen:
            return
        self._do(lambda: self.store.set_note(self.uid, text, expected=self._note_seen), f"{self.uid}: note saved")

    def undo(self) -> None:
        if self.store is None or not self.store.can_undo:
            self.message.emit("nothing to undo")
            return
        self._do(self.store.undo, "flag change undone")

    # ------------------------------------------------------------ internals
    def _do(self, change, done_text: str) -> None:
        try:
            c = change()
        except FlagConflict as e:
            # Keep what the user typed; the next save overwrites deliberately.
            current = self.store.get(self.uid) if self.uid else None
            self._note_seen = current.note if current else ""
            self.message.emit(f"{e}; your text is kept, save again to replace it")
            self._refresh(keep_note=True)
            return
        except UserError as e:
            self.message.emit(str(e))
            self._refresh(keep_note=True)
            return
        if c is not None:
            self.message.emit(done_text)
            self._publish_verdicts()
            if c.uid != self.uid:
                return
        self._load()

    def _load(self) -> None:
        flag = self.store.get(self.uid) if self.store is not None and self.uid else None
        self._note_seen = flag.note if flag else ""
        self.note.setPlainText(self._note_seen)
        self._refresh()

    def _refresh(self, keep_note: bool = False) -> None:
        flag = self.store.get(self.uid) if self.store is not None and self.uid else None
        verdict = flag.verdict if flag else None
        for key, b in self.buttons.items():
            b.setChecked(key == verdict)
        writable = self.writable
        for w in (*self.buttons.values(), self.save_button):
            w.setEnabled(writable)
        self.note.setReadOnly(not writable)
        self.undo_button.setEnabled(self.store is not None and self.store.can_undo)
        problem = self.store.problem if self.store is not None else None
        self.problem.setText(problem or "")
        self.problem.setVisible(bool(problem))
        if self.uid is None:
            self.info.setText("no sample shown")
        elif flag is None:
            self.info.setText("not reviewed yet")
        else:
            self.info.setText(f"last change by {flag.author} at {flag.at}")
        self._show_where()

    def _show_where(self) -> None:
        """Where the flags are saved (the file may not exist yet: it is created at the first flag)."""
        if self.store is None:
            said = ("", "")
        else:
            saved = "saved" if self.store.path.exists() else "to be saved at the first flag"
            self.where.setText(f"Flags and views {saved} in {self.store.where}")
            reason = self.store.location.reason
            said = (f"flags: in your data folder ({reason})" if reason else "flags: beside the release",
                    self.store.where)
        self.where.setVisible(self.store is not None)
        if said != self._where_said:
            self._where_said = said
            self.whereChanged.emit(*said)

    def eventFilter(self, obj, event) -> bool:
        if obj is self.note and event.type() == QEvent.Type.FocusOut:
            self.save_note()
        return super().eventFilter(obj, event)
