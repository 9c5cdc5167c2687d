"""Tools: results, images, deferred tools and activate_tools, errors, late registration."""
import asyncio
import unittest

from zot_ext import DefinitionError, Extension, ToolResult, error_result, image_result, markdown_result, noop, text_result
from zot_ext.testing import TestHost

TEXT = lambda s: {"type": "text", "text": s}  # noqa: E731


def tools():
    ext = Extension("tools")

    @ext.tool("echo", "Echo.", schema={"type": "object"})
    def echo(args, ctx):
        return text_result(repr(sorted(args.items())))

    @ext.tool("plain")
    def plain(args, ctx):
        return "a plain str"

    @ext.tool("empty")
    def empty(args, ctx):
        return None

    @ext.tool("png")
    def png(args, ctx):
        return image_result(b"\x89PNG\r\n\x1a\n", "image/png")

    @ext.tool("b64")
    def b64(args, ctx):
        return image_result("iVBORw0KGgo=", "image/png")

    @ext.tool("both")
    def both(args, ctx):
        return ToolResult([TEXT("see"), {"type": "image", "mime_type": "image/gif", "data": "R0lG"}])

    @ext.tool("fail")
    def fail(args, ctx):
        return error_result("failed on purpose")

    @ext.tool("flagged")
    def flagged(args, ctx):
        return text_result("partial", error=True)

    @ext.tool("secret", "Deferred.", deferred=True)
    def secret(args, ctx):
        return text_result("found")

    @ext.tool("loader")
    def loader(args, ctx):
        return text_result("loaded", activate_tools=["secret", "no_such_tool"])

    @ext.tool("boom")
    def boom(args, ctx):
        raise RuntimeError("kaboom")

    @ext.tool("wrong")
    def wrong(args, ctx):
        return {"content": "a dict is not a result"}

    @ext.tool("notjson")
    def notjson(args, ctx):
        return ToolResult([{"type": "text", "text": {1}}])

    @ext.tool("huge")
    def huge(args, ctx):
        return "x" * (4 * 1024 * 1024)

    @ext.tool("async_tool")
    async def async_tool(args, ctx):
        await asyncio.sleep(0.001)
        return text_result(f"async {ctx.request_id}")

    @ext.tool("register")
    def register(args, ctx):
        @ext.tool("late", "registered after ready")
        def late(args, ctx):
            return text_result("late")

        @ext.command("latecmd")
        def latecmd(args, ctx):
            return noop()

        @ext.on_event("late_event")
        def late_event(event):
            ctx.notify("late event")

    return ext


class ToolTest(unittest.TestCase):
    def setUp(self):
        self.h = TestHost(tools())
        self.h.start()
        self.addCleanup(self.h.close)

    def test_results(self):
        h = self.h
        self.assertEqual(h.call_tool("echo", {"b": 1, "a": [2]}), {"content": [TEXT("[('a', [2]), ('b', 1)]")]})
        self.assertEqual(h.call_tool("plain"), {"content": [TEXT("a plain str")]})
        self.assertEqual(h.call_tool("empty"), {"content": []})
        self.assertEqual(h.call_tool("png"), {"content": [{"type": "image", "mime_type": "image/png", "data": "iVBORw0KGgo="}]})
        self.assertEqual(h.call_tool("b64"), {"content": [{"type": "image", "mime_type": "image/png", "data": "iVBORw0KGgo="}]})
        self.assertEqual(h.call_tool("both")["content"][1]["mime_type"], "image/gif")
        self.assertEqual(h.call_tool("fail"), {"content": [TEXT("failed on purpose")], "is_error": True})
        self.assertEqual(h.call_tool("flagged"), {"content": [TEXT("partial")], "is_error": True})
        self.assertEqual(h.call_tool("async_tool")["content"][0]["text"][:7], "async t")

    def test_deferred_and_activate_tools(self):
        registered = [f for f in self.h.registrations if f.get("name") == "secret"]
        self.assertEqual(registered, [{"type": "register_tool", "name": "secret", "description": "Deferred.", "schema": {"type": "object", "properties": {}}, "deferred": True}])
        self.assertEqual(self.h.call_tool("loader"), {"content": [TEXT("loaded")], "activate_tools": ["secret", "no_such_tool"]})

    def test_errors(self):
        h = self.h
        self.assertEqual(h.call_tool("nope"), {"content": [TEXT('unknown tool "nope"')], "is_error": True})
        self.assertEqual(h.call_tool("boom"), {"content": [TEXT('tool "boom" failed: RuntimeError: kaboom')], "is_error": True})
        wrong = h.call_tool("wrong")
        self.assertTrue(wrong["is_error"])
        self.assertIn("TypeError: a tool handler must return a ToolResult, a str or None, got dict", wrong["content"][0]["text"])
        self.assertEqual(h.call_tool("notjson"), {"content": [TEXT('tool "notjson" failed: its result cannot be sent (TypeError: Object of type set is not JSON serializable)')], "is_error": True})
        self.assertTrue(any("cannot send a tool_result frame: TypeError" in line for line in h.stderr))

    def test_a_result_over_the_frame_cap_is_answered_as_an_error(self):
        answer = self.h.call_tool("huge")
        self.assertTrue(answer["is_error"])
        self.assertRegex(answer["content"][0]["text"], r'^tool "huge" failed: its result cannot be sent \(the frame is \d+ bytes, over the 4194304-byte limit\)$')
        self.assertEqual(self.h.call_tool("plain"), {"content": [TEXT("a plain str")]})

    def test_registrations_after_ready_are_announced_at_once(self):
        h = self.h
        before = len(h.frames)
        h.call_tool("register")
        self.assertEqual([f["type"] for f in h.frames[before:]], ["register_tool", "register_command", "subscribe", "tool_result"])
        self.assertEqual(h.frames[before + 2], {"type": "subscribe", "events": ["late_event"], "intercept": []})
        self.assertEqual(h.call_tool("late"), {"content": [TEXT("late")]})
        h.emit("late_event")
        self.assertEqual(h.notes[-1], {"level": "info", "message": "late event"})


class ResultHelperTest(unittest.TestCase):
    def test_helpers_check_their_arguments(self):
        with self.assertRaises(TypeError):
            text_result(3)  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            text_result("x", activate_tools="secret")
        with self.assertRaises(TypeError):
            image_result(3, "image/png")  # type: ignore[arg-type]
        self.assertEqual(image_result(bytearray(b"hi"), "text/plain").content[0]["data"], "aGk=")
        self.assertEqual(image_result(memoryview(b"hi"), "text/plain").content[0]["data"], "aGk=")


class ZotToolMetadataTest(unittest.TestCase):
    """zot's tool metadata and result additions (issue 30)."""

    def test_metadata_structured_content_and_markdown(self):
        ext = Extension("meta")

        @ext.tool("forecast", "Forecast", output_schema={"type": "object"}, namespace="weather",
                  namespace_description="d", namespace_instructions="i", exposure="codemode", replay="safe")
        def forecast(args, ctx):
            result = markdown_result("## 16")
            return ToolResult(result.content, structured_content={"celsius": 16})

        @ext.tool("plain")
        def plain(args, ctx):
            return None

        h = TestHost(ext)
        h.start()
        self.addCleanup(h.close)
        self.assertEqual([f for f in h.registrations if f["type"] == "register_tool"], [
            {"type": "register_tool", "name": "forecast", "description": "Forecast", "schema": {"type": "object", "properties": {}},
             "namespace": "weather", "namespace_description": "d", "namespace_instructions": "i", "exposure": "codemode",
             "replay": "safe", "output_schema": {"type": "object"}},
            {"type": "register_tool", "name": "plain", "schema": {"type": "object", "properties": {}}},
        ])
        self.assertEqual(h.call_tool("forecast"), {"content": [{"type": "text", "text": "## 16", "format": "markdown"}], "structured_content": {"celsius": 16}})

    def test_bad_metadata_is_a_definition_error(self):
        ext = Extension("meta")
        for kwargs in ({"exposure": "everywhere"}, {"replay": "sometimes"}, {"namespace": 7}, {"output_schema": {1, 2}}):
            with self.assertRaises(DefinitionError, msg=repr(kwargs)):
                ext.tool("t", **kwargs)
