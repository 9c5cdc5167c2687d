"""zot's own Manager, line for line: test/fixtures/wire/zot-manager.transcript replayed against the
Python SDK in this process and as a subprocess (test/sdk/zot-manager.test.ts replays it against the
TypeScript SDK). Each host line is written exactly as it stands; each answer must match."""
import json
import os
import queue
import subprocess
import sys
import threading
import time
import unittest

from zot_ext.testing import TestHost

from .zot_probe import create_probe

HERE = os.path.dirname(os.path.abspath(__file__))
TRANSCRIPT = os.path.join(HERE, "..", "..", "test", "fixtures", "wire", "zot-manager.transcript")
DEADLINE = 10.0
#: What the SDK may log for zot's frames: that it does not implement two, and the cancelled wait.
IGNORED = ("ignored a tool_result for no call_tool in flight ('sdk-3')", 'unknown frame type "panel_resize"', "stopped after the host cancelled it (aborted)")


def read_transcript():
    """[(title, [(line_no, "send", text) | (line_no, "expect", frame)])] (format: the file's header)."""
    runs = []
    with open(TRANSCRIPT, encoding="utf-8") as f:
        for number, text in enumerate(f.read().split("\n"), 1):
            if text.startswith("## "):
                runs.append((text[3:], []))
            elif text.startswith("> "):
                runs[-1][1].append((number, "send", text[2:]))
            elif text.startswith("< "):
                runs[-1][1].append((number, "expect", json.loads(text[2:])))
            elif text and not text.startswith("#"):
                raise ValueError(f"{TRANSCRIPT}:{number}: not a transcript line: {text}")
    return runs


RUNS = read_transcript()


class Replay:
    """Plays one run: `write(bytes)` feeds the extension, `next_frame()` is its next frame in order."""

    def play(self, test, steps):
        for number, kind, value in steps:
            if kind == "send":
                self.write(value.encode("utf-8") + b"\n")
                continue
            frame = self.next_frame(f"transcript line {number}")
            picked = {key: frame.get(key) for key in value}
            test.assertEqual(picked, value, f"transcript line {number}")


class InProcess(Replay):
    def __init__(self):
        self.host = TestHost(create_probe(), timeout=DEADLINE)
        self.host.start(handshake=False)
        self.cursor = 0

    def write(self, data):
        self.host.send_raw(data)

    def close(self):
        self.host.close()

    def next_frame(self, what):
        h = self.host
        h._wait(lambda: len(h.frames) > self.cursor, what, DEADLINE)
        self.cursor += 1
        return h.frames[self.cursor - 1]


class Subprocess(Replay):
    def __init__(self):
        env = {**os.environ, "PYTHONPATH": os.path.dirname(HERE)}
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "zot_probe.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
        )
        self.frames = queue.Queue()
        self.extra = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.frames.put(json.loads(line))
        self.frames.put(None)

    def write(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def next_frame(self, what):
        frame = self.frames.get(timeout=DEADLINE)
        if frame is None:
            raise AssertionError(f"stdout ended before {what}")
        return frame

    def finish(self):
        """The exit code, and any frame written after the last one expected."""
        try:
            code = self.proc.wait(DEADLINE)
            rest = []
            for frame in iter(lambda: self.frames.get(timeout=DEADLINE), None):
                rest.append(frame)
            return code, rest
        finally:
            self.close()

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass


class TranscriptTest(unittest.TestCase):
    def test_has_runs_that_end_with_shutdown(self):
        self.assertGreaterEqual(len(RUNS), 2)
        for _, steps in RUNS:
            self.assertEqual([s[1:] for s in steps[-2:]], [("send", '{"type":"shutdown"}'), ("expect", {"type": "shutdown_ack"})])

    def replay_each_run(self, start, finish):
        """Plays every run on a fresh `start()`, then `finish(replay)`; the replay is always closed."""
        for title, steps in RUNS:
            with self.subTest(title):
                replay = start()
                try:
                    replay.play(self, steps)
                    finish(replay)
                finally:
                    replay.close()

    def test_in_process(self):
        def finish(replay):
            h = replay.host
            h._wait(lambda: h.exit_code is not None, "the end of the run", DEADLINE)
            self.assertEqual(h.exit_code, 0)
            self.assertEqual(h.frames[replay.cursor:], [], "frames no transcript line expects")
            self.assertEqual([line for line in h.stderr if not any(t in line for t in IGNORED)], [])
        self.replay_each_run(InProcess, finish)

    def test_as_a_subprocess(self):
        self.replay_each_run(Subprocess, lambda replay: self.assertEqual(replay.finish(), (0, [])))

if __name__ == "__main__":
    unittest.main()
