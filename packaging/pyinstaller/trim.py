"""What the gst-viewer build leaves out, as rules on PyInstaller's TOC entries.

Used by gst-viewer.spec (set GST_PYI_TRIM=0 there for an untrimmed build to
compare sizes). Pure functions on destination paths, so they are unit tested
without running PyInstaller.

Qt: the app uses QtCore, QtGui, QtWidgets, QtOpenGL(+Widgets, pyqtgraph's 3D
view) and QtSvg (icons). Of Qt's plugins it needs a platform (xcb on a
desktop, offscreen/minimal headless), OpenGL on xcb, JPEG and SVG images (PNG
is built into QtGui), the SVG icon engine and the compose-key input context.
Every other plugin folder, the translations, QML and the Qt libraries that
nothing kept links to are dropped, and so are the other libraries that only
dropped plugins linked to.

Python: open3d imports plotly and dash at import time for browser plots the
app never draws; they (and what only they pull in) are excluded and
rthook_open3d.py stands in for open3d.visualization.draw_plotly. open3d's
TensorFlow/PyTorch ops, its GUI resources and ML/Jupyter extras go too, and
so does Dask (the cluster executor is for an installed gst-viewer, not the app).

OpenCV is not a dependency of the app (video through PyAV, images through
Pillow); only the demo generator uses it, and the packaged `make-demo` says to
install gst-viewer[demo]. It is excluded in case a development venv has it.
Pillow's AVIF, WebP, font, colour-management and Tk modules (and the codec
libraries only they link) go: the app reads PNG and JPEG and writes PNG and GIF.
SciPy's subpackages that neither the app nor what scipy.ndimage,
scipy.sparse.csgraph and scipy.spatial import need (stats, signal, ...) go too.
"""
from __future__ import annotations

import posixpath
import re

QT_PREFIX = "PyQt6/Qt6/"
PLUGINS = QT_PREFIX + "plugins/"

KEEP_PLUGINS = {
    "platforms": {"libqxcb.so", "libqoffscreen.so", "libqminimal.so"},
    "xcbglintegrations": {"libqxcb-glx-integration.so", "libqxcb-egl-integration.so"},
    "imageformats": {"libqjpeg.so", "libqsvg.so"},
    "iconengines": {"libqsvgicon.so"},
    "platforminputcontexts": {"libcomposeplatforminputcontextplugin.so"},
}

# PyQt6 modules the app and pyqtgraph use; the PyInstaller hooks of the others
# would pull in their Qt libraries and plugins.
USED_QT_MODULES = ("QtCore", "QtGui", "QtWidgets", "QtOpenGL", "QtOpenGLWidgets", "QtSvg")
UNUSED_QT_MODULES = (
    "Qt3DAnimation", "Qt3DCore", "Qt3DExtras", "Qt3DInput", "Qt3DLogic", "Qt3DRender",
    "QtBluetooth", "QtCharts", "QtDataVisualization", "QtDBus", "QtDesigner", "QtHelp",
    "QtMultimedia", "QtMultimediaWidgets", "QtNetwork", "QtNfc", "QtPdf", "QtPdfWidgets",
    "QtPositioning", "QtPrintSupport", "QtQml", "QtQuick", "QtQuick3D", "QtQuickWidgets",
    "QtRemoteObjects", "QtSensors", "QtSerialPort", "QtSpatialAudio", "QtSql", "QtStateMachine",
    "QtSvgWidgets", "QtTest", "QtTextToSpeech", "QtWebChannel", "QtWebEngineCore",
    "QtWebEngineQuick", "QtWebEngineWidgets", "QtWebSockets", "QtXml", "lupdate",
)   # not PyQt6.uic: pyqtgraph imports it unconditionally

EXCLUDED_PYTHON = [
    # open3d's browser plotting (see rthook_open3d.py) and what only it brings
    "plotly", "_plotly_utils", "dash", "flask", "werkzeug", "IPython", "ipywidgets", "jedi",
    "parso", "nbformat", "jsonschema", "jsonschema_specifications", "traitlets", "comm",
    "pygments", "narwhals", "retrying", "pydantic", "pydantic_core", "janus", "nest_asyncio",
    "matplotlib_inline", "prompt_toolkit", "stack_data", "executing", "asttokens", "pure_eval",
    "widgetsnbextension", "jupyterlab_widgets", "jupyter_core", "fastjsonschema", "referencing",
    "rpds", "blinker", "itsdangerous", "click", "jinja2",
    # open3d extras the app does not use
    # (open3d.ml itself stays: `import open3d` imports it; its submodules load on first use)
    "open3d.ml.tf", "open3d.ml.torch", "open3d.ml.contrib", "open3d.ml.datasets", "open3d.ml.vis",
    "open3d._ml3d", "open3d.visualization.draw_plotly", "open3d.web_visualizer",
    "tensorflow", "torch",
    # the cluster executor (viewer/cluster.py imports Dask lazily): the packaged app audits locally, and
    # `--executor dask` there says to install gst-viewer[cluster]
    "dask", "distributed", "tornado", "bokeh", "cloudpickle", "toolz", "tlz", "partd", "fsspec", "zict",
    "tblib", "msgpack", "sortedcontainers", "locket",
    # OpenCV: the demo generator's, not the app's (viewer/demo/opencv.py)
    "cv2",
    # structure from motion (`reconstruct`, viewer/render/sfm imports it lazily): an optional extra, and
    # the packaged app says to install gst-viewer[sfm]; a development venv has it through the test extra
    "pycolmap",
    # Pillow: formats and features the app never reads or writes
    # (their C modules only: trimesh imports PIL.ImageDraw and so ImageFont, which loads _imagingft when used)
    "PIL._avif", "PIL._webp", "PIL._imagingft", "PIL._imagingcms", "PIL._imagingtk", "PIL.ImageTk",
    # SciPy: the app imports ndimage, sparse(.csgraph) and spatial, which bring linalg, special,
    # optimize, fft and constants; the rest is never imported
    "scipy.stats", "scipy.signal", "scipy.interpolate", "scipy.integrate", "scipy.io", "scipy.odr",
    "scipy.cluster", "scipy.datasets", "scipy.misc", "scipy.differentiate",
    # development and test tools, GUI toolkits the app does not use
    "pytest", "_pytest", "pytestqt", "pip", "setuptools", "pkg_resources", "tkinter", "matplotlib",
    "PyQt5", "PySide2", "PySide6",
] + [f"PyQt6.{m}" for m in UNUSED_QT_MODULES]

DROP_DATA_PREFIXES = (
    QT_PREFIX + "translations/", QT_PREFIX + "qml/", QT_PREFIX + "resources/",
    "open3d/resources/", "open3d/_ml3d/", "open3d/examples/", "open3d/labextension/",
    "open3d/nbextension/", "open3d/agent_skills/", "pyqtgraph/examples/",
)
DROP_BINARY_NAMES = re.compile(r"^open3d/open3d_(tf|torch)_ops\.so$")
QT_LIB = re.compile(r"^(?:PyQt6/Qt6/lib/)?(libQt6[A-Za-z0-9]+\.so(?:\.\d+)*)$")
# Never dropped as orphans: the bootloader loads libpython by name; Qt's xcb
# platform and OpenGL support are kept even if a Qt update changes who links them.
ALWAYS_KEEP = re.compile(r"^(libpython3[\d.]*\.so[\d.]*|libQt6XcbQpa\.so\.6|libQt6OpenGL\.so\.6)$")


def _norm(dest: str) -> str:
    return dest.replace("\\", "/")


def keep_plugin(dest: str) -> bool:
    """False for a Qt plugin the app does not use; True for anything that is not a plugin."""
    dest = _norm(dest)
    if not dest.startswith(PLUGINS):
        return True
    rest = dest[len(PLUGINS):].split("/")
    if len(rest) != 2:
        return False
    folder, name = rest
    return name in KEEP_PLUGINS.get(folder, ())


def keep_data(dest: str) -> bool:
    dest = _norm(dest)
    if dest.startswith(PLUGINS):
        return keep_plugin(dest)
    return not dest.startswith(DROP_DATA_PREFIXES)


def keep_binary(dest: str) -> bool:
    dest = _norm(dest)
    return keep_plugin(dest) and not DROP_BINARY_NAMES.match(dest)


def qt_lib_name(dest: str) -> str | None:
    m = QT_LIB.match(_norm(dest))
    return m.group(1) if m else None


def prune_orphans(original: list, kept: list, needed_by) -> tuple[list, list[str]]:
    """Drop the libraries that were collected only because a dropped entry needed them.

    PyInstaller collects a binary's link-time dependencies; dropping a plugin
    leaves behind what only it linked to (GTK for the gtk3 theme, libQt6Pdf for
    the PDF image plugin...). A library is dropped when it is a Qt library or
    something in `original` linked to it, and nothing kept links to it,
    directly or not. `original`/`kept` are PyInstaller TOC tuples (dest, src,
    typecode); `needed_by(src)` gives the sonames a file links to.
    Returns (kept entries, dropped dest names).
    """
    def name(entry) -> str:
        return posixpath.basename(_norm(entry[0]))

    def is_library(entry) -> bool:
        return len(entry) < 3 or entry[2] == "BINARY"

    linked = set()
    for entry in original:
        if is_library(entry) or entry[2] == "EXTENSION":
            linked.update(posixpath.basename(n) for n in needed_by(entry[1]))
    libs = {name(e): e for e in kept if is_library(e)}
    candidates = {n for n, e in libs.items() if (n in linked or qt_lib_name(e[0])) and not ALWAYS_KEEP.match(n)}
    roots = [e for e in kept if not (is_library(e) and name(e) in candidates)]
    reached: set[str] = set()
    todo = [e[1] for e in roots if len(e) < 3 or e[2] in ("BINARY", "EXTENSION")]
    seen = set()
    while todo:
        src = todo.pop()
        if src in seen:
            continue
        seen.add(src)
        for soname in needed_by(src):
            base = posixpath.basename(soname)
            if base in candidates and base not in reached:
                reached.add(base)
                todo.append(libs[base][1])
    orphans = candidates - reached
    return ([e for e in kept if not (is_library(e) and name(e) in orphans)],
            sorted(e[0] for e in kept if is_library(e) and name(e) in orphans))
