"""The probe the zot wire transcript (test/fixtures/wire/zot-manager.transcript) is replayed against:
every answer it gives is made of the values the SDK handed its handlers, so a field the SDK read
wrongly shows in the answer. test/sdk/fixtures/zot-probe.ts is the same probe for the TypeScript SDK.
Run as a script, it is that extension on stdin/stdout."""
import asyncio
import json

from zot_ext import Decision, Extension, ToolResult, display, markdown_result, open_panel

_TOOL = ("tool_id", "tool_name")
#: Per event, the fields the probe answers with, in order; "?" marks one present only when sent.
EVENTS = {
    "session_start": (),
    "turn_start": ("step",),
    "turn_end": ("stop",),
    "tool_call": (*_TOOL, "tool_args", "tool_args_raw?", "origin_extension?"),
    "tool_confirmation_requested": (*_TOOL, "tool_preview", "origin_extension?"),
    "assistant_message": ("text",),
    "session_end": ("reason",),
    "user_prompt_submit": ("text", "queued", "image_count"),
    "tool_result": (*_TOOL, "tool_args", "tool_args_raw?", "status", "executed", "result.content", "result.is_error", "result.truncated", "origin_extension?"),
    "permission_decision": (*_TOOL, "decision", "source", "stage", "reason", "origin_extension?"),
    "pre_compact": ("compaction_id", "message_count", "token_estimate"),
    "post_compact": ("compaction_id", "message_count", "token_estimate", "status", "error"),
    "subagent_start": ("agent_id", "agent_run_id", "name"),
    "subagent_stop": ("agent_id", "agent_run_id", "name", "status", "error"),
}


def _json(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _value(event, field):
    if field.endswith("?"):
        return event.get(field[:-1])
    if field.startswith("result."):
        return event["result"][field[7:]]
    return event[field]


def create_probe():
    # Declares zot's "tool_cancel", as zot sends it only to extensions that do.
    # Declares zot's "call_tool" too: "relay" calls a tool when the host offers it.
    ext = Extension("zot-probe", "1.0.0", capabilities=["commands", "tools", "events", "intercept", "panels", "tool_cancel"], call_tools=True)

    @ext.command("probe")
    def probe(args, ctx):
        return display(f"args=[{args}]")

    @ext.command("host")
    def host(args, ctx):
        h = ctx.host
        return display(_json([h.protocol_version, h.zot_version, h.provider, h.model, h.cwd, h.extension_dir, h.data_dir]))

    @ext.command("panel")
    def panel(args, ctx):
        return open_panel("probe-panel", title="Probe", lines=["ready"])

    @ext.tool("probe", "echoes its args")
    def probe_tool(args, ctx):
        return _json(args)

    @ext.tool("wait", "waits until the host cancels it")
    async def wait(args, ctx):
        ext.notify("wait started", "info")
        try:
            await asyncio.Event().wait()
        finally:
            ext.notify("wait cancelled", "info")

    @ext.tool("forecast", "the weather", output_schema={"type": "object", "properties": {"celsius": {"type": "number"}}},
              namespace="weather", namespace_description="Weather lookups", exposure="codemode", replay="reconcile")
    def forecast(args, ctx):
        if ctx.reconcile:
            return ToolResult([{"type": "text", "text": ctx.operation_key or ""}], structured_content={"state": "not_started"})
        result = markdown_result(f"## {args['city']}\n16 °C")
        return ToolResult(result.content, structured_content={"city": args["city"], "celsius": 16})

    @ext.tool("relay", "reads a file through the host")
    async def relay(args, ctx):
        r = await ctx.call_tool("read", args)
        return ToolResult([{"type": "text", "text": r.text}], structured_content={"blocks": len(r.content), "is_error": r.is_error, "truncated": r.truncated})

    def observe(name, fields):
        def note(event):
            values = [_value(event, f) for f in fields]
            lifecycle = [event.get("session_id"), event.get("cwd"), event.get("sequence")]
            ext.notify(f"{name} {_json(values)} {_json(lifecycle)}", "info")
        ext.on_event(name)(note)

    for name, fields in EVENTS.items():
        observe(name, fields)

    def seen(tool_name, args, *, origin_extension=None):
        origin = {} if origin_extension is None else {"origin": origin_extension}
        return Decision.rewrite({**args, "seen_by": f"zot-probe:{tool_name}", **origin})
    ext.intercept_tool_call(seen)
    ext.intercept_turn_start(lambda step: Decision.block(f"step {step}"))
    ext.intercept_assistant_message(lambda text: Decision.replace_text(f"[{text}]"))
    ext.intercept_before_agent_start(lambda i: _json([i.session_id, i.agent_run_id, i.cwd, i.provider, i.model, i.system_prompt]))

    @ext.on_panel_key("probe-panel")
    def key(key, text, panel):
        panel.render([f"{key}:{text or ''}"])

    @ext.on_panel_close("probe-panel")
    def close(panel):
        ext.notify("closed probe-panel", "info")

    return ext


if __name__ == "__main__":
    create_probe().run()
