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

    def post(chunk: bytes) -> None:
        try:
            loop.call_soon_threadsafe(session.feed if chunk else _eof, chunk)
        except RuntimeError:  # the loop is closed: the run is over
            pass

    def _eof(_: bytes) -> None:
        session.end_of_input()

    def read_stdin() -> None:
        # os.read on the raw fd: no buffered-reader lock held at interpreter exit.
        while True:
            try:
                chunk = os.read(0, _READ_CHUNK)
            except InterruptedError:
                continue
            except OSError:
                chunk = b""
            post(chunk)
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
