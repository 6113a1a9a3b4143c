"""What every MCP test here reads off the official Python SDK: the server binary under test
(``SQLGATE_MCP_BIN``) and a tool result's fields, whichever spelling this SDK version uses."""

import os

BIN = os.environ["SQLGATE_MCP_BIN"]


def attr(obj, snake, camel):
    """The SDK's field, whichever spelling this SDK version uses."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def sc(r):
    """A tool result's structured content."""
    return attr(r, "structured_content", "structuredContent")


def err(r):
    """True when a tool result is an error."""
    return attr(r, "is_error", "isError")
