//! The parser dialect each [`Dialect`] gets (`sql_dialect`'s wrapper) parses what sqlparser's
//! built-in dialect parses, and the extensions on top. Here, beside the mapping, because the
//! wrapper knows nothing of sqlgate's dialects.

use sqlparser::ast::Statement;
use sqlparser::dialect::Dialect as SpDialect;
use sqlparser::parser::Parser;

use super::Dialect;

/// The dialect sqlparser itself has for `dialect` (what the wrapper wraps).
fn built_in(dialect: Dialect) -> Box<dyn SpDialect> {
    use sqlparser::dialect as sp;
    match dialect {
        Dialect::Postgres => Box::new(sp::PostgreSqlDialect {}),
        Dialect::Mysql => Box::new(sp::MySqlDialect {}),
        Dialect::Sqlite => Box::new(sp::SQLiteDialect {}),
        Dialect::Mssql => Box::new(sp::MsSqlDialect {}),
        Dialect::Duckdb => Box::new(sp::DuckDbDialect {}),
        Dialect::Snowflake => Box::new(sp::SnowflakeDialect {}),
        Dialect::Bigquery => Box::new(sp::BigQueryDialect {}),
        Dialect::Redshift => Box::new(sp::RedshiftSqlDialect {}),
        Dialect::Clickhouse => Box::new(sp::ClickHouseDialect {}),
        Dialect::Databricks => Box::new(sp::DatabricksDialect {}),
        Dialect::Hive => Box::new(sp::HiveDialect {}),
        Dialect::Ansi => Box::new(sp::AnsiDialect {}),
        Dialect::Generic => Box::new(sp::GenericDialect {}),
    }
}

fn parse(d: &dyn SpDialect, sql: &str) -> Result<Vec<Statement>, String> {
    Parser::new(d)
        .with_recursion_limit(64)
        .try_with_sql(sql)
        .and_then(|mut p| p.parse_statements())
        .map_err(|e| e.to_string())
}

/// SQL that exercises dialect flags the wrapper must pass through (a missed delegation
/// would fall back to the trait's default and read some of these differently).
const SAMPLES: &[(&str, &[Dialect])] = &[
    (
        "SELECT 'it''s', E'a\\nb', $$x$$, U&'d\\0061t', B'101', X'1f'",
        &[Dialect::Postgres, Dialect::Generic],
    ),
    (
        "SELECT a::int, a ~ 'x', a !~* 'y', a -> 'k', a ->> 'k', a @> b, 5 !",
        &[Dialect::Postgres],
    ),
    (
        "SELECT count(*) FILTER (WHERE a > 1) FROM t GROUP BY ROLLUP (a), CUBE (b)",
        &[Dialect::Postgres, Dialect::Duckdb],
    ),
    (
        "SELECT `a` FROM `t` WHERE a REGEXP 'x' LIMIT 5, 10",
        &[Dialect::Mysql],
    ),
    (
        "SELECT 'a\\'b' AS x, a DIV 2, @v, @@version",
        &[Dialect::Mysql],
    ),
    (
        "SELECT TOP 5 [a] FROM [dbo].[t] WITH (NOLOCK) WHERE a = N'x'",
        &[Dialect::Mssql],
    ),
    (
        "SELECT * EXCLUDE (a) FROM t QUALIFY row_number() OVER () = 1",
        &[Dialect::Duckdb, Dialect::Snowflake],
    ),
    (
        "SELECT {'a': 1}, [1, 2][1], list_value(1), x -> x + 1",
        &[Dialect::Duckdb],
    ),
    (
        "SELECT a:b.c::string, IDENTIFIER('t') FROM t SAMPLE (10)",
        &[Dialect::Snowflake],
    ),
    (
        "SELECT STRUCT(1 AS a), ARRAY<INT64>[1], `p.d.t`.a FROM `p.d.t`",
        &[Dialect::Bigquery],
    ),
    (
        "SELECT a FROM t FINAL PREWHERE a > 1 LIMIT 1 BY a SETTINGS max_threads = 1",
        &[Dialect::Clickhouse],
    ),
    (
        "SELECT a FROM t LATERAL VIEW explode(b) x AS c DISTRIBUTE BY a SORT BY a",
        &[Dialect::Hive, Dialect::Databricks],
    ),
    (
        "SELECT a FROM t WHERE a GLOB 'x*' AND b IS NOT c",
        &[Dialect::Sqlite],
    ),
    ("SELECT #a FROM t", &[Dialect::Redshift]),
];

/// Adds every statement of the pg_regress and sqlglot corpora, with its own dialect and the
/// generic one, to `texts`; returns how many corpus files were read (none without the corpus,
/// which CI requires).
fn corpus_texts(texts: &mut Vec<(String, Vec<Dialect>)>) -> usize {
    let corpus = std::env::var_os("SQLGATE_CORPUS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
        });
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    let mut corpus_files = 0;
    for file in ["pg_regress/pg_regress.jsonl", "sqlglot/sqlglot.jsonl"] {
        let Ok(text) = std::fs::read_to_string(corpus.join(file)) else {
            assert!(
                !in_ci,
                "{file} not found in {}; CI requires the corpus",
                corpus.display()
            );
            eprintln!("SKIPPED corpus part of this test: {file} not found");
            continue;
        };
        corpus_files += 1;
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let Some(sql) = v["sql"].as_str() else {
                continue;
            };
            // The corpus's own dialect (sqlglot names), and the permissive generic one.
            let own = match v["dialect"].as_str().unwrap_or("postgres") {
                "tsql" | "fabric" => Dialect::Mssql,
                "spark" | "spark2" => Dialect::Databricks,
                "presto" | "trino" | "athena" => Dialect::Ansi,
                other => other.parse().unwrap_or(Dialect::Generic),
            };
            texts.push((sql.to_string(), vec![own, Dialect::Generic]));
        }
    }
    corpus_files
}

/// Wherever the built-in dialect parses a statement, the wrapper parses it into the very same
/// tree: on the samples above and, when the shared corpus is present, on every statement of
/// the pg_regress and sqlglot corpora in every dialect.
#[test]
fn wrapper_parses_like_the_built_in_dialect() {
    // Each text with the dialects to parse it in.
    let mut texts: Vec<(String, Vec<Dialect>)> = Vec::new();
    for (sql, _) in SAMPLES {
        texts.push((sql.to_string(), Dialect::ALL.to_vec()));
    }
    let corpus_files = corpus_texts(&mut texts);
    let run = move || {
        let mut compared = 0usize;
        let mut failures = Vec::new();
        for &dialect in Dialect::ALL {
            let inner = built_in(dialect);
            let wrapped = dialect.parser_dialect();
            for (sql, _) in texts.iter().filter(|(_, ds)| ds.contains(&dialect)) {
                let Ok(expected) = parse(inner.as_ref(), sql) else {
                    continue;
                };
                compared += 1;
                match parse(wrapped, sql) {
                    Ok(got) if got == expected => {}
                    Ok(got) => failures.push(format!(
                        "[{dialect}] {sql}\n    built-in: {expected:?}\n    wrapped:  {got:?}"
                    )),
                    Err(e) => failures.push(format!("[{dialect}] {sql}\n    wrapped: {e}")),
                }
            }
        }
        (compared, failures)
    };
    let (compared, failures) = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(run)
        .expect("thread")
        .join()
        .expect("no panic");
    // Without the corpus only the samples are compared: each in every dialect that parses it.
    let expected = if corpus_files > 0 { 100 } else { SAMPLES.len() };
    assert!(compared >= expected, "only {compared} statements compared");
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Every sample parses in the dialects it was written for (so none is vacuous).
    for (sql, dialects) in SAMPLES {
        for d in *dialects {
            assert!(
                parse(built_in(*d).as_ref(), sql).is_ok(),
                "[{d}] sample does not parse: {sql}"
            );
        }
    }
}
