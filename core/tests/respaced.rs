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

/// Re-spaces every Chinook and Spider read and checks it in `dialects`; panics (with examples)
/// when a re-spaced read gets another verdict than its original.
fn respaced_reads_keep_their_verdict(dialects: &[Dialect]) {
    let Some(dir) = corpus_dir() else { return };
    let mut guards: BTreeMap<Dialect, Guard> = BTreeMap::new();
    let (mut compared, mut differing) = (0usize, Vec::new());
    for file in ["chinook/chinook_gold.jsonl", "spider/spider_dev.jsonl"] {
        for row in read_jsonl(&dir.join(file)) {
            let sql = row["sql"].as_str().unwrap_or_default();
            for &dialect in dialects {
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
    assert!(
        compared > 5_000 * dialects.len(),
        "only {compared} re-spaced checks"
    );
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

// Two halves, so that the test harness runs them on two threads.
#[test]
fn respaced_reads_get_the_verdict_of_their_original_in_engine_dialects() {
    respaced_reads_keep_their_verdict(&[
        Dialect::Postgres,
        Dialect::Mysql,
        Dialect::Sqlite,
        Dialect::Duckdb,
    ]);
}

#[test]
fn respaced_reads_get_the_verdict_of_their_original_in_gap_reading_dialects() {
    respaced_reads_keep_their_verdict(&[
        Dialect::Bigquery,
        Dialect::Snowflake,
        Dialect::Redshift,
        Dialect::Mssql,
    ]);
}

/// Inputs at each place where sqlparser's tokenizer looks at the character after a token or at
/// the previous token, or its parser at a gap: checked in every dialect, as written and
/// re-spaced. The oracle is the debug build's assertion in the self-check (a shortcut taken
/// where the tokens or the full parse disagree panics); verdicts may differ between spacings
/// here, since some of these gaps do change what the text means.
#[test]
fn tokenizer_edge_cases_never_fool_the_shortcut() {
    let edges = [
        "SELECT a #\tb FROM t",
        "SELECT a # b FROM t",
        "SELECT 1 @\t2, 1 @ 2",
        "SELECT t .5 FROM t",
        "SELECT t. a FROM t",
        "SELECT t .a, t. b FROM t",
        "SELECT 1 .e5, 1. e5",
        "SELECT (1, 2) .1, (1, 2).1",
        "SELECT t._x, t ._x FROM t",
        "SELECT $1 ,2, $1,2",
        "SELECT x'ab' , N'x' , X 'ab', N 'x'",
        "SELECT \"a\" \"b\", 'a'\n'b', 'a' 'b'",
        "SELECT a-\tb, a - -1, a--1\n, -1, - 1 FROM t",
        "SELECT :x , : y, :z",
        "SELECT @x ,@@y, @ z",
        "SELECT 1 % 2, 1 %\t2, 1%2",
        "SELECT a::int , b:: text, c ::text FROM t",
        "SELECT [a] , [b] FROM [t]",
        "SELECT a FROM t\r\nWHERE b = 1\rAND c = 2",
        "SELECT a\u{a0}FROM\u{2003}t",
        "SELECT 1e5 , 1.5e-3, 1 e5",
        "SELECT 0x1F , 0b1, 0 x1F",
        "SELECT a||'x' , a || 'y', a | | 'z' FROM t",
        "SELECT a<>b, a< >b, a<=b, a< =b, a!=b, a! =b FROM t",
        "SELECT a FROM t;",
        "SELECT a FROM t ;  ",
        "SELECT a FROM t\n;\n",
        "SELECT a FROM t LIMIT 5 ;",
        "SELECT count( * ) , max( a ) FROM t GROUP BY b HAVING count(*)>1",
        "WITH x AS (SELECT 1 AS a) SELECT a FROM x",
        "SELECT a FROM t WHERE b IN ( 1 , 2 ) ORDER BY a DESC",
        "SELECT `a` , `b` FROM `t`",
        "SELECT a FROM t WHERE b LIKE 'x%' ESCAPE '\\'",
        "SELECT a FROM t WHERE b = E'x\\'y'",
        "SELECT a FROM t WHERE b = $$x y$$",
        "SELECT a FROM t WHERE b = U&'x'",
        "SELECT a FROM t FOR READ ONLY",
        "SELECT sum(a) OVER (ORDER BY b ROWS '1' PRECEDING) FROM t",
        "SELECT a FROM t /* c */",
        "SELECT a FROM t -- c",
        "SELECT TOP 5 a FROM t",
        "SELECT a FROM t OFFSET 1 ROWS FETCH NEXT 2 ROWS ONLY",
        "SELECT a FROM proj-1.ds.t",
        "SELECT a FROM @stage/path",
    ];
    let dialects = [
        Dialect::Postgres,
        Dialect::Mysql,
        Dialect::Sqlite,
        Dialect::Mssql,
        Dialect::Duckdb,
        Dialect::Snowflake,
        Dialect::Bigquery,
        Dialect::Redshift,
        Dialect::Clickhouse,
        Dialect::Databricks,
        Dialect::Hive,
        Dialect::Ansi,
        Dialect::Generic,
    ];
    let mut approved = 0usize;
    for dialect in dialects {
        let guard = guard(dialect, Some(1000));
        for sql in edges {
            let variants = std::iter::once(sql.to_string())
                .chain(RESPACINGS.iter().map(|&how| respace(sql, how)));
            for variant in variants {
                approved += usize::from(guard.check(&variant).is_ok());
            }
        }
    }
    // The edges are mostly plain reads: most of them must get through somewhere, or the
    // shortcut was never reached.
    assert!(approved > 1_000, "only {approved} approvals");
}
