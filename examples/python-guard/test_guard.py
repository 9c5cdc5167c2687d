"""Tests the guard THROUGH the test kit: the extension runs in this process (no subprocess) and the
test plays the host, asking for a decision exactly as an agent would before running a tool."""
import unittest

from zot_ext.testing import TestHost

from cases import CASES
from guard import NAME, create_guard
from policy import REASONS


class GuardTest(unittest.TestCase):
    def setUp(self):
        self.host = TestHost(create_guard())
        self.host.start()
        self.addCleanup(self.host.close)

    def test_every_case(self):
        for title, tool_name, args, decision in CASES:
            with self.subTest(title):
                self.assertEqual(self.host.tool_call(tool_name, args), decision)

    def test_tells_the_user_what_it_blocked(self):
        self.host.tool_call("bash", {"command": "sudo reboot"})
        self.assertEqual(self.host.notes, [{"level": "warn", "message": f"blocked bash: {REASONS['sudo']}"}])

    def test_keeps_every_other_arg_when_it_rewrites_ls(self):
        decision = self.host.tool_call("bash", {"command": "ls", "timeout": 30})
        self.assertEqual(decision, {"modified_args": {"command": "ls -la", "timeout": 30}})

    def test_guard_command_shows_what_it_decided(self):
        h = self.host
        self.assertEqual(h.command("/guard reset"), {"action": "display", "display": "guard: counters reset"})
        h.tool_call("bash", {"command": "rm -rf ~"})
        h.tool_call("bash", {"command": "ls"})
        h.tool_call("bash", {"command": "rm -fr /tmp/x"})
        h.tool_call("read", {"path": "README.md"})
        self.assertEqual(h.command("/guard"), {
            "action": "display",
            "display": "guard: 4 tool calls checked, 2 blocked, 1 rewritten\n  rm-rf: 2\n  ls-long: 1",
        })
        self.assertEqual(h.command("/guard nonsense"), {"action": "noop", "error": "usage: /guard [reset]"})

    def test_announces_itself_as_an_interceptor(self):
        self.assertEqual(self.host.hello, {"type": "hello", "name": NAME, "version": "1.0.0", "capabilities": ["commands", "intercept", "cancel", "progress", "trace"]})
        self.assertIn({"type": "subscribe", "events": [], "intercept": ["tool_call"]}, self.host.registrations)
