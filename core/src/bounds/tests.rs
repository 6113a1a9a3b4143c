//! The bound arithmetic on parsed arguments: folding, kinds by position, series counts,
//! nesting, overflow.

use sqlparser::ast::{Expr, FunctionArguments, SelectItem, SetExpr, Statement};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;

use super::*;

/// The first select item of `SELECT <expr>`.
fn expr(text: &str) -> Expr {
    let sql = format!("SELECT {text}");
    let statements = Parser::parse_sql(&GenericDialect {}, &sql).unwrap_or_default();
    let Some(Statement::Query(q)) = statements.first() else {
        panic!("{text}: not a query");
    };
    let SetExpr::Select(s) = q.body.as_ref() else {
        panic!("{text}: not a SELECT");
    };
    match s.projection.first() {
        Some(SelectItem::UnnamedExpr(e)) => e.clone(),
        _ => panic!("{text}: no expression"),
    }
}

/// What the call `text` generates in an expression, in `dialect`.
fn measured(text: &str, dialect: Dialect) -> Result<Amount, Unfolded> {
    let Expr::Function(f) = expr(text) else {
        panic!("{text}: not a call");
    };
    let name = f.name.to_string().to_ascii_lowercase();
    let k =
        kind(&name, FunctionUse::Expression, dialect).unwrap_or_else(|| panic!("{name}: no kind"));
    let FunctionArguments::List(list) = &f.args else {
        panic!("{text}: no arguments");
    };
    measure(k, &list.args, dialect)
}

fn bytes(text: &str) -> f64 {
    match measured(text, Dialect::Postgres) {
        Ok(Amount::Bytes(b)) => b,
        other => panic!("{text}: {other:?}"),
    }
}

fn rows(text: &str, dialect: Dialect) -> f64 {
    match measured(text, dialect) {
        Ok(Amount::Rows(r)) => r,
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn literal_sizes_fold_through_signs_casts_and_arithmetic() {
    assert_eq!(number(&expr("1000")), Some(1000.0));
    assert_eq!(number(&expr("-(5)")), Some(-5.0));
    assert_eq!(number(&expr("CAST(1000 AS INT)")), Some(1000.0));
    assert_eq!(number(&expr("1024 * 1024")), Some(1_048_576.0));
    assert_eq!(number(&expr("'12'")), Some(12.0));
    assert_eq!(number(&expr("1e3")), Some(1000.0));
    assert_eq!(number(&expr("0 / 0")), None);
    assert_eq!(number(&expr("n")), None);
    assert_eq!(number(&expr("(SELECT 1)")), None);
    assert_eq!(number(&expr("length(x) * 2")), None);
}

#[test]
fn byte_functions_multiply_their_text_and_count() {
    assert_eq!(bytes("repeat('ab', 10)"), 20.0);
    assert_eq!(bytes("replicate('x', 5)"), 5.0);
    assert_eq!(bytes("repeat(name, 10)"), 10.0);
    assert_eq!(bytes("lpad('x', 100)"), 100.0);
    assert_eq!(bytes("rpad('x', 100, 'é')"), 200.0);
    assert_eq!(bytes("lpad('x', 100, fill)"), 400.0);
    assert_eq!(bytes("space(7)"), 7.0);
    assert_eq!(bytes("randomblob(900000000)"), 9e8);
    assert_eq!(bytes("zeroblob(-1)"), 0.0);
    // Nested calls multiply.
    assert_eq!(bytes("repeat(repeat('xy', 1000), 1000)"), 2e6);
    assert_eq!(bytes("repeat(lpad('x', 1000), 3)"), 3000.0);
    assert_eq!(
        measured("repeat('x', n)", Dialect::Postgres),
        Err(Unfolded("the repeat count"))
    );
    assert_eq!(
        measured("randomblob(length(x))", Dialect::Sqlite),
        Err(Unfolded("the size"))
    );
}

#[test]
fn overflow_is_infinite_and_never_fits() {
    let b = bytes("repeat(repeat(repeat('x', 1e200), 1e200), 1e200)");
    assert!(b.is_infinite());
    assert!(!within(b, 1e6));
    assert!(!within(f64::NAN, 1e6));
    assert!(within(1e6, 1e6));
    assert!(rows("generate_series(1, 1e400)", Dialect::Postgres).is_infinite());
}

#[test]
fn series_count_numbers_and_dates() {
    let pg = Dialect::Postgres;
    assert_eq!(rows("generate_series(1, 10)", pg), 10.0);
    assert_eq!(rows("generate_series(10, 1)", pg), 0.0);
    assert_eq!(rows("generate_series(1, 100, 10)", pg), 10.0);
    assert!(rows("generate_series(1, 10, 0)", pg).is_infinite());
    assert_eq!(rows("range(5)", Dialect::Duckdb), 6.0);
    // SQLite's single argument is the start; the stop is 2^32 - 1.
    assert!(rows("generate_series(1)", Dialect::Sqlite) > 4e9);
    // A month counts as 28 days: never fewer rows than the engine makes.
    assert_eq!(
        rows(
            "generate_series('2024-01-01'::date, '2024-12-31'::date, '1 month'::interval)",
            pg
        ),
        14.0
    );
    assert_eq!(
        rows(
            "generate_series(DATE '2024-01-01', DATE '2024-01-31', INTERVAL '1 day')",
            pg
        ),
        31.0
    );
    assert_eq!(
        rows(
            "generate_date_array('2024-01-01', '2024-01-10')",
            Dialect::Bigquery
        ),
        10.0
    );
    assert_eq!(
        rows("generate_series('2024-01-01', '2024-01-02', '1 hour')", pg),
        25.0
    );
    assert_eq!(
        measured("generate_series(1, n)", pg),
        Err(Unfolded("the bounds"))
    );
    assert_eq!(
        measured(
            "generate_series(now(), now() + INTERVAL '1 day', '1 second')",
            pg
        ),
        Err(Unfolded("the bounds"))
    );
}

#[test]
fn counted_and_named_generators() {
    let ch = Dialect::Clickhouse;
    assert_eq!(rows("numbers(10)", ch), 10.0);
    assert_eq!(rows("numbers(5, 10)", ch), 10.0);
    assert_eq!(rows("zeros(7)", ch), 7.0);
    assert_eq!(
        rows("generator(ROWCOUNT => 100)", Dialect::Snowflake),
        100.0
    );
    assert_eq!(
        measured("generator(TIMELIMIT => 10)", Dialect::Snowflake),
        Err(Unfolded("the row count argument"))
    );
    assert!(measured("generaterandom('a Int8')", ch).is_err());
    assert_eq!(
        kind("repeat", FunctionUse::Table, Dialect::Postgres),
        Some(Kind::Count(1))
    );
    assert_eq!(
        kind("repeat", FunctionUse::Expression, Dialect::Postgres),
        Some(Kind::Repeat)
    );
    assert_eq!(
        kind("upper", FunctionUse::Expression, Dialect::Postgres),
        None
    );
}

fn bytes_in(text: &str, dialect: Dialect) -> Result<f64, Unfolded> {
    match measured(text, dialect) {
        Ok(Amount::Bytes(b)) => Ok(b),
        Ok(other) => panic!("{text}: {other:?}"),
        Err(e) => Err(e),
    }
}

#[test]
fn printf_widths_and_precisions_count_and_star_reads_its_argument() {
    let sqlite = Dialect::Sqlite;
    assert_eq!(
        bytes_in("printf('%5d|%.2f', 1, 2.5)", sqlite),
        Ok(8.0 + 5.0 + 2.0)
    );
    assert_eq!(
        bytes_in("printf('%1000000000d', 1)", sqlite),
        Ok(12.0 + 1e9)
    );
    assert_eq!(
        bytes_in("printf('%.*c', 1000, 'x')", sqlite),
        Ok(4.0 + 4000.0)
    );
    assert_eq!(bytes_in("printf('%*d', 70, 1)", sqlite), Ok(3.0 + 70.0));
    assert_eq!(bytes_in("printf('%%%d', 1)", sqlite), Ok(4.0));
    assert_eq!(
        bytes_in("format('%-010.3s', 'abc')", sqlite),
        Ok(8.0 + 13.0)
    );
    assert!(bytes_in("printf('%*d', n, 1)", sqlite).is_err());
    assert!(bytes_in("printf(fmt, 1)", sqlite).is_err());
}

#[test]
fn postgres_format_widths_read_positions_and_star_arguments() {
    let pg = Dialect::Postgres;
    assert_eq!(bytes_in("format('%s-%10s', 'a', 'b')", pg), Ok(7.0 + 10.0));
    assert_eq!(
        bytes_in("format('%*s', 1000000000, 'x')", pg),
        Ok(3.0 + 1e9)
    );
    assert_eq!(
        bytes_in("format('%1$s %*3$s', 'a', 'b', 99)", pg),
        Ok(10.0 + 99.0)
    );
    assert_eq!(
        bytes_in("format('%2$s %1$-20s', 'a', 'b')", pg),
        Ok(12.0 + 20.0)
    );
    assert_eq!(bytes_in("format('100%% %I', 'x')", pg), Ok(8.0));
    assert!(bytes_in("format('%*s', width, 'x')", pg).is_err());
}

#[test]
fn fmt_format_widths_count_and_argument_widths_refuse() {
    let duck = Dialect::Duckdb;
    assert_eq!(
        bytes_in("format('{:>10}|{:08.3f}', 1, 2.0)", duck),
        Ok(15.0 + 10.0 + 11.0)
    );
    assert_eq!(bytes_in("format('{{}} {}', 1)", duck), Ok(7.0));
    assert!(bytes_in("format('{:>{}}', 1, 1000000000)", duck).is_err());
    assert_eq!(bytes_in("printf('%5s', 'x')", duck), Ok(3.0 + 5.0));
    // MySQL's FORMAT(number, decimals) is not a format string.
    assert_eq!(
        kind("format", FunctionUse::Expression, Dialect::Mysql),
        None
    );
}

#[test]
fn array_fill_multiplies_its_dimensions_and_replace_its_texts() {
    assert_eq!(
        rows("array_fill(0, ARRAY[100, 100])", Dialect::Postgres),
        10_000.0
    );
    assert!(measured("array_fill(0, ARRAY[n])", Dialect::Postgres).is_err());
    assert!(measured("array_fill(0, dims)", Dialect::Postgres).is_err());
    assert_eq!(bytes("replace(name, 'a', 'bb')"), 2.0);
    assert_eq!(
        bytes("replace(repeat('x', 1000), 'x', repeat('y', 1000))"),
        1_000_000.0
    );
    assert_eq!(
        bytes("regexp_replace(lpad('', 2000), '', lpad('', 2000), 'g')"),
        4e6
    );
}
