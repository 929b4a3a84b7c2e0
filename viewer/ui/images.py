"""Images for the views: read off the GUI thread, cached, and converted for pyqtgraph."""
from __future__ import annotations

import concurrent.futures
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np
from PyQt6.QtCore import QSize, Qt
from PyQt6.QtGui import QImage, QImageReader

from ..core.audit.image_check import image_problem, over_budget

if TYPE_CHECKING:
    from ..core.view.plan import ViewPlan

VIEW_MAX_SIDE = 1280       # the current view is decoded at most this many pixels across
OPTION_MAX_SIDE = 960      # a multiple-choice option's image
PROBLEM_KEY = "gst-viewer problem"      # QImage text: what is wrong with a file that still decoded (cut)
# The bytes' own check (`_why`) runs here while Qt decodes the same file (which releases the GIL): a large PNG
# is inflated by both, and the check (~40 ms for the Pos sample's 1920x1536 view) no longer follows the decode.
_CHECKS = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="gst-viewer-image-check")
# Images decoded ahead (`ImageCache.prefetch`): the first question's, while the window builds its panels.
_AHEAD = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="gst-viewer-image-ahead")


class ImageError(OSError):
    """An image that cannot be shown; the text says why."""


class ImageCache:
    """Decoded images by (path, max side), least recently used dropped first.

    `load` is safe to call from pool threads (QImage is not tied to the GUI
    thread); large images are decoded at reduced size when a bound is given.
    An image being decoded is decoded once: a second `load` of it waits for
    the first (`prefetch` starts one ahead of the view that will ask for it).
    """

    def __init__(self, max_bytes: int = 512 * 1024**2):
        self._items: OrderedDict[tuple[str, int], QImage] = OrderedDict()
        self._decoding: dict[tuple[str, int], concurrent.futures.Future] = {}
        self._queued: dict[tuple[str, int], concurrent.futures.Future] = {}     # `prefetch`'s, not started
        self._bytes = 0
        self._max = max_bytes
        self._lock = threading.Lock()

    def get(self, path: str, max_side: int = 0) -> QImage | None:
        with self._lock:
            img = self._items.get((path, max_side))
            if img is not None:
                self._items.move_to_end((path, max_side))
            return img

    def load(self, path: str, max_side: int = 0) -> QImage:
        """The image, decoded now, or by the load already decoding it (ImageError, or OSError, as it raised)."""
        key = (path, max_side)
        with self._lock:
            img = self._items.get(key)
            if img is not None:
                self._items.move_to_end(key)
                return img
            decoding = self._decoding.get(key)
            if decoding is None:
                mine = self._decoding[key] = concurrent.futures.Future()
                queued = self._queued.pop(key, None)
                if queued is not None:
                    queued.cancel()         # decoded here rather than after the images queued before it
        if decoding is not None:
            return decoding.result()
        try:
            img = read_image(path, max_side)
        except BaseException as e:
            with self._lock:
                del self._decoding[key]
            mine.set_exception(e)
            raise
        with self._lock:
            del self._decoding[key]
            if key not in self._items:
                self._items[key] = img
                self._bytes += img.sizeInBytes()
            while self._bytes > self._max and len(self._items) > 1:
                _, old = self._items.popitem(last=False)
                self._bytes -= old.sizeInBytes()
        mine.set_result(img)
        return img

    def prefetch(self, images: list[tuple[str, int]]) -> None:
        """Start decoding these (path, max side) on a thread of their own, without waiting; a view's `load` of
        one then takes it when it is done. An image that cannot be read is said by that `load`, not here."""
        for key in images:
            with self._lock:
                if key in self._items or key in self._decoding or key in self._queued:
                    continue
                try:
                    self._queued[key] = _AHEAD.submit(self._load_ahead, key)
                except RuntimeError:     # the interpreter is exiting
                    return

    def _load_ahead(self, key: tuple[str, int]) -> None:
        with self._lock:
            self._queued.pop(key, None)
        try:
            self.load(*key)
        except Exception:                # the view that loads it says why (`load` raises it there again)
            pass


def plan_images(p: ViewPlan) -> list[tuple[str, int]]:
    """The image files the sample view decodes for plan `p`, as (path, max side) `ImageCache` keys: its current
    view, its option images, the map file it shows first (SampleView loads each at these sizes)."""
    images = []
    if p.view is not None and p.view.paths:
        images.append((p.view.paths[0], VIEW_MAX_SIDE))
    images += [(o.paths[0], OPTION_MAX_SIDE) for o in p.options if o.paths]
    from ..core.view.plan import MapFile
    if p.map is not None and isinstance(p.map.load, MapFile):
        images.append((p.map.load.path, 0))
    return images


def read_image(path: str, max_side: int = 0) -> QImage:
    """The image at `path`, at most `max_side` pixels across; ImageError saying why it cannot be shown.

    A file that declares more pixels than the budget the rest of the app keeps (render/image_io) is
    refused by its header. One that decodes although it is not whole (a JPEG cut after its scan starts)
    is shown, and `image_text(img)` says what is wrong with it."""
    if not path:
        raise ImageError("no path")
    reader = QImageReader(path)
    reader.setAutoTransform(True)
    if not reader.canRead():
        raise ImageError(f"{path}: {_why(path) or reader.errorString() or 'not a readable image'}")
    size = reader.size()
    too_big = over_budget(size.width(), size.height()) if size.isValid() else None
    if too_big:
        raise ImageError(f"{path}: {too_big}")
    if max_side and size.isValid() and max(size.width(), size.height()) > max_side:
        reader.setScaledSize(size.scaled(QSize(max_side, max_side), Qt.AspectRatioMode.KeepAspectRatio))
    try:
        checked = _CHECKS.submit(_why, path)
    except RuntimeError:       # the interpreter is exiting: checked here then
        checked = None
    img = reader.read()
    broken = checked.result() if checked is not None else _why(path)
    if img.isNull():           # Qt's own words ("Unable to read image data") seldom say why: the bytes may
        raise ImageError(f"{path}: {broken or reader.errorString() or 'cannot be decoded'}")
    img = img.convertToFormat(QImage.Format.Format_RGB888)
    if broken:
        img.setText(PROBLEM_KEY, broken)
    return img


def _why(path: str) -> str | None:
    """What the file's bytes say is wrong with it (core/audit/image_check: cut, damaged, over budget)."""
    try:
        return image_problem(path)
    except OSError as e:
        return str(e)


def image_text(img: QImage) -> str:
    """What is wrong with a file `read_image` still decoded, or ''."""
    return img.text(PROBLEM_KEY)


def qimage_to_array(img: QImage) -> np.ndarray:
    """(h, w, 3) uint8 copy of an RGB888 image (rows may be padded in the QImage)."""
    img = img.convertToFormat(QImage.Format.Format_RGB888)
    h, w, bpl = img.height(), img.width(), img.bytesPerLine()
    buf = np.frombuffer(img.constBits().asstring(h * bpl), np.uint8).reshape(h, bpl)
    return buf[:, : w * 3].reshape(h, w, 3).copy()


def array_to_qimage(arr: np.ndarray) -> QImage:
    """A QImage owning a copy of an (h, w, 3) uint8 RGB array."""
    arr = np.ascontiguousarray(arr, np.uint8)
    h, w = arr.shape[:2]
    return QImage(arr.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()
