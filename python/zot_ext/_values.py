"""What handlers receive and return: host info, command responses, tool results, decisions."""
from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union


@dataclass(frozen=True)
class HostInfo:
    """What the host said about itself in `hello_ack`."""

    protocol_version: int
    zot_version: str
    provider: str
    model: str
    #: The user's project directory (the extension runs from its own directory).
    cwd: str
    #: The extension's own directory.
    extension_dir: str
    #: Where the extension should keep its state.
    data_dir: str
    #: The whole `hello_ack` frame as received, fields this SDK does not know included.
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_frame(cls, frame: Dict[str, Any]) -> "HostInfo":
        return cls(
            protocol_version=frame["protocol_version"], zot_version=frame["zot_version"],
            provider=frame["provider"], model=frame["model"], cwd=frame["cwd"],
            extension_dir=frame["extension_dir"], data_dir=frame["data_dir"], raw=frame,
        )


@dataclass(frozen=True)
class BeforeAgentStart:
    """The `before_agent_start` interception: the complete system prompt about to be used."""

    system_prompt: str
    session_id: str
    #: Identifies one preparation pass; changes on each rebuild.
    agent_run_id: str
    cwd: str
    provider: str
    model: str
    raw: Dict[str, Any] = field(repr=False, compare=False)


# ----------------------------------------------------------------------------------- responses

@dataclass(frozen=True)
class Response:
    """The answer to a command; build it with prompt(), insert(), display(), open_panel() or noop()."""

    action: str
    text: Optional[str] = None
    panel: Optional[Dict[str, Any]] = None
    #: Shown by the host as an error status line, whatever the action.
    error: Optional[str] = None
    #: tool_prompt(): the tool to run first, and its args.
    tool: Optional[Tuple[str, Dict[str, Any]]] = None

    def frame(self, request_id: str) -> Dict[str, Any]:
        out: Dict[str, Any] = {"type": "command_response", "id": request_id, "action": self.action}
        if self.action in ("prompt", "insert", "display"):
            out[self.action] = self.text
        elif self.action == "open_panel":
            out["open_panel"] = self.panel
        elif self.action == "tool_prompt" and self.tool is not None:
            out["prompt"] = self.text
            out["tool_name"], out["tool_args"] = self.tool
        if self.error is not None:
            out["error"] = self.error
        return out


def _require_str(what: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    return value


def _optional_str(what: str, value: Any) -> Optional[str]:
    return None if value is None else _require_str(what, value)


def prompt(text: str, error: Optional[str] = None) -> Response:
    """Submit `text` as a fresh user message: the agent runs a turn against it."""
    return Response("prompt", text=_require_str("prompt()", text), error=_optional_str("error", error))


def insert(text: str, error: Optional[str] = None) -> Response:
    """Insert `text` into the editor at the cursor without submitting it."""
    return Response("insert", text=_require_str("insert()", text), error=_optional_str("error", error))


def display(text: str, error: Optional[str] = None) -> Response:
    """Append `text` to the chat as a one-shot note; no model call, nothing in the transcript."""
    return Response("display", text=_require_str("display()", text), error=_optional_str("error", error))


def tool_prompt(text: str, tool_name: str, tool_args: Dict[str, Any], error: Optional[str] = None) -> Response:
    """Run tool `tool_name` with `tool_args` (through the agent's usual guards), then submit `text`
    as the user message; call and result stay in the transcript (zot's tool_prompt action). A host
    without it answers with a warning and runs nothing."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("tool_prompt(): the prompt must be a non-empty str")
    if not isinstance(tool_name, str) or not tool_name:
        raise ValueError("tool_prompt(): the tool name must be a non-empty str")
    if not isinstance(tool_args, dict):
        raise TypeError(f"tool_prompt(): tool_args must be a dict, got {type(tool_args).__name__}")
    return Response("tool_prompt", text=text, error=_optional_str("error", error), tool=(tool_name, dict(tool_args)))


def noop(error: Optional[str] = None) -> Response:
    """The command was handled here (e.g. through notify); the host changes nothing."""
    return Response("noop", error=_optional_str("error", error))


def _panel_content(title: Optional[str], lines: Optional[Sequence[str]], footer: Optional[str]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    if title is not None:
        out["title"] = _require_str("title", title)
    if lines is not None:
        if isinstance(lines, str):
            raise TypeError("lines must be a list of str, not a str")
        out["lines"] = [_require_str("each line", line) for line in lines]
    if footer is not None:
        out["footer"] = _require_str("footer", footer)
    return out


def open_panel(
    id: str,
    title: Optional[str] = None,
    lines: Optional[Sequence[str]] = None,
    footer: Optional[str] = None,
    error: Optional[str] = None,
) -> Response:
    """Open an extension-owned panel `id` (later keys, renders and close use the id)."""
    if not isinstance(id, str) or id == "":
        raise ValueError("open_panel(): the panel id must be a non-empty str")
    panel = {"id": id, **_panel_content(title, lines, footer)}
    return Response("open_panel", panel=panel, error=_optional_str("error", error))


# ------------------------------------------------------------------------------------- results

Block = Dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    """A tool's answer: content blocks, whether it failed, deferred tools it activates."""

    content: List[Block] = field(default_factory=list)
    #: Marks the call as failed; the model sees the content as the error.
    is_error: bool = False
    #: Registered deferred tools that become available after this result.
    activate_tools: List[str] = field(default_factory=list)
    #: zot's `structured_content`: a JSON value next to `content` (the tool's `output_schema`); sent when not None.
    structured_content: Any = None

    def frame(self, request_id: str) -> Dict[str, Any]:
        out: Dict[str, Any] = {"type": "tool_result", "id": request_id, "content": list(self.content)}
        if self.is_error:
            out["is_error"] = True
        if self.activate_tools:
            out["activate_tools"] = list(self.activate_tools)
        if self.structured_content is not None:
            out["structured_content"] = self.structured_content
        return out


def _names(activate_tools: Optional[Sequence[str]]) -> List[str]:
    if activate_tools is None:
        return []
    if isinstance(activate_tools, str):
        raise TypeError("activate_tools must be a list of tool names, not a str")
    return [_require_str("each activate_tools name", name) for name in activate_tools]


def text_result(text: str, error: bool = False, activate_tools: Optional[Sequence[str]] = None) -> ToolResult:
    """One text block; `error=True` marks the call as failed; `activate_tools` names deferred tools."""
    block = {"type": "text", "text": _require_str("text_result()", text)}
    return ToolResult([block], is_error=bool(error), activate_tools=_names(activate_tools))


def markdown_result(text: str, error: bool = False, activate_tools: Optional[Sequence[str]] = None) -> ToolResult:
    """One text block the host may render as Markdown (zot's `format: "markdown"`); the model gets the text as it is."""
    block = {"type": "text", "text": _require_str("markdown_result()", text), "format": "markdown"}
    return ToolResult([block], is_error=bool(error), activate_tools=_names(activate_tools))


def error_result(message: str, activate_tools: Optional[Sequence[str]] = None) -> ToolResult:
    """A failed call whose only content is `message`."""
    return text_result(message, error=True, activate_tools=activate_tools)


def image_result(
    data: Union[bytes, bytearray, memoryview, str],
    mime_type: str,
    error: bool = False,
    activate_tools: Optional[Sequence[str]] = None,
) -> ToolResult:
    """One image block: bytes are base64-encoded for you, a str is taken as base64 already."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        encoded = base64.b64encode(bytes(data)).decode("ascii")
    else:
        encoded = _require_str("image_result() data", data)
    block = {"type": "image", "mime_type": _require_str("mime_type", mime_type), "data": encoded}
    return ToolResult([block], is_error=bool(error), activate_tools=_names(activate_tools))


def tool_result_frame(request_id: str, value: Any) -> Dict[str, Any]:
    """The tool_result for a handler's return value: None is an empty success, a str one text block."""
    if value is None:
        return ToolResult().frame(request_id)
    if isinstance(value, str):
        return text_result(value).frame(request_id)
    if isinstance(value, ToolResult):
        return value.frame(request_id)
    raise TypeError(f"a tool handler must return a ToolResult, a str or None, got {type(value).__name__}")


# ----------------------------------------------------------------------------------- decisions

@dataclass(frozen=True)
class CallToolResult:
    """What Context.call_tool() returns: the tool's answer as the host bounded it."""

    #: Text and image blocks as sent (a text block keeps its "format").
    content: List[Dict[str, Any]]
    #: The tool failed, or the host refused the call (unknown tool, a cycle, blocked...): `text` says why.
    is_error: bool = False
    #: The host cut the answer to its bound (256 KiB, 128 blocks).
    truncated: bool = False

    @property
    def text(self) -> str:
        """The text blocks, joined with newlines."""
        return "\n".join(b["text"] for b in self.content if b.get("type") == "text")


class CallToolError(Exception):
    """Context.call_tool() could not get an answer: `code` is "unavailable" (not declared, or the
    host does not offer call_tool), "invalid" (name or args), "timeout" or "stopped" (the run ended)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Decision:
    """An interceptor's verdict: Decision.allow(), .block(reason), .rewrite(args), .replace_text(text)."""

    blocked: bool = False
    reason: Optional[str] = None
    modified_args: Optional[Dict[str, Any]] = None
    replacement: Optional[str] = None

    @staticmethod
    def allow() -> "Decision":
        """Let it happen unchanged (returning None does the same)."""
        return Decision()

    @staticmethod
    def block(reason: str = "") -> "Decision":
        """Refuse it: a tool call's reason goes to the model, a turn's or message's to the user."""
        return Decision(blocked=True, reason=_require_str("Decision.block() reason", reason))

    @staticmethod
    def rewrite(args: Dict[str, Any]) -> "Decision":
        """tool_call only: the tool runs with these args instead."""
        if not isinstance(args, dict):
            raise TypeError(f"Decision.rewrite() args must be a dict, got {type(args).__name__}")
        return Decision(modified_args=args)

    @staticmethod
    def replace_text(text: str) -> "Decision":
        """assistant_message only: the user sees `text` ("" included); the transcript keeps the original."""
        return Decision(replacement=_require_str("Decision.replace_text()", text))


def decision_frame(request_id: str, event: str, value: Any) -> Dict[str, Any]:
    """The event_intercept_response for an interceptor's return value.

    Raises TypeError for a value that is no answer to `event` (the caller allows and logs it).
    """
    out: Dict[str, Any] = {"type": "event_intercept_response", "id": request_id}
    if value is None:
        return out
    if event == "before_agent_start":
        if not isinstance(value, str):
            raise TypeError(f"a before_agent_start interceptor returns a str or None, got {type(value).__name__}")
        out["system_prompt"] = value
        return out
    if not isinstance(value, Decision):
        raise TypeError(f"a {event} interceptor returns a Decision or None, got {type(value).__name__}")
    if value.modified_args is not None and event != "tool_call":
        raise TypeError(f"Decision.rewrite() answers tool_call only, not {event}")
    if value.replacement is not None and event != "assistant_message":
        raise TypeError(f"Decision.replace_text() answers assistant_message only, not {event}")
    if value.blocked:
        out["block"] = True
        if value.reason:
            out["reason"] = value.reason
    if value.modified_args is not None:
        out["modified_args"] = value.modified_args
    if value.replacement is not None:
        out["replace_text"] = value.replacement
    return out
