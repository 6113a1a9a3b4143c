//! Function policy: which function names a query may call, in an expression or in FROM.
//!
//! PostgreSQL, SQLite and DuckDB ship an **allowlist** of built-in functions known to be free of
//! side effects (generated from the engines' own catalogs: see `data/` and the generator scripts
//! beside this file); any other function is refused. Every other dialect starts from a
//! **denylist** of known-dangerous functions and table functions (file, network, process, lock,
//! sleep, catalog and settings functions). The policy's `functions.allow` and `functions.deny`
//! extend either list; `functions.deny` always wins.
//!
//! A function called in an expression ([`FunctionPolicy::check`]) and a table function in FROM
//! ([`FunctionPolicy::check_table_function`]) are decided by different lists: the same name can
//! be a harmless scalar and a dangerous table function (DuckDB's `histogram` aggregate and its
//! `histogram(table, column)` table macro; SQLite's `fsdir`/`dbstat` exist only in FROM). What
//! an allowed function may generate is bounded apart (`crate::bounds`).

use std::collections::HashSet;

use crate::dialect::Dialect;

use crate::names::{Pattern, PatternPart};
use crate::policy::{FunctionRules, PolicyError};

const POSTGRES_ALLOW: &str = include_str!("data/postgres_allow.txt");
const POSTGRES_TABLE_ALLOW: &str = include_str!("data/postgres_table_allow.txt");
const SQLITE_ALLOW: &str = include_str!("data/sqlite_allow.txt");
const SQLITE_TABLE_ALLOW: &str = include_str!("data/sqlite_table_allow.txt");
const DUCKDB_ALLOW: &str = include_str!("data/duckdb_allow.txt");
const DUCKDB_TABLE_ALLOW: &str = include_str!("data/duckdb_table_allow.txt");
const COMMON_DENY: &str = include_str!("data/deny_common.txt");
const TABLE_DENY: &str = include_str!("data/deny_table.txt");

/// The names `dialect` allows in expressions by default, when it has an allowlist (the size
/// tables, `crate::bounds`, decide each of them).
#[cfg(test)]
pub(crate) fn default_allowlist(dialect: Dialect) -> Option<impl Iterator<Item = &'static str>> {
    let list = match dialect {
        Dialect::Postgres => POSTGRES_ALLOW,
        Dialect::Sqlite => SQLITE_ALLOW,
        Dialect::Duckdb => DUCKDB_ALLOW,
        _ => return None,
    };
    Some(entries(list))
}

/// Non-comment, non-empty lines of an embedded list.
fn entries(list: &str) -> impl Iterator<Item = &str> {
    list.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// A lower-case name set built from an embedded list.
fn name_set(list: &str) -> HashSet<String> {
    entries(list).map(str::to_lowercase).collect()
}

/// A `*` pattern split at its stars once, when the list is read, so that matching a name
/// allocates nothing: `*` stands for any run of characters.
#[derive(Debug, Clone)]
struct Glob {
    /// What the name must start with (the text before the first `*`).
    first: String,
    /// The pieces between stars, which must follow one another in the name.
    middle: Vec<String>,
    /// What the name must end with (the text after the last `*`); `None` without a `*`,
    /// where the whole name must be `first`.
    last: Option<String>,
}

impl Glob {
    fn new(pattern: &str) -> Self {
        let mut pieces = pattern.split('*').map(str::to_string);
        let first = pieces.next().unwrap_or_default();
        let mut middle: Vec<String> = pieces.collect();
        let last = middle.pop();
        Glob {
            first,
            middle,
            last,
        }
    }

    fn matches(&self, name: &str) -> bool {
        let Some(mut rest) = name.strip_prefix(self.first.as_str()) else {
            return false;
        };
        let Some(last) = &self.last else {
            return rest.is_empty();
        };
        for piece in &self.middle {
            match rest.find(piece.as_str()) {
                Some(at) => rest = &rest[at + piece.len()..],
                None => return false,
            }
        }
        rest.ends_with(last.as_str())
    }
}

/// True when `name` matches `pattern`, where `*` stands for any run of characters.
#[cfg(test)]
fn glob_match(pattern: &str, name: &str) -> bool {
    Glob::new(pattern).matches(name)
}

/// A parsed denylist: exact names, `*` patterns on the name, and `qualifier.*` entries that
/// refuse every function qualified by that schema or package, at any position.
#[derive(Debug, Clone, Default)]
struct DenyList {
    exact: HashSet<String>,
    globs: Vec<Glob>,
    qualifiers: HashSet<String>,
}

impl DenyList {
    fn parse(list: &str) -> Self {
        let mut deny = DenyList::default();
        for entry in entries(list) {
            let entry = entry.to_lowercase();
            if let Some(qualifier) = entry.strip_suffix(".*") {
                deny.qualifiers.insert(qualifier.to_string());
            } else if entry.contains('*') {
                deny.globs.push(Glob::new(&entry));
            } else {
                deny.exact.insert(entry);
            }
        }
        deny
    }

    /// `lower` is the lower-cased name, qualifiers first. A denied name is denied whatever
    /// qualifies it; a denied qualifier denies every name under it.
    fn matches(&self, lower: &[String]) -> bool {
        let Some((last, qualifiers)) = lower.split_last() else {
            return false;
        };
        self.exact.contains(last)
            || self.globs.iter().any(|g| g.matches(last))
            || qualifiers.iter().any(|q| self.qualifiers.contains(q))
    }
}

/// Where a function is called: the lists differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FunctionUse {
    /// In an expression (`SELECT upper(x)`).
    Expression,
    /// As a FROM item (`FROM generate_series(1, 3)`).
    Table,
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
    /// Functions allowed in expressions (allowlist dialects).
    allowlist: Option<HashSet<String>>,
    /// Table functions allowed in FROM (allowlist dialects).
    table_allowlist: Option<HashSet<String>>,
    /// Refused everywhere in denylist dialects; in allowlist dialects it only classifies a
    /// refusal as [`FunctionRefusal::Denied`].
    deny: DenyList,
    /// Refused in FROM on top of `deny` (same role).
    table_deny: DenyList,
    extra_allow: Vec<Pattern>,
    extra_deny: Vec<Pattern>,
}

impl FunctionPolicy {
    /// Builds the checker for `dialect` extended by the policy's rules.
    pub fn new(dialect: Dialect, rules: &FunctionRules) -> Result<Self, PolicyError> {
        let (allowlist, table_allowlist) = match dialect {
            Dialect::Postgres => (
                Some(name_set(POSTGRES_ALLOW)),
                Some(name_set(POSTGRES_TABLE_ALLOW)),
            ),
            Dialect::Sqlite => (
                Some(name_set(SQLITE_ALLOW)),
                Some(name_set(SQLITE_TABLE_ALLOW)),
            ),
            Dialect::Duckdb => (
                Some(name_set(DUCKDB_ALLOW)),
                Some(name_set(DUCKDB_TABLE_ALLOW)),
            ),
            _ => (None, None),
        };
        // Allowlist dialects read the denylists only to say *why* a name is refused (a known
        // side door is "denied", anything else "not allowlisted"); the allowlist decides.
        let (deny, table_deny) = (DenyList::parse(COMMON_DENY), DenyList::parse(TABLE_DENY));
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
            table_allowlist,
            deny,
            table_deny,
            extra_allow: parse("allow", &rules.allow)?,
            extra_deny: parse("deny", &rules.deny)?,
        })
    }

    /// Checks a function called in an expression, given as folded parts
    /// (`["pg_catalog", "pg_sleep"]`). Function names compare case-insensitively.
    pub fn check(&self, parts: &[String]) -> Result<(), FunctionRefusal> {
        self.decide(parts, self.allowlist.as_ref(), None)
    }

    /// Checks a table function in FROM (`FROM f(...)`, folded parts as for [`Self::check`]).
    /// Allowlist dialects use their table-function allowlist (DuckDB `range`, `unnest`;
    /// SQLite `json_each`; PostgreSQL set-returning functions such as `generate_series`):
    /// a name allowed in an expression is not thereby allowed in FROM. Denylist dialects refuse
    /// the denylist plus the table-function denials of `data/deny_table.txt`. The policy's
    /// `functions.allow` / `functions.deny` apply here too.
    pub fn check_table_function(&self, parts: &[String]) -> Result<(), FunctionRefusal> {
        self.decide(parts, self.table_allowlist.as_ref(), Some(&self.table_deny))
    }

    fn decide(
        &self,
        parts: &[String],
        allowlist: Option<&HashSet<String>>,
        extra_builtin_deny: Option<&DenyList>,
    ) -> Result<(), FunctionRefusal> {
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
        // Denylist: any qualification of a dangerous name is still dangerous. Asked only when
        // the answer matters: an allowlisted name is allowed whatever the denylist says.
        let denied =
            || self.deny.matches(&lower) || extra_builtin_deny.is_some_and(|d| d.matches(&lower));
        match allowlist {
            None if denied() => Err(FunctionRefusal::Denied),
            None => Ok(()),
            Some(list) => {
                let builtin_schema = lower.len() == 1
                    || (lower.len() == 2
                        && self.dialect.builtin_function_schema() == Some(lower[0].as_str()));
                if builtin_schema && list.contains(last) {
                    Ok(())
                } else if denied() {
                    Err(FunctionRefusal::Denied)
                } else {
                    Err(FunctionRefusal::NotAllowlisted)
                }
            }
        }
    }

    /// The closest allowlisted expression function, for a hint.
    pub fn suggest(&self, wanted: &str) -> Option<String> {
        let list = self.allowlist.as_ref()?;
        crate::names::closest(wanted, list.iter().map(String::as_str)).map(str::to_string)
    }

    /// What to use instead of `function` (lower-case, unqualified) in this dialect, for the
    /// agent-facing hint of a refusal; `None` when no equivalent is known.
    pub fn instead_of(&self, function: &str) -> Option<&'static str> {
        self.dialect.equivalent_of(function)
    }

    /// The closest allowlisted table function, for a hint after
    /// [`Self::check_table_function`] refused a name.
    pub fn suggest_table_function(&self, wanted: &str) -> Option<String> {
        let list = self.table_allowlist.as_ref()?;
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

#[cfg(test)]
mod tests;
