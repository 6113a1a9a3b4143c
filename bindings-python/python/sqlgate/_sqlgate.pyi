"""Native module of sqlgate (Rust, PyO3). Import from :mod:`sqlgate` instead."""

from collections.abc import Mapping
from os import PathLike
from typing import Any, final

from ._types import Dialect, ErrorCode, LimitAction, LimitInfo, QueryClass, Stage, Vars

__all__ = [
    "Guard",
    "Approved",
    "ApprovedMutation",
    "classify",
    "policy_schema",
    "__version__",
    "ERROR_CODES",
    "STAGES",
    "QUERY_CLASSES",
    "DIALECTS",
    "LIMIT_ACTIONS",
]

__version__: str
ERROR_CODES: tuple[ErrorCode, ...]
STAGES: tuple[Stage, ...]
QUERY_CLASSES: tuple[QueryClass, ...]
DIALECTS: tuple[Dialect, ...]
LIMIT_ACTIONS: tuple[LimitAction, ...]

@final
class Approved:
    """An approved query: execute ``sql``, never the text that was submitted."""

    @property
    def sql(self) -> str:
        """SQL regenerated from the checked tree, row cap applied. Execute this."""
    @property
    def query_class(self) -> QueryClass: ...
    @property
    def statement_count(self) -> int: ...
    @property
    def tables(self) -> list[str]: ...
    @property
    def columns(self) -> list[str]: ...
    @property
    def functions(self) -> list[str]: ...
    @property
    def limit(self) -> LimitInfo: ...
    @property
    def row_filters(self) -> list[str]: ...
    @property
    def parameters(self) -> list[str]: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class ApprovedMutation:
    """An approved mutation: execute ``sql``, never the text that was submitted."""

    @property
    def sql(self) -> str:
        """SQL regenerated from the checked tree. Execute this."""
    @property
    def query_class(self) -> QueryClass: ...
    @property
    def target(self) -> str: ...
    @property
    def tables_read(self) -> list[str]: ...
    @property
    def columns_written(self) -> list[str]: ...
    @property
    def functions(self) -> list[str]: ...
    @property
    def has_where(self) -> bool: ...
    @property
    def row_filters(self) -> list[str]: ...
    @property
    def parameters(self) -> list[str]: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class Guard:
    """A compiled policy; share one between threads (checks release the GIL)."""

    def __new__(
        cls,
        dialect: str = "postgres",
        max_rows: int | None = 1000,
        allow_explain: bool = False,
        functions: Mapping[str, Any] | None = None,
        tables: Mapping[str, Any] | None = None,
        columns: Mapping[str, Any] | None = None,
        catalog: Mapping[str, Any] | None = None,
        max_sql_bytes: int = 262144,
        max_depth: int = 64,
        allow_system_catalogs: bool = False,
        max_tokens: int = 16000,
        mysql_ansi_quotes: bool | None = None,
        writes: Mapping[str, Any] | None = None,
        rows: Mapping[str, Any] | None = None,
        max_generated_bytes: int = 1048576,
        max_generated_rows: int = 1000000,
        allow_unbounded_recursion: bool = False,
        annotations: Mapping[str, Any] | None = None,
        pii: Mapping[str, Any] | None = None,
    ) -> Guard: ...
    @classmethod
    def from_policy(cls, policy: Mapping[str, Any] | str | PathLike[str]) -> Guard: ...
    def check(self, sql: str, vars: Vars | None = None) -> Approved: ...
    def check_with_row_cap(
        self, sql: str, max_rows: int | None, vars: Vars | None = None
    ) -> Approved: ...
    def verdict(self, sql: str, vars: Vars | None = None) -> dict[str, Any]: ...
    def verdict_json(self, sql: str, vars: Vars | None = None) -> str: ...
    def check_mutation(self, sql: str, vars: Vars | None = None) -> ApprovedMutation: ...
    def mutation_verdict(self, sql: str, vars: Vars | None = None) -> dict[str, Any]: ...
    def mutation_verdict_json(self, sql: str, vars: Vars | None = None) -> str: ...
    @property
    def row_filter_variables(self) -> list[str]: ...
    @property
    def policy(self) -> dict[str, Any]: ...
    @property
    def dialect(self) -> Dialect: ...
    def __reduce__(self) -> tuple[Any, tuple[str]]: ...

def classify(sql: str, dialect: str = "postgres") -> QueryClass: ...
def policy_schema() -> dict[str, Any]: ...
