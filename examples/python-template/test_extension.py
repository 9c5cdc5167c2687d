"""Tests of my-extension: with the test kit in this process, then once as the subprocess
extension.json starts. Run them with `python3 -m unittest` in this directory."""
import json
import os
import subprocess
import sys
import unittest

from zot_ext.testing import TestHost

from extension import create_extension

HERE = os.path.dirname(os.path.abspath(__file__))


class ExtensionTest(unittest.TestCase):
    def setUp(self):
        self.host = TestHost(create_extension())
        self.host.start()
        self.addCleanup(self.host.close)

    def test_the_command_says_hello(self):
        self.assertEqual(self.host.command("/my-extension zot"), {"action": "display", "display": "hello, zot"})
        self.assertEqual(self.host.command("/my-extension"), {"action": "display", "display": "hello, world"})

    def test_the_shout_tool_upper_cases_its_text(self):
        self.assertEqual(self.host.call_tool("shout", {"text": "hi there"}), {"content": [{"type": "text", "text": "HI THERE"}]})
        self.assertTrue(self.host.call_tool("shout", {})["is_error"])


class AsASubprocessTest(unittest.TestCase):
    def test_says_hello_and_stops_on_shutdown(self):
        with open(os.path.join(HERE, "extension.json"), encoding="utf-8") as f:
            manifest = json.load(f)
        ack = {"type": "hello_ack", "protocol_version": 1, "zot_version": "test", "provider": "test", "model": "test",
               "cwd": HERE, "extension_dir": HERE, "data_dir": HERE}
        frames = json.dumps(ack) + "\n" + json.dumps({"type": "shutdown"}) + "\n"
        run = subprocess.run([sys.executable, os.path.join(HERE, manifest["exec"])], input=frames, capture_output=True,
                             text=True, timeout=10, cwd=HERE)
        sent = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(sent[0]["type"], "hello")
        self.assertEqual(sent[0]["name"], manifest["name"])
        self.assertEqual(sent[-1], {"type": "shutdown_ack"})


if __name__ == "__main__":
    unittest.main()
