//! The PII half of the protected columns: `annotations` (which column carries which category,
//! which column has its own mask) and `pii` (categories blocked or masked) compiled into column
//! rules beside `columns.deny`'s, after the policy's own validation of both sections.

use super::{ColumnRule, Protection};
use crate::policy::{Policy, PolicyError};

/// Validates `annotations` and `pii` and returns a rule for each column they block or mask.
pub(super) fn pii_rules(policy: &Policy) -> Result<Vec<ColumnRule>, PolicyError> {
    let dialect = policy.dialect;
    policy
        .annotations
        .validate(dialect, policy.catalog.as_ref())?;
    policy.pii.validate()?;
    for (category, kind) in &policy.pii.mask {
        if let Some(why) = kind.unsupported_in(dialect) {
            return Err(PolicyError::new(
                format!("pii.mask.{category}"),
                format!("`{}`: {why}", kind.as_str()),
            ));
        }
    }
    let mut rules = Vec::new();
    for (table, column, annotation) in policy.annotations.columns(dialect)? {
        if let Some(kind) = annotation.mask {
            if let Some(why) = kind.unsupported_in(dialect) {
                let key = table_display(&table);
                return Err(PolicyError::new(
                    format!("annotations.tables.{key}.columns.{column}.mask"),
                    format!("`{}`: {why}", kind.as_str()),
                ));
            }
        }
        let category = annotation.pii.as_ref();
        let blocked = category.filter(|c| policy.pii.block.contains(c));
        let why = match (blocked, annotation.mask, category) {
            (Some(c), _, _) => Protection::Blocked(c.clone()),
            (None, Some(kind), _) => Protection::Masked(std::cmp::Reverse(kind), category.cloned()),
            (None, None, Some(c)) => match policy.pii.mask.get(c) {
                Some(&kind) => Protection::Masked(std::cmp::Reverse(kind), Some(c.clone())),
                None => continue,
            },
            (None, None, None) => continue,
        };
        rules.push(ColumnRule {
            table: Some(table),
            column,
            why,
        });
    }
    Ok(rules)
}

/// A table pattern as written back in a field name.
fn table_display(table: &crate::names::Pattern) -> String {
    table
        .parts
        .iter()
        .map(|p| match p {
            crate::names::PatternPart::Exact(e) => e.as_str(),
            crate::names::PatternPart::Any => "*",
        })
        .collect::<Vec<_>>()
        .join(".")
}
