//! Literals that read differently under a server setting.
//!
//! Callers run the regenerated SQL, printed from sqlparser's tree: comments are gone, names and
//! operators are printed by sqlparser, but string literals are printed back as written. So the
//! server must delimit every printed literal exactly where sqlparser did, under every setting the
//! server could run with, or the text after a literal is SQL to the server and a string to the
//! guard (`'a\', '; DELETE FROM t; --'` is two strings to sqlparser, and a string followed by a
//! DELETE to PostgreSQL with `standard_conforming_strings = off`). The guard cannot see server
//! settings, so [`check_literal`] refuses, per dialect:
//!
//! - **postgres, redshift**: a backslash in any literal but `E'...'` (where it always escapes,
//!   in sqlparser and the server alike) and `$$...$$` (never escapes): a standard `'...'` or
//!   `N'...'` string reads differently with `standard_conforming_strings` off. `U&'...'` strings
//!   are left alone: the server refuses them outright when the setting is off.
//! - **mysql** (MySQL and MariaDB): a backslash in any string (`NO_BACKSLASH_ESCAPES` flips it),
//!   and double-quoted strings unless the policy's `mysql_ansi_quotes` is `false` (with
//!   `ANSI_QUOTES`, `"x"` is a name; sqlparser's MySQL dialect always reads a string, so with
//!   `mysql_ansi_quotes = true` they are refused too: write names with backticks).
//! - **hive**: a backslash in a string or a double-quoted name: Hive reads backslash escapes
//!   and `"x"` as a string; sqlparser's Hive dialect reads neither.
//! - **databricks**: double-quoted strings (a name under `spark.sql.ansi.doubleQuotedIdentifiers`).
//! - **bigquery**: a raw string `r'...'` ending in a backslash or with a backslash before a quote
//!   (BigQuery pairs them; sqlparser does not).
//! - **ansi, generic**: a backslash in any string: no single engine says what it means.
//! - every dialect: a backslash in `X'...'` (sqlparser reads it as an escape, no server does),
//!   `$$...$$` strings where the engine has none (all but postgres, duckdb, snowflake), and a
//!   dollar quote whose tag starts with a digit (`$1$` is a parameter to PostgreSQL).
//!
//! sqlite, duckdb and mssql never read a backslash as an escape, and snowflake, bigquery,
//! clickhouse and databricks always do, as sqlparser does for them: backslashes stay allowed there.
//! Comments need no rule (they are not printed back), nor does MySQL's `PIPES_AS_CONCAT`: it
//! changes what `||` computes, not where tokens end or which names are read.

use sqlparser::tokenizer::Token;

use crate::dialect::Dialect;
use crate::policy::Policy;

/// What the precheck needs to know about how the server reads text: the dialect, and for MySQL
/// whether the server runs with `ANSI_QUOTES` (`None`: unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Lexing {
    /// The policy's dialect.
    pub(crate) dialect: Dialect,
    /// The policy's `mysql_ansi_quotes`.
    pub(crate) mysql_ansi_quotes: Option<bool>,
}

impl From<Dialect> for Lexing {
    fn from(dialect: Dialect) -> Self {
        Lexing {
            dialect,
            mysql_ansi_quotes: None,
        }
    }
}

impl From<&Policy> for Lexing {
    fn from(policy: &Policy) -> Self {
        Lexing {
            dialect: policy.dialect,
            mysql_ansi_quotes: policy.mysql_ansi_quotes,
        }
    }
}

/// True for the tokens [`check_literal`] looks at: every string literal, double-quoted included.
pub(super) fn is_literal_token(token: &Token) -> bool {
    is_string_literal(token) || matches!(token, Token::DoubleQuotedString(_))
}

type Refusal = (String, String);

fn backslash_refusal(dialect: Dialect) -> Refusal {
    match dialect {
        Dialect::Postgres | Dialect::Redshift => (
            "a backslash in a standard string literal reads differently when the server runs \
             with standard_conforming_strings = off: the text after it could be read as SQL"
                .into(),
            "write the backslash as chr(92), e.g. 'a' || chr(92) || 'b', or use an E'...' \
             string, where a backslash always escapes (E'a\\\\b')"
                .into(),
        ),
        Dialect::Mysql => (
            "a backslash in a string literal reads differently when the server runs with or \
             without NO_BACKSLASH_ESCAPES: the text after it could be read as SQL"
                .into(),
            "write the backslash as CHAR(92), e.g. CONCAT('a', CHAR(92), 'b')".into(),
        ),
        Dialect::Hive => (
            "Hive reads a backslash in a string as an escape, which sqlgate's Hive parser does \
             not: the text after it could be read as SQL"
                .into(),
            "write the string without a backslash".into(),
        ),
        _ => (
            format!(
                "the {dialect} dialect does not say whether the server reads a backslash in a \
                 string as an escape: the text after it could be read as SQL"
            ),
            "choose the policy's real dialect, or write the string without a backslash".into(),
        ),
    }
}

/// Refuses a literal the server could delimit differently from sqlparser under some setting
/// (the rules are in the module documentation): `(message, hint)`.
pub(super) fn check_literal(token: &Token, lexing: Lexing) -> Result<(), Refusal> {
    let dialect = lexing.dialect;
    let plain_ok = dialect.plain_backslash_is_settled();
    match token {
        Token::SingleQuotedString(s)
        | Token::NationalStringLiteral(s)
        | Token::TripleSingleQuotedString(s)
        | Token::TripleDoubleQuotedString(s)
        | Token::SingleQuotedByteStringLiteral(s)
        | Token::DoubleQuotedByteStringLiteral(s)
        | Token::TripleSingleQuotedByteStringLiteral(s)
        | Token::TripleDoubleQuotedByteStringLiteral(s)
            if !plain_ok && s.contains('\\') =>
        {
            Err(backslash_refusal(dialect))
        }
        Token::DoubleQuotedString(s) => check_double_quoted(s, lexing, plain_ok),
        Token::HexStringLiteral(s) if s.contains('\\') => Err((
            "a backslash in a hex string literal: sqlparser reads it as an escape, the server \
             does not, so the text after it could be read as SQL"
                .into(),
            "a hex literal holds hex digits only".into(),
        )),
        Token::SingleQuotedRawStringLiteral(s)
        | Token::DoubleQuotedRawStringLiteral(s)
        | Token::TripleSingleQuotedRawStringLiteral(s)
        | Token::TripleDoubleQuotedRawStringLiteral(s)
            if dialect.raw_strings_pair_backslash_quotes()
                && (s.ends_with('\\') || s.contains("\\'") || s.contains("\\\"")) =>
        {
            Err((
                "BigQuery pairs a backslash with the quote after it even in a raw string, \
                 sqlparser does not: the text after it could be read as SQL"
                    .into(),
                "do not end a raw string with a backslash or put one before a quote".into(),
            ))
        }
        Token::EscapedStringLiteral(s)
            if dialect.names_no_engine()
                && sqlparser::ast::Value::EscapedStringLiteral(s.clone())
                    .to_string()
                    .contains('\\') =>
        {
            Err(backslash_refusal(dialect))
        }
        Token::DollarQuotedString(d) => check_dollar_quoted(d, dialect),
        _ => Ok(()),
    }
}

/// A double-quoted token: a string or a name depending on the server's settings (MySQL's
/// ANSI_QUOTES, which the policy may state; Databricks' doubleQuotedIdentifiers).
fn check_double_quoted(s: &str, lexing: Lexing, plain_ok: bool) -> Result<(), Refusal> {
    match lexing.dialect {
        Dialect::Mysql => match lexing.mysql_ansi_quotes {
            None => Err((
                "a double-quoted token is a string, or a name when the server runs with \
                 ANSI_QUOTES, and the policy does not say which (mysql_ansi_quotes)"
                    .into(),
                "use single quotes for strings and backticks for names, or set \
                 mysql_ansi_quotes in the policy"
                    .into(),
            )),
            Some(true) => Err((
                "with ANSI_QUOTES (mysql_ansi_quotes = true) a double-quoted token is a \
                 name, which sqlgate's MySQL parser would read as a string"
                    .into(),
                "write names with backticks and strings with single quotes".into(),
            )),
            Some(false) if s.contains('\\') => Err(backslash_refusal(lexing.dialect)),
            Some(false) => Ok(()),
        },
        Dialect::Databricks => Err((
            "a double-quoted token is a string, or a name when the server runs with \
             spark.sql.ansi.doubleQuotedIdentifiers"
                .into(),
            "use single quotes for strings and backticks for names".into(),
        )),
        _ if !plain_ok && s.contains('\\') => Err(backslash_refusal(lexing.dialect)),
        _ => Ok(()),
    }
}

/// A `$tag$...$tag$` string: only where the engine has them, and only with a tag the server
/// cannot read as a parameter.
fn check_dollar_quoted(
    d: &sqlparser::ast::DollarQuotedString,
    dialect: Dialect,
) -> Result<(), Refusal> {
    if !dialect.reads_dollar_quoted_strings() {
        Err((
            format!("a dollar-quoted string: {dialect} does not read $$...$$ as a string"),
            "use a single-quoted string".into(),
        ))
    } else if d
        .tag
        .as_deref()
        .and_then(|t| t.chars().next())
        .is_some_and(|c| !(c.is_alphabetic() || c == '_'))
    {
        Err((
            "a dollar quote whose tag does not start with a letter: the server reads \
             `$1` as a parameter, not as the start of a string"
                .into(),
            "start the tag with a letter, e.g. $q$...$q$, or use $$...$$".into(),
        ))
    } else {
        Ok(())
    }
}

/// Refuses a quoted name the server could read as a string with backslash escapes (Hive's
/// `"..."`).
pub(super) fn check_quoted_name(
    word: &sqlparser::tokenizer::Word,
    lexing: Lexing,
) -> Result<(), Refusal> {
    if lexing.dialect.escapes_in_quoted_names()
        && word.quote_style == Some('"')
        && word.value.contains('\\')
    {
        return Err(backslash_refusal(lexing.dialect));
    }
    Ok(())
}

fn is_string_literal(token: &Token) -> bool {
    matches!(
        token,
        Token::SingleQuotedString(_)
            | Token::TripleSingleQuotedString(_)
            | Token::TripleDoubleQuotedString(_)
            | Token::DollarQuotedString(_)
            | Token::SingleQuotedByteStringLiteral(_)
            | Token::DoubleQuotedByteStringLiteral(_)
            | Token::TripleSingleQuotedByteStringLiteral(_)
            | Token::TripleDoubleQuotedByteStringLiteral(_)
            | Token::SingleQuotedRawStringLiteral(_)
            | Token::DoubleQuotedRawStringLiteral(_)
            | Token::TripleSingleQuotedRawStringLiteral(_)
            | Token::TripleDoubleQuotedRawStringLiteral(_)
            | Token::NationalStringLiteral(_)
            | Token::QuoteDelimitedStringLiteral(_)
            | Token::NationalQuoteDelimitedStringLiteral(_)
            | Token::EscapedStringLiteral(_)
            | Token::UnicodeStringLiteral(_)
            | Token::HexStringLiteral(_)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{ErrorCode, GuardError, Stage};
    use crate::precheck::check_tokens;

    fn lex(sql: &str, dialect: Dialect, mysql_ansi_quotes: Option<bool>) -> Result<(), GuardError> {
        let tokens = crate::parse::tokenize(sql, dialect).expect("test SQL tokenizes");
        check_tokens(
            &tokens,
            Lexing {
                dialect,
                mysql_ansi_quotes,
            },
        )
    }

    #[test]
    fn backslashes_in_literals_per_dialect() {
        let refused = |sql: &str, d: Dialect| {
            let e = lex(sql, d, None).expect_err(sql);
            assert_eq!(e.code, ErrorCode::UnsupportedSyntax, "{sql}");
            assert_eq!(e.stage, Stage::Precheck, "{sql}");
        };
        let allowed = |sql: &str, d: Dialect| assert!(lex(sql, d, None).is_ok(), "{d}: {sql}");
        for d in [
            Dialect::Postgres,
            Dialect::Redshift,
            Dialect::Mysql,
            Dialect::Hive,
        ] {
            refused(r"SELECT 'a\' , 1 -- '", d);
            refused(r"SELECT 'C:\temp'", d);
            allowed("SELECT 'it''s'", d);
        }
        refused(r"SELECT N'a\' , 1 -- '", Dialect::Postgres);
        refused(r"SELECT X'4\' , 1 -- '", Dialect::Sqlite);
        allowed(r"SELECT E'a\\b', E'it\'s'", Dialect::Postgres);
        allowed(r"SELECT $$a\$$, $q$b\$q$", Dialect::Postgres);
        refused(r"SELECT $1$ x $1$", Dialect::Postgres);
        refused(r"SELECT $$x$$", Dialect::Redshift);
        for d in [Dialect::Sqlite, Dialect::Duckdb, Dialect::Mssql] {
            allowed(r"SELECT 'a\'", d);
        }
        for d in [Dialect::Snowflake, Dialect::Bigquery, Dialect::Clickhouse] {
            allowed(r"SELECT 'a\\', 'it\'s'", d);
        }
        refused(r"SELECT r'a\' , 1 -- '", Dialect::Bigquery);
        allowed(r"SELECT r'\d+'", Dialect::Bigquery);
        refused(r#"SELECT "a\" , 1 -- ""#, Dialect::Hive);
        refused(r"SELECT 'a\' , 1 -- '", Dialect::Generic);
    }

    #[test]
    fn mysql_double_quotes_follow_the_policy() {
        let code = |sql: &str, q: Option<bool>| lex(sql, Dialect::Mysql, q).err().map(|e| e.code);
        assert_eq!(
            code(r#"SELECT "x""#, None),
            Some(ErrorCode::UnsupportedSyntax)
        );
        assert_eq!(
            code(r#"SELECT "x""#, Some(true)),
            Some(ErrorCode::UnsupportedSyntax)
        );
        assert_eq!(code(r#"SELECT "x""#, Some(false)), None);
        assert_eq!(
            code(r#"SELECT "a\"""#, Some(false)),
            Some(ErrorCode::UnsupportedSyntax)
        );
        assert_eq!(code("SELECT `x`", None), None);
        // Other dialects ignore the field: their double quotes are names.
        assert!(lex(r#"SELECT "x""#, Dialect::Postgres, Some(false)).is_ok());
        // Databricks may run with double-quoted identifiers.
        assert!(lex(r#"SELECT "x""#, Dialect::Databricks, None).is_err());
    }
}
