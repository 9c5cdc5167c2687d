"""The probe the zot wire transcript (test/fixtures/wire/zot-manager.transcript) is replayed against:
every answer it gives is made of the values the SDK handed its handlers, so a field the SDK read
wrongly shows in the answer. test/sdk/fixtures/zot-probe.ts is the same probe for the TypeScript SDK.
Run as a script, it is that extension on stdin/stdout."""
import json

from zot_ext import Decision, Extension, display, open_panel

#: Events the probe answers with their typed values: name -> the payload fields, in order.
TYPED_EVENTS = {
    "session_start": (),
    "turn_start": ("step",),
    "turn_end": ("stop",),
    "tool_call": ("tool_id", "tool_name", "tool_args"),
    "tool_confirmation_requested": ("tool_id", "tool_name", "tool_preview"),
    "assistant_message": ("text",),
}
#: Events zot added after the spec snapshot: the probe echoes their frame as it came.
ECHOED_EVENTS = (
    "session_end", "user_prompt_submit", "tool_result", "permission_decision",
    "pre_compact", "post_compact", "subagent_start", "subagent_stop",
)


def _json(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def create_probe():
    ext = Extension("zot-probe", "1.0.0")

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

    def typed(name, fields):
        ext.on_event(name)(lambda event: ext.notify(f"{name} {_json([event[f] for f in fields])}", "info"))

    for name, fields in TYPED_EVENTS.items():
        typed(name, fields)

    def echoed(name):
        ext.on_event(name)(lambda event: ext.notify(f"{name} {_json({'type': 'event', **event})}", "info"))

    for name in ECHOED_EVENTS:
        echoed(name)

    ext.intercept_tool_call(lambda tool_name, args: Decision.rewrite({**args, "seen_by": f"zot-probe:{tool_name}"}))
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
