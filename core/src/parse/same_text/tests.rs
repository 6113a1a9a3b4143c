//! The text shortcut on its own: which re-spacings it accepts, and that each one it accepts is
//! one the tokens confirm (the self-check's debug assertion checks the same on every test).

use super::printed_as_read;
use crate::dialect::Dialect;
use crate::parse::{prepare, reads_the_same, tokenize};

/// The shortcut's answer for `printed` against `source`, asserting that the tokens agree
/// whenever it says yes.
fn same(source: &str, printed: &str, dialect: Dialect) -> bool {
    let read = prepare(tokenize(source, dialect).unwrap(), dialect).unwrap();
    let answer = printed_as_read(printed, source, &read, dialect);
    if answer {
        let again = prepare(tokenize(printed, dialect).unwrap(), dialect).unwrap();
        assert!(
            reads_the_same(&again, &read, dialect),
            "{source:?} -> {printed:?}: the text said the same, the tokens did not"
        );
    }
    answer
}

const PG: Dialect = Dialect::Postgres;

#[test]
fn the_same_text_with_its_gaps_made_single_spaces_reads_the_same() {
    assert!(same("SELECT a FROM t", "SELECT a FROM t", PG));
    assert!(same(
        "SELECT a\n  FROM t\tWHERE b = 'x  y'",
        "SELECT a FROM t WHERE b = 'x  y'",
        PG
    ));
    assert!(same("\n  SELECT a FROM t  \n", "SELECT a FROM t", PG));
    assert!(same("SELECT a\r\nFROM t", "SELECT a FROM t", PG));
}

#[test]
fn gaps_around_commas_and_parentheses_may_change() {
    assert!(same("SELECT a , b FROM t", "SELECT a, b FROM t", PG));
    assert!(same("SELECT a,b FROM t", "SELECT a, b FROM t", PG));
    assert!(same(
        "SELECT count( * ) FROM t",
        "SELECT count(*) FROM t",
        PG
    ));
    assert!(same(
        "SELECT a FROM t WHERE b=1",
        "SELECT a FROM t WHERE b = 1",
        PG
    ));
    assert!(same("SELECT f(1) , (2)", "SELECT f(1), (2)", PG));
}

#[test]
fn other_text_is_never_the_same() {
    // Case, quotes, a literal's inside, an extra or a missing token.
    assert!(!same("select a FROM t", "SELECT a FROM t", PG));
    assert!(!same("SELECT \"a\" FROM t", "SELECT a FROM t", PG));
    assert!(!same("SELECT 'x  y'", "SELECT 'x y'", PG));
    assert!(!same("SELECT a FROM t", "SELECT a FROM t LIMIT 5", PG));
    assert!(!same("SELECT a FROM t LIMIT 5", "SELECT a FROM t", PG));
    assert!(!same("SELECT a FROM t", "SELECT a FROM t ", PG));
    assert!(!same("SELECT a FROM t", " SELECT a FROM t", PG));
    // Two spaces where one would do, a newline where the source had a space.
    assert!(!same("SELECT a FROM t", "SELECT a  FROM t", PG));
    assert!(!same("SELECT a FROM t", "SELECT a\nFROM t", PG));
    // Comments are gone from the print.
    assert!(!same("SELECT a /* x */ FROM t", "SELECT a FROM t", PG));
    assert!(!same("SELECT a FROM t -- x", "SELECT a FROM t", PG));
}

#[test]
fn gaps_that_would_join_or_split_tokens_are_refused() {
    // Deleting a gap between two words, or between a word and a number, joins them.
    assert!(!same("SELECT a b", "SELECT ab", PG));
    assert!(!same("SELECT a 1", "SELECT a1", PG));
    // `t .5` is a number after a word; `t.5` would be a field access.
    assert!(!same("SELECT t .5", "SELECT t.5", Dialect::Duckdb));
    assert!(!same(
        "SELECT a FROM t WHERE b < = 1",
        "SELECT a FROM t WHERE b <= 1",
        PG
    ));
    // The parser reads gaps after `:`, `@` and around `-`.
    assert!(!same("SELECT 1 -1", "SELECT 1 - 1", PG));
    assert!(!same("SELECT 1-1", "SELECT 1 - 1", PG));
}

#[test]
fn whitespace_of_another_kind_only_after_tokens_that_end_alike() {
    // After a word, a tab and a space end it the same way.
    assert!(same("SELECT a\tFROM t", "SELECT a FROM t", PG));
    // After `#`, PostgreSQL's XOR, a tab and a space are told apart by dialects where `# ` starts
    // a comment: not proven here, so the tokens decide.
    assert!(!same("SELECT 1 #\t2", "SELECT 1 # 2", PG));
    assert!(same("SELECT 1 # 2", "SELECT 1 # 2", PG));
}

#[test]
fn gap_sensitive_dialects_keep_every_gap() {
    let bq = Dialect::Bigquery;
    assert!(same("SELECT a\nFROM t", "SELECT a FROM t", bq));
    assert!(!same("SELECT a , b FROM t", "SELECT a, b FROM t", bq));
    let rs = Dialect::Redshift;
    assert!(!same("SELECT a\nFROM t", "SELECT a FROM t", rs));
    assert!(same("SELECT a  FROM t", "SELECT a FROM t", rs));
}

#[test]
fn non_ascii_text_is_walked_by_characters() {
    assert!(same(
        "SELECT 'é' ,\n\"ñame\" FROM t",
        "SELECT 'é', \"ñame\" FROM t",
        PG
    ));
    assert!(!same("SELECT 'é'", "SELECT 'e'", PG));
}
