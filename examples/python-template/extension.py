#!/usr/bin/env python3
"""my-extension: a zot extension written with the Python SDK, zot_ext.

create_extension() only defines it (test_extension.py tests it in-process); run as a script, as
extension.json says, it speaks the protocol over stdin/stdout. `zot-ext new --python` puts a copy of
zot_ext next to this file, so Python finds it with nothing installed."""
from zot_ext import Extension, display, error_result, text_result

TEXT = {"type": "object", "properties": {"text": {"type": "string", "minLength": 1}}, "required": ["text"]}


def create_extension() -> Extension:
    ext = Extension("my-extension", "0.1.0")  # = "name" in extension.json

    # A slash command: /my-extension <args>
    @ext.command("my-extension", "say hello")
    def hello(args, ctx):
        return display(f"hello, {args or 'world'}")

    # A tool the model can call. The schema is sent as is; the SDK does not check args against it.
    @ext.tool("shout", "Upper-case a text.", schema=TEXT)
    def shout(args, ctx):
        text = args.get("text")
        if not isinstance(text, str) or text == "":
            return error_result("shout: text must be a non-empty string")
        return text_result(text.upper())

    return ext


if __name__ == "__main__":
    create_extension().run()
