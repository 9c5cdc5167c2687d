"""Definitions and the canonical start: hello, hello_ack, on_hello, registrations, subscribe, ready."""
import asyncio
import unittest

from zot_ext import DefinitionError, Extension, display, text_result
from zot_ext.testing import TestHost


def types(frames):
    return [f["type"] for f in frames]


class DefinitionTest(unittest.TestCase):
    def test_bad_definitions_raise_at_once(self):
        with self.assertRaises(DefinitionError):
            Extension("")
        ext = Extension("x")
        for bad in ["", "/slash", "two words"]:
            with self.assertRaises(DefinitionError):
                ext.command(bad)
        for bad in ["", "has space", "é", "x" * 65]:
            with self.assertRaises(DefinitionError):
                ext.tool(bad)
        with self.assertRaises(DefinitionError):
            ext.tool("t", schema=["not", "a", "dict"])
        with self.assertRaises(DefinitionError):
            ext.tool("t", schema={"default": {1, 2}})
        with self.assertRaises(DefinitionError):
            ext.command("c")("not callable")
        with self.assertRaises(DefinitionError):
            ext.on_event("")
        with self.assertRaises(DefinitionError):
            ext.on_panel_key("")

    def test_duplicates_raise_commands_case_insensitively(self):
        ext = Extension("x")
        ext.command("Weather")(lambda args, ctx: None)
        with self.assertRaisesRegex(DefinitionError, 'command "weather" is already registered \\(as "Weather"\\)'):
            ext.command("weather")(lambda args, ctx: None)
        ext.tool("t")(lambda args, ctx: None)
        with self.assertRaises(DefinitionError):
            ext.tool("t")(lambda args, ctx: None)
        ext.intercept_turn_start(lambda step: None)
        with self.assertRaises(DefinitionError):
            ext.intercept_turn_start(lambda step: None)
        ext.on_panel_key("p")(lambda key, text, panel: None)
        with self.assertRaises(DefinitionError):
            ext.on_panel_key("p")(lambda key, text, panel: None)

    def test_decorators_return_the_function(self):
        ext = Extension("x")

        def handler(args, ctx):
            return None
        self.assertIs(ext.command("c")(handler), handler)
        self.assertIs(ext.intercept_tool_call(handler), handler)
        self.assertIs(ext.intercept_assistant_message()(handler), handler)


class HandshakeTest(unittest.TestCase):
    def test_canonical_order_and_derived_capabilities(self):
        ext = Extension("order", "2.0.0")
        seen = []

        @ext.on_hello
        def first(info):
            seen.append(("hello", info.cwd, info.provider, info.model, info.zot_version, info.extension_dir, info.data_dir, info.protocol_version))
            # Registered from on_hello: still announced before ready.
            ext.command("fromhello", "registered in on_hello")(lambda args, ctx: display(info.cwd))

        @ext.on_hello
        async def second(info):
            await asyncio.sleep(0)
            seen.append("async hello")

        ext.command("c", "a command")(lambda args, ctx: None)
        ext.tool("t", "a tool", deferred=True)(lambda args, ctx: None)
        ext.on_event("turn_end")(lambda event: None)
        ext.on_event("session_start")(lambda event: None)
        ext.intercept_tool_call(lambda name, args: None)
        ext.on_panel_close("p")(lambda panel: None)
        with TestHost(ext, cwd="/work", provider="anthropic", model="opus", zot_version="9.9", extension_dir="/ext", data_dir="/data") as h:
            self.assertEqual(seen, [("hello", "/work", "anthropic", "opus", "9.9", "/ext", "/data", 1), "async hello"])
            self.assertEqual(h.frames[0], {"type": "hello", "name": "order", "version": "2.0.0", "capabilities": ["commands", "tools", "events", "intercept", "panels", "cancel", "progress", "trace"]})
            self.assertEqual(types(h.frames), ["hello", "register_command", "register_command", "register_tool", "subscribe", "ready"])
            self.assertEqual(h.frames[1], {"type": "register_command", "name": "c", "description": "a command"})
            self.assertEqual(h.frames[3], {"type": "register_tool", "name": "t", "description": "a tool", "schema": {"type": "object", "properties": {}}, "deferred": True})
            self.assertEqual(h.frames[4], {"type": "subscribe", "events": ["turn_end", "session_start"], "intercept": ["tool_call"]})
            self.assertEqual(h.command("/fromhello"), {"action": "display", "display": "/work"})
            self.assertEqual(ext.host.cwd, "/work")
            self.assertEqual(ext.host.raw, h.hello_ack)

    def test_explicit_capabilities_no_version_no_subscribe(self):
        ext = Extension("bare", capabilities=["commands", "custom"])
        with TestHost(ext) as h:
            self.assertEqual(h.frames, [{"type": "hello", "name": "bare", "capabilities": ["commands", "custom", "cancel", "progress", "trace"]}, {"type": "ready"}])

    def test_a_raising_on_hello_is_logged_and_the_run_goes_on(self):
        ext = Extension("x")

        @ext.on_hello
        def broken(info):
            raise KeyError("cwd")
        ext.command("c")(lambda args, ctx: display("ok"))
        with TestHost(ext) as h:
            self.assertEqual(h.command("/c"), {"action": "display", "display": "ok"})
            self.assertTrue(any("on_hello handler failed" in line and "KeyError" in line for line in h.stderr))

    def test_frames_before_ready_wait_and_keep_their_order(self):
        ext = Extension("early")
        gate = []

        @ext.on_hello
        async def slow_hello(info):
            while not gate:
                await asyncio.sleep(0.001)

        ext.command("c")(lambda args, ctx: display(args))
        ext.notify("queued before the run")
        h = TestHost(ext)
        h.start(handshake=False)
        try:
            h.send(h.hello_ack)
            h.send({"type": "command_invoked", "id": "a", "name": "c", "args": "first"})
            h.send({"type": "command_invoked", "id": "b", "name": "c", "args": "second"})
            gate.append(True)
            h.wait_for(lambda f: f.get("id") == "b")
            self.assertEqual(
                [(f["type"], f.get("display") or f.get("message")) for f in h.frames[2:]],
                [("ready", None), ("notify", "queued before the run"), ("command_response", "first"), ("command_response", "second")],
            )
        finally:
            h.close()

    def test_a_second_hello_ack_is_ignored(self):
        ext = Extension("x")
        with TestHost(ext) as h:
            h.send(h.hello_ack)
            h.shutdown()
            self.assertEqual(types(h.frames), ["hello", "ready", "shutdown_ack"])
            self.assertIn("[x] ignored a second hello_ack", h.stderr)

    def test_one_extension_cannot_run_twice_at_once_but_can_run_again(self):
        ext = Extension("twice")
        ext.tool("t")(lambda args, ctx: text_result("ok"))
        with TestHost(ext):
            with self.assertRaisesRegex(RuntimeError, "already running"):
                TestHost(ext).start()
        with TestHost(ext) as again:
            self.assertEqual(again.call_tool("t"), {"content": [{"type": "text", "text": "ok"}]})


class StopTest(unittest.TestCase):
    def test_shutdown_is_acked_and_ends_the_run(self):
        ext = Extension("x")
        with TestHost(ext) as h:
            self.assertEqual(h.shutdown(), {"type": "shutdown_ack"})
            self.assertEqual(h.exit_code, 0)

    def test_end_of_input_ends_the_run_without_an_ack(self):
        ext = Extension("x")
        with TestHost(ext) as h:
            self.assertEqual(h.end_input(), 0)
            self.assertNotIn("shutdown_ack", types(h.frames))
