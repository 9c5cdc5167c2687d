"""Interactive tools (issue 30): a tool opens a panel by itself (ctx.ask / ctx.open_panel) and waits
for the user's keys; the gate-py fixture's approve_action and secret under the test kit."""
import asyncio
import os
import sys
import unittest

from zot_ext import Extension, text_result
from zot_ext.testing import TestHost

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "sdk", "gate-py"))
from gate import PASSPHRASE, create_gate  # noqa: E402


def text_of(result):
    return result["content"][0]["text"]


class ApproveTest(unittest.TestCase):
    def test_registers_interactive_opens_from_the_call_rerenders_and_approves_on_y(self):
        with TestHost(create_gate()) as h:
            tool = next(f for f in h.registrations if f.get("name") == "approve_action")
            self.assertIs(tool["interactive"], True)
            call = h.start_tool("approve_action", {"action": "rm -rf build/"})
            panel = h.next_open_panel()
            self.assertEqual(panel, {"id": "approve-1", "title": "Approval required", "lines": ["  Action:  rm -rf build/"], "footer": "y approve · n deny · esc cancel"})
            h.press_key("approve-1", "rune", "x")
            self.assertEqual(h.next_render("approve-1")["lines"], ["  Action:  rm -rf build/", "", "  › press y or n"])
            h.press_key("approve-1", "rune", "y")
            answer = h.answer(call)
            self.assertEqual(text_of(answer), "approved")
            self.assertNotIn("is_error", answer)
            self.assertEqual([f["type"] for f in h.frames[-2:]], ["panel_close", "tool_result"])

    def test_n_esc_and_the_users_close_are_error_results(self):
        with TestHost(create_gate()) as h:
            for key, text, expected in (("rune", "n", "denied by the user: x"), ("esc", None, "denied by the user: x"), (None, None, "cancelled by the user: x")):
                call = h.start_tool("approve_action", {"action": "x"})
                panel_id = h.next_open_panel()["id"]
                if key is None:
                    h.close_panel(panel_id)
                else:
                    h.press_key(panel_id, key, text)
                answer = h.answer(call)
                self.assertTrue(answer["is_error"])
                self.assertEqual(text_of(answer), expected)

    def test_a_cancel_closes_the_panel(self):
        with TestHost(create_gate(), capabilities=["cancel"]) as h:
            call = h.start_tool("approve_action", {"action": "x"})
            panel_id = h.next_open_panel()["id"]
            h.cancel(call)
            h.wait_for(lambda f: f["type"] == "panel_close" and f["panel_id"] == panel_id, "the panel to close")


class SecretTest(unittest.TestCase):
    def test_reads_a_masked_passphrase_and_tells_only_success_or_failure(self):
        with TestHost(create_gate()) as h:
            for typed, expected, error in ((PASSPHRASE, "passphrase accepted", False), ("nope", "wrong passphrase", True)):
                call = h.start_tool("secret")
                panel_id = h.next_open_panel()["id"]
                for ch in typed + "!":
                    h.press_key(panel_id, "rune", ch)
                h.press_key(panel_id, "backspace")
                self.assertEqual(h.next_render(panel_id)["lines"], ["  •"])
                h.press_key(panel_id, "enter")
                answer = h.answer(call)
                self.assertEqual(text_of(answer), expected)
                self.assertEqual(answer.get("is_error", False), error)
            self.assertNotIn(PASSPHRASE, repr([f for f in h.frames if f["type"] != "panel_key"]))


class OpenPanelTest(unittest.TestCase):
    def test_handlers_are_registered_before_the_frame_and_go_when_the_panel_closes(self):
        ext = Extension("opener")
        seen = []

        @ext.tool("open", interactive=True)
        async def open_(args, ctx):
            done = asyncio.get_running_loop().create_future()
            ctx.open_panel(["a"], panel_id="p", on_key=lambda key, text, panel: seen.append(key), on_close=lambda panel: done.set_result("closed"))
            with self.assertRaises(ValueError):
                ctx.open_panel(["b"], panel_id="p")
            return text_result(await done)

        with TestHost(ext) as h:
            call = h.start_tool("open")
            self.assertEqual(h.next_open_panel(), {"id": "p", "lines": ["a"]})
            h.press_key("p", "up")
            h.close_panel("p")
            self.assertEqual(text_of(h.answer(call)), "closed")
            h.press_key("p", "down")  # gone with the panel: no handler
            self.assertEqual(seen, ["up"])


class ToolPromptTest(unittest.TestCase):
    def test_tool_prompt_is_a_command_response_with_the_tool_and_its_args(self):
        from zot_ext import tool_prompt
        ext = Extension("notes")

        @ext.command("release")
        def release(args, ctx):
            return tool_prompt("then summarise it", "skill", {"name": "team:release-notes"})

        with TestHost(ext) as h:
            self.assertEqual(h.command("/release"), {"action": "tool_prompt", "prompt": "then summarise it", "tool_name": "skill", "tool_args": {"name": "team:release-notes"}})
        with self.assertRaises(ValueError):
            tool_prompt(" ", "skill", {})
        with self.assertRaises(TypeError):
            tool_prompt("x", "skill", [])  # type: ignore[arg-type]
