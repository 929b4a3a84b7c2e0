"""Entry point of the PyInstaller build: the same `gst-viewer` command as the wheel's."""
from viewer.cli import run

if __name__ == "__main__":
    run()
