"""Work off the GUI thread: loading, decoding, rendering.

`Jobs.submit(fn, ...)` runs `fn` on a pool thread and calls `done(result)` or
`failed(message)` back on the GUI thread. Late results are dropped here and
nowhere else, so a fast scroll through samples never paints a stale image:
each job carries a token of what it was for, and its result is delivered
only while the token is current. The token holds
  * its `lane`: a newer job of the same lane supersedes it;
  * its `scope`: "question" (the state's question changed since the
    submit) or "session" (another release was opened).
The window shows a busy indicator while `pending` > 0, and `settled` fires
when it drops to 0 (the screenshot waits for it).

Work that reports progress (opening a release, scoring, auditing) can be
cancelled: `cancel_all()` (or `cancel(token)`) calls its `failed(CANCELLED)` at
once and drops its result, and the worker stops at its next progress report;
work that cannot report often (a structure-from-motion run inside pycolmap)
also polls `cancelled()` (`with_cancel`). A report may name the work's stage
(`progress(done, total, stage)`), which the job's own `progressed` callback
hears. Work that runs for minutes goes to its own thread (`long=True`), so
loading images and scenes never waits behind it.

The workers are Python threads, not QThreadPool threads: pybind11 modules
(open3d) keep a per-thread Python state that PyQt discards after every
QRunnable, and the next open3d call on that pool thread then hangs forever.
"""
from __future__ import annotations

import concurrent.futures
import itertools
import threading
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Literal

from PyQt6.QtCore import QObject, pyqtSignal

if TYPE_CHECKING:
    from ..core.state import InspectorState

Scope = Literal["question", "session"]
CANCELLED = "cancelled"
LONG_STOP_SECONDS = 10.0     # how long a closing window waits for cancelled long work to stop


class Cancelled(Exception):
    """Raised in a worker at its next progress report once its job was cancelled."""


class _Relay(QObject):
    """Lives in the GUI thread; signals emitted from a pool thread arrive queued."""
    finished = pyqtSignal(int, bool, object)       # token, ok, result or message
    progressed = pyqtSignal(int, int, int, str)    # token, done, total, stage


class _Task:
    def __init__(self, token: int, relay: _Relay, fn: Callable, args: tuple, with_progress: bool,
                 with_cancel: bool = False):
        self.token, self.relay, self.fn, self.args = token, relay, fn, args
        self.with_progress, self.with_cancel = with_progress, with_cancel
        self.cancelled = threading.Event()

    def run(self) -> None:
        try:
            kwargs = {}
            if self.with_progress:
                kwargs["progress"] = self._progress
            if self.with_cancel:
                kwargs["cancelled"] = self.cancelled.is_set
            result = self.fn(*self.args, **kwargs)
            self.relay.finished.emit(self.token, True, result)
        except Cancelled:
            self.relay.finished.emit(self.token, False, CANCELLED)
        except Exception as e:                       # reported to the user, never raised
            message = str(e) or type(e).__name__
            if not _is_user_facing(e):
                message = f"{type(e).__name__}: {message}"
                traceback.print_exc()
            self.relay.finished.emit(self.token, False, message)

    def _progress(self, done: int, total: int | None = None, stage: str = "") -> None:
        if self.cancelled.is_set():
            raise Cancelled()
        self.relay.progressed.emit(self.token, int(done), int(total or 0), str(stage))


def _is_user_facing(e: Exception) -> bool:
    from ..core.diagnostics import UserError
    from ..render.video import VideoError
    return isinstance(e, (UserError, VideoError, OSError, ValueError))


@dataclass(frozen=True)
class _Entry:
    lane: str | None
    scope: Scope | None
    serial: int                  # the state's serial of `scope` at submit
    label: str
    done: Callable[[Any], None] | None
    failed: Callable[[str], None] | None
    progressed: Callable[[int, int, str], None] | None = None


class Jobs(QObject):
    pendingChanged = pyqtSignal(int)
    progress = pyqtSignal(str, int, int)     # label, done, total (total 0 = unknown)
    settled = pyqtSignal()

    def __init__(self, state: InspectorState | None = None, parent: QObject | None = None, threads: int = 2):
        super().__init__(parent)
        self.state = state
        self._pool = concurrent.futures.ThreadPoolExecutor(threads, thread_name_prefix="gst-viewer-job")
        # Work of minutes (`long=True`): one at a time, beside the pool rather than in it.
        self._long_pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="gst-viewer-long-job")
        self._futures: set[concurrent.futures.Future] = set()
        self._long_futures: set[concurrent.futures.Future] = set()
        self._relay = _Relay(self)
        self._relay.finished.connect(self._finished)
        self._relay.progressed.connect(self._progressed)
        self._tokens = itertools.count(1)
        self._jobs: dict[int, _Entry] = {}
        self._latest: dict[str, int] = {}
        self._tasks: dict[int, _Task] = {}           # running work that reports progress: cancellable
        self.callback_errors: list[str] = []

    @property
    def pending(self) -> int:
        return len(self._jobs)

    def submit(self, fn: Callable, *args: Any, done: Callable[[Any], None] | None = None,
               failed: Callable[[str], None] | None = None, lane: str | None = None,
               scope: Scope | None = None, label: str = "", with_progress: bool = False,
               with_cancel: bool = False, progressed: Callable[[int, int, str], None] | None = None,
               long: bool = False) -> int:
        token = next(self._tokens)
        self._jobs[token] = _Entry(lane, scope, self._serial(scope), label, done, failed, progressed)
        if lane is not None:
            self._latest[lane] = token
        task = _Task(token, self._relay, fn, args, with_progress, with_cancel)
        if with_progress or with_cancel:
            self._tasks[token] = task
        try:
            future = (self._long_pool if long else self._pool).submit(task.run)
        except RuntimeError:                 # shut down: the window is closing
            self._jobs.pop(token, None)
            self._tasks.pop(token, None)
            return token
        self._futures.add(future)
        future.add_done_callback(self._futures.discard)
        if long:
            self._long_futures.add(future)
            future.add_done_callback(self._long_futures.discard)
        self.pendingChanged.emit(self.pending)
        return token

    @property
    def long_running(self) -> bool:
        """Whether work of minutes (`long=True`) is running."""
        return bool(self._long_futures)

    @property
    def cancellable(self) -> list[str]:
        """Labels of the running work that can be cancelled."""
        return [self._jobs[t].label for t in self._tasks if t in self._jobs]

    def cancel_all(self) -> None:
        """Cancel every job that reports progress: each one's `failed(CANCELLED)` is called now."""
        for token in list(self._tasks):
            self._cancel(token)
        self.pendingChanged.emit(self.pending)
        if not self._jobs:
            self.settled.emit()

    def cancel(self, token: int) -> None:
        """Cancel one job that reports progress (or polls `cancelled`): its `failed(CANCELLED)` is called now."""
        if token in self._tasks:
            self._cancel(token)
            self.pendingChanged.emit(self.pending)
            if not self._jobs:
                self.settled.emit()

    def _cancel(self, token: int) -> None:
        task = self._tasks.pop(token)
        task.cancelled.set()
        entry = self._jobs.pop(token, None)
        if entry is not None and entry.failed is not None and self._current(token, entry):
            entry.failed(CANCELLED)

    def running(self, token: int) -> bool:
        """Whether the job `token` has neither finished nor been cancelled."""
        return token in self._jobs

    def cancel_lane(self, lane: str) -> None:
        """Results of this lane's running jobs will be dropped."""
        self._latest[lane] = -1

    def wait(self, msecs: int = 30000) -> bool:
        """Block until the running work is done (tests, shutdown); False on timeout."""
        _, pending = concurrent.futures.wait(list(self._futures), timeout=msecs / 1000)
        return not pending

    def shutdown(self, wait_seconds: float = 3.0) -> None:
        """The window is closing: drop queued work, stop what reports progress, and give running work a
        moment to end, so no worker is still inside Qt or open3d while the application is torn down
        (that order of destruction crashed the process at exit now and then)."""
        for task in self._tasks.values():
            task.cancelled.set()
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._long_pool.shutdown(wait=False, cancel_futures=True)
        concurrent.futures.wait(list(self._futures), timeout=wait_seconds)
        # Long work, cancelled, cleans up after itself (a reconstruction removes its work folder): it stopped
        # 1.0-1.4 s after a cancel at a load of 6.5 on 2 cores; the process ends right after the window.
        concurrent.futures.wait(list(self._long_futures), timeout=LONG_STOP_SECONDS)
        self._relay.blockSignals(True)           # whatever still finishes reports to no one

    def _serial(self, scope: Scope | None) -> int:
        if scope is None or self.state is None:
            return 0
        return self.state.question_serial if scope == "question" else self.state.session_serial

    def _current(self, token: int, entry: _Entry) -> bool:
        """Whether the job's result is still wanted: the one place late results are dropped."""
        if entry.lane is not None and self._latest.get(entry.lane) != token:
            return False
        return entry.serial == self._serial(entry.scope)

    def _finished(self, token: int, ok: bool, payload: Any) -> None:
        self._tasks.pop(token, None)
        entry = self._jobs.pop(token, None)
        if entry is not None:
            if self._current(token, entry):
                callback = entry.done if ok else entry.failed
                if callback is not None:
                    try:
                        callback(payload)
                    except Exception:
                        # A view that fails to draw must not take the window down;
                        # kept so tests can insist there were none.
                        self.callback_errors.append(traceback.format_exc())
                        traceback.print_exc()
        self.pendingChanged.emit(self.pending)
        if not self._jobs:
            self.settled.emit()

    def _progressed(self, token: int, done: int, total: int, stage: str) -> None:
        entry = self._jobs.get(token)
        if entry is not None:
            self.progress.emit(f"{entry.label}: {stage}" if stage else entry.label, done, total)
            if entry.progressed is not None and self._current(token, entry):
                entry.progressed(done, total, stage)
