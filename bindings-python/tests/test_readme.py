"""Every ```python block of the README runs as written, so the documented calls and answers stay
true. A block followed by a ```text block must print exactly that text. Blocks that read the
Chinook sample database get it from the corpus (``CHINOOK``); without the corpus they are skipped
and say so, except in CI (``CI=true``), where that is a failure."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest
from conftest import BINDINGS, CORPUS

FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def readme_blocks() -> list[tuple[str, str, str | None]]:
    """(label, code, expected output) for each python block, in README order."""
    text = (BINDINGS / "README.md").read_text(encoding="utf-8")
    fences = [(m.group(1), m.group(2), m.start(), m.end()) for m in FENCE.finditer(text)]
    out = []
    for i, (lang, body, start, _) in enumerate(fences):
        if lang != "python":
            continue
        expected = None
        if i + 1 < len(fences):
            next_lang, next_body, next_start, _ = fences[i + 1]
            between = text[fences[i][3]:next_start]
            if next_lang == "text" and not between.strip():
                expected = next_body
        line = text.count("\n", 0, start) + 1
        out.append((f"README.md:{line}", body, expected))
    return out


BLOCKS = readme_blocks()


def test_the_readme_has_runnable_blocks() -> None:
    assert len(BLOCKS) >= 4
    assert sum(1 for _, _, expected in BLOCKS if expected is not None) >= 2


@pytest.mark.parametrize("label,code,expected", BLOCKS, ids=[b[0] for b in BLOCKS])
def test_readme_block_runs(label: str, code: str, expected: str | None, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    chinook = CORPUS / "chinook" / "Chinook_Sqlite.sqlite"
    if "CHINOOK" in code:
        if not chinook.exists():
            if os.environ.get("CI") == "true":
                pytest.fail(f"{label}: the Chinook database is missing at {chinook} (CI requires the corpus)")
            pytest.skip(f"{label}: SKIPPED, the Chinook database is not at {chinook} (set SQLGATE_CORPUS)")
        monkeypatch.setenv("CHINOOK", str(chinook))
    monkeypatch.chdir(tmp_path)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, label, "exec"), {"__name__": "readme"})
    if expected is not None:
        assert printed.getvalue() == expected, f"{label}: the output differs from the README"
