"""The wire: frame encoding, the line splitter, host frame checks."""
import json
import unittest

from zot_ext._wire import MAX_FRAME_BYTES, BadFrame, LineSplitter, decode_host_frame, encode_frame


class EncodeTest(unittest.TestCase):
    def test_compact_one_line_non_ascii_kept(self):
        self.assertEqual(encode_frame({"type": "notify", "message": "16°C ✓"}), '{"type":"notify","message":"16°C ✓"}\n'.encode())

    def test_escapes_line_and_paragraph_separators(self):
        line = encode_frame({"text": "a\u2028b\u2029c\nd"})
        self.assertEqual(line, b'{"text":"a\\u2028b\\u2029c\\nd"}\n')
        self.assertEqual(json.loads(line)["text"], "a\u2028b\u2029c\nd")

    def test_what_json_cannot_hold_raises(self):
        with self.assertRaises(ValueError):
            encode_frame({"x": float("nan")})
        with self.assertRaises(TypeError):
            encode_frame({"x": {1, 2}})

    def test_a_lone_surrogate_still_gives_valid_json(self):
        line = encode_frame({"text": "a\udc80"})
        self.assertEqual(line, b'{"text":"a\\udc80"}\n')


class SplitterTest(unittest.TestCase):
    def setUp(self):
        self.lines = []
        self.overflows = []
        self.splitter = LineSplitter(self.lines.append, lambda seen, cap: self.overflows.append((seen, cap)), max_bytes=16)

    def test_splits_on_lf_only_and_strips_one_cr(self):
        self.splitter.push("a\u2028b\r\nc\r\r\n\n  \nd".encode())
        self.assertEqual(self.lines, ["a\u2028b", "c\r"])
        self.splitter.end()
        self.assertEqual(self.lines, ["a\u2028b", "c\r", "d"])

    def test_a_character_cut_across_chunks_survives(self):
        data = "é✓\n".encode()
        for i in range(len(data)):
            self.splitter.push(data[i:i + 1])
        self.assertEqual(self.lines, ["é✓"])

    def test_invalid_utf8_is_replaced_not_fatal(self):
        self.splitter.push(b"\xff\xfeok\n")
        self.assertEqual(self.lines, ["\ufffd\ufffdok"])

    def test_an_oversized_line_is_reported_at_once_and_never_buffered(self):
        self.splitter.push(b"x" * 10)
        self.assertEqual(self.overflows, [])
        self.splitter.push(b"x" * 10)
        self.assertEqual(self.overflows, [(20, 16)])
        self.assertEqual(self.splitter._pending, 0)
        self.splitter.push(b"x" * 100 + b"\nlater\n")
        self.assertEqual(self.lines, [])
        self.assertEqual(len(self.overflows), 1)

    def test_a_full_line_over_the_cap_in_one_chunk(self):
        self.splitter.push(b"y" * 17 + b"\n")
        self.assertEqual(self.overflows, [(17, 16)])

    def test_exactly_the_cap_plus_a_cr_is_accepted(self):
        self.splitter.push(b"z" * 16 + b"\r")
        self.splitter.push(b"\n")
        self.assertEqual(self.lines, ["z" * 16])
        self.assertEqual(self.overflows, [])

    def test_the_default_cap_is_4_mib(self):
        self.assertEqual(MAX_FRAME_BYTES, 4 * 1024 * 1024)


class DecodeTest(unittest.TestCase):
    def bad(self, line):
        with self.assertRaises(BadFrame) as caught:
            decode_host_frame(line)
        return caught.exception

    def test_keeps_every_field_in_order(self):
        frame = decode_host_frame('{"type":"event","event":"custom","b":1,"a":[2]}')
        self.assertEqual(list(frame), ["type", "event", "b", "a"])

    def test_not_json_not_an_object_unknown_type(self):
        self.assertIn("not JSON", self.bad("{nope").message)
        self.assertIn("not JSON", self.bad('{"type":"shutdown","x":NaN}').message)
        self.assertIn("not a JSON object", self.bad("[1,2]").message)
        self.assertIn('unknown frame type "mystery"', self.bad('{"type":"mystery"}').message)
        self.assertIn("unknown frame type null", self.bad('{"id":"1"}').message)

    def test_deeply_nested_json_is_bad_input(self):
        self.assertIn("not JSON", self.bad("[" * 100000).message)

    def test_a_request_python_cannot_build_still_names_its_id(self):
        deep = "[" * 100000 + "]" * 100000
        bad = self.bad(' { "args" : {"a":' + deep + ', "s":"}]\\"{,"}, "type":"tool_call" , "id":"8" } ')
        self.assertEqual((bad.request, bad.message), (("tool_call", "8"), "invalid tool_call frame (its JSON cannot be read: nested too deeply)"))
        # Only a whole object with a string id of a request: anything else stays plain bad input.
        for line in [
            '{"type":"tool_call","id":"8","args":' + "[" * 100000,
            '{"type":"tool_call","id":8,"args":' + deep + "}",
            '{"type":"event","id":"8","args":' + deep + "}",
            '{"type":"tool_call","id":"8","args":' + deep + "} x",
            '{"type":"tool_call","id":"8","args":' + deep + "]}",
        ]:
            bad = self.bad(line)
            self.assertEqual(bad.request, None, line[-20:])
            self.assertIn("not JSON (nested too deeply)", bad.message)

    def test_a_malformed_request_names_what_to_answer(self):
        bad = self.bad('{"type":"tool_call","id":"7","name":"echo","args":[1]}')
        self.assertEqual(bad.request, ("tool_call", "7"))
        self.assertIn("args: expected object", bad.message)
        bad = self.bad('{"type":"command_invoked","id":"8","name":"x","args":1}')
        self.assertEqual(bad.request, ("command_invoked", "8"))
        self.assertIn("args: expected string", bad.message)
        bad = self.bad('{"type":"event_intercept","id":"9","event":"tool_call","tool_name":7}')
        self.assertEqual(bad.request, ("event_intercept", "9"))
        self.assertEqual(self.bad('{"type":"tool_call","id":5,"name":"x","args":{}}').request, None)

    def test_an_absent_or_null_field_reads_as_its_zero_value_as_zot_omits_it(self):
        # zot's Manager leaves out a field holding its Go zero value (omitempty) and writes null for nil.
        self.assertEqual(decode_host_frame('{"type":"command_invoked","id":"1","name":"x"}')["args"], "")
        self.assertEqual(decode_host_frame('{"type":"tool_call","id":"2","name":"x","args":null}')["args"], {})
        self.assertEqual(decode_host_frame('{"type":"event","event":"turn_end"}')["stop"], "")
        self.assertEqual(decode_host_frame('{"type":"event","event":"turn_start"}')["step"], 0)
        event = decode_host_frame('{"type":"event","event":"tool_call","tool_id":"t","tool_name":"bash","tool_args_raw":"{"}')
        self.assertEqual((event["tool_args"], event["tool_args_raw"]), ({}, "{"))
        intercept = decode_host_frame('{"type":"event_intercept","id":"9","event":"tool_call","tool_name":"bash"}')
        self.assertEqual((intercept["tool_id"], intercept["tool_args"]), ("", {}))
        ack = decode_host_frame('{"type":"hello_ack","capabilities":["call_tool",7]}')
        self.assertEqual((ack["protocol_version"], ack["zot_version"], ack["data_dir"]), (1, "", ""))
        self.assertNotIn("text", decode_host_frame('{"type":"panel_key","panel_id":"p","key":"down"}'))
        # What routes a frame stays required.
        self.assertIn("id: missing", self.bad('{"type":"tool_call","name":"x","args":{}}').message)
        self.assertIn("panel_id: missing", self.bad('{"type":"panel_key","key":"down"}').message)

    def test_checks_events_intercepts_and_panel_keys(self):
        self.assertIn("step", self.bad('{"type":"event","event":"turn_start","step":"1"}').message)
        self.assertIn("event: expected one of", self.bad('{"type":"event_intercept","id":"1","event":"nope"}').message)
        self.assertIn("key: expected string", self.bad('{"type":"panel_key","panel_id":"p","key":1}').message)
        # A name outside the spec's list is forwarded by the host as it is: the extension gets it too.
        self.assertEqual(decode_host_frame('{"type":"panel_key","panel_id":"p","key":"f1"}')["key"], "f1")
        self.assertIn("text", self.bad('{"type":"panel_key","panel_id":"p","key":"rune","text":5}').message)
        self.assertIn("protocol_version", self.bad('{"type":"hello_ack","protocol_version":true}').message)
        self.assertEqual(decode_host_frame('{"type":"event","event":"custom_thing"}')["event"], "custom_thing")
