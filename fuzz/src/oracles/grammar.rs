//! The `grammar` target's expectations: the text form of a case (`-- expect: ...`, then the SQL)
//! and the oracle that holds the postgres guard to a case's expectation.

use sqlgate::{Dialect, ErrorCode};

use super::guards::guard;
use super::names::names_oracle;
use super::verdicts::fixed_point_with;

/// Expectation of a `grammar` case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Something dangerous was generated: the guard must refuse.
    Dangerous,
    /// Only benign, valid postgres was generated: the guard must allow.
    Benign,
    /// A name-resolution case for the policy of [`names_policy`](super::names::names_policy) in this dialect, with the
    /// fixture catalog or not: whatever is approved must pass [`names_oracle`].
    Names(Dialect, bool),
}

/// Header of a text-form `grammar` case: `-- expect: dangerous` or `-- expect: benign`, a
/// newline, then the SQL. The `grammar` target and the regression test both accept this form.
/// Name-resolution cases read `-- expect: names <dialect>` or `-- expect: names <dialect> catalog`.
pub const GRAMMAR_HEADER: &str = "-- expect: ";

/// Parses a text-form grammar case.
pub fn parse_grammar_case(data: &[u8]) -> Option<(Expect, String)> {
    let text = std::str::from_utf8(data).ok()?;
    let rest = text.strip_prefix(GRAMMAR_HEADER)?;
    let (word, sql) = rest.split_once('\n')?;
    let mut words = word.split_whitespace();
    let expect = match words.next()? {
        "dangerous" => Expect::Dangerous,
        "benign" => Expect::Benign,
        "names" => {
            let dialect: Dialect = words.next()?.parse().ok()?;
            let catalog = match words.next() {
                None => false,
                Some("catalog") => true,
                Some(_) => return None,
            };
            Expect::Names(dialect, catalog)
        }
        _ => return None,
    };
    Some((expect, sql.to_string()))
}

/// `grammar`: with the postgres dialect and the default policy, dangerous SQL is refused and
/// benign SQL is allowed (and then a fixed point), unless the rows its series generate (cross
/// joined and nested, they multiply) pass the policy's `max_generated_rows`: a bound the policy
/// sets, not a false refusal (the bound itself is tested by `tests/vectors/bounds.jsonl`).
pub fn grammar_oracle(sql: &str, expect: Expect) {
    if let Expect::Names(dialect, catalog) = expect {
        names_oracle(dialect, catalog, sql);
        return;
    }
    let g = guard(Dialect::Postgres, 0);
    match (expect, g.check(sql)) {
        (Expect::Dangerous, Ok(a)) => panic!(
            "BYPASS: dangerous SQL was allowed\n  input:    {sql:?}\n  approved: {:?}",
            a.sql
        ),
        (Expect::Dangerous, Err(_)) => {}
        (Expect::Benign, Err(r)) if r.error.code == ErrorCode::GeneratedTooLarge => {}
        (Expect::Benign, Err(r)) => panic!(
            "benign SQL refused with {} ({}): {sql:?}",
            r.error.code, r.error.message
        ),
        (Expect::Benign, Ok(_)) => {
            fixed_point_with(g, Dialect::Postgres, sql);
        }
        (Expect::Names(..), _) => {}
    }
}
