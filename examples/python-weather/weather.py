#!/usr/bin/env python3
"""A weather extension written with the Python SDK: a command, a tool, a deferred tool and its
loader, an on_hello hook and a guard. Run it as the host does (extension.json runs this file);
test_weather.py imports create_weather() and tests it with the test kit."""
import os
import sys

try:
    import zot_ext  # noqa: F401  (pip install ./python)
except ImportError:  # run from this repository without installing the SDK
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

from zot_ext import Decision, Extension, error_result, prompt, text_result

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def create_weather() -> Extension:
    ext = Extension("python-weather", "1.0.0")

    @ext.on_hello
    def hello(info):
        print(f"started for {info.cwd} ({info.provider}/{info.model})", file=sys.stderr)  # the log

    @ext.command("weather", "current weather for a city")
    def weather(args, ctx):
        ctx.notify(f"looking up {args or 'Berlin'}")
        return prompt(f"Show today's weather for {args or 'Berlin'} in one line.")

    @ext.tool("forecast", "Tomorrow's forecast for a city.", schema=CITY, deferred=True)
    def forecast(args, ctx):
        city = args.get("city")
        if not isinstance(city, str):
            return error_result("forecast: missing city")
        return text_result(f"{city}: tomorrow 18°C, sun")

    @ext.tool("enable_forecast", "Make the forecast tool available.")
    def enable(args, ctx):
        return text_result("Enabled forecast", activate_tools=["forecast"])

    @ext.intercept_tool_call
    def guard(tool_name, args):
        if tool_name == "bash" and "rm -rf" in str(args.get("command", "")):
            return Decision.block("no recursive deletes, please")
        return None

    return ext


if __name__ == "__main__":
    create_weather().run()
