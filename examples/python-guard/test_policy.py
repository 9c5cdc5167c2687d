"""The same cases against the policy alone: no SDK, no host, microseconds per case."""
import unittest

from cases import CASES
from policy import evaluate


class PolicyTest(unittest.TestCase):
    def test_every_case(self):
        for title, tool_name, args, decision in CASES:
            with self.subTest(title):
                verdict = evaluate(tool_name, args)
                if "block" in decision:
                    self.assertEqual((verdict.action, verdict.reason), ("block", decision["reason"]))
                elif "modified_args" in decision:
                    self.assertEqual((verdict.action, verdict.args), ("rewrite", decision["modified_args"]))
                else:
                    self.assertEqual(verdict.action, "allow")

    def test_args_that_are_not_strings_are_allowed(self):
        self.assertEqual(evaluate("bash", {"command": ["rm", "-rf", "/"]}).action, "allow")
        self.assertEqual(evaluate("write", {"path": None, "file_path": ".env"}).action, "block")
