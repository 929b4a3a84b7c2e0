"""Entry point of the PyInstaller build: the same `gst-viewer` command as the wheel's."""
import sys

from viewer.cli import main

if __name__ == "__main__":
    sys.exit(main())
