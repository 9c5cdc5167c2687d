"""`Extension`: the extension side of the zot protocol, registered with decorators."""
from __future__ import annotations

import asyncio
import inspect
import json
import os
import re
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple, TypeVar, overload

from ._context import Panel, notify_frame, submit_frame
from ._requests import with_protocol_extensions
from ._session import MAX_PENDING, Session, _on_loop
from ._stdio import run_stdio
from ._values import HostInfo
from ._wire import INTERCEPT_ARITY, INTERCEPT_NAMES

F = TypeVar("F", bound=Callable[..., Any])

# Providers accept these tool names (Anthropic and OpenAI: 1-64 of [a-zA-Z0-9_-]).
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class DefinitionError(ValueError):
    """A registration is invalid: empty or duplicate name, a schema that is no JSON object, no handler."""


@dataclass
class _Tool:
    name: str
    description: Optional[str]
    schema: Dict[str, Any]
    deferred: bool
    handler: Callable[..., Any]
    interactive: bool = False
    #: zot's tool metadata as wire fields, only those given.
    meta: Dict[str, Any] = field(default_factory=dict)


_EXPOSURES = ("direct", "codemode", "deferred", "model-only")
_REPLAYS = ("never", "safe", "idempotent", "reconcile")


def _check_handler(what: str, handler: Any) -> None:
    if not callable(handler):
        raise DefinitionError(f"{what}: the handler must be callable, got {type(handler).__name__}")


def _takes_keyword(fn: Any, name: str) -> bool:
    """True when `fn` has a keyword-only parameter `name` (or takes `**kwargs`)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind is inspect.Parameter.VAR_KEYWORD or (p.name == name and p.kind is inspect.Parameter.KEYWORD_ONLY) for p in params)


def _takes_positional(fn: Any, count: int) -> bool:
    """True when `fn` can be called with `count` positional arguments (a `*args` counts)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = 0
    for param in params:
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            return True
        if param.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            positional += 1
    return positional >= count


class Extension:
    """An extension: register commands, tools, events, interceptors and panels, then call run().

    Handlers may be plain functions or ``async def``; all run on one asyncio loop. An async handler
    that awaits lets every other request proceed; a plain function runs to its end first, so keep it
    short (or hand blocking work to ``await asyncio.to_thread(...)``).
    """

    def __init__(self, name: str, version: Optional[str] = None, capabilities: Optional[Sequence[str]] = None, call_tools: bool = False) -> None:
        """`name` must match extension.json. `capabilities` @default derived at run() from the
        registrations; "cancel", "progress" and "trace" are appended either way. Add "tool_cancel" to
        get zot's own tool_cancel frame, handled as "cancel" (not declared by default). `call_tools`
        lets handlers run tools through the host with ctx.call_tool() (declares zot's "call_tool",
        as listing it in `capabilities` does). @default False"""
        if not isinstance(name, str) or not name.strip():
            raise DefinitionError("Extension(): the name must be a non-empty str")
        if version is not None and not isinstance(version, str):
            raise DefinitionError("Extension(): the version must be a str")
        self.name = name
        self.version = version
        self._capabilities = None if capabilities is None else [str(c) for c in capabilities]
        self._call_tools = bool(call_tools)
        self._hello_handlers: List[Callable[..., Any]] = []
        #: Keyed by lower-cased name: command names are case-insensitive.
        self._commands: Dict[str, Tuple[str, Optional[str], Callable[..., Any]]] = {}
        self._tools: Dict[str, _Tool] = {}
        self._events: Dict[str, List[Callable[..., Any]]] = {}
        self._interceptors: Dict[str, Callable[..., Any]] = {}
        #: Interceptors whose handler takes the Context after the event's values.
        self._interceptors_with_ctx: Set[str] = set()
        #: Interceptors that take an `origin_extension` keyword (tool_call: zot's call_tool origin).
        self._interceptors_with_origin: Set[str] = set()
        self._panel_keys: Dict[str, Callable[..., Any]] = {}
        self._panel_closes: Dict[str, Callable[..., Any]] = {}
        self._session: Optional[Session] = None
        self._host: Optional[HostInfo] = None
        self._outbox: List[Dict[str, Any]] = []
        self._ran = False

    @property
    def host(self) -> Optional[HostInfo]:
        """The host's `hello_ack` information; None until the handshake of a run."""
        return self._host

    # ------------------------------------------------------------------ registration

    @overload
    def on_hello(self, handler: F) -> F: ...
    @overload
    def on_hello(self, handler: None = None) -> Callable[[F], F]: ...

    def on_hello(self, handler: Optional[F] = None) -> Any:
        """Decorator: `handler(info)` runs after hello_ack, before registrations are announced
        (register more there based on info.cwd, provider, model...). Handlers run in order; an
        exception is logged and the run goes on."""
        def register(fn: F) -> F:
            _check_handler("on_hello", fn)
            self._hello_handlers.append(fn)
            return fn
        return register if handler is None else register(handler)

    def command(self, name: str, description: Optional[str] = None) -> Callable[[F], F]:
        """Decorator: a slash command `handler(args: str, ctx)` returning a Response (None means noop()).
        Names are case-insensitive, given without the "/"."""
        if not isinstance(name, str) or not name or name.startswith("/") or any(c.isspace() for c in name):
            raise DefinitionError(f"command {name!r}: a name is one word without spaces or a leading \"/\"")
        if description is not None and not isinstance(description, str):
            raise DefinitionError(f'command "{name}": the description must be a str')

        def register(fn: F) -> F:
            _check_handler(f'command "{name}"', fn)
            existing = self._commands.get(name.lower())
            if existing is not None:
                raise DefinitionError(f'command "{name}" is already registered (as "{existing[0]}")')
            self._commands[name.lower()] = (name, description, fn)
            self._announce(self._command_frame(name, description))
            return fn
        return register

    def tool(
        self,
        name: str,
        description: Optional[str] = None,
        schema: Optional[Dict[str, Any]] = None,
        deferred: bool = False,
        interactive: bool = False,
        *,
        output_schema: Any = None,
        namespace: Optional[str] = None,
        namespace_description: Optional[str] = None,
        namespace_instructions: Optional[str] = None,
        exposure: Optional[str] = None,
        replay: Optional[str] = None,
    ) -> Callable[[F], F]:
        """Decorator: a tool the model can call, `handler(args: dict, ctx)` returning a ToolResult,
        a str or None. `schema` (a JSON Schema object) is sent as is; args are not validated against
        it. @default schema {"type": "object", "properties": {}}. `deferred=True` registers it
        unadvertised until a result names it in `activate_tools`. @default deferred False.
        `interactive=True`: its calls wait for the user (ctx.ask / ctx.open_panel), and the host applies
        no default reply deadline to them (zot's register_tool.interactive). @default interactive False.

        zot's tool metadata, each sent only when given: `output_schema` (describes a result's
        `structured_content`), `namespace`, `namespace_description`, `namespace_instructions`,
        `exposure` ("direct", "codemode", "deferred", "model-only"), `replay` ("never", "safe",
        "idempotent", "reconcile")."""
        if not isinstance(name, str) or not _TOOL_NAME.match(name):
            raise DefinitionError(f'tool {name!r}: a name is 1-64 characters of a-z, A-Z, 0-9, "_" and "-"')
        if description is not None and not isinstance(description, str):
            raise DefinitionError(f'tool "{name}": the description must be a str')
        if schema is None:
            schema = {"type": "object", "properties": {}}
        if not isinstance(schema, dict):
            raise DefinitionError(f'tool "{name}": the schema must be a dict (a JSON Schema object)')
        try:
            json.dumps(schema, allow_nan=False)
        except (TypeError, ValueError) as err:
            raise DefinitionError(f'tool "{name}": the schema is not JSON ({err})') from None

        meta: Dict[str, Any] = {}
        for key, value, allowed in (
            ("namespace", namespace, None),
            ("namespace_description", namespace_description, None),
            ("namespace_instructions", namespace_instructions, None),
            ("exposure", exposure, _EXPOSURES),
            ("replay", replay, _REPLAYS),
        ):
            if value is None:
                continue
            if not isinstance(value, str) or (allowed is not None and value not in allowed):
                expected = "a str" if allowed is None else "one of " + ", ".join(allowed)
                raise DefinitionError(f'tool "{name}": {key} must be {expected}')
            meta[key] = value
        if output_schema is not None:
            try:
                json.dumps(output_schema, allow_nan=False)
            except (TypeError, ValueError) as err:
                raise DefinitionError(f'tool "{name}": the output_schema is not JSON ({err})') from None
            meta["output_schema"] = output_schema

        def register(fn: F) -> F:
            _check_handler(f'tool "{name}"', fn)
            if name in self._tools:
                raise DefinitionError(f'tool "{name}" is already registered')
            tool = _Tool(name, description, schema, bool(deferred), fn, bool(interactive), meta)
            self._tools[name] = tool
            self._announce(self._tool_frame(tool))
            return fn
        return register

    def on_event(self, event: str) -> Callable[[F], F]:
        """Decorator: `handler(event: dict)` observes a lifecycle event (subscribed automatically);
        the dict is the frame's fields without "type". Any name works, for hosts with their own."""
        if not isinstance(event, str) or not event:
            raise DefinitionError("on_event(): the event name must be a non-empty str")

        def register(fn: F) -> F:
            _check_handler(f'event "{event}"', fn)
            self._events.setdefault(event, []).append(fn)
            self._announce_subscriptions()
            return fn
        return register

    def _intercept(self, event: str, handler: Optional[F]) -> Any:
        assert event in INTERCEPT_NAMES

        def register(fn: F) -> F:
            _check_handler(f'interceptor "{event}"', fn)
            if event in self._interceptors:
                raise DefinitionError(f'an interceptor for "{event}" is already registered')
            self._interceptors[event] = fn
            if _takes_positional(fn, INTERCEPT_ARITY[event] + 1):
                self._interceptors_with_ctx.add(event)
            if event == "tool_call" and _takes_keyword(fn, "origin_extension"):
                self._interceptors_with_origin.add(event)
            self._announce_subscriptions()
            return fn
        return register if handler is None else register(handler)

    def intercept_tool_call(self, handler: Optional[F] = None) -> Any:
        """Decorator: `handler(tool_name: str, args: dict[, ctx])` -> Decision.allow() / .block(reason) /
        .rewrite(args), or None (allow). An exception allows the call (logged). A handler that takes
        one more positional parameter gets the request's Context there (cancel, trace context). A
        keyword-only parameter `origin_extension` gets the extension that started the call (zot's
        call_tool), None for the agent's own (also `ctx.origin_extension`)."""
        return self._intercept("tool_call", handler)

    def intercept_turn_start(self, handler: Optional[F] = None) -> Any:
        """Decorator: `handler(step: int[, ctx])` -> Decision.allow() / .block(reason), or None."""
        return self._intercept("turn_start", handler)

    def intercept_assistant_message(self, handler: Optional[F] = None) -> Any:
        """Decorator: `handler(text: str[, ctx])` -> Decision.allow() / .block(reason) / .replace_text(s), or None."""
        return self._intercept("assistant_message", handler)

    def intercept_before_agent_start(self, handler: Optional[F] = None) -> Any:
        """Decorator: `handler(event: BeforeAgentStart[, ctx])` -> None (keep the system prompt) or a str
        (the whole replacement; "" removes it)."""
        return self._intercept("before_agent_start", handler)

    def _panel_handler(self, table: Dict[str, Callable[..., Any]], what: str, panel_id: str) -> Callable[[F], F]:
        if not isinstance(panel_id, str) or not panel_id:
            raise DefinitionError(f"{what}(): the panel id must be a non-empty str")

        def register(fn: F) -> F:
            _check_handler(f'{what} "{panel_id}"', fn)
            if panel_id in table:
                raise DefinitionError(f'{what} for panel "{panel_id}" is already registered')
            table[panel_id] = fn
            return fn
        return register

    def on_panel_key(self, panel_id: str) -> Callable[[F], F]:
        """Decorator: `handler(key: str, text: str | None, panel: Panel)` for the keys of a panel.
        `key` is one of PANEL_KEYS or another name the host forwarded as it is.
        Keys of one panel reach it in order, each after the previous one finished."""
        return self._panel_handler(self._panel_keys, "on_panel_key", panel_id)

    def on_panel_close(self, panel_id: str) -> Callable[[F], F]:
        """Decorator: `handler(panel: Panel)` when the user closed the panel in the host."""
        return self._panel_handler(self._panel_closes, "on_panel_close", panel_id)

    # ------------------------------------------------------------------ one-way frames

    def notify(self, message: str, level: str = "info") -> None:
        """Shows a one-shot note with this extension's name; level: info, success, warn or error."""
        self._send_one_way(notify_frame(message, level))

    def clear_notes(self) -> None:
        """Removes every note this extension pushed."""
        self._send_one_way({"type": "clear_notes"})

    def submit(self, text: str) -> None:
        """Submits `text` as a user prompt (blank text is ignored by the host)."""
        self._send_one_way(submit_frame(text))

    def panel(self, panel_id: str) -> Panel:
        """A handle to render or close a panel (open it with the open_panel() command response)."""
        return Panel(panel_id, self._send_one_way)

    def _send_one_way(self, frame: Dict[str, Any]) -> None:
        session = self._session
        if session is None:
            if not self._ran and len(self._outbox) < MAX_PENDING:
                self._outbox.append(frame)
            return
        # Thread-safe: a handler may have handed work to asyncio.to_thread.
        if _on_loop(session.loop):
            session.send_one_way(frame)
        else:
            session.loop.call_soon_threadsafe(session.send_one_way, frame)

    # ------------------------------------------------------------------ frames

    def _hello_frame(self) -> Dict[str, Any]:
        frame: Dict[str, Any] = {"type": "hello", "name": self.name}
        if self.version is not None:
            frame["version"] = self.version
        caps = self._capabilities if self._capabilities is not None else self._derived_capabilities()
        # The protocol extensions are always declared: inert unless the host grants them in hello_ack.
        if self._call_tools and "call_tool" not in caps:
            caps = [*caps, "call_tool"]
        frame["capabilities"] = with_protocol_extensions(caps)
        return frame

    def _derived_capabilities(self) -> List[str]:
        caps = []
        if self._commands:
            caps.append("commands")
        if self._tools:
            caps.append("tools")
        if self._events:
            caps.append("events")
        if self._interceptors:
            caps.append("intercept")
        if self._panel_keys or self._panel_closes:
            caps.append("panels")
        return caps

    @staticmethod
    def _command_frame(name: str, description: Optional[str]) -> Dict[str, Any]:
        frame: Dict[str, Any] = {"type": "register_command", "name": name}
        if description is not None:
            frame["description"] = description
        return frame

    @staticmethod
    def _tool_frame(tool: _Tool) -> Dict[str, Any]:
        frame: Dict[str, Any] = {"type": "register_tool", "name": tool.name}
        if tool.description is not None:
            frame["description"] = tool.description
        frame["schema"] = tool.schema
        if tool.deferred:
            frame["deferred"] = True
        if tool.interactive:
            frame["interactive"] = True
        frame.update(tool.meta)
        return frame

    def _subscribe_frame(self) -> Optional[Dict[str, Any]]:
        if not self._events and not self._interceptors:
            return None
        return {"type": "subscribe", "events": list(self._events), "intercept": list(self._interceptors)}

    def _registration_frames(self) -> Iterator[Dict[str, Any]]:
        for name, description, _ in list(self._commands.values()):
            yield self._command_frame(name, description)
        for tool in list(self._tools.values()):
            yield self._tool_frame(tool)
        subscribe = self._subscribe_frame()
        if subscribe is not None:
            yield subscribe

    def _find_command(self, name: str) -> Optional[Tuple[str, Callable[..., Any]]]:
        found = self._commands.get(name.lower())
        return None if found is None else (found[0], found[2])

    def _announce(self, frame: Dict[str, Any]) -> None:
        session = self._session
        if session is not None:
            if _on_loop(session.loop):
                session.announce(frame)
            else:
                session.loop.call_soon_threadsafe(session.announce, frame)

    def _announce_subscriptions(self) -> None:
        frame = self._subscribe_frame()
        if frame is not None:
            self._announce(frame)

    # ------------------------------------------------------------------ running

    def _attach(self, write: Callable[[bytes], None], log: Callable[[str], None], loop: asyncio.AbstractEventLoop) -> Session:
        """A session for one run (stdio or the test kit); the caller starts it on `loop`."""
        if self._session is not None:
            raise RuntimeError(f'extension "{self.name}" is already running')
        session = Session(self, write, log, loop)
        if not self._ran:
            session._pending.extend(self._outbox)
            self._outbox = []
        self._ran = True
        self._session = session
        return session

    def _detach(self, session: Session) -> None:
        if self._session is session:
            self._session = None

    def run(self) -> None:
        """Speaks the protocol on stdin/stdout until the host says `shutdown` (acked) or stdin ends,
        then exits the process (code 0; 1 after a frame over the 4 MiB cap).

        Sends hello, waits for hello_ack, runs the on_hello handlers, announces every registration
        and one subscribe, then ready. While it runs, stdout carries frames only: print() and
        anything else writing to stdout (file descriptor 1) goes to stderr.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError("ext.run() runs its own asyncio loop: call it at the top level, not from async code")
        code = run_stdio(self)
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
            # A worker thread still runs (e.g. a hung asyncio.to_thread): it must not keep the process alive.
            os._exit(code)
        sys.exit(code)
