"""Run by test_run.py as a real subprocess: ext.run() on stdin/stdout."""
import asyncio
import os
import sys
import time

from zot_ext import Extension, display

ext = Extension("stdio", "1.0.0")


@ext.command("print")
def print_(args, ctx):
    print("print() from a handler")
    sys.stdout.write("sys.stdout.write from a handler\n")
    os.system("echo from a child process")
    return display("printed")


@ext.command("hang")
async def hang(args, ctx):
    await asyncio.Event().wait()


@ext.command("block")
def block(args, ctx):
    # A plain handler that blocks the loop until the test writes a byte to the fd named in `args`.
    os.read(int(args), 1)
    return display("unblocked")


@ext.command("thread")
async def thread(args, ctx):
    await asyncio.to_thread(time.sleep, 60)


ext.run()
print("never reached")
