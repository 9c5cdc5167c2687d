"""Every queue has a bound (flooded here); the test kit's deadlines and waits; thread safety."""
import asyncio
import json
import threading
import unittest

from zot_ext import Extension, display, text_result
from zot_ext._session import MAX_BACKLOG, MAX_PANEL_QUEUE, MAX_PENDING
from zot_ext.testing import TestHost


def lines(frames):
    return b"".join(json.dumps(f).encode() + b"\n" for f in frames)


class Gate:
    """An asyncio.Event made on the extension's loop (Python 3.9 binds one to a loop when created)."""

    def __init__(self):
        self._event = None

    async def wait(self):
        if self._event is None:
            self._event = asyncio.Event()
        await self._event.wait()

    def open(self, host):
        def set_it():
            if self._event is None:
                self._event = asyncio.Event()
            self._event.set()
        host._loop.call_soon_threadsafe(set_it)


class BoundsTest(unittest.TestCase):
    def test_requests_before_ready_are_held_up_to_the_bound_the_rest_answered_with_an_error(self):
        ext = Extension("flood")
        gate = Gate()
        ext.on_hello(lambda info: gate.wait())
        ext.tool("t")(lambda args, ctx: text_result("ok"))
        h = TestHost(ext, timeout=5)
        h.start(handshake=False)
        try:
            h.send(h.hello_ack)
            calls = [{"type": "tool_call", "id": f"c{i}", "name": "t", "args": {}} for i in range(MAX_BACKLOG + 3)]
            h.send_raw(lines(calls))
            refused = h.wait_for(lambda f: f.get("id") == f"c{MAX_BACKLOG + 2}")
            self.assertEqual(refused["content"][0]["text"], f"not ready yet, and {MAX_BACKLOG} frames are already waiting for ready")
            self.assertNotIn("ready", [f["type"] for f in h.frames])
            gate.open(h)
            h.wait_for(lambda f: f.get("id") == f"c{MAX_BACKLOG - 1}" and f["type"] == "tool_result")
            answers = [f for f in h.frames if f["type"] == "tool_result"]
            self.assertEqual(len(answers), MAX_BACKLOG + 3)
            self.assertEqual(sum(a["content"][0]["text"] == "ok" for a in answers), MAX_BACKLOG)
            self.assertEqual(sum("dropped a tool_call frame" in line for line in h.stderr), 3)
        finally:
            h.close()

    def test_one_way_frames_before_ready_are_held_up_to_the_bound(self):
        ext = Extension("chatty")

        @ext.on_hello
        def hello(info):
            for i in range(MAX_PENDING + 5):
                ext.notify(f"note {i}")
        with TestHost(ext) as h:
            self.assertEqual(len(h.notes), MAX_PENDING)
            self.assertEqual(h.notes[-1]["message"], f"note {MAX_PENDING - 1}")
            self.assertEqual(sum("dropped a notify frame sent before ready" in line for line in h.stderr), 5)

    def test_keys_waiting_for_one_panel_are_bounded(self):
        ext = Extension("keys")
        gate = Gate()
        handled = []

        @ext.on_panel_key("p")
        async def key(key, text, panel):
            await gate.wait()
            handled.append(text)
        with TestHost(ext, timeout=5) as h:
            keys = [{"type": "panel_key", "panel_id": "p", "key": "rune", "text": str(i)} for i in range(MAX_PANEL_QUEUE + 4)]
            h.send_raw(lines(keys))
            gate.open(h)
            h.close_panel("p")  # no close handler: returns at once
            h.press_key("p", "rune", "last")
            self.assertEqual(handled, [str(i) for i in range(MAX_PANEL_QUEUE)] + ["last"])
            self.assertEqual(sum('dropped input for panel "p"' in line for line in h.stderr), 4)


class KitTest(unittest.TestCase):
    def test_a_plain_handler_that_blocks_the_loop_fails_by_deadline_instead_of_hanging(self):
        ext = Extension("blocking")
        release = threading.Event()
        ext.command("block")(lambda args, ctx: release.wait(10) and display("late"))
        h = TestHost(ext, timeout=0.2)
        h.start()
        try:
            with self.assertRaises(TimeoutError):
                h.command("/block")
            with self.assertRaises(TimeoutError):
                h.emit("anything")
        finally:
            release.set()
            h.close(timeout=5)

    def test_next_note_and_next_render_wait_and_never_miss_one(self):
        ext = Extension("later")

        @ext.command("later")
        async def later(args, ctx):
            async def background():
                await asyncio.sleep(0.01)
                ctx.notify("first")
                ctx.panel("p").render(["1"])
                ctx.notify("second", level="warn")
            asyncio.ensure_future(background())

        with TestHost(ext) as h:
            h.command("/later")
            self.assertEqual(h.next_note(), {"level": "info", "message": "first"})
            self.assertEqual(h.next_render("p"), {"panel_id": "p", "lines": ["1"]})
            self.assertEqual(h.next_note(), {"level": "warn", "message": "second"})
            with self.assertRaisesRegex(TimeoutError, "the next note"):
                h.next_note(timeout=0.02)

    def test_notify_from_a_worker_thread(self):
        ext = Extension("threads")

        @ext.tool("work")
        async def work(args, ctx):
            await asyncio.to_thread(ctx.notify, "from a thread")
            await asyncio.to_thread(ext.tool("registered_from_a_thread"), lambda args, ctx: None)
            return "done"

        with TestHost(ext) as h:
            self.assertEqual(h.call_tool("work")["content"][0]["text"], "done")
            self.assertEqual(h.next_note(), {"level": "info", "message": "from a thread"})
            h.wait_for(lambda f: f.get("name") == "registered_from_a_thread")

    def test_an_integral_float_protocol_version_is_accepted(self):
        ext = Extension("floaty")
        h = TestHost(ext)
        h.hello_ack["protocol_version"] = 1.0
        with h:
            self.assertEqual(ext.host.protocol_version, 1.0)

    def test_run_refuses_to_start_inside_a_running_loop(self):
        async def main():
            Extension("nested").run()
        with self.assertRaisesRegex(RuntimeError, "call it at the top level"):
            asyncio.run(main())

    def test_command_lines_must_start_with_a_slash(self):
        with TestHost(Extension("x")) as h:
            with self.assertRaises(ValueError):
                h.command("weather")

    def test_methods_need_a_started_host(self):
        with self.assertRaisesRegex(RuntimeError, "not running"):
            TestHost(Extension("x")).command("/x")
