"""TestHost: run an extension in this process over in-memory pipes and play the host, synchronously.

    with TestHost(ext) as h:
        assert h.command("/weather berlin") == {"action": "prompt", "prompt": "..."}

Every method waits at most `timeout` seconds (the TestHost's, or its own `timeout=`) and raises
TimeoutError past it. Answers are the frames the extension sent, without "type" and "id".

`TestHost(ext, capabilities=["cancel", "progress", "trace"])` negotiates the protocol extensions
(as a host supporting them would); then `start_tool()` / `cancel()` / `answer()` cancel a call,
`progress` records progress frames and `traceparent=` travels in the request's `_meta`.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import json
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

from ._extension import Extension
from ._session import Session

__all__ = ["TestHost"]

Frame = Dict[str, Any]


def _strip(frame: Frame) -> Frame:
    return {k: v for k, v in frame.items() if k not in ("type", "id")}


class TestHost:
    """The host side of one run of `ext`, in this process. Use it as a context manager."""

    __test__ = False  # not a test class for pytest

    def __init__(
        self,
        ext: Extension,
        timeout: float = 2.0,
        *,
        cwd: str = "/tmp/project",
        provider: str = "test-provider",
        model: str = "test-model",
        zot_version: str = "test",
        extension_dir: str = "/tmp/extension",
        data_dir: Optional[str] = None,
        capabilities: Optional[Sequence[str]] = None,
    ) -> None:
        """`timeout` @default 2.0 seconds, for every wait. `data_dir` @default extension_dir.
        `capabilities`: the protocol extensions this host grants (and zot's "call_tool", to test
        ctx.call_tool: answer its call_tool frames with send()); hello_ack.capabilities carries
        those the extension declared (absent when none). @default None (a plain zot host)"""
        self.ext = ext
        self.timeout = timeout
        #: The hello_ack sent to the extension.
        self.hello_ack: Frame = {
            "type": "hello_ack", "protocol_version": 1, "zot_version": zot_version,
            "provider": provider, "model": model, "cwd": cwd,
            "extension_dir": extension_dir, "data_dir": extension_dir if data_dir is None else data_dir,
        }
        #: Every frame the extension wrote, in order.
        self.frames: List[Frame] = []
        #: Every line the extension logged to its stderr.
        self.stderr: List[str] = []
        #: The exit code of the run, once it ended (0 after shutdown or EOF).
        self.exit_code: Optional[int] = None
        self._cond = threading.Condition()
        self._ids = itertools.count(1)
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._session: Optional[Session] = None
        self._thread: Optional[threading.Thread] = None
        self._cursors: Dict[str, int] = {}
        self._grant = [] if capabilities is None else [str(c) for c in capabilities]

    # ------------------------------------------------------------------ views

    @property
    def hello(self) -> Frame:
        """The extension's hello frame."""
        return self._first(lambda f: f["type"] == "hello")

    @property
    def notes(self) -> List[Frame]:
        """Every notify so far, as {"level", "message"}."""
        with self._cond:
            return [_strip(f) for f in self.frames if f["type"] == "notify"]

    @property
    def renders(self) -> List[Frame]:
        """Every panel_render so far, as {"panel_id", "title"?, "lines"?, "footer"?}."""
        with self._cond:
            return [_strip(f) for f in self.frames if f["type"] == "panel_render"]

    @property
    def registrations(self) -> List[Frame]:
        """register_command, register_tool and subscribe frames, in order (also those after ready)."""
        with self._cond:
            return [f for f in self.frames if f["type"] in ("register_command", "register_tool", "subscribe")]

    def _first(self, match: Callable[[Frame], bool]) -> Frame:
        with self._cond:
            for frame in self.frames:
                if match(frame):
                    return frame
        raise LookupError("no such frame")

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> "TestHost":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def start(self, timeout: Optional[float] = None, handshake: bool = True) -> None:
        """Starts the run and completes the handshake (hello, hello_ack, registrations, ready).
        `handshake=False` stops after the hello: send hello_ack yourself. @default handshake True"""
        limit = self._limit(timeout)
        started = threading.Event()
        self._thread = threading.Thread(target=self._loop_main, args=(started,), name=f"TestHost-{self.ext.name}", daemon=True)
        self._thread.start()
        started.wait()
        if self._session is None:
            raise RuntimeError(self._start_error)
        self.wait_for(lambda f: f["type"] == "hello", what="the hello frame", timeout=limit)
        if not handshake:
            return
        declared = self.hello.get("capabilities") or []
        granted = [c for c in self._grant if c in declared]
        if granted:
            self.hello_ack["capabilities"] = granted
        self.send(self.hello_ack)
        self.wait_for(lambda f: f["type"] == "ready", what="ready", timeout=limit)

    def _loop_main(self, started: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        try:
            self._session = self.ext._attach(self._on_output, self._on_log, loop)
        except RuntimeError as err:
            self._start_error = str(err)
            started.set()
            loop.close()
            return
        session = self._session
        session.done.add_done_callback(self._on_done)
        loop.call_soon(session.start)
        started.set()
        try:
            loop.run_forever()
        finally:
            self.ext._detach(session)
            loop.close()

    def _on_output(self, data: bytes) -> None:
        # The SDK's contract: one frame per write, one line, valid JSON.
        assert data.endswith(b"\n") and data.count(b"\n") == 1, f"not one line: {data[:200]!r}"
        frame = json.loads(data.decode("utf-8"))
        with self._cond:
            self.frames.append(frame)
            self._cond.notify_all()

    def _on_log(self, line: str) -> None:
        with self._cond:
            self.stderr.append(line)
            self._cond.notify_all()

    def _on_done(self, done: "asyncio.Future[int]") -> None:
        with self._cond:
            self.exit_code = done.result()
            self._cond.notify_all()

    def close(self, timeout: Optional[float] = None) -> None:
        """Sends shutdown (unless the run already ended), waits for the end, stops the loop."""
        if self._thread is None:
            return
        limit = self._limit(timeout)
        try:
            if self.exit_code is None and self._session is not None:
                self.shutdown(timeout=limit)
        finally:
            loop, thread = self._loop, self._thread
            self._thread = None
            if loop is not None and not loop.is_closed() and self._session is not None:
                cancel = asyncio.run_coroutine_threadsafe(self._session.cancel_tasks(limit), loop)
                try:
                    cancel.result(limit)
                finally:
                    loop.call_soon_threadsafe(loop.stop)
            thread.join(limit)
            if thread.is_alive():
                raise TimeoutError(f"the extension's loop did not stop within {limit}s (a plain handler blocks it?)")

    def shutdown(self, timeout: Optional[float] = None) -> Frame:
        """Sends shutdown; returns the shutdown_ack once the run ended."""
        limit = self._limit(timeout)
        self.send({"type": "shutdown"})
        ack = self.wait_for(lambda f: f["type"] == "shutdown_ack", what="shutdown_ack", timeout=limit)
        self._wait(lambda: self.exit_code is not None, "the end of the run", limit)
        return ack

    def end_input(self, timeout: Optional[float] = None) -> int:
        """Ends the extension's input (EOF); returns the exit code once the run ended."""
        session, loop = self._require()
        loop.call_soon_threadsafe(session.end_of_input)
        self._wait(lambda: self.exit_code is not None, "the end of the run", self._limit(timeout))
        return self.exit_code  # type: ignore[return-value]

    # ------------------------------------------------------------------ sending

    def _limit(self, timeout: Optional[float]) -> float:
        return self.timeout if timeout is None else timeout

    def _require(self) -> "tuple[Session, asyncio.AbstractEventLoop]":
        if self._session is None or self._loop is None or self._thread is None:
            raise RuntimeError("the TestHost is not running: use `with TestHost(ext) as h:`")
        return self._session, self._loop

    def send(self, frame: Frame, timeout: Optional[float] = None) -> None:
        """Sends one frame as the host would; returns once the extension's handlers for it finished
        (requests: once started; their answers are awaited by the helpers below)."""
        line = json.dumps(frame, ensure_ascii=False, separators=(",", ":"))
        self._feed_line(line, wait=frame.get("type") in ("event", "panel_key", "panel_close"), timeout=timeout)

    def send_raw(self, data: bytes) -> None:
        """Feeds raw bytes to the extension's input, as they would come through its stdin."""
        session, loop = self._require()
        done = threading.Event()

        def feed() -> None:
            try:
                session.feed(data)
            finally:
                done.set()
        loop.call_soon_threadsafe(feed)
        if not done.wait(self.timeout):
            raise TimeoutError(f"the extension did not read its input within {self.timeout}s")

    def _feed_line(self, line: str, wait: bool, timeout: Optional[float]) -> None:
        session, loop = self._require()
        limit = self._limit(timeout)

        async def feed() -> bool:
            tasks = session.handle_line(line)
            if not wait or not tasks:
                return True
            _, pending = await asyncio.wait(tasks, timeout=limit)
            return not pending

        future = asyncio.run_coroutine_threadsafe(feed(), loop)
        try:
            finished = future.result(limit)
        except (TimeoutError, concurrent.futures.TimeoutError):  # distinct before Python 3.11
            future.cancel()
            finished = False
        if not finished:
            raise TimeoutError(f"the extension's handlers for {line[:80]} did not finish within {limit}s")

    def _wait(self, ready: Callable[[], bool], what: str, limit: float) -> None:
        deadline = time.monotonic() + limit
        with self._cond:
            while not ready():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"timed out after {limit}s waiting for {what}")
                self._cond.wait(left)

    def wait_for(self, match: Callable[[Frame], bool], what: str = "a matching frame", timeout: Optional[float] = None) -> Frame:
        """The first frame (already received or still to come) for which match(frame) is true."""
        found: List[Frame] = []

        def check() -> bool:
            for frame in self.frames:
                if match(frame):
                    found.append(frame)
                    return True
            return False
        self._wait(check, what, self._limit(timeout))
        return found[0]

    def _next(self, kind: str, match: Callable[[Frame], bool], what: str, timeout: Optional[float]) -> Frame:
        # A cursor per kind: each call returns the next one not returned yet, already here or to come.
        found: List[int] = []

        def check() -> bool:
            for index in range(self._cursors.get(kind, 0), len(self.frames)):
                frame = self.frames[index]
                if frame["type"] == kind and match(frame):
                    found.append(index)
                    return True
            return False
        self._wait(check, what, self._limit(timeout))
        self._cursors[kind] = found[0] + 1
        return _strip(self.frames[found[0]])

    def next_note(self, match: Optional[Callable[[Frame], bool]] = None, timeout: Optional[float] = None) -> Frame:
        """The next notify not returned by next_note() yet (already here or still to come), as
        {"level", "message"}; `match` filters (skipped ones are passed over)."""
        return self._next("notify", lambda f: match is None or match(_strip(f)), "the next note", timeout)

    def next_render(self, panel_id: Optional[str] = None, timeout: Optional[float] = None) -> Frame:
        """The next panel_render (of `panel_id`, if given) not returned by next_render() yet."""
        return self._next("panel_render", lambda f: panel_id is None or f.get("panel_id") == panel_id, "the next render", timeout)

    def next_open_panel(self, panel_id: Optional[str] = None, timeout: Optional[float] = None) -> Frame:
        """The next panel the extension opened by itself (an open_panel frame, e.g. from an
        interactive tool: ctx.ask / ctx.open_panel) not returned by next_open_panel() yet, as
        {"id", "title"?, "lines"?, "footer"?}; of `panel_id`, if given."""
        frame = self._next("open_panel", lambda f: panel_id is None or f["panel"].get("id") == panel_id, "the next open_panel", timeout)
        return frame["panel"]

    @property
    def negotiated(self) -> List[str]:
        """The capabilities granted in hello_ack (empty for a plain zot host)."""
        return list(self.hello_ack.get("capabilities", []))

    @property
    def progress(self) -> List[Frame]:
        """Every progress frame so far, as {"id", "message"?, "progress"?, "total"?}."""
        with self._cond:
            return [{k: v for k, v in f.items() if k != "type"} for f in self.frames if f["type"] == "progress"]

    def _begin(self, frame: Frame, traceparent: Optional[str], tracestate: Optional[str], timeout: Optional[float]) -> str:
        request_id = f"t{next(self._ids)}"
        frame = {**frame, "id": request_id}
        # As a host does: trace context only to an extension that negotiated "trace".
        if traceparent is not None and "trace" in self.negotiated:
            frame["_meta"] = {"traceparent": traceparent, **({} if tracestate is None else {"tracestate": tracestate})}
        self._feed_line(json.dumps(frame, ensure_ascii=False), wait=False, timeout=timeout)
        return request_id

    def _request(self, frame: Frame, answer: str, what: str, timeout: Optional[float], traceparent: Optional[str] = None, tracestate: Optional[str] = None) -> Frame:
        request_id = self._begin(frame, traceparent, tracestate, timeout)
        reply = self.wait_for(lambda f: f["type"] == answer and f.get("id") == request_id, what, timeout)
        return _strip(reply)

    def start_tool(self, name: str, args: Optional[Dict[str, Any]] = None, *, traceparent: Optional[str] = None, tracestate: Optional[str] = None) -> str:
        """Sends a tool_call without waiting; returns its request id (for cancel() and answer())."""
        return self._begin({"type": "tool_call", "name": name, "args": {} if args is None else args}, traceparent, tracestate, None)

    def start_command(self, line: str, *, traceparent: Optional[str] = None, tracestate: Optional[str] = None) -> str:
        """Sends a command_invoked for `/name args` without waiting; returns its request id."""
        name, _, args = line[1:].partition(" ")
        return self._begin({"type": "command_invoked", "name": name, "args": args.strip()}, traceparent, tracestate, None)

    def cancel(self, request_id: str, reason: str = "aborted") -> None:
        """Sends `cancel` for a request ("aborted" or "timeout"); sent even when not negotiated."""
        self.send({"type": "cancel", "id": request_id, "reason": reason})

    def answer(self, request_id: str, timeout: Optional[float] = None) -> Frame:
        """The answer (any frame but progress) to a request, without "type" and "id"."""
        return _strip(self.wait_for(lambda f: f.get("id") == request_id and f["type"] != "progress", f"the answer to {request_id}", timeout))

    def wait_for_log(self, needle: str, timeout: Optional[float] = None) -> str:
        """The first stderr line containing `needle` (already logged or still to come)."""
        found: List[str] = []

        def check() -> bool:
            found.extend(line for line in self.stderr if needle in line)
            return bool(found)
        self._wait(check, f"a log line with {needle!r}", self._limit(timeout))
        return found[0]

    # ------------------------------------------------------------------ the host's requests

    def command(self, line: str, timeout: Optional[float] = None, *, traceparent: Optional[str] = None, tracestate: Optional[str] = None) -> Frame:
        """Runs `/name args` (args trimmed, as the host does); returns the command_response."""
        if not isinstance(line, str) or not line.startswith("/") or len(line) < 2:
            raise ValueError(f'a command line starts with "/": {line!r}')
        name, _, args = line[1:].partition(" ")
        return self._request(
            {"type": "command_invoked", "name": name, "args": args.strip()},
            "command_response", f"the answer to {line}", timeout, traceparent, tracestate,
        )

    def call_tool(self, name: str, args: Optional[Dict[str, Any]] = None, timeout: Optional[float] = None, *, traceparent: Optional[str] = None, tracestate: Optional[str] = None) -> Frame:
        """Calls a tool; returns the tool_result ({"content": [...], "is_error"?, "activate_tools"?})."""
        return self._request(
            {"type": "tool_call", "name": name, "args": {} if args is None else args},
            "tool_result", f"the result of tool {name}", timeout, traceparent, tracestate,
        )

    def emit(self, event: str, timeout: Optional[float] = None, **fields: Any) -> None:
        """Sends an event frame; returns once the extension's handlers for it finished."""
        self.send({"type": "event", "event": event, **fields}, timeout=timeout)

    def _intercept(self, event: str, fields: Frame, timeout: Optional[float], traceparent: Optional[str] = None, tracestate: Optional[str] = None) -> Frame:
        return self._request(
            {"type": "event_intercept", "event": event, **fields},
            "event_intercept_response", f"the {event} decision", timeout, traceparent, tracestate,
        )

    def tool_call(
        self,
        tool_name: str,
        args: Optional[Dict[str, Any]] = None,
        timeout: Optional[float] = None,
        tool_id: str = "call-1",
        *,
        traceparent: Optional[str] = None,
        tracestate: Optional[str] = None,
    ) -> Frame:
        """The tool_call decision ({} allows; "block"/"reason", "modified_args"). The trace context
        travels in `_meta` when "trace" was negotiated, as for call_tool."""
        fields = {"tool_id": tool_id, "tool_name": tool_name, "tool_args": {} if args is None else args}
        return self._intercept("tool_call", fields, timeout, traceparent, tracestate)

    def turn_start(self, step: int, timeout: Optional[float] = None) -> Frame:
        """The turn_start decision ({} allows; "block"/"reason")."""
        return self._intercept("turn_start", {"step": step}, timeout)

    def assistant_message(self, text: str, timeout: Optional[float] = None) -> Frame:
        """The assistant_message decision ({} allows; "block"/"reason", "replace_text")."""
        return self._intercept("assistant_message", {"text": text}, timeout)

    def system_prompt(
        self,
        text: str,
        timeout: Optional[float] = None,
        session_id: str = "session-1",
        agent_run_id: str = "run-1",
    ) -> Frame:
        """The before_agent_start decision ({} keeps the prompt; "system_prompt" replaces it)."""
        ack = self.hello_ack
        return self._intercept("before_agent_start", {
            "session_id": session_id, "agent_run_id": agent_run_id, "cwd": ack["cwd"],
            "provider": ack["provider"], "model": ack["model"], "system_prompt": text,
        }, timeout)

    def press_key(self, panel_id: str, key: str, text: Optional[str] = None, timeout: Optional[float] = None) -> None:
        """Sends a panel_key; returns once the panel's handler for it finished (see renders)."""
        frame: Frame = {"type": "panel_key", "panel_id": panel_id, "key": key}
        if text is not None:
            frame["text"] = text
        self.send(frame, timeout=timeout)

    def close_panel(self, panel_id: str, timeout: Optional[float] = None) -> None:
        """The user closed the panel in the host (panel_close); returns once its handler finished."""
        self.send({"type": "panel_close", "panel_id": panel_id}, timeout=timeout)
