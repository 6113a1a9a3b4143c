//! The `pii` section of a policy: PII categories refused (`block`) or masked (`mask`), and the
//! masks themselves. Which columns carry a category is `annotations` (per column `pii`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::PolicyError;
use crate::dialect::Dialect;

/// What the policy does with columns tagged with a PII category.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PiiRules {
    /// Categories refused like `columns.deny`: a column tagged so may not be read at all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub block: Vec<String>,
    /// Category -> masking: a column tagged so may be read only as a plain column of the
    /// outermost select list, and the engine computes the mask in its place. A category both
    /// blocked and masked is blocked.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mask: BTreeMap<String, MaskKind>,
}

impl PiiRules {
    /// True when it blocks and masks nothing.
    pub fn is_empty(&self) -> bool {
        self.block.is_empty() && self.mask.is_empty()
    }

    /// Checks the categories' spelling. Errors name the field.
    pub fn validate(&self) -> Result<(), PolicyError> {
        for (i, category) in self.block.iter().enumerate() {
            check_category(category, &format!("pii.block[{i}]"))?;
        }
        for category in self.mask.keys() {
            check_category(category, &format!("pii.mask.{category}"))?;
        }
        Ok(())
    }
}

/// How a masked column's value is replaced, computed by the engine.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum MaskKind {
    /// The last four characters kept behind `****` (values of four characters or fewer, and
    /// NULL, become `****`). PostgreSQL, MySQL / MariaDB, SQLite and DuckDB.
    Partial,
    /// A plain (unkeyed) hex digest of the value as text: equal values stay equal, so it
    /// reveals equality, and a value of few possibilities can be found by guessing. PostgreSQL
    /// `md5`, MySQL / MariaDB `SHA2(..., 256)`, DuckDB `sha256`; SQLite has no digest built in,
    /// so a policy for SQLite that would hash is refused when the guard is built.
    Hash,
    /// The constant `'[REDACTED]'`.
    Redact,
    /// `NULL`.
    Null,
}

impl MaskKind {
    /// The name as written in a policy.
    pub fn as_str(self) -> &'static str {
        match self {
            MaskKind::Partial => "partial",
            MaskKind::Hash => "hash",
            MaskKind::Redact => "redact",
            MaskKind::Null => "null",
        }
    }

    /// Why `dialect` cannot compute this mask, if it cannot.
    pub(crate) fn unsupported_in(self, dialect: Dialect) -> Option<&'static str> {
        let four = matches!(
            dialect,
            Dialect::Postgres | Dialect::Mysql | Dialect::Sqlite | Dialect::Duckdb
        );
        match self {
            MaskKind::Redact | MaskKind::Null => None,
            MaskKind::Hash if dialect == Dialect::Sqlite => Some(
                "SQLite has no digest function built in: use `redact`, `partial` or `null`, or \
                 block the category",
            ),
            MaskKind::Hash | MaskKind::Partial if !four => {
                Some("only `redact` and `null` are available in this dialect")
            }
            MaskKind::Hash | MaskKind::Partial => None,
        }
    }
}

/// A category must be one UPPER_SNAKE_CASE word (`EMAIL_ADDRESS`, or a custom one).
pub(crate) fn check_category(category: &str, field: &str) -> Result<(), PolicyError> {
    let ok = category.starts_with(|c: char| c.is_ascii_uppercase())
        && category
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(PolicyError::new(
            field,
            format!(
                "`{category}` is not a PII category: write one UPPER_SNAKE_CASE word such as \
                 EMAIL_ADDRESS"
            ),
        ))
    }
}
