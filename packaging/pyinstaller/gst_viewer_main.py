"""Entry point of the PyInstaller build: the same `gst-viewer` command as the wheel's."""
import multiprocessing

from viewer.cli import run

if __name__ == "__main__":
    # A worker process of the audit's or the scoring's pool (spawned) is this same binary: freeze_support
    # makes it run the job it was started for instead of the app (`--selftest` checks it).
    multiprocessing.freeze_support()
    run()
