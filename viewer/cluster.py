"""Batch work on a Dask cluster: the `--executor dask [--address ADDR]` of audit, gallery and make-demo
(the options themselves: cli_args.add_executor_options).

    gst-viewer audit RELEASE --executor dask                          # a LocalCluster on this machine
    gst-viewer audit RELEASE --executor dask --address tcp://host:8786  # an existing scheduler

A DaskExecutor implements viewer.core.executors.Executor: it submits one task
per job (a scene) and yields the results as they arrive, so the command's
progress bar moves with them. A task that raises is retried (RETRIES times);
a task whose worker dies is rescheduled on another worker by the scheduler
itself. The command sorts results into its own order, so its output is the
same as with the local executor. Dask is imported only here, only when
asked for (`pip install 'gst-viewer[cluster]'`).
"""
from __future__ import annotations

import concurrent.futures
import logging
import os
import threading
import uuid
import warnings
from typing import Any, Callable, Iterable, Iterator

from .core.diagnostics import UserError
from .core.executors import Executor, LocalExecutor

EXECUTORS = ("local", "dask")
# A task that raised is tried this many more times (a worker killed mid-task is rescheduled anyway).
RETRIES = 2
# How long to wait for a scheduler before saying it cannot be reached (the bar is 10 s).
CONNECT_SECONDS = 8


def executor_for(kind: str, address: str | None = None, workers: int | None = None) -> Executor:
    """The executor `--executor kind --address address` names; UserError when it cannot be had."""
    if kind == "local":
        if address:
            raise UserError("--address needs --executor dask")
        return LocalExecutor(workers)
    if kind == "dask":
        return DaskExecutor(address, workers)
    raise UserError(f"unknown executor {kind!r}; choose one of {', '.join(EXECUTORS)}")


class DaskExecutor:
    """Jobs as Dask tasks, on the scheduler at `address` or on a LocalCluster of `workers` processes."""

    def __init__(self, address: str | None = None, workers: int | None = None):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise UserError("--executor dask needs Dask distributed: pip install 'gst-viewer[cluster]'") from None
        self.cluster = None
        if address:
            self.client = _connect(address)
        else:
            # One thread per worker process: the work is Python and open3d, which threads itself. Its logs
            # stay quiet: a task's error comes back with its result, and the shutdown's chatter is no news.
            # Dask's MALLOC_TRIM_THRESHOLD_ for its workers makes glibc map and unmap every large array,
            # which makes the audit's image work 1.5x slower: its workers here run without it.
            import dask
            with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
                self.cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                                            processes=True, dashboard_address=None, silence_logs=logging.CRITICAL)
            self.client = Client(self.cluster, set_as_default=False)

    def map_unordered(self, fn: Callable, jobs: Iterable[tuple], keys: list[str]) -> Iterator[tuple[str, Any]]:
        from distributed import as_completed
        jobs = list(jobs)                    # the graph is sent at once
        run = uuid.uuid4().hex[:8]
        task_keys = [f"gst-{getattr(fn, '__name__', 'job')}-{run}-{k}-{i}" for i, k in enumerate(keys)]
        with warnings.catch_warnings():
            # Each task carries its scene's questions: a large graph is what this work is, not a slip.
            warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
            futures = self.client.map(fn, *zip(*jobs), key=task_keys, retries=RETRIES, pure=False) if jobs else []
        name_of = {f.key: k for f, k in zip(futures, keys)}
        try:
            for fut in as_completed(futures, loop=self.client.loop):
                yield name_of[fut.key], fut.result()
        finally:
            for fut in futures:
                fut.release()

    @property
    def workers(self) -> int:
        return len(self.client.scheduler_info().get("workers", {}))

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _connect(address: str):
    """A Client of the scheduler at `address`, or a UserError within about CONNECT_SECONDS.

    Dask's timeout bounds the TCP connection, not the handshake after it: an
    address that answers in another protocol (a web server, the dashboard's
    port 8787 given by mistake) leaves a Client waiting for ever, or failing
    on a frame length read from HTTP bytes, and a Client given up on hangs the
    interpreter's exit while it closes. So the address is first greeted in
    Dask's protocol under a hard deadline, on an event loop of its own that
    cancels cleanly, and only a scheduler that answered gets a Client.
    """
    import asyncio

    from distributed import Client
    from distributed.comm import connect

    async def greet() -> None:
        comm = await asyncio.wait_for(connect(address, timeout=CONNECT_SECONDS), CONNECT_SECONDS)
        await comm.close()

    try:
        asyncio.run(greet())
        return Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except Exception as e:                      # whatever answered, or did not: said as one line
        why = "nothing answered in Dask's protocol" if isinstance(e, TimeoutError) and not str(e) else \
            f"{type(e).__name__}: {e}"
        raise UserError(f"cannot reach the Dask scheduler at {address} within {CONNECT_SECONDS} s ({why}); "
                        "is it the scheduler's address (tcp://HOST:8786, not the dashboard's port)?") from None


def in_main_thread(fn: Callable[[], Any]) -> Any:
    """fn() run in this process's main thread, for what must be made there (a Qt application).

    A Dask worker runs its tasks in a thread pool and its event loop in the main
    thread: from a task, fn is handed to that loop and waited for. Anywhere else
    fn runs where it is called (the command's own process, a spawned worker process).
    """
    if threading.current_thread() is threading.main_thread():
        return fn()
    try:
        from distributed import get_worker
        loop = get_worker().loop.asyncio_loop
    except (ImportError, ValueError):            # not in a Dask worker
        return fn()
    done: concurrent.futures.Future = concurrent.futures.Future()

    def call() -> None:
        try:
            done.set_result(fn())
        except BaseException as e:               # handed back to the task's thread, raised there
            done.set_exception(e)
    loop.call_soon_threadsafe(call)
    return done.result()
