"""Every ```python block of the README runs as written, so the documented calls and answers stay
true. A block followed by a ```text block must print exactly that text. Blocks that read the
Chinook sample database name the repository's copy relative to the repository's root, as the
README says to run them from there; they run there, the others in a temporary folder."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from conftest import BINDINGS, CHINOOK, REPO

# How the README's blocks name the Chinook database: relative to the repository's root.
CHINOOK_IN_README = CHINOOK.relative_to(REPO).as_posix()
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
    # The Usage block runs on Chinook and prints what it read (CHINOOK_IN_README names a file).
    assert any(CHINOOK_IN_README in code and expected for _, code, expected in BLOCKS)


@pytest.mark.parametrize("label,code,expected", BLOCKS, ids=[b[0] for b in BLOCKS])
def test_readme_block_runs(label: str, code: str, expected: str | None, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    # A block on Chinook runs from the repository's root, as the README says; it opens the file
    # read-only. The others run in a folder of their own.
    monkeypatch.chdir(REPO if CHINOOK_IN_README in code else tmp_path)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, label, "exec"), {"__name__": "readme"})
    if expected is not None:
        assert printed.getvalue() == expected, f"{label}: the output differs from the README"
