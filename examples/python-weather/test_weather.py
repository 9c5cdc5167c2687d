"""Unit tests of weather.py with the test kit: in this process, no subprocess, milliseconds."""
import unittest

from zot_ext.testing import TestHost

from weather import create_weather


class WeatherTest(unittest.TestCase):
    def setUp(self):
        self.host = TestHost(create_weather(), cwd="/work/project")
        self.host.start()
        self.addCleanup(self.host.close)

    def test_command(self):
        answer = self.host.command("/weather Oslo")
        self.assertEqual(answer, {"action": "prompt", "prompt": "Show today's weather for Oslo in one line."})
        self.assertEqual(self.host.notes, [{"level": "info", "message": "looking up Oslo"}])

    def test_deferred_tool(self):
        self.assertEqual(self.host.call_tool("enable_forecast")["activate_tools"], ["forecast"])
        result = self.host.call_tool("forecast", {"city": "Oslo"})
        self.assertEqual(result, {"content": [{"type": "text", "text": "Oslo: tomorrow 18°C, sun"}]})
        self.assertTrue(self.host.call_tool("forecast", {})["is_error"])

    def test_guard(self):
        self.assertEqual(self.host.tool_call("bash", {"command": "rm -rf /"}), {"block": True, "reason": "no recursive deletes, please"})
        self.assertEqual(self.host.tool_call("bash", {"command": "ls"}), {})


if __name__ == "__main__":
    unittest.main()
