"""The negotiated protocol extensions: cancel, progress, trace context."""
import asyncio
import threading
import unittest

from zot_ext import Decision, Extension, display, text_result
from zot_ext.testing import TestHost

from .test_bounds_and_kit import Gate

ALL = ["cancel", "progress", "trace"]
TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


class CapabilitiesTest(unittest.TestCase):
    def test_declared_after_the_usual_ones_and_absent_from_a_plain_ack(self):
        ext = Extension("caps")
        ext.tool("t")(lambda args, ctx: "x")
        with TestHost(ext) as h:
            self.assertEqual(h.hello["capabilities"], ["tools", "cancel", "progress", "trace"])
            self.assertNotIn("capabilities", h.hello_ack)
        with TestHost(ext, capabilities=["progress", "other"]) as h:
            self.assertEqual(h.hello_ack["capabilities"], ["progress"])

    def test_a_host_that_negotiated_nothing_gets_exactly_the_zot_frames(self):
        ext = Extension("plain", "1.0.0")
        seen = []

        @ext.tool("slow", "d")
        def slow(args, ctx):
            seen.append((ctx.progress("half", 1, 2), ctx.traceparent))
            return "done"

        @ext.command("go")
        def go(args, ctx):
            seen.append((ctx.progress(message="x"), ctx.traceparent))
            return display("ok")

        with TestHost(ext) as h:
            h.send({"type": "tool_call", "id": "t1", "name": "slow", "args": {}, "_meta": {"traceparent": TRACEPARENT}})
            h.answer("t1")
            h.send({"type": "command_invoked", "id": "c1", "name": "go", "args": "", "_meta": {"traceparent": TRACEPARENT}})
            h.answer("c1")
            h.send({"type": "cancel", "id": "c1", "reason": "timeout"})
            h.wait_for_log('"cancel" was not negotiated')
            frames = list(h.frames)
        self.assertEqual(seen, [(False, None), (False, None)])
        self.assertEqual(frames, [
            {"type": "hello", "name": "plain", "version": "1.0.0", "capabilities": ["commands", "tools", "cancel", "progress", "trace"]},
            {"type": "register_command", "name": "go"},
            {"type": "register_tool", "name": "slow", "description": "d", "schema": {"type": "object", "properties": {}}},
            {"type": "ready"},
            {"type": "tool_result", "id": "t1", "content": [{"type": "text", "text": "done"}]},
            {"type": "command_response", "id": "c1", "action": "display", "display": "ok"},
        ])


def waiting(name, capabilities=None):
    """An extension whose tool "wait" waits until cancelled; (ext, started, the contexts it got)."""
    ext = Extension(name, capabilities=capabilities)
    started = threading.Event()
    contexts = []

    @ext.tool("wait")
    async def wait(args, ctx):
        contexts.append(ctx)
        started.set()
        await asyncio.Event().wait()  # until cancelled

    return ext, started, contexts


class CancelTest(unittest.TestCase):
    def test_cancel_cancels_an_async_handler_and_nothing_is_answered(self):
        ext, started, contexts = waiting("c")

        @ext.tool("ping")
        def ping(args, ctx):
            return "pong"

        with TestHost(ext, capabilities=ALL) as h:
            request = h.start_tool("wait")
            self.assertTrue(started.wait(2))
            h.cancel(request, "timeout")
            h.wait_for_log(f"request {request} stopped after the host cancelled it (timeout)")
            ctx = contexts[0]
            self.assertTrue(ctx.cancelled.is_set())
            self.assertEqual(ctx.cancel_reason, "timeout")
            self.assertEqual(h.call_tool("ping"), {"content": [text_result("pong").content[0]]})
            self.assertEqual([f for f in h.frames if f.get("id") == request], [])
            # Again, and for an id never seen: ignored silently.
            h.cancel(request)
            h.cancel("nope")
            self.assertEqual(h.call_tool("ping")["content"][0]["text"], "pong")
            self.assertFalse(any("nope" in line for line in h.stderr))

    def test_zots_tool_cancel_reaches_the_handler_when_declared_or_cancel_negotiated(self):
        for capabilities, grant in ((["tools", "tool_cancel"], None), (None, ALL)):
            ext, started, contexts = waiting("z", capabilities)
            with TestHost(ext, capabilities=grant) as h:
                request = h.start_tool("wait")
                self.assertTrue(started.wait(2))
                h.send({"type": "tool_cancel", "id": request})
                h.wait_for_log(f"request {request} stopped after the host cancelled it (aborted)")
                self.assertEqual(contexts[0].cancel_reason, "aborted")
                self.assertEqual([f for f in h.frames if f.get("id") == request], [])

    def test_zots_tool_cancel_is_ignored_otherwise_and_for_unknown_or_malformed_ids(self):
        ext = Extension("z")
        release = Gate()

        @ext.tool("wait")
        async def wait(args, ctx):
            await release.wait()
            return "cancelled" if ctx.cancelled.is_set() else "finished"

        with TestHost(ext) as h:
            self.assertNotIn("tool_cancel", h.hello["capabilities"])
            request = h.start_tool("wait")
            h.send({"type": "tool_cancel", "id": request})
            h.send({"type": "tool_cancel", "id": "nope"})
            h.send({"type": "tool_cancel"})
            release.open(h)
            self.assertEqual(h.answer(request)["content"][0]["text"], "finished")
            self.assertTrue(any("invalid tool_cancel frame (id: missing" in line for line in h.stderr))
            self.assertFalse(any("nope" in line for line in h.stderr))

    def test_a_worker_thread_sees_ctx_cancelled_and_the_late_answer_is_not_sent(self):
        ext = Extension("c")
        in_thread = threading.Event()
        finished = threading.Event()

        @ext.tool("work")
        async def work(args, ctx):
            def job():
                in_thread.set()
                ctx.cancelled.wait(2)
                finished.set()
                return "late"
            return await asyncio.to_thread(job)

        with TestHost(ext, capabilities=ALL) as h:
            request = h.start_tool("work")
            self.assertTrue(in_thread.wait(2))
            h.cancel(request)
            self.assertTrue(finished.wait(2))
            h.wait_for_log("stopped after the host cancelled it (aborted)")
            self.assertEqual([f for f in h.frames if f.get("id") == request], [])

    def test_an_async_interceptor_is_cancelled_too(self):
        ext = Extension("c")
        started = threading.Event()

        @ext.intercept_tool_call
        async def guard(tool_name, args):
            started.set()
            await asyncio.Event().wait()
            return Decision.block("never")

        with TestHost(ext, capabilities=ALL) as h:
            request = h._begin({"type": "event_intercept", "event": "tool_call", "tool_id": "x", "tool_name": "bash", "tool_args": {}}, None, None, None)
            self.assertTrue(started.wait(2))
            h.cancel(request)
            h.wait_for_log(f"request {request} stopped after the host cancelled it (aborted)")

    def test_an_interceptor_that_takes_ctx_sees_the_cancel_from_a_worker_thread(self):
        ext = Extension("c")
        in_thread = threading.Event()
        finished = threading.Event()
        reasons = []

        @ext.intercept_tool_call
        async def guard(tool_name, args, ctx):
            def job():
                in_thread.set()
                ctx.cancelled.wait(5)
                reasons.append(ctx.cancel_reason)
                finished.set()
            await asyncio.to_thread(job)
            return Decision.block("late")

        with TestHost(ext, capabilities=ALL) as h:
            request = h._begin({"type": "event_intercept", "event": "tool_call", "tool_id": "x", "tool_name": "bash", "tool_args": {}}, None, None, None)
            self.assertTrue(in_thread.wait(2))
            h.cancel(request, "timeout")
            self.assertTrue(finished.wait(2))
            h.wait_for_log(f"request {request} stopped after the host cancelled it (timeout)")
        self.assertEqual(reasons, ["timeout"])

    def test_the_stop_sets_ctx_cancelled_of_pending_requests(self):
        ext = Extension("c")
        contexts = []
        started = threading.Event()

        @ext.tool("wait")
        async def wait(args, ctx):
            contexts.append(ctx)
            started.set()
            await asyncio.Event().wait()

        with TestHost(ext) as h:
            h.start_tool("wait")
            self.assertTrue(started.wait(2))
        self.assertTrue(contexts[0].cancelled.is_set())
        self.assertIsNone(contexts[0].cancel_reason)


class ProgressTest(unittest.TestCase):
    def test_sent_while_pending_validated_and_not_after_the_answer(self):
        ext = Extension("p")
        late = []

        @ext.tool("work")
        def work(args, ctx):
            assert ctx.progress("starting") is True
            assert ctx.progress(progress=1, total=4) is True
            assert ctx.progress("m" * 5000, 2) is True
            for bad in ({"progress": float("nan")}, {"total": float("inf")}, {"progress": "1"}, {"message": 3}, {"progress": True}):
                try:
                    ctx.progress(**bad)
                except TypeError:
                    pass
                else:
                    raise AssertionError(f"accepted {bad}")
            late.append(ctx)
            return "done"

        with TestHost(ext, capabilities=ALL) as h:
            result = h.call_tool("work")
            self.assertEqual(result["content"][0]["text"], "done")
            self.assertFalse(late[0].progress("too late"))
            request = h.frames[-1]["id"]
            self.assertEqual(h.progress, [
                {"id": request, "message": "starting"},
                {"id": request, "progress": 1, "total": 4},
                {"id": request, "message": "m" * 1000, "progress": 2},
            ])

    def test_a_no_op_without_the_capability(self):
        ext = Extension("p")
        results = []

        @ext.command("c")
        def c(args, ctx):
            results.append(ctx.progress("x"))

        with TestHost(ext, capabilities=["cancel", "trace"]) as h:
            h.command("/c")
            self.assertEqual(results, [False])
            self.assertEqual(h.progress, [])

    def test_from_a_worker_thread_bounded_while_the_loop_is_busy(self):
        ext = Extension("p")

        @ext.tool("flood")
        async def flood(args, ctx):
            def job():
                return sum(ctx.progress(progress=i) for i in range(10_000))
            # The loop is blocked in this thread's join: posted progress piles up, bounded.
            worker = threading.Thread(target=lambda: results.append(job()))
            worker.start()
            worker.join()
            await asyncio.sleep(0)
            return "done"

        results = []
        with TestHost(ext, capabilities=ALL) as h:
            h.call_tool("flood")
            self.assertLessEqual(results[0], 64)
            self.assertGreater(results[0], 0)
            self.assertLessEqual(len(h.progress), 64)


class TraceTest(unittest.TestCase):
    def test_traceparent_and_tracestate_reach_ctx_and_malformed_ones_do_not(self):
        ext = Extension("t")
        seen = []

        @ext.tool("t")
        def t(args, ctx):
            seen.append((ctx.traceparent, ctx.tracestate, args))
            return "ok"

        @ext.intercept_before_agent_start
        def prompt(event):
            seen.append(sorted(event.raw))

        with TestHost(ext, capabilities=ALL) as h:
            h.call_tool("t", {"x": 1}, traceparent=TRACEPARENT, tracestate="congo=t61rcWkgMzE")
            h.call_tool("t", traceparent=TRACEPARENT.upper())
            h.call_tool("t", traceparent="00-abc", tracestate="a=b")
            h.send({"type": "event_intercept", "id": "i1", "event": "before_agent_start", "session_id": "s", "agent_run_id": "r",
                    "cwd": "/", "provider": "p", "model": "m", "system_prompt": "x", "_meta": {"traceparent": TRACEPARENT}})
            h.answer("i1")
        self.assertEqual(seen[:3], [
            (TRACEPARENT, "congo=t61rcWkgMzE", {"x": 1}),
            (None, None, {}),
            (None, None, {}),
        ])
        self.assertNotIn("_meta", seen[3])

    def test_an_interceptor_that_takes_ctx_gets_the_trace_context_and_one_that_does_not_gets_none(self):
        ext = Extension("t")
        seen = []

        @ext.intercept_tool_call
        def guard(tool_name, args, ctx):
            seen.append((tool_name, ctx.traceparent, ctx.tracestate, ctx.request_id))
            return None

        @ext.intercept_turn_start
        def turns(step):
            seen.append(step)

        with TestHost(ext, capabilities=ALL) as h:
            self.assertEqual(h.tool_call("bash", {"command": "ls"}, traceparent=TRACEPARENT, tracestate="a=b"), {})
            self.assertEqual(h.tool_call("bash"), {})
            self.assertEqual(h.turn_start(3), {})
        self.assertEqual(seen[0][:3], ("bash", TRACEPARENT, "a=b"))
        self.assertEqual(seen[1][:3], ("bash", None, None))
        self.assertEqual(seen[2], 3)

    def test_not_negotiated_means_no_trace_context(self):
        ext = Extension("t")
        seen = []

        @ext.tool("t")
        def t(args, ctx):
            seen.append(ctx.traceparent)
            return "ok"

        with TestHost(ext, capabilities=["cancel"]) as h:
            h.send({"type": "tool_call", "id": "a", "name": "t", "args": {}, "_meta": {"traceparent": TRACEPARENT}})
            h.answer("a")
        self.assertEqual(seen, [None])


if __name__ == "__main__":
    unittest.main()
