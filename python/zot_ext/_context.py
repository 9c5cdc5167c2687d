"""What every handler can use besides its return value: notes, submit, panels, progress, cancel."""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Sequence, Tuple

from ._requests import Pending, progress_frame
from ._values import CallToolResult
from ._values import HostInfo, _panel_content
from ._wire import NOTIFY_LEVELS

if TYPE_CHECKING:
    from ._extension import Extension

SendFn = Callable[[Dict[str, Any]], None]


def notify_frame(message: str, level: str) -> Dict[str, Any]:
    if not isinstance(message, str):
        raise TypeError(f"notify() message must be a str, got {type(message).__name__}")
    if level not in NOTIFY_LEVELS:
        raise ValueError(f"notify() level must be one of {', '.join(NOTIFY_LEVELS)}, got {level!r}")
    return {"type": "notify", "level": level, "message": message}


def submit_frame(text: str) -> Dict[str, Any]:
    if not isinstance(text, str):
        raise TypeError(f"submit() text must be a str, got {type(text).__name__}")
    return {"type": "submit", "text": text}


class Panel:
    """An extension-owned panel, by id: render fresh content or close it."""

    def __init__(self, panel_id: str, send: SendFn, closed: Optional[Callable[[], None]] = None) -> None:
        self.id = panel_id
        self._send = send
        self._closed = closed

    def render(self, lines: Sequence[str], title: Optional[str] = None, footer: Optional[str] = None) -> None:
        """Pushes fresh content for the open panel (`panel_render`)."""
        self._send({"type": "panel_render", "panel_id": self.id, **_panel_content(title, lines, footer)})

    def close(self) -> None:
        """Closes the panel (`panel_close`)."""
        if self._closed is not None:
            self._closed()
        self._send({"type": "panel_close", "panel_id": self.id})

    def __repr__(self) -> str:
        return f"Panel({self.id!r})"


class Context:
    """Handed to command and tool handlers: the host's info, one-way frames to it, progress,
    cancellation and the trace context of the request."""

    def __init__(
        self,
        ext: "Extension",
        host: HostInfo,
        request_id: str,
        pending: Optional[Pending] = None,
        progress: Optional[Callable[[Pending, Dict[str, Any]], bool]] = None,
        trace: Tuple[Optional[str], Optional[str]] = (None, None),
    ) -> None:
        self._ext = ext
        #: The host's `hello_ack` information.
        self.host = host
        #: The id of the request being answered.
        self.request_id = request_id
        self._pending = pending
        self._send_progress = progress
        #: Set when the host cancels this request (capability "cancel") or the run stops; a worker
        #: thread can wait on it. An async handler is also cancelled (asyncio.CancelledError).
        self.cancelled: threading.Event = pending.cancelled if pending is not None else threading.Event()
        #: The W3C traceparent of the host's span for this request (capability "trace"). @default None
        self.traceparent: Optional[str] = trace[0]
        #: The W3C tracestate that came with it. @default None
        self.tracestate: Optional[str] = trace[1]
        #: zot's `tool_call.operation_key` (experimental "continuous" mode): a stable idempotency key
        #: of this intent across replays; pass it on to whatever performs the operation. @default None
        self.operation_key: Optional[str] = None
        #: zot's `tool_call.reconcile`: do NOT perform the operation, answer its state in
        #: structured_content ({"state": "completed" | "not_started" | "unknown"}). @default False
        self.reconcile: bool = False
        #: A tool_call interceptor's: the extension that started the call (zot's call_tool). @default None
        self.origin_extension: Optional[str] = None
        #: Inside a tool handler: that tool call, the parent of the calls call_tool() makes.
        self._parent_id: Optional[str] = None

    @property
    def cancel_reason(self) -> Optional[str]:
        """Why the host cancelled the request ("aborted" or "timeout"); None until it did."""
        return None if self._pending is None else self._pending.reason

    def progress(self, message: Optional[str] = None, progress: Optional[float] = None, total: Optional[float] = None) -> bool:
        """Reports how far the work got (frame `progress`); sent only when the host negotiated
        "progress" and the request is still pending. Returns whether it was sent (from a worker
        thread: handed to the loop). `message` is cut to 1,000 characters; a non-str message or a
        number that is not finite raises TypeError."""
        frame = progress_frame(self.request_id, message, progress, total)
        if self._pending is None or self._send_progress is None:
            return False
        return self._send_progress(self._pending, frame)

    async def call_tool(self, name: str, args: Optional[Dict[str, Any]] = None, timeout: Optional[float] = 60.0) -> CallToolResult:
        """Runs a tool through the host (zot's `call_tool`): another extension's, or one of the agent's
        own the host offers. Inside a tool handler the call runs inside that tool call (its
        `parent_id`): it ends when that call ends. Needs `Extension(..., call_tools=True)` and a host
        that offers "call_tool" in hello_ack. Returns the answer (a failing tool, or a call the host
        refuses, with `is_error`); raises CallToolError ("unavailable", "invalid", "timeout" after
        `timeout` seconds (None: no deadline; @default 60.0, zot's), "stopped"). Cancelling the awaiting
        task (or the timeout) tells the host (`call_tool_cancel`). Await it on the handler's loop."""
        return await self._session().call_tool(name, {} if args is None else args, self._parent_id, timeout)

    def notify(self, message: str, level: str = "info") -> None:
        """Shows a one-shot note with this extension's name; level: info, success, warn or error."""
        self._ext.notify(message, level)

    def clear_notes(self) -> None:
        """Removes every note this extension pushed."""
        self._ext.clear_notes()

    def submit(self, text: str) -> None:
        """Submits `text` as a user prompt (queued behind a running turn; blank text is ignored)."""
        self._ext.submit(text)

    def panel(self, panel_id: str) -> Panel:
        """A handle on an extension-owned panel."""
        return self._ext.panel(panel_id)

    def open_panel(
        self,
        lines: Optional[Sequence[str]] = None,
        title: Optional[str] = None,
        footer: Optional[str] = None,
        *,
        panel_id: Optional[str] = None,
        on_key: Optional[Callable[..., Any]] = None,
        on_close: Optional[Callable[..., Any]] = None,
    ) -> Panel:
        """Opens a panel now (zot's `open_panel` frame: also from inside a tool call or command), with
        `on_key(key, text, panel)` and `on_close(panel)` (the user closed it; not called for
        panel.close()) registered first, so no key arrives unhandled. They go once the panel closes.
        Call it on the handler's loop (not from a worker thread). `panel_id` @default a fresh
        "panel-<n>"; one already open through open_panel() raises ValueError."""
        return self._session().open_panel(panel_id, title, lines, footer, on_key, on_close)

    async def ask(
        self,
        lines: Optional[Sequence[str]],
        on_key: Callable[..., Any],
        title: Optional[str] = None,
        footer: Optional[str] = None,
        *,
        panel_id: Optional[str] = None,
    ) -> Any:
        """Opens a panel and returns the first answer `on_key(key, text, panel)` returns other than
        None (the panel then closes), or None when the panel closes otherwise: the user closed it,
        on_key called panel.close(), or the request was cancelled (the panel is closed then). For a
        tool that waits for the user, register it with `interactive=True`; await it from an
        `async def` handler."""
        return await self._session().ask(panel_id, title, lines, footer, on_key)

    def _session(self) -> Any:
        session = self._ext._session
        if session is None:
            raise RuntimeError("open_panel()/ask()/call_tool(): the extension is not running")
        return session
