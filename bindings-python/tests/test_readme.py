"""Runs the README's "Mutations" snippet, so the documented calls and answers stay true."""

from __future__ import annotations

import re

from conftest import BINDINGS


def readme_snippet(title: str) -> str:
    """The first ```python block of the README section titled ``title``."""
    text = (BINDINGS / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end >= 0 else None]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, f"the {title!r} section has no python block"
    return match.group(1)


def test_mutations_snippet_runs() -> None:
    code = readme_snippet("Mutations")
    assert "check_mutation" in code
    exec(compile(code, "README.md#mutations", "exec"), {"__name__": "readme"})
