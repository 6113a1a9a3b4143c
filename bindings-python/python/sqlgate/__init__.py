"""sqlgate: a read-only SQL guard for AI agents.

>>> from sqlgate import Guard, Rejected
>>> guard = Guard(dialect="sqlite", max_rows=100)
>>> guard.check("SELECT name FROM artist").sql
'SELECT name FROM artist LIMIT 100'

Execute ``approved.sql``, never the text that was submitted. Every decision is made by the Rust
core; this package converts types and maps errors.
"""

from __future__ import annotations

from ._catalog import catalog_from_connection
from ._errors import PolicyError, Rejected
from ._sqlgate import (
    DIALECTS,
    ERROR_CODES,
    LIMIT_ACTIONS,
    QUERY_CLASSES,
    STAGES,
    Approved,
    ApprovedMutation,
    Guard,
    __version__,
    classify,
    policy_schema,
)
from ._types import (
    Dialect,
    ErrorCode,
    LimitAction,
    LimitInfo,
    Location,
    QueryClass,
    Stage,
    Vars,
)

__all__ = [
    "DIALECTS",
    "ERROR_CODES",
    "LIMIT_ACTIONS",
    "QUERY_CLASSES",
    "STAGES",
    "Approved",
    "ApprovedMutation",
    "Dialect",
    "ErrorCode",
    "Guard",
    "LimitAction",
    "LimitInfo",
    "Location",
    "PolicyError",
    "QueryClass",
    "Rejected",
    "Stage",
    "Vars",
    "__version__",
    "catalog_from_connection",
    "classify",
    "policy_schema",
]
