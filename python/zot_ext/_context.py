"""What every handler can use besides its return value: notes, submit, panels."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Sequence

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

    def __init__(self, panel_id: str, send: SendFn) -> None:
        self.id = panel_id
        self._send = send

    def render(self, lines: Sequence[str], title: Optional[str] = None, footer: Optional[str] = None) -> None:
        """Pushes fresh content for the open panel (`panel_render`)."""
        self._send({"type": "panel_render", "panel_id": self.id, **_panel_content(title, lines, footer)})

    def close(self) -> None:
        """Closes the panel (`panel_close`)."""
        self._send({"type": "panel_close", "panel_id": self.id})

    def __repr__(self) -> str:
        return f"Panel({self.id!r})"


class Context:
    """Handed to command and tool handlers: the host's info and one-way frames to it."""

    def __init__(self, ext: "Extension", host: HostInfo, request_id: str) -> None:
        self._ext = ext
        #: The host's `hello_ack` information.
        self.host = host
        #: The id of the request being answered.
        self.request_id = request_id

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
