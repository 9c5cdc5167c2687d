"""The wire: frames encoded one per line, and host lines split and checked (no asyncio here)."""
from __future__ import annotations

import json
import re
from json.decoder import scanstring
from typing import Any, Callable, Dict, List, Optional, Tuple

#: Largest frame, in bytes without the LF (and one CR): the host's cap, the spec's 4 MiB.
MAX_FRAME_BYTES = 4 * 1024 * 1024

#: The spec's panel key names. The host forwards any other name as it is (zot may send "unknown"):
#: a handler gets it too.
PANEL_KEYS = (
    "up", "down", "left", "right", "enter", "esc", "tab",
    "pageup", "pagedown", "home", "end", "backspace", "delete", "rune",
)
#: The lifecycle events (src/protocol/names.ts EVENT_NAMES): the spec's, then those zot added after it.
EVENT_NAMES = (
    "session_start", "turn_start", "turn_end", "tool_call", "tool_confirmation_requested", "assistant_message",
    "session_end", "user_prompt_submit", "tool_result", "permission_decision", "pre_compact", "post_compact",
    "subagent_start", "subagent_stop",
)
#: The events an extension may intercept, and how many values its handler gets before its optional ctx.
INTERCEPT_ARITY = {"tool_call": 2, "turn_start": 1, "assistant_message": 1, "before_agent_start": 1}
INTERCEPT_NAMES = tuple(INTERCEPT_ARITY)
NOTIFY_LEVELS = ("info", "success", "warn", "error")
#: Host frames that must get exactly one answer, even when malformed.
REQUEST_TYPES = ("command_invoked", "tool_call", "event_intercept")


def encode_frame(frame: Dict[str, Any]) -> bytes:
    """One frame as one UTF-8 JSON line with its LF.

    Compact and non-ASCII kept, like the host; U+2028/U+2029 escaped so a reader that splits on them
    stays in sync. Raises TypeError/ValueError for what JSON cannot hold (a set, NaN).
    """
    text = json.dumps(frame, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        # A lone surrogate: the \\uXXXX form is still valid JSON.
        return json.dumps(frame, separators=(",", ":"), allow_nan=False).encode("ascii") + b"\n"


def preview(line: str, limit: int = 120) -> str:
    return line if len(line) <= limit else line[:limit] + "..."


class LineSplitter:
    """Splits bytes into lines at LF only (never at U+2028/U+2029); one trailing CR is stripped.

    UTF-8 is decoded after the split, so a character cut across chunks survives. Blank lines are
    skipped. A line longer than `max_bytes` calls `on_overflow(bytes_seen, max_bytes)` once, at once
    (the partial line is never buffered past the cap), and nothing is produced after it.
    """

    def __init__(
        self,
        on_line: Callable[[str], None],
        on_overflow: Callable[[int, int], None],
        max_bytes: int = MAX_FRAME_BYTES,
    ) -> None:
        self._on_line = on_line
        self._on_overflow = on_overflow
        self._max = max_bytes
        self._parts: List[bytes] = []
        self._pending = 0
        self.closed = False

    def push(self, chunk: bytes) -> None:
        if self.closed:
            return
        start = 0
        nl = chunk.find(b"\n")
        while nl != -1:
            piece = chunk[start:nl]
            start = nl + 1
            if self._parts:
                self._parts.append(piece)
                piece = b"".join(self._parts)
                self._parts = []
                self._pending = 0
            if not self._emit(piece):
                return
            nl = chunk.find(b"\n", start)
        if start < len(chunk):
            rest = chunk[start:]
            self._pending += len(rest)
            over = self._pending - self._max
            # One byte over is allowed only for a CR an LF may still follow.
            if over > 1 or (over == 1 and not rest.endswith(b"\r")):
                self._overflow(self._pending)
                return
            self._parts.append(rest)

    def end(self) -> None:
        """Flushes a last line without LF (at EOF)."""
        if self.closed or not self._parts:
            return
        line = b"".join(self._parts)
        self._parts = []
        self._pending = 0
        self._emit(line)

    def _emit(self, line: bytes) -> bool:
        if line.endswith(b"\r"):
            line = line[:-1]
        if len(line) > self._max:
            self._overflow(len(line))
            return False
        text = line.decode("utf-8", errors="replace")
        if text.strip():
            self._on_line(text)
        return not self.closed

    def _overflow(self, seen: int) -> None:
        self.closed = True
        self._parts = []
        self._pending = 0
        self._on_overflow(seen, self._max)


class BadFrame(Exception):
    """A host line that is not a valid frame; `request` is (type, id) when it still names a request."""

    def __init__(self, message: str, request: Optional[Tuple[str, str]] = None) -> None:
        super().__init__(message)
        self.message = message
        self.request = request


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_int(value: Any) -> bool:
    # JSON has one number type: 1.0 is an integer too.
    return _is_number(value) and float(value).is_integer()


# The fields checked per frame (or per event of an event_intercept): name -> (check, expected, zero).
# The SDK reads frames as zot's own Manager writes them: zot leaves out a field that holds its Go zero
# value (`omitempty`: command_invoked without "args" when the user typed none) and writes null for a
# nil slice or map. So a field with a `zero` reads as that value when absent or null (it is filled
# into the frame); only the fields that route a frame (zero None) are required. Wrong types are refused.
_Check = Tuple[Callable[[Any], bool], str, Any]
_REQUIRED = None
#: Checked when present, left absent when not (a null is removed).
_OPTIONAL = object()
_id: _Check = (lambda v: isinstance(v, str), "string", _REQUIRED)
_string: _Check = (lambda v: isinstance(v, str), "string", "")
_object: _Check = (lambda v: isinstance(v, dict), "object", dict)
_number: _Check = (_is_number, "number", 0)
_bool: _Check = (lambda v: isinstance(v, bool), "boolean", False)
_array: _Check = (lambda v: isinstance(v, list), "array", list)
_maybe_string: _Check = (lambda v: isinstance(v, str), "string", _OPTIONAL)
_maybe_number: _Check = (_is_number, "number", _OPTIONAL)
_panel_id: _Check = (lambda v: isinstance(v, str) and v != "", "non-empty string", _REQUIRED)
#: zot has only ever sent protocol_version 1.
_version: _Check = (_is_int, "integer", 1)

_FIELDS: Dict[str, Dict[str, _Check]] = {
    # hello_ack.capabilities is read by _requests.negotiated: names it does not know are ignored.
    "hello_ack": {
        "protocol_version": _version, "zot_version": _string, "provider": _string, "model": _string,
        "cwd": _string, "extension_dir": _string, "data_dir": _string,
    },
    "command_invoked": {"id": _id, "name": _id, "args": _string},
    "tool_call": {"id": _id, "name": _id, "args": _object},
    "event": {"event": _id},
    "event_intercept": {"id": _id, "event": (lambda v: v in INTERCEPT_NAMES, "one of " + ", ".join(INTERCEPT_NAMES), _REQUIRED)},
    "panel_key": {"panel_id": _id, "key": _id},
    "panel_close": {"panel_id": _panel_id},
    "shutdown": {},
    # capability "cancel": the host gave up on request `id`
    "cancel": {"id": _id},
    # zot's cancel, sent to an extension that declared "tool_cancel" in hello: handled as "cancel"
    "tool_cancel": {"id": _id},
    # zot's answer to the extension's call_tool (its blocks are checked when the call settles)
    "tool_result": {"id": _id, "name": _string, "content": _array, "is_error": _bool, "truncated": _bool},
}
#: zot's fields on every event since 2026-08 (present only when sent), and those of a tool event.
_LIFECYCLE = {"session_id": _maybe_string, "cwd": _maybe_string, "sequence": _maybe_number}
_TOOL = {"tool_id": _string, "tool_name": _string, "origin_extension": _maybe_string}
_TOOL_ARGS = {"tool_args": _object, "tool_args_raw": _maybe_string}
_COMPACTION = {"compaction_id": _string, "message_count": _number, "token_estimate": _number}
_SUBAGENT = {"agent_id": _string, "agent_run_id": _string, "name": _string}
_OUTCOME = {"status": _string, "error": _string}
_EVENT_FIELDS: Dict[str, Dict[str, _Check]] = {
    name: {**_LIFECYCLE, **fields} for name, fields in {
        "session_start": {},
        "turn_start": {"step": _number},
        "turn_end": {"stop": _string},
        "tool_call": {**_TOOL, **_TOOL_ARGS},
        "tool_confirmation_requested": {**_TOOL, "tool_preview": _string},
        "assistant_message": {"text": _string},
        # The events zot's Manager added after 2026-08 (observe-only).
        "session_end": {"reason": _string},
        "user_prompt_submit": {"text": _string, "queued": _bool, "image_count": _number},
        "tool_result": {**_TOOL, **_TOOL_ARGS, "status": _string, "executed": _bool, "result": _object},
        "permission_decision": {**_TOOL, "decision": _string, "source": _string, "stage": _string, "reason": _string},
        "pre_compact": _COMPACTION,
        "post_compact": {**_COMPACTION, **_OUTCOME},
        "subagent_start": _SUBAGENT,
        "subagent_stop": {**_SUBAGENT, **_OUTCOME},
    }.items()
}
#: `result` of a tool_result event.
_RESULT_FIELDS: Dict[str, _Check] = {"content": _array, "is_error": _bool, "truncated": _bool}
_INTERCEPT_FIELDS: Dict[str, Dict[str, _Check]] = {
    "tool_call": {**_TOOL, "tool_args": _object},  # origin_extension: a call another extension started
    "turn_start": {"step": _number},
    "assistant_message": {"text": _string},
    "before_agent_start": {
        "session_id": _string, "agent_run_id": _string, "cwd": _string, "provider": _string,
        "model": _string, "system_prompt": _string,
    },
}


def _problems(frame: Dict[str, Any], fields: Dict[str, _Check]) -> List[str]:
    """What is wrong with `frame`; fills the zero value of an absent (or null) optional field."""
    found = []
    for name, (check, expected, zero) in fields.items():
        value = frame.get(name)
        if value is None:
            if zero is _OPTIONAL:
                frame.pop(name, None)
            elif zero is _REQUIRED:
                found.append(f"{name}: missing, expected {expected}")
            else:
                frame[name] = zero() if callable(zero) else zero
        elif not check(value):
            found.append(f"{name}: expected {expected}, got {json.dumps(value)[:40]}")
    return found


_STRUCTURE = re.compile(r'["\[\]{},]')
_BLANK = re.compile(r"[ \t\n\r]*")


def _skip_value(line: str, i: int) -> int:
    """The index after the JSON value at `i`, found without building it (no recursion: brackets are
    counted); scalars are not checked. Raises ValueError when the brackets do not balance."""
    depth = 0
    while True:
        match = _STRUCTURE.search(line, i)
        if match is None:
            raise ValueError("unterminated value")
        i, char = match.start(), match.group()
        if char == '"':
            i = scanstring(line, i + 1)[1]
            if depth == 0:
                return i
            continue
        if depth == 0 and char in ",}":
            return i
        if char == ",":
            i += 1
            continue
        depth += 1 if char in "[{" else -1
        if depth < 0:
            raise ValueError("unbalanced")
        i += 1
        if depth == 0:
            return i


def _request_of(line: str) -> Optional[Tuple[str, str]]:
    """(type, id) of a line that is one JSON object whose "type" is a request type and whose "id" is a
    string, read without building its other values; None otherwise."""
    top: Dict[str, str] = {}
    try:
        i = _BLANK.match(line, 0).end()  # type: ignore[union-attr]
        if line[i] != "{":
            return None
        i = _BLANK.match(line, i + 1).end()  # type: ignore[union-attr]
        while line[i] != "}":
            if line[i] != '"':
                return None
            key, i = scanstring(line, i + 1)
            i = _BLANK.match(line, i).end()  # type: ignore[union-attr]
            if line[i] != ":":
                return None
            i = _BLANK.match(line, i + 1).end()  # type: ignore[union-attr]
            if line[i] == '"':
                text, i = scanstring(line, i + 1)
                top[key] = text
            else:
                top.pop(key, None)
                i = _skip_value(line, i)
            i = _BLANK.match(line, i).end()  # type: ignore[union-attr]
            if line[i] == ",":
                i = _BLANK.match(line, i + 1).end()  # type: ignore[union-attr]
            elif line[i] != "}":
                return None
        if line[i + 1:].strip(" \t\n\r"):
            return None
    except (ValueError, IndexError):
        return None
    kind, request_id = top.get("type"), top.get("id")
    return (kind, request_id) if kind in REQUEST_TYPES and request_id is not None else None


def decode_host_frame(line: str) -> Dict[str, Any]:
    """Parses one host line into its frame (every field kept, in order). Raises BadFrame."""
    try:
        value = json.loads(line, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as err:
        # Python cannot build some valid JSON: nesting past its decoder's limit (995 levels on 3.9-3.11,
        # 1,497 on 3.12, 9,998 on 3.13), an integer over its digit limit (4,300). A request is still
        # answered when its type and id can be read.
        why = "nested too deeply" if isinstance(err, RecursionError) else str(err)
        request = _request_of(line)
        if request is not None:
            raise BadFrame(f"invalid {request[0]} frame (its JSON cannot be read: {why})", request) from None
        raise BadFrame(f"not JSON ({why}): {preview(line)}") from None
    if not isinstance(value, dict):
        raise BadFrame(f"not a JSON object: {preview(line)}")
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise BadFrame(f"unknown frame type {json.dumps(kind)}: {preview(line)}")
    problems = _problems(value, _FIELDS[kind])
    if not problems and kind == "event":
        problems = _problems(value, _EVENT_FIELDS.get(value["event"], {}))
        if not problems and value["event"] == "tool_result":
            problems = [f"result.{p}" for p in _problems(value["result"], _RESULT_FIELDS)]
    if not problems and kind == "event_intercept":
        problems = _problems(value, _INTERCEPT_FIELDS[value["event"]])
    if not problems and kind == "panel_key" and value.get("text") is not None and not isinstance(value["text"], str):
        problems = ["text: expected string"]
    if problems:
        message = f"invalid {kind} frame ({'; '.join(problems)})"
        request_id = value.get("id")
        request = (kind, request_id) if kind in REQUEST_TYPES and isinstance(request_id, str) else None
        raise BadFrame(message, request)
    return value
