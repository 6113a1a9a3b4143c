//! Function policy: which function names a query may call.
//!
//! PostgreSQL and SQLite ship an **allowlist** of built-in functions known to be free of side
//! effects (generated: see `data/` and the generator scripts beside this file); any other
//! function is refused. Every other dialect starts from a **denylist** of known-dangerous
//! functions and table functions (file, network, process, lock and sleep functions). The policy's
//! `functions.allow` and `functions.deny` extend either list; `deny` always wins.

use std::collections::HashSet;

use crate::dialect::Dialect;
use crate::names::{Pattern, PatternPart};
use crate::policy::{FunctionRules, PolicyError};

const POSTGRES_ALLOW: &str = include_str!("data/postgres_allow.txt");
const SQLITE_ALLOW: &str = include_str!("data/sqlite_allow.txt");
const COMMON_DENY: &str = include_str!("data/deny_common.txt");

/// Non-comment, non-empty lines of an embedded list.
fn entries(list: &str) -> impl Iterator<Item = &str> {
    list.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// Why a function was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionRefusal {
    /// Named in `functions.deny` or in the dialect's denylist.
    Denied,
    /// Not in the dialect's allowlist nor in `functions.allow`.
    NotAllowlisted,
}

/// Decides function names for one policy. Built once per [`crate::Guard`].
#[derive(Debug, Clone)]
pub struct FunctionPolicy {
    dialect: Dialect,
    allowlist: Option<HashSet<String>>,
    deny_exact: HashSet<String>,
    deny_prefixes: Vec<String>,
    extra_allow: Vec<Pattern>,
    extra_deny: Vec<Pattern>,
}

impl FunctionPolicy {
    /// Builds the checker for `dialect` extended by the policy's rules.
    pub fn new(dialect: Dialect, rules: &FunctionRules) -> Result<Self, PolicyError> {
        let allowlist = match dialect {
            Dialect::Postgres => Some(entries(POSTGRES_ALLOW).map(str::to_lowercase).collect()),
            Dialect::Sqlite => Some(entries(SQLITE_ALLOW).map(str::to_lowercase).collect()),
            _ => None,
        };
        let mut deny_exact = HashSet::new();
        let mut deny_prefixes = Vec::new();
        if allowlist.is_none() {
            for entry in entries(COMMON_DENY) {
                let entry = entry.to_lowercase();
                match entry.strip_suffix('*') {
                    Some(prefix) => deny_prefixes.push(prefix.to_string()),
                    None => {
                        deny_exact.insert(entry);
                    }
                }
            }
        }
        let parse = |field: &str, list: &[String]| {
            list.iter()
                .enumerate()
                .map(|(i, p)| {
                    Pattern::parse(&p.to_lowercase(), dialect)
                        .map(lowercase_pattern)
                        .map_err(|m| PolicyError::new(format!("functions.{field}[{i}]"), m))
                })
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(FunctionPolicy {
            dialect,
            allowlist,
            deny_exact,
            deny_prefixes,
            extra_allow: parse("allow", &rules.allow)?,
            extra_deny: parse("deny", &rules.deny)?,
        })
    }

    /// True when the dialect uses an allowlist.
    pub fn is_allowlist(&self) -> bool {
        self.allowlist.is_some()
    }

    /// Checks a function name given as folded parts (`["pg_catalog", "pg_sleep"]`).
    /// Function names compare case-insensitively.
    pub fn check(&self, parts: &[String]) -> Result<(), FunctionRefusal> {
        let lower: Vec<String> = parts.iter().map(|p| p.to_lowercase()).collect();
        let Some(last) = lower.last() else {
            return Err(FunctionRefusal::NotAllowlisted);
        };
        if self.extra_deny.iter().any(|p| p.matches(&lower, None)) {
            return Err(FunctionRefusal::Denied);
        }
        if self.extra_allow.iter().any(|p| p.matches(&lower, None)) {
            return Ok(());
        }
        // Denylist: any qualification of a dangerous name is still dangerous.
        if self.deny_exact.contains(last)
            || self
                .deny_prefixes
                .iter()
                .any(|p| last.starts_with(p.as_str()))
        {
            return Err(FunctionRefusal::Denied);
        }
        match &self.allowlist {
            None => Ok(()),
            Some(list) => {
                let builtin_schema = match self.dialect {
                    Dialect::Postgres => {
                        lower.len() == 1 || (lower.len() == 2 && lower[0] == "pg_catalog")
                    }
                    _ => lower.len() == 1,
                };
                if builtin_schema && list.contains(last) {
                    Ok(())
                } else {
                    Err(FunctionRefusal::NotAllowlisted)
                }
            }
        }
    }

    /// The closest allowlisted name, for a hint.
    pub fn suggest(&self, wanted: &str) -> Option<String> {
        let list = self.allowlist.as_ref()?;
        crate::names::closest(wanted, list.iter().map(String::as_str)).map(str::to_string)
    }
}

/// Function names compare case-insensitively: lower-case every exact part.
fn lowercase_pattern(p: Pattern) -> Pattern {
    Pattern {
        parts: p
            .parts
            .into_iter()
            .map(|part| match part {
                PatternPart::Exact(e) => PatternPart::Exact(e.to_lowercase()),
                PatternPart::Any => PatternPart::Any,
            })
            .collect(),
    }
}
