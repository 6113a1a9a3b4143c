//! The benign vocabulary the writer draws from: user tables, columns, allowlisted functions and
//! string literals (some holding `;`, `--` and `/*`), and the nesting limit.

/// Maximum nesting of generated expressions and subqueries (well under the guard's `max_depth`).
pub(super) const MAX_DEPTH: usize = 3;

pub(super) const TABLES: &[&str] = &[
    "t",
    "artist",
    "\"Track\"",
    "public.album",
    "\"public\".\"invoice\"",
    "sales.orders",
    "\"we;ird\"",
    "\"--x\"",
];
pub(super) const COLUMNS: &[&str] = &[
    "a",
    "b",
    "name",
    "\"Weird col\"",
    "\"select\"",
    "\"a\"\"b\"",
    "total",
];
pub(super) const BENIGN_FUNCTIONS: &[&str] = &[
    "lower", "upper", "length", "abs", "round", "coalesce", "nullif", "greatest", "concat",
];
pub(super) const STRINGS: &[&str] = &[
    "'x'",
    "'it''s'",
    "'; DROP TABLE t; --'",
    "'/* not a comment */'",
    "'-- not a comment'",
    "$$; DELETE FROM t$$",
    "$q$ '; COMMIT $q$",
    "E'\\'; DROP TABLE t; --'",
    "''",
    "'pg_sleep(1)'",
];
