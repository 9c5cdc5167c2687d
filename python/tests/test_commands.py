"""Commands: every response, errors, the context (notify, clear_notes, submit, panel, host)."""
import asyncio
import unittest

from zot_ext import Extension, Response, display, insert, noop, open_panel, prompt
from zot_ext.testing import TestHost


def kitchen():
    ext = Extension("cmds", "1.0.0")

    @ext.command("ask")
    def ask(args, ctx):
        return prompt(f"Q: {args}")

    @ext.command("Put")
    def put(args, ctx):
        return insert(args)

    @ext.command("show")
    def show(args, ctx):
        return display(args)

    @ext.command("panel")
    def panel(args, ctx):
        return open_panel("p1", "Title", ["a", "b"], "footer")

    @ext.command("bare")
    def bare(args, ctx):
        return open_panel("p2")

    @ext.command("quiet")
    def quiet(args, ctx):
        return None

    @ext.command("oops")
    def oops(args, ctx):
        return display("partial", error="something failed")

    @ext.command("err")
    def err(args, ctx):
        return noop(error="bad")

    @ext.command("raise")
    def raises(args, ctx):
        raise ValueError("bad city")

    @ext.command("raise_bare")
    def raise_bare(args, ctx):
        raise LookupError()

    @ext.command("wrong")
    def wrong(args, ctx):
        return "a str is not a Response"

    @ext.command("notjson")
    def notjson(args, ctx):
        return Response("display", text={1, 2})  # type: ignore[arg-type]

    @ext.command("ctx")
    def context(args, ctx):
        ctx.notify("one")
        ctx.notify("two", level="success")
        ctx.submit("go on")
        ctx.clear_notes()
        ctx.panel("p1").render(["x"], footer="f")
        ctx.panel("p1").close()
        return display(f"{ctx.request_id} {ctx.host.model}")

    @ext.command("badlevel")
    def badlevel(args, ctx):
        ctx.notify("x", level="loud")

    @ext.command("wait")
    async def wait(args, ctx):
        await asyncio.sleep(float(args))
        return display(f"waited {args}")

    return ext


class CommandTest(unittest.TestCase):
    def setUp(self):
        self.h = TestHost(kitchen(), model="m1")
        self.h.start()
        self.addCleanup(self.h.close)

    def test_every_action(self):
        h = self.h
        self.assertEqual(h.command("/ask why not"), {"action": "prompt", "prompt": "Q: why not"})
        self.assertEqual(h.command("/put  some  text "), {"action": "insert", "insert": "some  text"})
        self.assertEqual(h.command("/show"), {"action": "display", "display": ""})
        self.assertEqual(h.command("/panel"), {"action": "open_panel", "open_panel": {"id": "p1", "title": "Title", "lines": ["a", "b"], "footer": "footer"}})
        self.assertEqual(h.command("/bare"), {"action": "open_panel", "open_panel": {"id": "p2"}})
        self.assertEqual(h.command("/quiet"), {"action": "noop"})

    def test_names_are_case_insensitive_answered_with_the_registered_spelling(self):
        self.assertEqual(self.h.command("/PUT x"), {"action": "insert", "insert": "x"})
        self.assertEqual(self.h.command("/ASK y"), {"action": "prompt", "prompt": "Q: y"})

    def test_error_with_any_action(self):
        self.assertEqual(self.h.command("/oops"), {"action": "display", "display": "partial", "error": "something failed"})
        self.assertEqual(self.h.command("/err"), {"action": "noop", "error": "bad"})

    def test_unknown_command(self):
        self.assertEqual(self.h.command("/nope"), {"action": "noop", "error": 'unknown command "nope"'})

    def test_a_raising_handler_is_answered_with_the_exception_named_and_logged(self):
        self.assertEqual(self.h.command("/raise"), {"action": "noop", "error": "ValueError: bad city"})
        self.assertEqual(self.h.command("/raise_bare"), {"action": "noop", "error": "LookupError"})
        self.assertTrue(any('command "raise" failed: Traceback' in line for line in self.h.stderr))
        self.assertEqual(self.h.command("/show alive"), {"action": "display", "display": "alive"})

    def test_a_wrong_return_value_is_an_error_answer(self):
        answer = self.h.command("/wrong")
        self.assertEqual(answer["action"], "noop")
        self.assertIn("returned str, not a Response", answer["error"])
        self.assertEqual(self.h.command("/notjson"), {"action": "noop", "error": 'command "notjson": its response cannot be sent (TypeError: Object of type set is not JSON serializable)'})

    def test_context(self):
        h = self.h
        answer = h.command("/ctx")
        self.assertRegex(answer["display"], r"^t\d+ m1$")
        self.assertEqual(h.notes, [{"level": "info", "message": "one"}, {"level": "success", "message": "two"}])
        tail = h.frames[-6:-1]
        self.assertEqual(tail, [
            {"type": "notify", "level": "success", "message": "two"},
            {"type": "submit", "text": "go on"},
            {"type": "clear_notes"},
            {"type": "panel_render", "panel_id": "p1", "lines": ["x"], "footer": "f"},
            {"type": "panel_close", "panel_id": "p1"},
        ])
        self.assertEqual(h.renders, [{"panel_id": "p1", "lines": ["x"], "footer": "f"}])

    def test_a_bad_notify_level_raises_in_the_handler(self):
        answer = self.h.command("/badlevel")
        self.assertEqual(answer["action"], "noop")
        self.assertIn("ValueError: notify() level must be one of info, success, warn, error", answer["error"])

    def test_async_commands_run_concurrently(self):
        h = self.h
        # The slow one is sent first; the fast one answers long before it.
        h.send({"type": "command_invoked", "id": "slow", "name": "wait", "args": "0.5"})
        self.assertEqual(h.command("/wait 0"), {"action": "display", "display": "waited 0"})
        self.assertNotIn("slow", [f.get("id") for f in h.frames])
        h.wait_for(lambda f: f.get("id") == "slow")


class ResponseHelperTest(unittest.TestCase):
    def test_helpers_check_their_arguments(self):
        with self.assertRaises(TypeError):
            prompt(None)  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            display("x", error=3)  # type: ignore[arg-type]
        with self.assertRaises(ValueError):
            open_panel("")
        with self.assertRaises(TypeError):
            open_panel("p", lines="not a list")
        with self.assertRaises(TypeError):
            open_panel("p", lines=["ok", 2])  # type: ignore[list-item]
