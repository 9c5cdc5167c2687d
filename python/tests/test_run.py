"""ext.run() as a real subprocess: stdout for frames only, shutdown, EOF, the frame cap, hung handlers."""
import json
import os
import queue
import select
import subprocess
import sys
import threading
import time
import unittest

from zot_ext._stdio import MAX_UNHANDLED_INPUT

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "stdio_extension.py")
ACK = {"type": "hello_ack", "protocol_version": 1, "zot_version": "t", "provider": "p", "model": "m", "cwd": "/tmp", "extension_dir": HERE, "data_dir": HERE}
DEADLINE = 10.0


class Child:
    def __init__(self, pass_fds=()):
        env = {**os.environ, "PYTHONPATH": os.path.dirname(HERE)}
        self.proc = subprocess.Popen([sys.executable, SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, pass_fds=pass_fds)
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
    def start(self, pass_fds=()):
        child = Child(pass_fds)
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
        self.assertEqual([json.loads(line)["type"] for line in child.stdout], ["hello"] + ["register_command"] * 4 + ["ready", "command_response", "shutdown_ack"])

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

    def test_stdin_is_not_read_past_its_bound_while_a_plain_handler_blocks_the_loop(self):
        release_r, release_w = os.pipe()
        self.addCleanup(os.close, release_w)
        child = self.start(pass_fds=(release_r,))
        os.close(release_r)
        child.send({"type": "command_invoked", "id": "b", "name": "block", "args": str(release_r)})
        # 16 MiB of events nobody subscribed to, written without blocking until the pipe stays full.
        line = json.dumps({"type": "event", "event": "tick", "pad": "x" * 1000}).encode() + b"\n"
        flood = line * (16 * 1024 * 1024 // len(line))
        fd = child.proc.stdin.fileno()
        os.set_blocking(fd, False)
        written = 0
        while written < len(flood):
            try:
                written += os.write(fd, flood[written:written + 65536])
            except BlockingIOError:
                # Full for a whole second: the reader has stopped (a slower reader only stops us sooner).
                if not select.select([], [fd], [], 1.0)[1]:
                    break
        # The extension's bound, one read chunk and the pipe's own buffer.
        self.assertLess(written, MAX_UNHANDLED_INPUT + 64 * 1024 + 1024 * 1024)
        os.set_blocking(fd, True)
        os.write(release_w, b"x")
        rest = flood.index(b"\n", written - 1) + 1 if written else 0
        child.proc.stdin.write(flood[written:rest])
        child.send({"type": "shutdown"})
        # Every line read after the handler returned, in order: its answer, then the shutdown.
        self.assertEqual(child.frame("command_response"), {"type": "command_response", "id": "b", "action": "display", "display": "unblocked"})
        child.frame("shutdown_ack")
        self.assertEqual(child.exit()[0], 0)

