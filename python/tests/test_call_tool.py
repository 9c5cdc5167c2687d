"""zot's call_tool on the extension side (ctx.call_tool), and the continuous-mode fields a tool handler
gets (ctx.operation_key, ctx.reconcile), and origin_extension for a tool_call interceptor."""
import asyncio
import unittest

from zot_ext import CallToolError, Decision, Extension, display
from zot_ext.testing import TestHost


def caller(declare=True):
    ext = Extension("caller", call_tools=declare)
    seen = []

    @ext.tool("relay")
    async def relay(args, ctx):
        try:
            result = await ctx.call_tool(args.get("name", "echo"), args.get("args", {"x": 1}), timeout=args.get("timeout", 5.0))
        except CallToolError as err:
            seen.append(err.code)
            return f"{err.code}: {err}"
        seen.append(result)
        return f"{'error' if result.is_error else 'ok'}:{result.text}"

    @ext.command("ask")
    async def ask(args, ctx):
        result = await ctx.call_tool("echo", {})
        return display(result.text)

    return ext, seen


class CallToolTest(unittest.TestCase):
    def test_declared_sent_with_its_parent_and_answered(self):
        ext, seen = caller()
        with TestHost(ext, capabilities=["call_tool"]) as h:
            self.assertEqual(h.hello["capabilities"], ["commands", "tools", "call_tool", "cancel", "progress", "trace"])
            self.assertEqual(h.hello_ack["capabilities"], ["call_tool"])
            rid = h.start_tool("relay")
            call = h.wait_for(lambda f: f["type"] == "call_tool")
            self.assertEqual(call, {"type": "call_tool", "id": "sdk-1", "name": "echo", "args": {"x": 1}, "parent_id": rid})
            h.send({"type": "tool_result", "id": "sdk-1", "name": "echo", "content": [{"type": "text", "text": "hi", "format": "markdown"}, {"type": "odd"}], "truncated": True})
            self.assertEqual(h.answer(rid), {"content": [{"type": "text", "text": "ok:hi"}]})
            self.assertEqual((seen[0].content, seen[0].is_error, seen[0].truncated), ([{"type": "text", "text": "hi", "format": "markdown"}], False, True))
            # Outside a tool handler there is no parent.
            cid = h.start_command("/ask")
            self.assertNotIn("parent_id", h.wait_for(lambda f: f["type"] == "call_tool" and f["id"] == "sdk-2"))
            h.send({"type": "tool_result", "id": "sdk-2", "name": "echo", "content": [{"type": "text", "text": "from a command"}], "is_error": True})
            self.assertEqual(h.answer(cid), {"action": "display", "display": "from a command"})

    def test_unavailable_when_not_declared_or_not_offered(self):
        ext, seen = caller(declare=False)
        with TestHost(ext, capabilities=["call_tool"]) as h:
            self.assertNotIn("call_tool", h.hello["capabilities"])
            self.assertTrue(h.call_tool("relay")["content"][0]["text"].startswith("unavailable: call_tool(): the extension did not declare"))
        ext, seen = caller()
        with TestHost(ext) as h:
            self.assertIn("does not offer call_tool", h.call_tool("relay")["content"][0]["text"])
            self.assertFalse(any(f["type"] == "call_tool" for f in h.frames))

    def test_timeout_and_cancel_send_call_tool_cancel_a_late_or_unknown_answer_is_logged(self):
        ext, seen = caller()
        with TestHost(ext, capabilities=["call_tool", "cancel"]) as h:
            self.assertEqual(h.call_tool("relay", {"timeout": 0.05})["content"][0]["text"], "timeout: call_tool('echo') timed out after 0.05 s")
            h.wait_for(lambda f: f == {"type": "call_tool_cancel", "id": "sdk-1"})
            h.send({"type": "tool_result", "id": "sdk-1", "name": "echo", "content": []})
            h.wait_for_log("ignored a tool_result for no call_tool in flight ('sdk-1')")
            # The host cancels the handler: its call is cancelled at the host too.
            rid = h.start_tool("relay")
            h.wait_for(lambda f: f["type"] == "call_tool" and f["id"] == "sdk-2")
            h.cancel(rid)
            h.wait_for(lambda f: f == {"type": "call_tool_cancel", "id": "sdk-2"})
            # Bad input from the handler: no frame goes out.
            self.assertEqual(h.call_tool("relay", {"name": ""})["content"][0]["text"], "invalid: call_tool(): the tool name must be a non-empty str")
            self.assertEqual(h.call_tool("relay", {"args": [1]})["content"][0]["text"], "invalid: call_tool(): args must be a dict, got list")

    def test_stop_while_pending_raises_stopped(self):
        ext, seen = caller()
        h = TestHost(ext, capabilities=["call_tool"])
        h.start()
        try:
            h.start_tool("relay")
            h.wait_for(lambda f: f["type"] == "call_tool")
            h.shutdown()
        finally:
            h.close()
        self.assertEqual(seen, ["stopped"])


class ContinuousModeAndOriginTest(unittest.TestCase):
    def test_operation_key_reconcile_and_origin_extension(self):
        ext = Extension("fields")
        got = []

        @ext.tool("charge")
        def charge(args, ctx):
            got.append((ctx.operation_key, ctx.reconcile))
            return "ok"

        @ext.intercept_tool_call
        def guard(tool_name, args, ctx, *, origin_extension=None):
            got.append((origin_extension, ctx.origin_extension))
            return Decision.allow()

        with TestHost(ext) as h:
            h.send({"type": "tool_call", "id": "1", "name": "charge", "args": {}, "operation_key": "op-1", "reconcile": True})
            h.answer("1")
            h.send({"type": "tool_call", "id": "2", "name": "charge", "args": {}})
            h.answer("2")
            h.send({"type": "event_intercept", "id": "3", "event": "tool_call", "tool_id": "x", "tool_name": "write", "tool_args": {}, "origin_extension": "helper"})
            h.answer("3")
            h.send({"type": "event_intercept", "id": "4", "event": "tool_call", "tool_id": "y", "tool_name": "write", "tool_args": {}})
            h.answer("4")
        self.assertEqual(got, [("op-1", True), (None, False), ("helper", "helper"), (None, None)])


if __name__ == "__main__":
    unittest.main()
