"""A layout that wraps its widgets onto more lines when it is narrow, like words in a paragraph.

The browser's filter rows are a row of boxes each; in one QHBoxLayout their
minimum widths add up (about 500 px), which held the browser wide and left
the map 120 px at 1280 x 800. In a flow they take two lines there instead.
Each line is filled: the width left over goes to the widgets given a stretch,
in proportion, as in a QHBoxLayout (Qt's own flow layout example leaves it).
"""
from __future__ import annotations

from PyQt6.QtCore import QPoint, QRect, QSize, Qt
from PyQt6.QtWidgets import QHBoxLayout, QLabel, QLayout, QLayoutItem, QWidget, QWidgetItem


class FlowLayout(QLayout):
    def __init__(self, parent: QWidget | None = None, spacing: int = 6):
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._stretch: list[int] = []
        self._spacing = spacing

    # ------------------------------------------------------------ items
    def addWidget(self, widget: QWidget, stretch: int = 0) -> None:     # noqa: N802 (Qt's name)
        self.addChildWidget(widget)
        self._items.append(QWidgetItem(widget))
        self._stretch.append(stretch)
        self.invalidate()

    def addItem(self, item: QLayoutItem) -> None:                       # noqa: N802
        self._items.append(item)
        self._stretch.append(0)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int):                                       # noqa: N802
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int):                                       # noqa: N802
        if not 0 <= index < len(self._items):
            return None
        self._stretch.pop(index)
        return self._items.pop(index)

    # ------------------------------------------------------------ sizes
    def expandingDirections(self) -> Qt.Orientation:                    # noqa: N802
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:                                # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:                        # noqa: N802
        return self._lay_out(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:                         # noqa: N802
        super().setGeometry(rect)
        self._lay_out(rect, move=True)

    def sizeHint(self) -> QSize:                                        # noqa: N802
        """All on one line."""
        shown = self._shown()
        m = self.contentsMargins()
        w = sum(i.sizeHint().width() for i, _ in shown) + self._spacing * max(len(shown) - 1, 0)
        h = max((i.sizeHint().height() for i, _ in shown), default=0)
        return QSize(w + m.left() + m.right(), h + m.top() + m.bottom())

    def minimumSize(self) -> QSize:                                     # noqa: N802
        """The widest widget alone on a line."""
        size = QSize()
        for item, _ in self._shown():
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    # ------------------------------------------------------------ placing
    def _shown(self) -> list[tuple[QLayoutItem, int]]:
        return [(i, s) for i, s in zip(self._items, self._stretch) if not i.isEmpty()]

    def _lines(self, width: int) -> list[list[tuple[QLayoutItem, int, int]]]:
        """The items in lines of at most `width`, each with its stretch and its width (its size hint's,
        no less than its minimum, no more than the line)."""
        lines: list[list[tuple[QLayoutItem, int, int]]] = [[]]
        used = 0
        for item, stretch in self._shown():
            w = min(max(item.sizeHint().width(), item.minimumSize().width()), width)
            if lines[-1] and used + self._spacing + w > width:
                lines.append([])
                used = 0
            used += (self._spacing if lines[-1] else 0) + w
            lines[-1].append((item, stretch, w))
        return [line for line in lines if line]

    def _lay_out(self, rect: QRect, move: bool) -> int:
        """Place the items in `rect` (when `move`); the height they take."""
        m = self.contentsMargins()
        inner = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        y = inner.y()
        for line in self._lines(max(inner.width(), 1)):
            height = max(item.heightForWidth(w) if item.hasHeightForWidth() else item.sizeHint().height()
                         for item, _, w in line)
            spare = inner.width() - sum(w for _, _, w in line) - self._spacing * (len(line) - 1)
            stretches = sum(s for _, s, _ in line)
            x = inner.x()
            for item, stretch, w in line:
                if spare > 0 and stretches:
                    w += spare * stretch // stretches
                if move:
                    h = height if item.hasHeightForWidth() else min(item.sizeHint().height(), height)
                    item.setGeometry(QRect(QPoint(x, y + (height - h) // 2), QSize(w, h)))
                x += w + self._spacing
            y += height + self._spacing
        return y - self._spacing - inner.y() + m.top() + m.bottom() if self._shown() else 0


def labelled(label: str | QWidget, box: QWidget) -> QWidget:
    """A label (a text, or a widget such as a check box) and its box as one widget, so that a flow never
    puts them on different lines."""
    w = QWidget()
    lay = QHBoxLayout(w)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.setSpacing(4)
    lay.addWidget(QLabel(label) if isinstance(label, str) else label)
    lay.addWidget(box, 1)
    return w
