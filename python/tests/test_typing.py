"""The public surface is typed: every parameter and return annotated, and the annotations resolve on
the running Python (3.9 included)."""
import inspect
import typing
import unittest

import sys

import zot_ext
from zot_ext import _session, testing

# Names the modules import only for type checkers (TYPE_CHECKING), to resolve their annotations.
EXTRA = {**vars(zot_ext), "Session": _session.Session}


def public_callables():
    for module in (zot_ext, testing):
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isclass(value):
                for attr, member in vars(value).items():
                    if attr.startswith("_") and attr != "__init__":
                        continue
                    member = getattr(member, "__func__", member)
                    if inspect.isfunction(member):
                        yield f"{name}.{attr}", member
            elif inspect.isfunction(value):
                yield name, value


class TypingTest(unittest.TestCase):
    def test_every_public_function_is_annotated_and_its_hints_resolve(self):
        checked = 0
        for name, fn in public_callables():
            with self.subTest(name):
                hints = typing.get_type_hints(fn, {**EXTRA, **vars(sys.modules[fn.__module__])})
                params = [p for p in inspect.signature(fn).parameters.values() if p.name not in ("self", "cls")]
                missing = [p.name for p in params if p.name not in hints and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
                self.assertEqual(missing, [])
                self.assertIn("return", hints)
                checked += 1
        self.assertGreater(checked, 40)

    def test_the_package_ships_py_typed(self):
        import os
        self.assertTrue(os.path.isfile(os.path.join(os.path.dirname(zot_ext.__file__), "py.typed")))
