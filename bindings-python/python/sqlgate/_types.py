"""Typed shapes of the plain dicts that sqlgate returns (for type checkers; plain dicts at runtime)."""

from __future__ import annotations

from typing import Literal, TypedDict

__all__ = ["LimitInfo", "Location"]


class Location(TypedDict):
    """1-based position in the submitted SQL."""

    line: int
    column: int


class LimitInfo(TypedDict):
    """What the row cap did to the outermost query."""

    action: Literal["injected", "clamped", "kept", "none"]
    value: int | None
    original: int | None
