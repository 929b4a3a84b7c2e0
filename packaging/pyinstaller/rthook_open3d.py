# PyInstaller runtime hook (runs before the app): `import open3d` imports
# plotly and dash for open3d.visualization.draw_plotly (browser plots), which
# gst-viewer never calls. The trimmed build leaves plotly, dash and their
# dependencies out (about 150 MB); this module takes draw_plotly's place so
# that `import open3d` works, and says why if anything calls it.
import importlib.util
import sys
import types

if importlib.util.find_spec("plotly") is None or importlib.util.find_spec("dash") is None:
    _mod = types.ModuleType("open3d.visualization.draw_plotly")

    def _not_in_this_build(*args, **kwargs):
        raise ImportError("open3d's plotly drawing (plotly, dash) is not included in the gst-viewer build")

    _mod.get_plotly_fig = _mod.draw_plotly = _mod.draw_plotly_server = _not_in_this_build
    sys.modules[_mod.__name__] = _mod
