//! The self-check's text shortcut (`parse/same_text.rs`) under re-spacing: every corpus read,
//! its gaps rewritten in several ways and checked in every dialect, gets the verdict of its
//! original text. The oracle is twofold: the approved SQL must not depend on the spacing, and
//! this debug build's self-check asserts, each time the shortcut skips the second pass, that the
//! printed SQL's tokens read the same and that its full parse gives the checked tree.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;

use sqlgate::{Dialect, Guard};

use common::{corpus_dir, guard, read_jsonl};

/// How a re-spacing treats the gaps outside quotes.
#[derive(Debug, Clone, Copy)]
enum Respace {
    /// Every gap a newline and an indent.
    Newlines,
    /// Every gap a tab.
    Tabs,
    /// Every gap two spaces.
    Doubled,
    /// No gap beside `,`, `(` and `)`; one space elsewhere.
    Tight,
    /// A space after every `,` and `(` and before every `)`, and around `=`.
    Loose,
}

const RESPACINGS: [Respace; 5] = [
    Respace::Newlines,
    Respace::Tabs,
    Respace::Doubled,
    Respace::Tight,
    Respace::Loose,
];

/// `sql` re-spaced outside its quotes ('...', "...", `...`); a doubled quote toggles twice.
fn respace(sql: &str, how: Respace) -> String {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut gap = false;
    for c in sql.chars() {
        if let Some(q) = quote {
            out.push(c);
            if c == q {
                quote = None;
            }
            continue;
        }
        if c.is_whitespace() {
            gap = true;
            continue;
        }
        let tight_here = matches!(c, ',' | '(' | ')') || out.ends_with([',', '(', ')']);
        if gap && !out.is_empty() {
            match how {
                Respace::Newlines => out.push_str("\n  "),
                Respace::Tabs => out.push('\t'),
                Respace::Doubled => out.push_str("  "),
                Respace::Tight if tight_here => {}
                Respace::Tight | Respace::Loose => out.push(' '),
            }
        }
        gap = false;
        if matches!(how, Respace::Loose)
            && matches!(c, ')' | '=')
            && !out.ends_with([' ', '<', '>', '!'])
        {
            out.push(' ');
        }
        out.push(c);
        if matches!(how, Respace::Loose) && matches!(c, ',' | '(' | '=') {
            out.push(' ');
            gap = false;
        }
        if matches!(c, '\'' | '"' | '`') {
            quote = Some(c);
        }
    }
    out
}

const DIALECTS: [Dialect; 8] = [
    Dialect::Postgres,
    Dialect::Mysql,
    Dialect::Sqlite,
    Dialect::Duckdb,
    Dialect::Bigquery,
    Dialect::Snowflake,
    Dialect::Redshift,
    Dialect::Mssql,
];

#[test]
fn respaced_reads_get_the_verdict_of_their_original() {
    let Some(dir) = corpus_dir() else { return };
    let mut guards: BTreeMap<Dialect, Guard> = BTreeMap::new();
    let (mut compared, mut differing) = (0usize, Vec::new());
    for file in ["chinook/chinook_gold.jsonl", "spider/spider_dev.jsonl"] {
        for row in read_jsonl(&dir.join(file)) {
            let sql = row["sql"].as_str().unwrap_or_default();
            for dialect in DIALECTS {
                let guard = guards
                    .entry(dialect)
                    .or_insert_with(|| guard(dialect, Some(1000)));
                let original = guard.check(sql).map(|a| a.sql);
                for how in RESPACINGS {
                    let variant = respace(sql, how);
                    let again = guard.check(&variant).map(|a| a.sql);
                    compared += 1;
                    // Refusals may differ by location only; an approval must be the same SQL.
                    let same = match (&original, &again) {
                        (Ok(a), Ok(b)) => a == b,
                        (Err(a), Err(b)) => a.error.code == b.error.code,
                        _ => false,
                    };
                    if !same {
                        differing.push(format!("{dialect} {how:?}\n  {sql}\n  {variant}"));
                    }
                }
            }
        }
    }
    assert!(compared > 40_000, "only {compared} re-spaced checks");
    assert!(
        differing.is_empty(),
        "{} re-spaced reads got another verdict, e.g.:\n{}",
        differing.len(),
        differing
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
