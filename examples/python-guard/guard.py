"""The guard extension: the policy of policy.py as a tool_call interceptor, a note for every block,
and /guard to see what it decided. Importing this file runs nothing; main.py runs it."""
from collections import Counter

from zot_ext import Decision, Extension, display, noop
from policy import evaluate

NAME = "python-guard"


def create_guard() -> Extension:
    """A guard with its own counters."""
    ext = Extension(NAME, "1.0.0")
    stats = {"checked": 0, "blocked": 0, "rewritten": 0, "by_rule": Counter()}

    @ext.intercept_tool_call
    def guard(tool_name, args):
        verdict = evaluate(tool_name, args)
        stats["checked"] += 1
        if verdict.action == "allow":
            return Decision.allow()
        stats["by_rule"][verdict.rule] += 1
        if verdict.action == "rewrite":
            stats["rewritten"] += 1
            return Decision.rewrite(verdict.args)
        stats["blocked"] += 1
        ext.notify(f"blocked {tool_name}: {verdict.reason}", level="warn")
        return Decision.block(verdict.reason)

    @ext.command("guard", "what the guard blocked and rewrote; /guard reset starts over")
    def report(args, ctx):
        if args == "reset":
            stats.update(checked=0, blocked=0, rewritten=0, by_rule=Counter())
            return display("guard: counters reset")
        if args != "":
            return noop(error="usage: /guard [reset]")
        lines = [f"guard: {stats['checked']} tool calls checked, {stats['blocked']} blocked, {stats['rewritten']} rewritten"]
        lines += [f"  {rule}: {count}" for rule, count in stats["by_rule"].items()]
        return display("\n".join(lines))

    return ext
