//! Tokenizing, counting, preparing and parsing.

use super::prepare::*;
use super::*;

fn count(sql: &str) -> usize {
    count_statements(&tokenize(sql, Dialect::Postgres).unwrap()).0
}

#[test]
fn statement_count_ignores_trailing_semicolons_and_comments() {
    assert_eq!(count("SELECT 1"), 1);
    assert_eq!(count("SELECT 1;"), 1);
    assert_eq!(count("SELECT 1; -- done\n;; /* end */"), 1);
    assert_eq!(count("SELECT 1; COMMIT"), 2);
    assert_eq!(count("SELECT ';' ; SELECT 2; DROP TABLE t"), 3);
    assert_eq!(count(""), 0);
}

#[test]
fn location_from_parser_message() {
    assert_eq!(
        location_in_message("Expected: end of statement, found: x at Line: 3, Column: 14"),
        Some(Location {
            line: 3,
            column: 14
        })
    );
    assert_eq!(location_in_message("no location"), None);
}

fn reprint(sql: &str, dialect: Dialect) -> Result<String, ErrorCode> {
    let tokens = tokenize(sql, dialect).map_err(|e| e.code)?;
    let statements = parse_tokens(tokens, dialect, 64).map_err(|e| e.code)?;
    Ok(statements
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join("; "))
}

#[test]
fn unicode_escaped_identifiers_are_refused() {
    for sql in [
        r#"SELECT U&"\0065mail" FROM customer"#,
        r#"SELECT u&"\0065mail" FROM customer"#,
        r#"SELECT * FROM U&"\0065mployee""#,
        r#"SELECT a FROM t WHERE U&"d!0061t" UESCAPE '!' = 1"#,
    ] {
        for dialect in [
            Dialect::Postgres,
            Dialect::Redshift,
            Dialect::Generic,
            Dialect::Ansi,
        ] {
            assert_eq!(
                reprint(sql, dialect),
                Err(ErrorCode::UnsupportedSyntax),
                "[{dialect}] {sql}"
            );
        }
    }
    // With space or a comment between, the server reads the `&` operator, as sqlparser does.
    assert_eq!(
        reprint(r#"SELECT u & "x", u/**/&"x" FROM t"#, Dialect::Postgres).as_deref(),
        Ok(r#"SELECT u & "x", u & "x" FROM t"#)
    );
    // DuckDB has no Unicode-escaped identifiers: U&"x" is `U & "x"` there too.
    assert_eq!(
        reprint(r#"SELECT U&"x" FROM t"#, Dialect::Duckdb).as_deref(),
        Ok(r#"SELECT U & "x" FROM t"#)
    );
    // Unicode-escaped strings are one literal for sqlparser as for the server.
    assert_eq!(
        reprint(r"SELECT U&'\0061bc', U&'\0027'", Dialect::Postgres).as_deref(),
        Ok("SELECT U&'abc', U&''''")
    );
}

#[test]
fn for_read_only_is_dropped() {
    assert_eq!(
        reprint(
            "SELECT a FROM (SELECT a FROM t FOR READ ONLY) s ORDER BY a FOR /* x */ read only LIMIT 3",
            Dialect::Postgres
        )
        .as_deref(),
        Ok("SELECT a FROM (SELECT a FROM t) s ORDER BY a LIMIT 3")
    );
    // Only where the engine reads it, and never a quoted word.
    assert!(reprint("SELECT a FROM t FOR READ ONLY", Dialect::Mysql).is_err());
    assert!(reprint(r#"SELECT a FROM t FOR "READ" ONLY"#, Dialect::Postgres).is_err());
}

#[test]
fn string_frame_offsets_are_parenthesised() {
    let pg = |sql: &str| reprint(sql, Dialect::Postgres);
    assert_eq!(
        pg("SELECT sum(a) OVER (ORDER BY d RANGE BETWEEN '1 year'::interval PRECEDING AND '2 days'::interval FOLLOWING) FROM t").as_deref(),
        Ok("SELECT sum(a) OVER (ORDER BY d RANGE BETWEEN ('1 year'::INTERVAL) PRECEDING AND ('2 days'::INTERVAL) FOLLOWING) FROM t")
    );
    assert_eq!(
        pg("SELECT sum(a) OVER w FROM t WINDOW w AS (ORDER BY a ROWS '1' PRECEDING)").as_deref(),
        Ok("SELECT sum(a) OVER w FROM t WINDOW w AS (ORDER BY a ROWS ('1') PRECEDING)")
    );
    assert_eq!(
        pg("SELECT sum(a) OVER (ROWS BETWEEN CURRENT ROW AND '2'::int8 FOLLOWING) FROM t")
            .as_deref(),
        Ok("SELECT sum(a) OVER (ROWS BETWEEN CURRENT ROW AND ('2'::INT8) FOLLOWING) FROM t")
    );
    // The printed form comes back unchanged (a fixed point).
    let once = pg("SELECT sum(a) OVER (ORDER BY d RANGE '1 day'::interval PRECEDING) FROM t")
        .expect("parses");
    assert_eq!(pg(&once).as_deref(), Ok(once.as_str()));
    // Other offsets, and strings outside a window specification, are left alone.
    let same = "SELECT sum(a) OVER (ORDER BY d RANGE BETWEEN INTERVAL '1 day' PRECEDING AND CURRENT ROW) FROM t";
    assert_eq!(pg(same).as_deref(), Ok(same));
    let same = "SELECT a FROM t ORDER BY a OFFSET 5 ROWS FETCH FIRST 2 ROWS ONLY";
    assert_eq!(pg(same).as_deref(), Ok(same));
    for sql in [
        "WITH x AS (SELECT range '[1,2]'::int4range FOLLOWING)",
        "SELECT a FROM t WINDOW w AS (ORDER BY a) ORDER BY 'x'::text",
        "SELECT a FROM t WINDOW w AS (ORDER BY a) ORDER BY a ROWS 'x' PRECEDING",
    ] {
        let tokens = tokenize(sql, Dialect::Postgres).expect("tokenizes");
        assert!(frame_offsets_to_wrap(&tokens).is_empty(), "{sql}");
    }
}

#[test]
fn depth_limit_is_too_deep() {
    let sql = format!("SELECT {}1{}", "(".repeat(100), ")".repeat(100));
    let tokens = tokenize(&sql, Dialect::Postgres).unwrap();
    let e = parse_tokens(tokens, Dialect::Postgres, 64).unwrap_err();
    assert_eq!(e.code, ErrorCode::TooDeep);
}
