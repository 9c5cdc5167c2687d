"""One run of an extension on an asyncio loop: the handshake in canonical order, then concurrent
request handling until shutdown, end of input, an oversized frame or a broken output."""
from __future__ import annotations

import asyncio
import inspect
import traceback
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Dict, List, Optional, Set, Union

from ._context import Context, Panel
from ._requests import MAX_POSTED_PROGRESS, Pending, PendingRequests, negotiated, trace_context
from ._values import BeforeAgentStart, CallToolError, CallToolResult, HostInfo, _panel_content, decision_frame, tool_result_frame, Response
from ._wire import MAX_FRAME_BYTES, REQUEST_TYPES, BadFrame, LineSplitter, decode_host_frame, encode_frame

if TYPE_CHECKING:
    from ._extension import Extension

#: Requests and events that arrive before `ready` are held (then handled in order) up to this many.
MAX_BACKLOG = 1024
#: One-way frames (notify, submit, panel...) issued before `ready` are held up to this many.
MAX_PENDING = 1024
#: Keys (and closes) waiting for one panel's handler.
MAX_PANEL_QUEUE = 1024

WriteFn = Callable[[bytes], None]
LogFn = Callable[[str], None]


def error_text(err: BaseException) -> str:
    """`ValueError: bad city` (the class alone when there is no message)."""
    message = str(err)
    return f"{type(err).__name__}: {message}" if message else type(err).__name__


def error_detail(err: BaseException) -> str:
    return "".join(traceback.format_exception(type(err), err, err.__traceback__)).rstrip()


async def call_handler(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Calls a plain or async handler on the loop and returns its value."""
    result = fn(*args, **kwargs)
    if inspect.isawaitable(result):
        result = await result
    return result


class Session:
    def __init__(self, ext: "Extension", write: WriteFn, log: LogFn, loop: asyncio.AbstractEventLoop) -> None:
        self.ext = ext
        self.loop = loop
        self._write = write
        self._log = log
        self.phase = "handshake"  # -> "ready" -> "stopped"
        self.host: Optional[HostInfo] = None
        self.done: "asyncio.Future[int]" = loop.create_future()
        self._acked = False
        self._splitter = LineSplitter(self.handle_line, self._on_overflow)
        self._backlog: List[Dict[str, Any]] = []
        self._pending: List[Dict[str, Any]] = []
        self._tasks: Set["asyncio.Future[Any]"] = set()
        self._panel_tails: Dict[str, "asyncio.Future[Any]"] = {}
        self._panel_depth: Dict[str, int] = {}
        #: Tasks started by the line being handled (the test kit waits for them).
        self._spawned: List["asyncio.Future[Any]"] = []
        #: What the host granted in hello_ack.capabilities (cancel, progress, trace).
        self.negotiated: "frozenset[str]" = frozenset()
        self.requests = PendingRequests()
        #: The hello sent (its capabilities say whether zot's "tool_cancel" was declared).
        self._hello: Dict[str, Any] = {}
        self._posted_progress = 0
        #: Panels opened with ctx.open_panel(), by id, until they close: (panel, on_key, on_close).
        self._opened: Dict[str, Any] = {}
        self._panel_seq = 0
        #: ctx.call_tool()'s requests in flight, by id ("sdk-<n>", as zot's Go SDK names them).
        self._calls: Dict[str, "asyncio.Future[CallToolResult]"] = {}
        self._call_seq = 0

    # ------------------------------------------------------------------ input

    def start(self) -> None:
        self._hello = self.ext._hello_frame()
        self.send(self._hello)

    def feed(self, chunk: bytes) -> None:
        self._splitter.push(chunk)

    def end_of_input(self) -> None:
        self._splitter.end()
        self.stop(0)

    def log(self, message: str) -> None:
        self._log(f"[{self.ext.name}] {message}")

    def handle_line(self, line: str) -> List["asyncio.Future[Any]"]:
        """Handles one host line; returns the tasks it started."""
        self._spawned = []
        if self.phase == "stopped":
            return []
        try:
            frame = decode_host_frame(line)
        except BadFrame as bad:
            self.log(f"ignored input line: {bad.message}")
            if bad.request is not None:
                # Malformed, but it names a request: answer so the host is not left waiting.
                self._refuse(bad.request[0], bad.request[1], bad.message)
            return []
        kind = frame["type"]
        if kind == "shutdown":
            self.send({"type": "shutdown_ack"})
            self.stop(0)
        elif kind == "hello_ack":
            if self._acked:
                self.log("ignored a second hello_ack")
            else:
                self._acked = True
                self.negotiated = negotiated(frame)
                self._begin_handshake(frame)
        elif self.phase == "handshake":
            if len(self._backlog) >= MAX_BACKLOG:
                message = f"not ready yet, and {MAX_BACKLOG} frames are already waiting for ready"
                self.log(f"dropped a {kind} frame: {message}")
                if kind in REQUEST_TYPES:
                    self._refuse(kind, frame["id"], message)
            else:
                self._backlog.append(frame)
        else:
            self._dispatch(frame)
        return self._spawned

    def _refuse(self, kind: str, request_id: str, message: str) -> None:
        """Answers a request that cannot be handled with an error (an interceptor: allow)."""
        if kind == "command_invoked":
            self.reply(Response("noop", error=message).frame(request_id))
        elif kind == "tool_call":
            self.reply(self._tool_error(request_id, message))
        else:
            self.reply({"type": "event_intercept_response", "id": request_id})

    def _on_overflow(self, seen: int, limit: int) -> None:
        self.log(f"input frame of {seen} bytes exceeds the {limit}-byte limit; stopping")
        self.stop(1)

    # ------------------------------------------------------------------ output

    def _encode(self, frame: Dict[str, Any]) -> Union[bytes, str]:
        """The frame's line, or why it cannot be sent (what JSON cannot hold, over the frame cap)."""
        try:
            data = encode_frame(frame)
        except (TypeError, ValueError) as err:
            return error_text(err)
        if len(data) - 1 > MAX_FRAME_BYTES:
            return f"the frame is {len(data) - 1} bytes, over the {MAX_FRAME_BYTES}-byte limit"
        return data

    def send(self, frame: Dict[str, Any]) -> Optional[str]:
        """Writes one frame; returns why it was not sent (also logged), None when it was."""
        if self.phase == "stopped":
            return "the run is over"
        data = self._encode(frame)
        if isinstance(data, str):
            self.log(f"cannot send a {frame.get('type')} frame: {data}")
            return data
        try:
            self._write(data)
        except (OSError, ValueError) as err:
            if self.phase != "stopped":
                self.log(f"output closed ({error_text(err)}); stopping")
            self.stop(0)
            return "the output is closed"
        return None

    def reply(self, frame: Dict[str, Any], fallback: Optional[Callable[[str], Dict[str, Any]]] = None) -> None:
        """Answers a request; if `frame` cannot be sent, `fallback(why)` (an error answer) goes instead."""
        why = self.send(frame)
        if why is not None and fallback is not None and self.phase != "stopped":
            self.send(fallback(why))

    def send_one_way(self, frame: Dict[str, Any]) -> None:
        """notify, submit, panel frames: held until `ready`, dropped once stopped."""
        if self.phase == "handshake":
            if len(self._pending) >= MAX_PENDING:
                self.log(f"dropped a {frame['type']} frame sent before ready: more than {MAX_PENDING} are waiting")
            else:
                self._pending.append(frame)
        elif self.phase == "ready":
            self.send(frame)

    def open_panel(self, panel_id: Optional[str], title: Optional[str], lines: Any, footer: Optional[str],
                   on_key: Optional[Callable[..., Any]], on_close: Optional[Callable[..., Any]]) -> Panel:
        """ctx.open_panel(): the handlers first, then the `open_panel` frame."""
        if panel_id is None:
            self._panel_seq += 1
            panel_id = f"panel-{self._panel_seq}"
        if not isinstance(panel_id, str) or not panel_id:
            raise ValueError("open_panel(): the panel id must be a non-empty str")
        if panel_id in self._opened:
            raise ValueError(f'open_panel(): panel "{panel_id}" is already open')
        for what, fn in (("on_key", on_key), ("on_close", on_close)):
            if fn is not None and not callable(fn):
                raise TypeError(f"open_panel(): {what} must be callable")
        content = _panel_content(title, lines, footer)
        entry: List[Any] = []

        def forget() -> None:
            if self._opened.get(panel_id) is entry:
                del self._opened[panel_id]
        panel = Panel(panel_id, self.ext._send_one_way, forget)
        entry.extend((panel, on_key, on_close))
        self._opened[panel_id] = entry
        self.send_one_way({"type": "open_panel", "panel": {"id": panel_id, **content}})
        return panel

    async def ask(self, panel_id: Optional[str], title: Optional[str], lines: Any, footer: Optional[str], on_key: Callable[..., Any]) -> Any:
        """ctx.ask(): a panel whose key handler's first answer (not None) is returned."""
        if not callable(on_key):
            raise TypeError("ask(): on_key must be callable")
        answer: "asyncio.Future[Any]" = self.loop.create_future()

        def finish(value: Any) -> None:
            if not answer.done():
                answer.set_result(value)

        async def key(name: str, text: Optional[str], _panel: Panel) -> None:
            if answer.done():
                return
            value = await call_handler(on_key, name, text, handed)
            if value is not None and not answer.done():
                opened.close()
                finish(value)

        opened = self.open_panel(panel_id, title, lines, footer, key, lambda _panel: finish(None))
        forget = opened._closed

        def closed_by_handler() -> None:
            if forget is not None:
                forget()
            finish(None)
        # What on_key gets: closing it ends the ask.
        handed = Panel(opened.id, self.ext._send_one_way, closed_by_handler)
        try:
            return await answer
        except asyncio.CancelledError:
            opened.close()
            raise

    async def call_tool(self, name: Any, args: Any, parent_id: Optional[str], timeout: Optional[float]) -> CallToolResult:
        """ctx.call_tool(): `call_tool` out, the host's `tool_result` back; `call_tool_cancel` when given up."""
        if "call_tool" not in (self._hello.get("capabilities") or ()):
            raise CallToolError("unavailable", 'call_tool(): the extension did not declare "call_tool" (Extension(..., call_tools=True))')
        if self.phase != "ready":
            raise CallToolError("stopped" if self.phase == "stopped" else "unavailable", "call_tool(): the extension is not running")
        if "call_tool" not in self.negotiated:
            raise CallToolError("unavailable", "call_tool(): the host does not offer call_tool (not in hello_ack.capabilities)")
        if not isinstance(name, str) or not name:
            raise CallToolError("invalid", "call_tool(): the tool name must be a non-empty str")
        if not isinstance(args, dict):
            raise CallToolError("invalid", f"call_tool(): args must be a dict, got {type(args).__name__}")
        self._call_seq += 1
        request_id = f"sdk-{self._call_seq}"
        answer: "asyncio.Future[CallToolResult]" = self.loop.create_future()
        self._calls[request_id] = answer
        frame: Dict[str, Any] = {"type": "call_tool", "id": request_id, "name": name, "args": args}
        if parent_id is not None:
            frame["parent_id"] = parent_id
        why = self.send(frame)
        if why is not None:
            del self._calls[request_id]
            raise CallToolError("invalid" if self.phase != "stopped" else "stopped", f"call_tool(): the request cannot be sent ({why})")
        try:
            return await asyncio.wait_for(asyncio.shield(answer), timeout)
        except asyncio.TimeoutError:
            self._give_up(request_id)
            raise CallToolError("timeout", f"call_tool({name!r}) timed out after {timeout} s") from None
        except asyncio.CancelledError:
            self._give_up(request_id)
            raise

    def _give_up(self, request_id: str) -> None:
        if self._calls.pop(request_id, None) is not None and self.phase == "ready":
            self.send({"type": "call_tool_cancel", "id": request_id})

    def _call_answered(self, frame: Dict[str, Any]) -> None:
        answer = self._calls.pop(frame["id"], None)
        if answer is None or answer.done():
            self.log(f"ignored a tool_result for no call_tool in flight ({json_id(frame['id'])})")
            return
        blocks = [b for b in frame["content"] if _is_block(b)]
        answer.set_result(CallToolResult(blocks, frame["is_error"], frame["truncated"]))

    def announce(self, frame: Dict[str, Any]) -> None:
        """A registration made while running; before `ready` the batch will include it."""
        if self.phase == "ready":
            self.send(frame)

    # ------------------------------------------------------------------ handshake

    def _begin_handshake(self, frame: Dict[str, Any]) -> None:
        # Plain on_hello handlers run at once, so frames after hello_ack in the same read keep their order.
        host = HostInfo.from_frame(frame)
        self.host = host
        self.ext._host = host
        handlers = list(self.ext._hello_handlers)
        for index, handler in enumerate(handlers):
            try:
                result = handler(host)
            except Exception as err:
                self.log(f"on_hello handler failed: {error_detail(err)}")
                continue
            if inspect.isawaitable(result):
                self._spawn(self._finish_handshake(result, handlers[index + 1:]))
                return
        self._announce_and_ready()

    async def _finish_handshake(self, first: Awaitable[Any], rest: List[Callable[..., Any]]) -> None:
        try:
            await first
        except Exception as err:
            self.log(f"on_hello handler failed: {error_detail(err)}")
        for handler in rest:
            if self.phase != "handshake":
                return
            try:
                await call_handler(handler, self.host)
            except Exception as err:
                self.log(f"on_hello handler failed: {error_detail(err)}")
        if self.phase == "handshake":
            self._announce_and_ready()

    def _announce_and_ready(self) -> None:
        for frame_out in self.ext._registration_frames():
            self.send(frame_out)
        if self.send({"type": "ready"}) is not None:
            return
        self.phase = "ready"
        pending, self._pending = self._pending, []
        for one_way in pending:
            self.send(one_way)
        backlog, self._backlog = self._backlog, []
        for queued in backlog:
            self._dispatch(queued)

    # ------------------------------------------------------------------ dispatch

    def _spawn(self, coro: Awaitable[Any]) -> "asyncio.Future[Any]":
        task = asyncio.ensure_future(coro, loop=self.loop)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        self._spawned.append(task)
        return task

    def _request(self, frame: Dict[str, Any], run: Callable[[Pending, Dict[str, Any]], Awaitable[None]]) -> None:
        pending = self.requests.begin(frame["id"], True)
        pending.task = self._spawn(self._cancellable(pending, run(pending, frame)))

    async def _cancellable(self, pending: Pending, work: Awaitable[None]) -> None:
        """After a cancel from the host nothing more is sent for the request."""
        try:
            await work
        except asyncio.CancelledError:
            if pending.reason is None:
                raise
            self.log(f"request {pending.id} stopped after the host cancelled it ({pending.reason})")
        finally:
            self.requests.end(pending)

    def _answer(self, pending: Pending, frame: Dict[str, Any], fallback: Optional[Callable[[str], Dict[str, Any]]] = None) -> None:
        self.requests.end(pending)
        self.reply(frame, fallback)

    def send_progress(self, pending: Pending, frame: Dict[str, Any]) -> bool:
        """ctx.progress(): only when negotiated and while the request is pending; thread-safe."""
        if "progress" not in self.negotiated or pending.done or self.phase != "ready":
            return False
        if _on_loop(self.loop):
            return self.send(frame) is None
        if self._posted_progress >= MAX_POSTED_PROGRESS:
            return False
        self._posted_progress += 1

        def post() -> None:
            self._posted_progress -= 1
            if not pending.done and self.phase == "ready":
                self.send(frame)
        try:
            self.loop.call_soon_threadsafe(post)
        except RuntimeError:  # the loop is closed: the run is over
            return False
        return True

    def _dispatch(self, frame: Dict[str, Any]) -> None:
        kind = frame["type"]
        if kind == "command_invoked":
            self._request(frame, self._run_command)
        elif kind == "tool_call":
            self._request(frame, self._run_tool)
        elif kind == "event_intercept":
            self._request(frame, self._run_interceptor)
        elif kind == "cancel":
            if "cancel" in self.negotiated:
                self.requests.cancel(frame["id"], frame.get("reason") if isinstance(frame.get("reason"), str) else "aborted")
            else:
                self.log('ignored a cancel frame: "cancel" was not negotiated')
        elif kind == "tool_cancel":
            # zot's cancel, for an extension that declared "tool_cancel" in hello. zot gives no reason;
            # unknown or finished ids are ignored.
            if "cancel" in self.negotiated or "tool_cancel" in (self._hello.get("capabilities") or ()):
                self.requests.cancel(frame["id"], "aborted")
        elif kind == "tool_result":
            # zot's answer to one of ctx.call_tool()'s requests.
            self._call_answered(frame)
        elif kind == "event":
            self._run_event(frame)
        elif kind == "panel_key":
            panel_id, key, text = frame["panel_id"], frame["key"], frame.get("text")
            opened = self._opened.get(panel_id)
            handler = self.ext._panel_keys.get(panel_id) if opened is None else opened[1]
            if handler is not None:
                panel = self.ext.panel(panel_id) if opened is None else opened[0]
                self._enqueue_panel(panel_id, f'panel "{panel_id}" key handler', handler, key, text, panel)
        elif kind == "panel_close":
            panel_id = frame["panel_id"]
            opened = self._opened.pop(panel_id, None)
            handler = self.ext._panel_closes.get(panel_id) if opened is None else opened[2]
            if handler is not None:
                panel = self.ext.panel(panel_id) if opened is None else opened[0]
                self._enqueue_panel(panel_id, f'panel "{panel_id}" close handler', handler, panel)

    async def _guard(self, what: str, handler: Callable[..., Any], *args: Any) -> None:
        """Runs a one-way handler; an exception is logged, never propagated."""
        try:
            await call_handler(handler, *args)
        except Exception as err:
            self.log(f"{what} failed: {error_detail(err)}")

    def _run_event(self, frame: Dict[str, Any]) -> None:
        name = frame["event"]
        for handler in self.ext._events.get(name, ()):
            payload = {k: v for k, v in frame.items() if k != "type"}
            self._spawn(self._guard(f'event "{name}" handler', handler, payload))

    def _enqueue_panel(self, panel_id: str, what: str, handler: Callable[..., Any], *args: Any) -> None:
        depth = self._panel_depth.get(panel_id, 0)
        if depth >= MAX_PANEL_QUEUE:
            self.log(f'dropped input for panel "{panel_id}": {MAX_PANEL_QUEUE} keys are waiting for its handler')
            return
        previous = self._panel_tails.get(panel_id)
        self._panel_depth[panel_id] = depth + 1

        async def job() -> None:
            try:
                if previous is not None and not previous.done():
                    await asyncio.wait([previous])
                await self._guard(what, handler, *args)
            finally:
                left = self._panel_depth[panel_id] - 1
                if left == 0:
                    del self._panel_depth[panel_id]
                    if self._panel_tails.get(panel_id) is task:
                        del self._panel_tails[panel_id]
                else:
                    self._panel_depth[panel_id] = left

        task = self._spawn(job())
        self._panel_tails[panel_id] = task

    def _context(self, pending: Pending, frame: Dict[str, Any]) -> Context:
        assert self.host is not None
        trace = trace_context(frame) if "trace" in self.negotiated else (None, None)
        ctx = Context(self.ext, self.host, pending.id, pending, self.send_progress, trace)
        if frame["type"] == "tool_call":
            ctx._parent_id = pending.id
            # zot's continuous mode (experimental): present only when the host sent them.
            key = frame.get("operation_key")
            ctx.operation_key = key if isinstance(key, str) else None
            ctx.reconcile = frame.get("reconcile") is True
        elif frame["type"] == "event_intercept":
            origin = frame.get("origin_extension")
            ctx.origin_extension = origin if isinstance(origin, str) else None
        return ctx

    async def _run_command(self, pending: Pending, frame: Dict[str, Any]) -> None:
        request_id, name, args = frame["id"], frame["name"], frame["args"]
        found = self.ext._find_command(name)
        if found is None:
            self.reply(Response("noop", error=f'unknown command "{name}"').frame(request_id))
            return
        canonical, handler = found
        try:
            result = await call_handler(handler, args, self._context(pending, frame))
        except Exception as err:
            self.log(f'command "{canonical}" failed: {error_detail(err)}')
            self._answer(pending, Response("noop", error=error_text(err)).frame(request_id))
            return
        if result is None:
            result = Response("noop")
        if not isinstance(result, Response):
            message = f"command handler returned {type(result).__name__}, not a Response (use prompt(), display(), ... or None)"
            self.log(f'command "{canonical}": {message}')
            self._answer(pending, Response("noop", error=message).frame(request_id))
            return
        self._answer(pending, result.frame(request_id), lambda why: Response("noop", error=f'command "{canonical}": its response cannot be sent ({why})').frame(request_id))

    @staticmethod
    def _tool_error(request_id: str, message: str) -> Dict[str, Any]:
        return {"type": "tool_result", "id": request_id, "content": [{"type": "text", "text": message}], "is_error": True}

    async def _run_tool(self, pending: Pending, frame_in: Dict[str, Any]) -> None:
        request_id, name, args = frame_in["id"], frame_in["name"], frame_in["args"]
        tool = self.ext._tools.get(name)
        if tool is None:
            self.reply(self._tool_error(request_id, f'unknown tool "{name}"'))
            return
        try:
            result = await call_handler(tool.handler, args, self._context(pending, frame_in))
            frame = tool_result_frame(request_id, result)
        except Exception as err:
            self.log(f'tool "{name}" failed: {error_detail(err)}')
            self._answer(pending, self._tool_error(request_id, f'tool "{name}" failed: {error_text(err)}'))
            return
        self._answer(pending, frame, lambda why: self._tool_error(request_id, f'tool "{name}" failed: its result cannot be sent ({why})'))

    async def _run_interceptor(self, pending: Pending, frame: Dict[str, Any]) -> None:
        ctx = self._context(pending, frame) if frame["event"] in self.ext._interceptors_with_ctx else None
        frame = {k: v for k, v in frame.items() if k != "_meta"} if "_meta" in frame else frame
        request_id, event = frame["id"], frame["event"]
        allow = {"type": "event_intercept_response", "id": request_id}
        handler = self.ext._interceptors.get(event)
        if handler is None:
            self.reply(allow)
            return
        kwargs: Dict[str, Any] = {}
        if event == "tool_call":
            args: tuple = (frame["tool_name"], frame["tool_args"])
            # zot's: the extension that started the call (its call_tool), for a handler that asks for it.
            if event in self.ext._interceptors_with_origin:
                kwargs["origin_extension"] = frame.get("origin_extension")
        elif event == "turn_start":
            args = (frame["step"],)
        elif event == "assistant_message":
            args = (frame["text"],)
        else:
            args = (BeforeAgentStart(
                system_prompt=frame["system_prompt"], session_id=frame["session_id"],
                agent_run_id=frame["agent_run_id"], cwd=frame["cwd"], provider=frame["provider"],
                model=frame["model"], raw=frame,
            ),)
        try:
            if ctx is not None:
                args += (ctx,)
            answer = decision_frame(request_id, event, await call_handler(handler, *args, **kwargs))
        except Exception as err:
            # Fail open, as the host does on a missing answer: a broken interceptor must not wedge the agent.
            self.log(f'interceptor "{event}" failed (allowing): {error_detail(err)}')
            self.reply(allow)
            return
        self.reply(answer, lambda why: allow)

    # ------------------------------------------------------------------ stop

    def stop(self, code: int) -> None:
        """Stops once: no more input is handled and no more answers are sent."""
        if self.phase == "stopped":
            return
        self.phase = "stopped"
        self._splitter.closed = True
        self.requests.stop_all()
        calls, self._calls = self._calls, {}
        for answer in calls.values():
            if not answer.done():
                answer.set_exception(CallToolError("stopped", "call_tool(): the extension stopped before the answer came"))
                answer.exception()  # retrieved: a caller that already gave up leaves no warning
        if not self.done.done():
            self.done.set_result(code)

    async def cancel_tasks(self, timeout: float = 1.0) -> None:
        """Cancels handlers still running after the stop (a handler that hangs ends here)."""
        tasks = [t for t in self._tasks if not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)


def json_id(value: str) -> str:
    return repr(value[:80])


def _is_block(block: Any) -> bool:
    """A well-formed text or image block (another is dropped: it has nothing the SDK can give)."""
    if not isinstance(block, dict):
        return False
    if block.get("type") == "text":
        return isinstance(block.get("text"), str) and isinstance(block.get("format", ""), str)
    return block.get("type") == "image" and isinstance(block.get("mime_type"), str) and isinstance(block.get("data"), str)


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
