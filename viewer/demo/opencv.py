"""OpenCV for the demo generator only: `pip install "gst-viewer[demo]"`.

The viewer itself decodes video with PyAV and reads images with Pillow, and
the packaged app leaves OpenCV out (docs/scale.md, "Packaging"). The demo
generator (`make-demo`, `python -m viewer.demo.montage`) still draws its
anti-aliased trajectories and writes its PNGs with OpenCV: the committed demo
in assets/demo was made that way, and regenerating it byte for byte needs the
same drawing and the same PNG encoder.

opencv-python bundles its own Qt plugins and, on import, points
QT_QPA_PLATFORM_PLUGIN_PATH (and QT_QPA_FONTDIR, LD_LIBRARY_PATH) at them.
A PyQt6 application started after that would load plugins built for another
Qt and crash, so `import_cv2()` restores the environment it found.
"""
from __future__ import annotations

import os
import threading

from viewer.core.diagnostics import UserError

_CV2_ENV = ("QT_QPA_PLATFORM_PLUGIN_PATH", "QT_QPA_FONTDIR", "LD_LIBRARY_PATH")
_import_lock = threading.Lock()


def import_cv2():
    """`cv2`, imported lazily, leaving the Qt-related environment as it was; UserError when it is
    not installed (the app runs without it, the demo generator does not)."""
    with _import_lock:
        saved = {k: os.environ.get(k) for k in _CV2_ENV}
        try:
            import cv2
        except ImportError:
            raise UserError('the demo generator draws with OpenCV, which is not installed: '
                            'pip install "gst-viewer[demo]" (or opencv-python)') from None
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        return cv2
