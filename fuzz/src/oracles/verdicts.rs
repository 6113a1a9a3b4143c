//! The read entry's oracles on raw fuzz input: the invariants of every verdict (`check_bytes`)
//! and the fixed point of an approved read (`fixed_point`, which also runs the mutation and
//! row-filter oracles in the input's dialect).

use sqlgate::{Approved, Dialect, ErrorCode, Guard, QueryClass, Rejection};

use super::guards::{guard, split_input};
use super::mutations::{mutation_fixed_point, mutation_guard};
use super::row_filters::row_filter_oracle;
use super::statements::plain_statement_count;

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
            no_coverage_hole(sql, &r.error);
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

/// The coverage check (core/src/validate/coverage.rs) refused: sqlparser's visitor reached a
/// name the walker did not resolve. The statement is refused, so nothing leaks, but the walker
/// does not model syntax the parser reads: a finding, to model or to refuse by name.
///
/// Told by the refusal's structure (its code and fixed message or hint), never by a substring
/// of the message alone: a parse error quotes the input, which may hold those very words.
pub fn no_coverage_hole(sql: &str, error: &sqlgate::GuardError) {
    const NOT_UNDERSTOOD: &str = "a part of this query is not understood by the validator";
    const UNRESOLVED_TAIL: &str =
        "is read by a construct the validator does not model, so what it reads cannot be checked";
    const UNRESOLVED_HINT: &str =
        "rewrite that part with plain column references in SELECT, WHERE, GROUP BY or ORDER BY";
    let hole = error.code == ErrorCode::UnsupportedSyntax
        && (error.message == NOT_UNDERSTOOD
            || (error.message.ends_with(UNRESOLVED_TAIL)
                && error.hint.as_deref() == Some(UNRESOLVED_HINT)));
    assert!(
        !hole,
        "the walker left a name unresolved ({}): {sql:?}",
        error.message
    );
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
    let checked = mutation_guard(dialect).check_mutation(&sql);
    if let Err(r) = &checked {
        no_coverage_hole(&sql, &r.error);
    }
    let mutation = sqlgate::MutationVerdict::from(checked);
    let _ = serde_json::to_string(&mutation).expect("mutation verdict serialises");
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

/// `fixed_point` on a raw fuzz input: the read entry with the input's policy, and the mutation
/// entry ([`mutation_fixed_point`]) in the input's dialect.
pub fn fixed_point(data: &[u8]) -> Option<Approved> {
    let (dialect, which, sql) = split_input(data)?;
    mutation_fixed_point(dialect, &sql);
    row_filter_oracle(dialect, &sql);
    fixed_point_with(guard(dialect, which), dialect, &sql)
}
