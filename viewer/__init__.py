"""gst-viewer: look inside GST-Bench releases and model predictions."""
__version__ = "0.4.0"
