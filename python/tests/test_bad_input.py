"""Bad input from the host, and handlers that hang: answered, logged, never fatal."""
import asyncio
import json
import sys
import unittest

from zot_ext import Extension, display, text_result
from zot_ext.testing import TestHost


def extension():
    ext = Extension("robust")

    @ext.command("show")
    def show(args, ctx):
        return display(args)

    @ext.command("hang")
    async def hang(args, ctx):
        await asyncio.Event().wait()

    @ext.tool("hang_tool")
    async def hang_tool(args, ctx):
        try:
            await asyncio.Event().wait()
        finally:
            ext.notify("cancelled at stop")  # dropped: the run is over

    @ext.tool("echo")
    def echo(args, ctx):
        return text_result(json.dumps(args))

    ext.intercept_tool_call(lambda name, args: None)
    ext.on_event("turn_start")(lambda event: None)
    return ext


class BadInputTest(unittest.TestCase):
    def setUp(self):
        self.h = TestHost(extension(), timeout=2)
        self.h.start()
        self.addCleanup(self.h.close)

    def answers(self, request_id):
        return self.h.wait_for(lambda f: f.get("id") == request_id, what=f"the answer to {request_id}")

    def test_garbage_lines_are_logged_and_skipped(self):
        h = self.h
        h.send_raw(b"this is not json\n[1,2,3]\n42\n{\"type\":\"mystery\"}\n\r\n\n   \n\xff\xfe\n")
        h.send_raw(b'{"type":"event","event":"turn_start","step":"one"}\n{"type":"panel_key","panel_id":"p","key":13}\n')
        self.assertEqual(h.command("/show still works"), {"action": "display", "display": "still works"})
        log = "\n".join(h.stderr)
        for expected in ["not JSON", "not a JSON object: [1,2,3]", "not a JSON object: 42", 'unknown frame type "mystery"', "invalid event frame (step: expected number", "invalid panel_key frame"]:
            self.assertIn(expected, log)

    def test_malformed_requests_with_an_id_are_still_answered(self):
        h = self.h
        h.send_raw(b'{"type":"command_invoked","id":"c1","name":"show","args":["a"]}\n')
        self.assertEqual(self.answers("c1"), {"type": "command_response", "id": "c1", "action": "noop", "error": 'invalid command_invoked frame (args: expected string, got ["a"])'})
        h.send_raw(b'{"type":"command_invoked","id":"c2","args":"a"}\n')
        self.assertEqual(self.answers("c2")["error"], "invalid command_invoked frame (name: missing, expected string)")
        h.send_raw(b'{"type":"tool_call","id":"t1","name":"echo","args":"x"}\n')
        answer = self.answers("t1")
        self.assertTrue(answer["is_error"])
        self.assertIn("invalid tool_call frame (args: expected object", answer["content"][0]["text"])
        h.send_raw(b'{"type":"event_intercept","id":"i1","event":"tool_call"}\n')
        self.assertEqual(self.answers("i1"), {"type": "event_intercept_response", "id": "i1"})

    def test_args_python_cannot_build_are_answered_with_an_error(self):
        # Valid JSON that json.loads refuses: nesting past the recursion limit, an int over the digit limit.
        h = self.h
        deep = "[" * 100000 + "]" * 100000
        h.send_raw(('{"type":"tool_call","id":"deep","name":"echo","args":{"a":' + deep + '}}\n').encode())
        answer = self.answers("deep")
        self.assertTrue(answer["is_error"])
        self.assertEqual(answer["content"][0]["text"], "invalid tool_call frame (its JSON cannot be read: nested too deeply)")
        h.send_raw(('{"type":"tool_call","id":"big","name":"echo","args":{"n":' + "9" * 5000 + '}}\n').encode())
        answer = self.answers("big")
        if hasattr(sys, "get_int_max_str_digits"):  # the limit came with 3.11 and 3.9.14 / 3.10.7
            self.assertTrue(answer["is_error"])
            self.assertIn("invalid tool_call frame (its JSON cannot be read: Exceeds the limit (4300", answer["content"][0]["text"])
        else:
            self.assertEqual(answer["content"][0]["text"], '{"n": ' + "9" * 5000 + "}")
        # An interceptor's request is allowed, as for any malformed one; an event is dropped.
        h.send_raw(('{"type":"event_intercept","id":"i-deep","event":"tool_call","tool_args":' + deep + '}\n').encode())
        self.assertEqual(self.answers("i-deep"), {"type": "event_intercept_response", "id": "i-deep"})
        h.send_raw(('{"type":"event","event":"turn_start","step":' + deep + '}\n').encode())
        self.assertEqual(h.command("/show still works"), {"action": "display", "display": "still works"})
        self.assertTrue(any("not JSON (nested too deeply)" in line for line in h.stderr))

    def test_crlf_lines_and_unicode_separators_inside_strings(self):
        h = self.h
        line = json.dumps({"type": "tool_call", "id": "u1", "name": "echo", "args": {"s": "a\u2028b"}}, ensure_ascii=False)
        h.send_raw(line.encode() + b"\r\n")
        self.assertEqual(json.loads(self.answers("u1")["content"][0]["text"]), {"s": "a\u2028b"})

    def test_a_handler_that_hangs_delays_nothing_and_the_kit_times_out(self):
        h = self.h
        with self.assertRaisesRegex(TimeoutError, "the answer to /hang"):
            h.command("/hang", timeout=0.05)
        h.send({"type": "tool_call", "id": "forever", "name": "hang_tool", "args": {}})
        self.assertEqual(h.command("/show meanwhile"), {"action": "display", "display": "meanwhile"})
        self.assertEqual(h.call_tool("echo", {"x": 1})["content"][0]["text"], '{"x": 1}')
        h.shutdown()  # the hung handlers are cancelled; nothing more is written
        self.assertEqual(h.frames[-1], {"type": "shutdown_ack"})

    def test_a_frame_over_the_cap_stops_the_run_with_code_1(self):
        h = self.h
        chunk = b"x" * (1024 * 1024)
        for _ in range(5):
            h.send_raw(chunk)
        h._wait(lambda: h.exit_code is not None, "the end", 2)
        self.assertEqual(h.exit_code, 1)
        self.assertTrue(any("exceeds the 4194304-byte limit; stopping" in line for line in h.stderr))


class BrokenOutputTest(unittest.TestCase):
    def test_a_closed_output_stops_the_run(self):
        ext = Extension("broken")
        ext.command("show")(lambda args, ctx: display(args))
        h = TestHost(ext)
        h.start()
        try:
            original = h._on_output

            def broken(data):
                raise BrokenPipeError(32, "Broken pipe")
            h._session._write = broken
            h.send({"type": "command_invoked", "id": "x", "name": "show", "args": "a"})
            h._wait(lambda: h.exit_code is not None, "the end", 2)
            self.assertEqual(h.exit_code, 0)
            self.assertTrue(any("output closed (BrokenPipeError" in line for line in h.stderr))
            h._session._write = original
        finally:
            h.close()
