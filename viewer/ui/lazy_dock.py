"""A dock whose widget is made when it is first shown, or first asked for (`content`).

The window paints before the docks nobody has raised yet are built: a dock
tabbed away at start costs its title until its tab is clicked, its View-menu
entry or command is used, or a restored layout raises it.
"""
from __future__ import annotations

from collections.abc import Callable

from PyQt6.QtWidgets import QDockWidget, QWidget


class LazyDock(QDockWidget):
    def __init__(self, title: str, parent, make: Callable[[], QWidget], **kwargs):
        super().__init__(title, parent, **kwargs)
        self._make = make
        self._content: QWidget | None = None
        self.on_screen = False                  # as visibilityChanged last said (a tab raised, not just shown)
        self.visibilityChanged.connect(self._visibility)

    def _visibility(self, visible: bool) -> None:
        self.on_screen = visible
        if visible:
            self.content()

    @property
    def built(self) -> bool:
        return self._content is not None

    def content(self) -> QWidget:
        """The dock's widget, made now if it was not yet."""
        if self._content is None:
            self._content = self._make()
            self.setWidget(self._content)
        return self._content
