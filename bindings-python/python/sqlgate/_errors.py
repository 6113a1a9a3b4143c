"""Exceptions raised by :mod:`sqlgate` (plain Python classes, raised by the native module)."""

from __future__ import annotations

from typing import Any

from ._types import ErrorCode, Location, QueryClass, Stage

__all__ = ["PolicyError", "Rejected"]


class Rejected(ValueError):
    """The guard refused the SQL.

    ``code`` is a stable snake_case reason (see ``sqlgate.ERROR_CODES``), ``stage`` the pipeline
    stage that refused (see ``sqlgate.STAGES``), ``retryable`` is true only when the same SQL may pass later unchanged,
    ``hint`` tells how to fix the SQL in one turn, ``location`` is ``{"line", "column"}`` or
    ``None``, and ``query_class`` is what the payload really is (e.g. ``"mutation_delete"``).
    """

    code: ErrorCode
    stage: Stage
    message: str
    retryable: bool
    hint: str | None
    location: Location | None
    query_class: QueryClass
    statement_count: int

    def __init__(
        self,
        message: str,
        *,
        code: ErrorCode,
        stage: Stage,
        retryable: bool = False,
        hint: str | None = None,
        location: Location | None = None,
        query_class: QueryClass = "unknown",
        statement_count: int = 0,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.stage = stage
        self.retryable = retryable
        self.hint = hint
        self.location = location
        self.query_class = query_class
        self.statement_count = statement_count

    def __str__(self) -> str:
        text = f"{self.code}: {self.message}"
        if self.hint:
            text += f" (hint: {self.hint})"
        return text

    def __repr__(self) -> str:
        return (
            f"Rejected(code={self.code!r}, stage={self.stage!r}, message={self.message!r}, "
            f"hint={self.hint!r}, query_class={self.query_class!r})"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_rejected, (self.to_dict(),))

    def to_dict(self) -> dict[str, Any]:
        """The verdict dict (``allowed: False``), equal to ``Guard.verdict`` for the same SQL."""
        error: dict[str, Any] = {
            "code": self.code,
            "stage": self.stage,
            "message": self.message,
            "retryable": self.retryable,
            "hint": self.hint,
            "location": None if self.location is None else dict(self.location),
        }
        return {
            "allowed": False,
            "query_class": self.query_class,
            "statement_count": self.statement_count,
            "error": error,
        }


def _rebuild_rejected(verdict: dict[str, Any]) -> Rejected:
    error = verdict["error"]
    return Rejected(
        error["message"],
        code=error["code"],
        stage=error["stage"],
        retryable=error["retryable"],
        hint=error["hint"],
        location=error["location"],
        query_class=verdict["query_class"],
        statement_count=verdict["statement_count"],
    )


class PolicyError(ValueError):
    """A policy that cannot be used; ``field`` names the part at fault (e.g. ``tables.allow``)."""

    field: str
    message: str

    def __init__(self, field: str, message: str) -> None:
        super().__init__(field, message)
        self.field = field
        self.message = message

    def __str__(self) -> str:
        return f"invalid policy: {self.field}: {self.message}"

    def __repr__(self) -> str:
        return f"PolicyError(field={self.field!r}, message={self.message!r})"


