"""The example of docs/writing-extensions-python.md "Long-running handlers: cancellation and progress"."""
import asyncio
import threading
import unittest

from zot_ext import Extension, text_result
from zot_ext.testing import TestHost

ext = Extension("indexer")
seen = []
started = threading.Event()


@ext.tool("index_files", "Index the project files")
async def index_files(args, ctx):
    files = ["a.py", "b.py", "c.py"]
    for done, name in enumerate(files):
        ctx.progress(f"indexing {name}", progress=done, total=len(files))
        # An await is where a cancel from the host lands (asyncio.CancelledError).
        await asyncio.to_thread(index_file, name, ctx.cancelled)
    return text_result(f"indexed {len(files)} files")


def index_file(name, cancelled):
    """Runs in a worker thread: checks ctx.cancelled (a threading.Event) between steps."""
    seen.append(name)
    if name == "b.py":
        started.set()
        cancelled.wait(2)  # slow work, until the host cancels


class LongRunningTest(unittest.TestCase):
    def test_progress_then_cancel(self):
        with TestHost(ext, capabilities=["cancel", "progress"]) as h:
            request = h.start_tool("index_files")
            self.assertTrue(started.wait(2))
            h.cancel(request, "timeout")
            h.wait_for_log("stopped after the host cancelled it (timeout)")
            self.assertEqual([p.get("message") for p in h.progress], ["indexing a.py", "indexing b.py"])
            self.assertEqual(seen, ["a.py", "b.py"])


if __name__ == "__main__":
    unittest.main()
