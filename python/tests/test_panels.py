"""Panels: keys of one panel in order, renders, close."""
import asyncio
import random
import unittest

from zot_ext import Extension, open_panel
from zot_ext.testing import TestHost

KEYS = ["up", "down", "left", "right", "enter", "tab", "pageup", "pagedown", "home", "end", "backspace", "delete", "esc"]


class PanelTest(unittest.TestCase):
    def test_keys_of_one_panel_are_handled_in_order_while_other_panels_go_on(self):
        ext = Extension("panels")
        order = []

        @ext.command("open")
        def open_(args, ctx):
            return open_panel("main", "Main", ["one"])

        @ext.on_panel_key("main")
        async def main_key(key, text, panel):
            await asyncio.sleep(random.random() / 200)
            order.append(key if text is None else f"{key} {text}")
            panel.render(["one", f"key {key}"], title="Main")

        @ext.on_panel_key("other")
        def other_key(key, text, panel):
            if key == "esc":
                panel.close()

        @ext.on_panel_close("main")
        def closed(panel):
            ext.notify(f"{panel.id} closed")

        with TestHost(ext) as h:
            h.command("/open")
            # Keys arrive in one read, as from a fast typist; the close waits behind them.
            lines = [f'{{"type":"panel_key","panel_id":"main","key":"{k}"}}\n'.encode() for k in KEYS]
            h.send_raw(b"".join(lines) + '{"type":"panel_key","panel_id":"main","key":"rune","text":"é"}\n'.encode())
            h.press_key("other", "esc")
            h.close_panel("main")
            self.assertEqual(order, KEYS + ["rune é"])
            self.assertEqual(h.renders[-1], {"panel_id": "main", "title": "Main", "lines": ["one", "key rune"]})
            self.assertEqual(len(h.renders), len(KEYS) + 1)
            self.assertIn({"type": "panel_close", "panel_id": "other"}, h.frames)
            self.assertEqual(h.notes, [{"level": "info", "message": "main closed"}])

    def test_a_key_name_outside_the_spec_list_reaches_the_handler_as_it_is(self):
        ext = Extension("panels")
        seen = []

        @ext.on_panel_key("p")
        def key(key, text, panel):
            seen.append((key, text))

        with TestHost(ext) as h:
            h.press_key("p", "unknown")
            h.press_key("p", "f13", "x")
            h.press_key("p", "down")
            self.assertEqual(seen, [("unknown", None), ("f13", "x"), ("down", None)])
            self.assertFalse(any("invalid panel_key frame" in line for line in h.stderr))

    def test_keys_for_a_panel_without_handler_are_ignored_and_a_raising_handler_is_logged(self):
        ext = Extension("panels")

        @ext.on_panel_key("p")
        def key(key, text, panel):
            raise IndexError("cursor")

        with TestHost(ext) as h:
            h.press_key("nobody", "up")
            h.press_key("p", "up")
            h.press_key("p", "down")
            self.assertEqual(sum('panel "p" key handler failed' in line for line in h.stderr), 2)
            self.assertEqual(h.renders, [])
