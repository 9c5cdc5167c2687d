"""The negotiated extensions of the zot protocol (cancel, progress, trace) on the extension side:
what the SDK declares, the pending requests a `cancel` reaches, progress frames and trace context."""
from __future__ import annotations

import asyncio
import math
import re
import threading
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

#: Declared in every hello, after the usual capabilities.
PROTOCOL_EXTENSIONS = ("cancel", "progress", "trace")
#: Longest progress message sent; longer ones are cut to this many characters.
PROGRESS_MESSAGE_MAX = 1000
#: Progress frames posted from worker threads and not sent yet; more are dropped (progress is lossy).
MAX_POSTED_PROGRESS = 64
_TRACESTATE_MAX = 512
_TRACEPARENT = re.compile(r"00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}")


def with_protocol_extensions(capabilities: Sequence[str]) -> List[str]:
    out = list(capabilities)
    out.extend(cap for cap in PROTOCOL_EXTENSIONS if cap not in out)
    return out


def negotiated(hello_ack: Dict[str, Any]) -> FrozenSet[str]:
    """What the host granted in hello_ack.capabilities (ours, and zot's "call_tool"); absent or
    malformed means nothing."""
    caps = hello_ack.get("capabilities")
    if not isinstance(caps, list):
        return frozenset()
    return frozenset(c for c in caps if c in PROTOCOL_EXTENSIONS or c == "call_tool")


def trace_context(frame: Dict[str, Any]) -> Tuple[Optional[str], Optional[str]]:
    """(traceparent, tracestate) from a request's `_meta`; anything malformed is left out."""
    meta = frame.get("_meta")
    if not isinstance(meta, dict):
        return None, None
    parent, state = meta.get("traceparent"), meta.get("tracestate")
    if not isinstance(parent, str) or not _TRACEPARENT.fullmatch(parent):
        return None, None
    return parent, state if isinstance(state, str) and len(state) <= _TRACESTATE_MAX else None


def progress_frame(request_id: str, message: Any, progress: Any, total: Any) -> Dict[str, Any]:
    """The validated progress frame; raises TypeError on a bad value."""
    frame: Dict[str, Any] = {"type": "progress", "id": request_id}
    if message is not None:
        if not isinstance(message, str):
            raise TypeError(f"progress() message must be a str, got {type(message).__name__}")
        frame["message"] = message[:PROGRESS_MESSAGE_MAX]
    for key, value in (("progress", progress), ("total", total)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise TypeError(f"progress() {key} must be a finite number, got {value!r}")
        frame[key] = value
    return frame


class Pending:
    """One request being handled."""

    __slots__ = ("id", "cancelled", "reason", "done", "task")

    def __init__(self, request_id: str) -> None:
        self.id = request_id
        #: Set when the host cancelled the request (or the run stopped); worker threads may wait on it.
        self.cancelled = threading.Event()
        self.reason: Optional[str] = None
        self.done = False
        self.task: Optional["asyncio.Future[Any]"] = None


class PendingRequests:
    """Requests in flight by id, for `cancel`: bounded by the requests in flight (each leaves on its answer)."""

    def __init__(self) -> None:
        self._by_id: Dict[str, Pending] = {}

    def __len__(self) -> int:
        return len(self._by_id)

    def begin(self, request_id: str, track: bool) -> Pending:
        pending = Pending(request_id)
        # A duplicate id (a host bug) keeps the first entry.
        if track and request_id not in self._by_id:
            self._by_id[request_id] = pending
        return pending

    def end(self, pending: Pending) -> None:
        pending.done = True
        if self._by_id.get(pending.id) is pending:
            del self._by_id[pending.id]

    def cancel(self, request_id: str, reason: str) -> None:
        """Sets the request's event and cancels its task; an unknown or finished id is ignored."""
        pending = self._by_id.get(request_id)
        if pending is None or pending.done or pending.reason is not None:
            return
        pending.reason = reason
        pending.cancelled.set()
        if pending.task is not None and not pending.task.done():
            pending.task.cancel()

    def stop_all(self) -> None:
        """The run stopped: every pending request's event is set (its task is cancelled by the stop)."""
        for pending in self._by_id.values():
            pending.cancelled.set()
