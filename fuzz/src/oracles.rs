//! Oracles shared by the fuzz targets and by `core/tests/fuzz_regressions.rs`, which includes this
//! file with `#[path]` so that plain `cargo test` replays `fuzz/seeds/` through the very same
//! checks. Only `sqlgate`, `sqlparser` and `std` are used here, so that both crates can build it.
//!
//! Input layout for `check_bytes`, `fixed_point` and `differential_pg`: the first byte picks the
//! dialect (`byte % 13`, the order of [`Dialect::ALL`]) and the policy (`byte / 13 % 3`, see
//! [`policy`]); the rest is the SQL, decoded as lossy UTF-8. A seed written by hand therefore
//! starts with one selector byte: `\x00` is postgres with the default policy.

use std::sync::OnceLock;

use sqlgate::{
    Approved, ColumnRules, Dialect, ErrorCode, Guard, Policy, QueryClass, Rejection, TableRules,
};
use sqlparser::tokenizer::{Token, Tokenizer, Whitespace};

/// Number of policies per dialect.
pub const POLICIES: usize = 3;

/// The policies every dialect is fuzzed with: 0 the default, 1 no row cap, 2 tables and columns
/// denied.
pub fn policy(dialect: Dialect, which: usize) -> Policy {
    let base = Policy::for_dialect(dialect);
    match which % POLICIES {
        0 => base,
        1 => Policy {
            max_rows: None,
            ..base
        },
        _ => Policy {
            tables: TableRules {
                allow: Vec::new(),
                deny: vec!["employee".into(), "secret.*".into()],
            },
            columns: ColumnRules {
                deny: vec!["customer.email".into(), "*.ssn".into()],
            },
            ..base
        },
    }
}

/// One compiled guard per (dialect, policy), built once.
pub fn guard(dialect: Dialect, which: usize) -> &'static Guard {
    static GUARDS: OnceLock<Vec<Guard>> = OnceLock::new();
    let guards = GUARDS.get_or_init(|| {
        Dialect::ALL
            .iter()
            .flat_map(|&d| (0..POLICIES).map(move |p| (d, p)))
            .map(|(d, p)| Guard::new(policy(d, p)).expect("fuzz policies compile"))
            .collect()
    });
    let index = Dialect::ALL.iter().position(|&d| d == dialect).unwrap_or(0);
    &guards[index * POLICIES + which % POLICIES]
}

/// Splits a fuzz input into (dialect, policy index, SQL).
pub fn split_input(data: &[u8]) -> Option<(Dialect, usize, String)> {
    let (&selector, rest) = data.split_first()?;
    let dialect = Dialect::ALL[selector as usize % Dialect::ALL.len()];
    let which = (selector as usize / Dialect::ALL.len()) % POLICIES;
    Some((dialect, which, String::from_utf8_lossy(rest).into_owned()))
}

/// The sqlparser dialect for `dialect` (sqlgate keeps its own mapping private).
pub fn parser_dialect(dialect: Dialect) -> Box<dyn sqlparser::dialect::Dialect> {
    sqlparser::dialect::dialect_from_str(dialect.as_str())
        .unwrap_or_else(|| Box::new(sqlparser::dialect::GenericDialect {}))
}

/// Statements on the token stream, counted independently of core: tokenize (no unescaping) in
/// the same dialect, then one statement per run of tokens that are neither whitespace, comments
/// nor `;`. `None` when the text does not tokenize.
pub fn plain_statement_count(sql: &str, dialect: Dialect) -> Option<usize> {
    let d = parser_dialect(dialect);
    let tokens = Tokenizer::new(d.as_ref(), sql)
        .with_unescape(false)
        .tokenize()
        .ok()?;
    let mut count = 0;
    let mut inside = false;
    for token in &tokens {
        match token {
            Token::Whitespace(
                Whitespace::Space
                | Whitespace::Newline
                | Whitespace::Tab
                | Whitespace::SingleLineComment { .. }
                | Whitespace::MultiLineComment(_),
            )
            | Token::EOF => {}
            Token::SemiColon => inside = false,
            _ => {
                if !inside {
                    count += 1;
                    inside = true;
                }
            }
        }
    }
    Some(count)
}

/// Invariants of every verdict, allowed or not.
pub fn verdict_invariants(sql: &str, result: &Result<Approved, Rejection>) {
    match result {
        Ok(a) => {
            assert_eq!(
                a.query_class,
                QueryClass::Select,
                "approved non-select: {sql:?}"
            );
            assert_eq!(a.statement_count, 1, "approved with count != 1: {sql:?}");
            assert!(!a.sql.trim().is_empty(), "approved empty SQL for {sql:?}");
        }
        Err(r) => {
            assert!(
                !r.error.message.is_empty(),
                "refusal without message: {sql:?}"
            );
            if r.error.code == ErrorCode::MultipleStatements {
                assert!(
                    r.statement_count > 1,
                    "multiple_statements with count {}",
                    r.statement_count
                );
            }
        }
    }
}

/// `check_bytes`: the guard never panics on any input, for any dialect and policy, and its verdict
/// serialises. Returns the verdict for callers that want more.
pub fn check_bytes(data: &[u8]) -> Option<Result<Approved, Rejection>> {
    let (dialect, which, sql) = split_input(data)?;
    let g = guard(dialect, which);
    let result = g.check(&sql);
    verdict_invariants(&sql, &result);
    let verdict = sqlgate::Verdict::from(result.clone());
    let _ = serde_json::to_string(&verdict).expect("verdict serialises");
    let _ = sqlgate::classify(&sql, dialect);
    Some(result)
}

/// `fixed_point` for one (guard, SQL): an approved payload re-checks as allowed with identical SQL,
/// class, limit, tables and functions; the statement count agrees with [`plain_statement_count`].
pub fn fixed_point_with(g: &Guard, dialect: Dialect, sql: &str) -> Option<Approved> {
    let result = g.check(sql);
    verdict_invariants(sql, &result);
    let plain = plain_statement_count(sql, dialect);
    match &result {
        Ok(first) => {
            assert_eq!(
                plain,
                Some(1),
                "approved, but the token stream holds {plain:?} statements: {sql:?}"
            );
            let second = g.check(&first.sql).unwrap_or_else(|r| {
                panic!(
                    "approved SQL refused on re-check ({}: {}):\n  input:    {sql:?}\n  approved: {:?}",
                    r.error.code, r.error.message, first.sql
                )
            });
            assert_eq!(second.sql, first.sql, "not a fixed point for input {sql:?}");
            assert_eq!(
                second.query_class, first.query_class,
                "class drift: {sql:?}"
            );
            assert_eq!(
                second.limit.value, first.limit.value,
                "limit drift: {sql:?}"
            );
            assert_eq!(second.tables, first.tables, "tables drift: {sql:?}");
            assert_eq!(
                second.functions, first.functions,
                "functions drift: {sql:?}"
            );
            assert_eq!(
                sqlgate::classify(&first.sql, dialect),
                QueryClass::Select,
                "approved SQL classifies as something else: {:?}",
                first.sql
            );
            Some(first.clone())
        }
        Err(r) => {
            // Statement counts are only meaningful once the text tokenized.
            let tokenized = !matches!(
                r.error.code,
                ErrorCode::TooLarge | ErrorCode::InvalidCharacter
            ) && r.statement_count > 0;
            if let (true, Some(plain)) = (tokenized, plain) {
                // MS SQL separates statements without `;`, so the parser may find more.
                let agrees = if dialect == Dialect::Mssql {
                    r.statement_count >= plain
                } else {
                    r.statement_count == plain
                };
                assert!(
                    agrees,
                    "statement_count {} but the token stream holds {plain} ({}): {sql:?}",
                    r.statement_count, r.error.code
                );
            }
            None
        }
    }
}

/// `fixed_point` on a raw fuzz input.
pub fn fixed_point(data: &[u8]) -> Option<Approved> {
    let (dialect, which, sql) = split_input(data)?;
    fixed_point_with(guard(dialect, which), dialect, &sql)
}

/// Expectation of a `grammar` case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Something dangerous was generated: the guard must refuse.
    Dangerous,
    /// Only benign, valid postgres was generated: the guard must allow.
    Benign,
}

/// Header of a text-form `grammar` case: `-- expect: dangerous` or `-- expect: benign`, a
/// newline, then the SQL. The `grammar` target and the regression test both accept this form.
pub const GRAMMAR_HEADER: &str = "-- expect: ";

/// Parses a text-form grammar case.
pub fn parse_grammar_case(data: &[u8]) -> Option<(Expect, String)> {
    let text = std::str::from_utf8(data).ok()?;
    let rest = text.strip_prefix(GRAMMAR_HEADER)?;
    let (word, sql) = rest.split_once('\n')?;
    let expect = match word.trim() {
        "dangerous" => Expect::Dangerous,
        "benign" => Expect::Benign,
        _ => return None,
    };
    Some((expect, sql.to_string()))
}

/// `grammar`: with the postgres dialect and the default policy, dangerous SQL is refused and
/// benign SQL is allowed (and then a fixed point).
pub fn grammar_oracle(sql: &str, expect: Expect) {
    let g = guard(Dialect::Postgres, 0);
    match (expect, g.check(sql)) {
        (Expect::Dangerous, Ok(a)) => panic!(
            "BYPASS: dangerous SQL was allowed\n  input:    {sql:?}\n  approved: {:?}",
            a.sql
        ),
        (Expect::Dangerous, Err(_)) => {}
        (Expect::Benign, Err(r)) => panic!(
            "benign SQL refused with {} ({}): {sql:?}",
            r.error.code, r.error.message
        ),
        (Expect::Benign, Ok(_)) => {
            fixed_point_with(g, Dialect::Postgres, sql);
        }
    }
}
