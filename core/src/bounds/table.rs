//! The size tables: for each function a dialect allows, how its result size follows from its
//! arguments' (`functions/data/<dialect>_sizes.txt`, beside the allowlists). PostgreSQL, SQLite
//! and DuckDB decide every allowlisted name, so that adding a function to an allowlist forces a
//! decision about its size (`tests` below fail otherwise); the dialects that run on a
//! denylist read `common_sizes.txt`, the functions known to grow or to be fixed, and take any
//! other function to be no larger than its arguments together.
//!
//! A line is `decision: name name ...` (see the header of each file for the decisions); a
//! decision names a transfer rule (`rules.rs`) or says the name is sized elsewhere: a generator
//! measured from its literal arguments (`bounds::kind`), a collecting aggregate
//! (`bounds::collects`), a function that splits a value into rows (`Kind::Split`).

use std::collections::HashMap;
use std::sync::OnceLock;

use super::decision::{Decision, Rule, FIXED};
use crate::dialect::Dialect;

const POSTGRES: &str = include_str!("../functions/data/postgres_sizes.txt");
const SQLITE: &str = include_str!("../functions/data/sqlite_sizes.txt");
const DUCKDB: &str = include_str!("../functions/data/duckdb_sizes.txt");
const COMMON: &str = include_str!("../functions/data/common_sizes.txt");

/// One dialect's table: lower-case name to decision.
pub(crate) type Table = HashMap<&'static str, Decision>;

/// The table of a dialect with an allowlist, which decides every function it allows.
fn own(dialect: Dialect) -> Option<(&'static OnceLock<Table>, &'static str)> {
    static POSTGRES_TABLE: OnceLock<Table> = OnceLock::new();
    static SQLITE_TABLE: OnceLock<Table> = OnceLock::new();
    static DUCKDB_TABLE: OnceLock<Table> = OnceLock::new();
    match dialect {
        Dialect::Postgres => Some((&POSTGRES_TABLE, POSTGRES)),
        Dialect::Sqlite => Some((&SQLITE_TABLE, SQLITE)),
        Dialect::Duckdb => Some((&DUCKDB_TABLE, DUCKDB)),
        _ => None,
    }
}

/// The table `dialect` reads: its own, or the common one.
pub(crate) fn of(dialect: Dialect) -> &'static Table {
    static COMMON_TABLE: OnceLock<Table> = OnceLock::new();
    let (cell, text) = own(dialect).unwrap_or((&COMMON_TABLE, COMMON));
    cell.get_or_init(|| parse(text).0)
}

/// True when `dialect`'s table decides every function the dialect allows by default (the
/// dialects with an allowlist).
pub(crate) fn complete(dialect: Dialect) -> bool {
    own(dialect).is_some()
}

/// The decision `dialect`'s table holds for `name` (lower case).
pub(crate) fn decision(name: &str, dialect: Dialect) -> Option<Decision> {
    of(dialect).get(name).copied()
}

/// A table and the lines it could not read (none: `tests` check every embedded table).
pub(crate) fn parse(text: &'static str) -> (Table, Vec<&'static str>) {
    let mut table = Table::new();
    let mut unread = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((head, names)) = line.split_once(':') else {
            unread.push(line);
            continue;
        };
        let Some(decision) = read_decision(head) else {
            unread.push(line);
            continue;
        };
        for name in names.split_whitespace() {
            if table.insert(name, decision).is_some() {
                // A name decided twice: the second decision would win silently.
                unread.push(line);
            }
        }
    }
    (table, unread)
}

/// The decision a line's head names: `fixed`, `fixed 128`, `scale 2 3`, `cut 1`, `within` ...
fn read_decision(head: &str) -> Option<Decision> {
    let mut words = head.split_whitespace();
    let word = words.next()?;
    let mut number = || words.next().and_then(|w| w.parse::<f64>().ok());
    let rule = match word {
        "generates" => return Some(Decision::Generates),
        "collects" => return Some(Decision::Collects),
        "splits" => return Some(Decision::Splits),
        "fixed" => Rule::Fixed(number().unwrap_or(FIXED)),
        "within" => Rule::Within,
        "widest" => Rule::Widest,
        "sum" => Rule::Sum,
        "scale" => Rule::Scale(number()?, number()?),
        "json" => Rule::Json,
        "cut" => Rule::Cut(number()? as usize),
        "repeat" => Rule::Repeat,
        "pad" => Rule::Pad,
        "replace" => Rule::Replace,
        "join" => Rule::Join,
        "copies" => Rule::Copies,
        "map" => Rule::Map,
        "unsized" => Rule::Unsized,
        _ => return None,
    };
    Some(Decision::Rule(rule))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounds::{collects, kind, Kind};
    use crate::functions::{default_allowlist, FunctionUse};

    const DIALECTS: [(Dialect, &str); 4] = [
        (Dialect::Postgres, POSTGRES),
        (Dialect::Sqlite, SQLITE),
        (Dialect::Duckdb, DUCKDB),
        (Dialect::Mysql, COMMON),
    ];

    #[test]
    fn every_table_reads_whole_and_decides_each_name_once() {
        for (dialect, text) in DIALECTS {
            let (table, unread) = parse(text);
            assert!(unread.is_empty(), "{dialect:?}: lines not read: {unread:?}");
            assert!(table.len() > 50, "{dialect:?}: {} names", table.len());
        }
    }

    /// Adding a function to an allowlist forces a decision about its size, and a name that
    /// leaves the allowlist leaves its table.
    #[test]
    fn every_allowlisted_function_has_a_size_decision() {
        for (dialect, _) in DIALECTS.iter().filter(|(d, _)| complete(*d)) {
            let Some(allowed) = default_allowlist(*dialect) else {
                panic!("{dialect:?} has no allowlist");
            };
            let allowed: Vec<&str> = allowed.collect();
            let undecided: Vec<&&str> = allowed
                .iter()
                .filter(|n| decision(n, *dialect).is_none())
                .collect();
            assert!(
                undecided.is_empty(),
                "{dialect:?}: no size decision for {undecided:?} (functions/data/*_sizes.txt)"
            );
            let stale: Vec<&&str> = of(*dialect)
                .keys()
                .filter(|n| !allowed.contains(n))
                .collect();
            assert!(
                stale.is_empty(),
                "{dialect:?}: decided but not allowed: {stale:?}"
            );
        }
    }

    /// The decisions that say "sized elsewhere" agree with where: a generator has a measure,
    /// a collecting aggregate is one, a split splits; and every name with a measure is decided
    /// as a generator or by the rule that sizes it in an expression.
    #[test]
    fn decisions_agree_with_the_generators_and_aggregates() {
        for (dialect, _) in DIALECTS {
            for (name, decided) in of(dialect) {
                let measured = kind(name, FunctionUse::Expression, dialect);
                let splits = matches!(
                    measured,
                    Some(Kind::Split(_) | Kind::Matches | Kind::Unnest)
                );
                match decided {
                    Decision::Generates => assert!(
                        measured.is_some() && !splits,
                        "{dialect:?} {name}: no measure"
                    ),
                    Decision::Splits => assert!(splits, "{dialect:?} {name}: not a split"),
                    Decision::Collects => {
                        assert!(collects(name), "{dialect:?} {name}: not collecting")
                    }
                    Decision::Rule(rule) => {
                        assert!(
                            !collects(name),
                            "{dialect:?} {name}: collects, decided {rule:?}"
                        );
                        assert!(
                            measured.is_none()
                                || matches!(rule, Rule::Repeat | Rule::Pad | Rule::Replace),
                            "{dialect:?} {name}: measured as {measured:?}, decided {rule:?}"
                        );
                    }
                }
            }
        }
    }
}
