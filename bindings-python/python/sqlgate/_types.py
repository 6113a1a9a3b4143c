"""Typed shapes of the names and plain dicts that sqlgate returns (for type checkers).

Each ``Literal`` alias below is the one written copy of a core enum's names, for type checkers
only; at runtime the names come from the Rust core (``sqlgate.ERROR_CODES``, ``STAGES``,
``QUERY_CLASSES``, ``DIALECTS``, ``LIMIT_ACTIONS``), and ``tests/test_names.py`` fails when an
alias here differs from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypeAlias, TypedDict

__all__ = [
    "Dialect",
    "ErrorCode",
    "LimitAction",
    "LimitInfo",
    "Location",
    "QueryClass",
    "Stage",
    "Vars",
]

ErrorCode: TypeAlias = Literal[
    "empty",
    "too_large",
    "too_deep",
    "invalid_character",
    "parse_error",
    "multiple_statements",
    "statement_not_allowed",
    "data_modifying_cte",
    "select_into",
    "locking_clause",
    "explain_analyze",
    "function_not_allowed",
    "table_not_allowed",
    "system_catalog",
    "column_not_allowed",
    "star_on_restricted_table",
    "unknown_table",
    "unknown_column",
    "limit_not_literal",
    "unsupported_syntax",
    "internal_roundtrip",
    "unbounded_mutation",
    "table_not_writable",
    "row_filter",
    "bad_request",
    "generated_too_large",
    "unbounded_generation",
    "masked_column",
    "unbound_parameter",
]
"""Why the guard refused (``Rejected.code``), as in ``sqlgate.ERROR_CODES``."""

Stage: TypeAlias = Literal["precheck", "parse", "validate", "rewrite"]
"""The pipeline stage that refused (``Rejected.stage``), as in ``sqlgate.STAGES``."""

QueryClass: TypeAlias = Literal[
    "select",
    "session",
    "mutation_create",
    "mutation_delete",
    "ddl",
    "admin",
    "unknown",
]
"""What a statement is, in privilege order, as in ``sqlgate.QUERY_CLASSES``."""

Dialect: TypeAlias = Literal[
    "postgres",
    "mysql",
    "sqlite",
    "mssql",
    "duckdb",
    "snowflake",
    "bigquery",
    "redshift",
    "clickhouse",
    "databricks",
    "hive",
    "ansi",
    "generic",
]
"""A dialect's canonical name (``Guard.dialect``), as in ``sqlgate.DIALECTS``."""

LimitAction: TypeAlias = Literal["injected", "clamped", "kept", "none"]
"""What the row cap did (``LimitInfo["action"]``), as in ``sqlgate.LIMIT_ACTIONS``."""


class Location(TypedDict):
    """1-based position in the submitted SQL."""

    line: int
    column: int


class LimitInfo(TypedDict):
    """What the row cap did to the outermost query."""

    action: LimitAction
    value: int | None
    original: int | None

#: Values bound to a policy's row filter variables for one check: ``{"tenant": 42}``.
Vars: TypeAlias = Mapping[str, int | float | str | bool | None]
