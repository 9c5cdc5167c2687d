"""Events and interceptors."""
import asyncio
import unittest

from zot_ext import BeforeAgentStart, Decision, Extension
from zot_ext.testing import TestHost


class EventTest(unittest.TestCase):
    def test_handlers_get_the_frame_without_type_custom_events_too(self):
        ext = Extension("ev")
        seen = []
        ext.on_event("turn_start")(seen.append)
        ext.on_event("custom_thing")(seen.append)

        @ext.on_event("turn_start")
        async def second(event):
            await asyncio.sleep(0)
            seen.append(("second", event["step"]))

        @ext.on_event("turn_end")
        def broken(event):
            raise ValueError("nope")

        with TestHost(ext) as h:
            h.emit("turn_start", step=3)
            h.emit("custom_thing", answer=42, nested={"a": [1]})
            h.emit("turn_end", stop="end_turn")
            h.emit("session_start")  # nobody listens
            self.assertEqual(seen, [{"event": "turn_start", "step": 3}, ("second", 3), {"event": "custom_thing", "answer": 42, "nested": {"a": [1]}}])
            self.assertTrue(any('event "turn_end" handler failed' in line and "ValueError: nope" in line for line in h.stderr))
            self.assertEqual(h.frames[1], {"type": "subscribe", "events": ["turn_start", "custom_thing", "turn_end"], "intercept": []})


class UpstreamEventTest(unittest.TestCase):
    def test_the_events_zot_added_get_every_field_absent_ones_as_zero_values(self):
        ext = Extension("ev")
        seen = []
        for name in ("session_end", "user_prompt_submit", "tool_result", "permission_decision", "post_compact", "subagent_stop"):
            ext.on_event(name)(seen.append)
        with TestHost(ext) as h:
            h.emit("session_end", session_id="s", cwd="/p", sequence=4, reason="cwd_change")
            h.emit("user_prompt_submit", session_id=None, image_count=2)
            h.emit("tool_result", tool_id="t", tool_name="bash", tool_args_raw="{", status="blocked", executed=True, result={"content": [], "is_error": True})
            h.emit("permission_decision", tool_id="t", tool_name="bash", decision="denied", source="yolo", stage="pre_execution", origin_extension="x")
            h.emit("post_compact", compaction_id="c", message_count=2, token_estimate=0, status="failed")
            h.emit("subagent_stop", agent_id="a", agent_run_id="r", name="a", status="completed")
            h.emit("session_end", sequence="four")  # a wrong type: logged, not handed over
            self.assertEqual(seen, [
                {"event": "session_end", "session_id": "s", "cwd": "/p", "sequence": 4, "reason": "cwd_change"},
                {"event": "user_prompt_submit", "image_count": 2, "text": "", "queued": False},
                {"event": "tool_result", "tool_id": "t", "tool_name": "bash", "tool_args_raw": "{", "status": "blocked", "executed": True,
                 "result": {"content": [], "is_error": True, "truncated": False}, "tool_args": {}},
                {"event": "permission_decision", "tool_id": "t", "tool_name": "bash", "decision": "denied", "source": "yolo",
                 "stage": "pre_execution", "origin_extension": "x", "reason": ""},
                {"event": "post_compact", "compaction_id": "c", "message_count": 2, "token_estimate": 0, "status": "failed", "error": ""},
                {"event": "subagent_stop", "agent_id": "a", "agent_run_id": "r", "name": "a", "status": "completed", "error": ""},
            ])
            self.assertTrue(any("invalid event frame (sequence: expected number" in line for line in h.stderr))


class InterceptTest(unittest.TestCase):
    def setUp(self):
        ext = Extension("guard")
        self.seen = []

        @ext.intercept_tool_call
        def guard(tool_name, args):
            command = str(args.get("command", ""))
            if "rm -rf" in command:
                return Decision.block("no")
            if command == "ls":
                return Decision.rewrite({"command": "ls -la"})
            if command == "raise":
                raise OSError("policy file missing")
            if command == "wrong":
                return Decision.replace_text("not for tool calls")
            if command == "junk":
                return True
            return Decision.allow()

        @ext.intercept_turn_start
        async def turns(step):
            await asyncio.sleep(0)
            return Decision.block(f"step {step} is too many") if step > 2 else None

        @ext.intercept_assistant_message
        def messages(text):
            if "BLOCK" in text:
                return Decision.block("blocked")
            if "secret" in text:
                return Decision.replace_text(text.replace("secret", ""))
            return None

        @ext.intercept_before_agent_start
        def system(event):
            self.seen.append(event)
            if event.system_prompt == "keep":
                return None
            if event.system_prompt == "number":
                return 42
            return "" if event.system_prompt == "remove" else event.system_prompt + "\n[guard]"

        self.h = TestHost(ext, cwd="/proj", provider="anthropic", model="opus")
        self.h.start()
        self.addCleanup(self.h.close)

    def test_tool_call(self):
        h = self.h
        self.assertEqual(h.tool_call("bash", {"command": "rm -rf /"}), {"block": True, "reason": "no"})
        self.assertEqual(h.tool_call("bash", {"command": "ls"}), {"modified_args": {"command": "ls -la"}})
        self.assertEqual(h.tool_call("bash", {"command": "pwd"}), {})
        self.assertEqual(h.frames[1]["intercept"], ["tool_call", "turn_start", "assistant_message", "before_agent_start"])

    def test_a_raising_or_wrong_interceptor_allows_and_logs(self):
        h = self.h
        self.assertEqual(h.tool_call("bash", {"command": "raise"}), {})
        self.assertEqual(h.tool_call("bash", {"command": "wrong"}), {})
        self.assertEqual(h.tool_call("bash", {"command": "junk"}), {})
        log = "\n".join(h.stderr)
        self.assertIn('interceptor "tool_call" failed (allowing)', log)
        self.assertIn("OSError: policy file missing", log)
        self.assertIn("Decision.replace_text() answers assistant_message only", log)
        self.assertIn("returns a Decision or None, got bool", log)

    def test_turn_start(self):
        self.assertEqual(self.h.turn_start(1), {})
        self.assertEqual(self.h.turn_start(3), {"block": True, "reason": "step 3 is too many"})

    def test_assistant_message(self):
        self.assertEqual(self.h.assistant_message("a secret here"), {"replace_text": "a  here"})
        self.assertEqual(self.h.assistant_message("BLOCK"), {"block": True, "reason": "blocked"})
        self.assertEqual(self.h.assistant_message("fine"), {})

    def test_before_agent_start(self):
        h = self.h
        self.assertEqual(h.system_prompt("You are helpful."), {"system_prompt": "You are helpful.\n[guard]"})
        self.assertEqual(h.system_prompt("remove"), {"system_prompt": ""})
        self.assertEqual(h.system_prompt("keep"), {})
        self.assertEqual(h.system_prompt("number"), {})
        event = self.seen[0]
        self.assertIsInstance(event, BeforeAgentStart)
        self.assertEqual((event.session_id, event.agent_run_id, event.cwd, event.provider, event.model), ("session-1", "run-1", "/proj", "anthropic", "opus"))
        self.assertEqual(event.raw["event"], "before_agent_start")

    def test_events_nobody_intercepts_are_allowed(self):
        ext = Extension("none")
        ext.intercept_turn_start(lambda step: Decision.block("x"))
        with TestHost(ext) as h:
            self.assertEqual(h.tool_call("bash", {}), {})


class DecisionTest(unittest.TestCase):
    def test_constructors_check_their_arguments(self):
        with self.assertRaises(TypeError):
            Decision.rewrite("not a dict")  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            Decision.block(None)  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            Decision.replace_text(1)  # type: ignore[arg-type]
        self.assertEqual(Decision.allow(), Decision())
