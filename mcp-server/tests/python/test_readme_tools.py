"""The tools mcp-server/README.md documents are the tools the server lists: its "Tools" section
(each bullet that opens with a tool's name) against ``tools/list`` of a read-only server with an
audit file, and the tools "A write mode adds" against a write mode's. A tool added, renamed or
removed without its paragraph fails here."""
import asyncio
import os
import re

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from sdk import BIN

README = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")


def section(title):
    """The text of the README's ``## title`` section, up to the next ``## `` heading."""
    with open(README, encoding="utf-8") as f:
        text = f.read()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def documented_read_tools():
    """The names that open a bullet of the "Tools" section: "- `run_query {sql}`: ..."."""
    return set(re.findall(r"^- `([a-z_]+)[ `]", section("Tools"), re.M))


def documented_write_tools():
    """The tools named by the sentence "A write mode adds the tools `a {..}` and `b {..}`"."""
    text = " ".join(section("Writes: modes, preview, approval").split())
    sentence = re.search(r"A write mode adds the tools (.*?)\(", text)
    assert sentence, "the README no longer says which tools a write mode adds"
    return set(re.findall(r"`([a-z_]+)[ `]", sentence.group(1)))


async def listed(args):
    params = StdioServerParameters(command=BIN, args=args)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return {t.name for t in (await session.list_tools()).tools}


def test_the_tools_section_lists_what_a_read_only_server_serves(tmp_path):
    documented = documented_read_tools()
    assert "run_query" in documented, documented
    audit = str(tmp_path / "audit.jsonl")
    served = asyncio.run(listed(["serve", "--demo", "--audit-file", audit]))
    assert served == documented


@pytest.mark.parametrize("mode", ["safe", "full_access"])
def test_a_write_mode_adds_the_tools_the_readme_names(tmp_path, mode):
    audit = str(tmp_path / "audit.jsonl")
    read_only = asyncio.run(listed(["serve", "--demo", "--audit-file", audit]))
    writing = asyncio.run(listed(["serve", "--demo", "--audit-file", audit, "--mode", mode]))
    assert writing - read_only == documented_write_tools()
    assert read_only <= writing
