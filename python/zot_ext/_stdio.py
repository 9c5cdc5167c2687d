"""A run of an extension on the process's stdin/stdout (frames on a duplicate of fd 1)."""
from __future__ import annotations

import asyncio
import os
import sys
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._extension import Extension

_READ_CHUNK = 64 * 1024
#: Input read from stdin but not yet handled by the loop, in bytes, past which the reader stops
#: reading: while a handler blocks the loop, the host's writes then block on the pipe (its own
#: outbound bound and stuck detection apply) instead of this process buffering without bound.
MAX_UNHANDLED_INPUT = 1024 * 1024


class _Inflow:
    """Bytes handed to the loop and not handled yet; the reader thread waits for room."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._queued = 0
        self._cond = threading.Condition()

    def wait_for_room(self) -> None:
        with self._cond:
            while self._queued >= self._limit:
                self._cond.wait()

    def add(self, size: int) -> None:
        with self._cond:
            self._queued += size

    def handled(self, size: int) -> None:
        with self._cond:
            self._queued -= size
            self._cond.notify()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def run_stdio(ext: "Extension") -> int:
    """Runs `ext` on stdin/stdout until the run ends; returns the exit code."""
    # Frames go to a duplicate of fd 1; fd 1 itself (print(), child processes) now points at stderr.
    frames_fd = os.dup(1)
    os.dup2(2, 1)
    real_stdout = sys.stdout
    sys.stdout = sys.stderr
    try:
        real_stdout.flush()  # earlier print() output, now to stderr
    except (OSError, ValueError, AttributeError):
        pass

    def log(message: str) -> None:
        try:
            sys.stderr.write(message + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    session = ext._attach(lambda data: _write_all(frames_fd, data), log, loop)

    inflow = _Inflow(MAX_UNHANDLED_INPUT)

    def feed(chunk: bytes) -> None:
        try:
            if chunk:
                session.feed(chunk)
            else:
                session.end_of_input()
        finally:
            inflow.handled(len(chunk))

    def read_stdin() -> None:
        # os.read on the raw fd: no buffered-reader lock held at interpreter exit.
        while True:
            inflow.wait_for_room()
            try:
                chunk = os.read(0, _READ_CHUNK)
            except InterruptedError:
                continue
            except OSError:
                chunk = b""
            inflow.add(len(chunk))
            try:
                loop.call_soon_threadsafe(feed, chunk)
            except RuntimeError:  # the loop is closed: the run is over
                return
            if not chunk:
                return

    try:
        session.start()
        threading.Thread(target=read_stdin, name="zot_ext-stdin", daemon=True).start()
        code = loop.run_until_complete(session.done)
        loop.run_until_complete(session.cancel_tasks())
        return code
    finally:
        ext._detach(session)
        # Not loop.shutdown_default_executor(): a hung to_thread worker must not block the exit.
        loop.close()
        try:
            os.close(frames_fd)
        except OSError:
            pass
