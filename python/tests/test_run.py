"""ext.run() as a real subprocess: stdout for frames only, shutdown, EOF, the frame cap, hung handlers."""
import json
import os
import queue
import subprocess
import sys
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "stdio_extension.py")
ACK = {"type": "hello_ack", "protocol_version": 1, "zot_version": "t", "provider": "p", "model": "m", "cwd": "/tmp", "extension_dir": HERE, "data_dir": HERE}
DEADLINE = 10.0


class Child:
    def __init__(self):
        env = {**os.environ, "PYTHONPATH": os.path.dirname(HERE)}
        self.proc = subprocess.Popen([sys.executable, SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.lines = queue.Queue()
        self.stdout = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.stdout.append(line)
            try:
                self.lines.put(json.loads(line))
            except ValueError:
                pass  # test_stdout_... fails on it
        self.lines.put(None)

    def send(self, frame):
        self.proc.stdin.write(json.dumps(frame).encode() + b"\n")
        self.proc.stdin.flush()

    def frame(self, kind):
        deadline = time.monotonic() + DEADLINE
        while True:
            frame = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            if frame is None:
                raise AssertionError(f"stdout ended before a {kind} frame")
            if frame["type"] == kind:
                return frame

    def exit(self):
        try:
            code = self.proc.wait(DEADLINE)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        stderr = self.proc.stderr.read().decode()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
        return code, stderr


class RunTest(unittest.TestCase):
    def start(self):
        child = Child()
        self.addCleanup(lambda: child.proc.poll() is None and (child.proc.kill() or child.proc.wait()))
        self.assertEqual(child.frame("hello"), {"type": "hello", "name": "stdio", "version": "1.0.0", "capabilities": ["commands", "cancel", "progress", "trace"]})
        child.send(ACK)
        child.frame("ready")
        return child

    def test_stdout_carries_frames_only_and_shutdown_is_acked_then_exit_0(self):
        child = self.start()
        child.send({"type": "command_invoked", "id": "1", "name": "print", "args": ""})
        self.assertEqual(child.frame("command_response"), {"type": "command_response", "id": "1", "action": "display", "display": "printed"})
        child.send({"type": "shutdown"})
        child.frame("shutdown_ack")
        code, stderr = child.exit()
        self.assertEqual(code, 0)
        for line in ["print() from a handler", "sys.stdout.write from a handler", "from a child process"]:
            self.assertIn(line + "\n", stderr)
        self.assertNotIn("never reached", stderr)
        self.assertEqual([json.loads(line)["type"] for line in child.stdout], ["hello"] + ["register_command"] * 3 + ["ready", "command_response", "shutdown_ack"])

    def test_stdin_eof_exits_0(self):
        child = self.start()
        child.proc.stdin.close()
        self.assertEqual(child.exit()[0], 0)

    def test_a_frame_over_4_mib_exits_1(self):
        child = self.start()
        try:
            child.proc.stdin.write(b"x" * (4 * 1024 * 1024 + 2))
            child.proc.stdin.flush()
        except BrokenPipeError:
            pass
        code, stderr = child.exit()
        self.assertEqual(code, 1)
        self.assertIn("exceeds the 4194304-byte limit", stderr)

    def test_hung_handlers_and_a_hung_worker_thread_do_not_keep_the_process_alive(self):
        child = self.start()
        child.send({"type": "command_invoked", "id": "h", "name": "hang", "args": ""})
        child.send({"type": "command_invoked", "id": "t", "name": "thread", "args": ""})
        time.sleep(0)  # both are sent; the ack below proves they were read
        child.send({"type": "shutdown"})
        child.frame("shutdown_ack")
        started = time.monotonic()
        self.assertEqual(child.exit()[0], 0)
        self.assertLess(time.monotonic() - started, 5)
