"""Waiting for the window's background work in GUI tests."""


def open_release(qtbot, win, path, predictions=(), uid=None):
    with qtbot.waitSignal(win.sessionLoaded, timeout=60000):
        win.open_release(path, predictions, uid)
    settle(qtbot, win)


def settle(qtbot, win, timeout=30000):
    """Wait for the window's background work, then let the posted layouts and repaints run (a question whose
    media are cached is shown with no job at all, so waiting for jobs alone would not run the event loop); a
    view that failed to draw fails the test."""
    qtbot.waitUntil(lambda: win.jobs.pending == 0, timeout=timeout)
    qtbot.wait(1)
    qtbot.waitUntil(lambda: win.jobs.pending == 0, timeout=timeout)
    assert not win.jobs.callback_errors, win.jobs.callback_errors[0]
