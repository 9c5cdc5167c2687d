"""zot_ext: write zot extensions in Python (stdlib only, Python >= 3.9).

    from zot_ext import Extension, prompt

    ext = Extension("hello", "1.0.0")

    @ext.command("hello", "say hi")
    def hello(args, ctx):
        return prompt("Greet me in one short sentence.")

    ext.run()

Test an extension without a subprocess with zot_ext.testing.TestHost.
"""
from ._context import Context, Panel
from ._extension import DefinitionError, Extension
from ._values import (
    BeforeAgentStart,
    CallToolError,
    CallToolResult,
    Decision,
    HostInfo,
    Response,
    ToolResult,
    display,
    error_result,
    image_result,
    insert,
    noop,
    open_panel,
    prompt,
    text_result,
    tool_prompt,
    markdown_result,
)
from ._wire import MAX_FRAME_BYTES

__version__ = "0.1.0"

__all__ = [
    "BeforeAgentStart",
    "CallToolError",
    "CallToolResult",
    "Context",
    "Decision",
    "DefinitionError",
    "Extension",
    "HostInfo",
    "MAX_FRAME_BYTES",
    "Panel",
    "Response",
    "ToolResult",
    "display",
    "error_result",
    "image_result",
    "insert",
    "noop",
    "open_panel",
    "prompt",
    "text_result",
    "tool_prompt",
    "markdown_result",
]
