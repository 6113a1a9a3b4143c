//! Tokenizing and parsing in the policy's dialect, with a depth limit and a statement count taken
//! from the token stream as well as from the tree.

use sqlparser::ast::Statement;
use sqlparser::parser::{Parser, ParserError, ParserOptions};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer, Whitespace};

use crate::dialect::Dialect;
use crate::error::{ErrorCode, GuardError, Location, Stage};

mod prepare;
mod same_input;
mod same_text;
mod table_path;

use prepare::prepare_tokens;
pub(crate) use same_input::reads_the_same;
pub(crate) use same_text::printed_as_read;
pub use table_path::is_table_path;

/// Tokenizes without unescaping, so that literals print back exactly as written.
pub fn tokenize(sql: &str, dialect: Dialect) -> Result<Vec<TokenWithSpan>, GuardError> {
    let parser_dialect = dialect.parser_dialect();
    // Sized for the usual query up front (about one token, whitespace included, per 2-3
    // bytes), so that the buffer is not regrown and copied four or five times per check;
    // capped so that a large input still grows as it goes rather than reserving megabytes.
    let mut tokens = Vec::with_capacity((sql.len() / 2 + 8).min(4096));
    Tokenizer::new(parser_dialect, sql)
        .with_unescape(false)
        .tokenize_with_location_into_buf(&mut tokens)
        .map(|()| tokens)
        .map_err(|e| {
            GuardError::new(
                ErrorCode::ParseError,
                Stage::Parse,
                format!("{} could not tokenize the SQL: {}", dialect, e.message),
            )
            .with_hint(format!(
                "check quotes and comments; the SQL must be valid {dialect}"
            ))
            .at(Some(Location {
                line: e.location.line,
                column: e.location.column,
            }))
        })
}

/// Number of statements on the token stream: one, plus one for every `;` that is followed by
/// anything but whitespace, comments and further `;`. Returns the count and the location of the
/// first separating `;`.
pub(crate) fn count_statements(tokens: &[TokenWithSpan]) -> (usize, Option<Location>) {
    let mut count = 0;
    let mut in_statement = false;
    let mut first_separator = None;
    let mut last_semicolon = None;
    for t in tokens {
        match &t.token {
            Token::Whitespace(_) | Token::EOF => {}
            Token::SemiColon => {
                if in_statement {
                    last_semicolon = Some(Location {
                        line: t.span.start.line,
                        column: t.span.start.column,
                    });
                }
                in_statement = false;
            }
            _ => {
                if !in_statement {
                    count += 1;
                    if count == 2 && first_separator.is_none() {
                        first_separator = last_semicolon;
                    }
                    in_statement = true;
                }
            }
        }
    }
    (count, first_separator)
}

/// Parses the tokens into statements with `max_depth` as the recursion limit.
pub(crate) fn parse_tokens(
    tokens: Vec<TokenWithSpan>,
    dialect: Dialect,
    max_depth: usize,
) -> Result<Vec<Statement>, GuardError> {
    parse_prepared(prepare(tokens, dialect)?, dialect, max_depth)
}

/// The token-level work [`parse_tokens`] does before the parser reads the tokens: the stream
/// returned is exactly what the parser reads.
pub(crate) fn prepare(
    tokens: Vec<TokenWithSpan>,
    dialect: Dialect,
) -> Result<Vec<TokenWithSpan>, GuardError> {
    prepare_tokens(tokens, dialect)
}

/// Parses tokens that went through [`prepare`], with `max_depth` as the recursion limit.
pub(crate) fn parse_prepared(
    tokens: Vec<TokenWithSpan>,
    dialect: Dialect,
    max_depth: usize,
) -> Result<Vec<Statement>, GuardError> {
    parse_prepared_keeping_tokens(tokens, dialect, max_depth).0
}

/// [`parse_prepared`], handing back the tokens the parser read (it never changes them), for
/// the self-check to compare with the regenerated SQL's.
pub(crate) fn parse_prepared_keeping_tokens(
    tokens: Vec<TokenWithSpan>,
    dialect: Dialect,
    max_depth: usize,
) -> (Result<Vec<Statement>, GuardError>, Vec<TokenWithSpan>) {
    let parser_dialect = dialect.parser_dialect();
    let options = ParserOptions::new()
        .with_trailing_commas(false)
        .with_unescape(false);
    let mut parser = Parser::new(parser_dialect)
        .with_recursion_limit(max_depth)
        .with_options(options)
        .with_tokens_with_locations(tokens);
    let statements = parser
        .parse_statements()
        .map_err(|e| parse_error(e, dialect, max_depth));
    (statements, parser.into_tokens())
}

fn parse_error(e: ParserError, dialect: Dialect, max_depth: usize) -> GuardError {
    match e {
        ParserError::RecursionLimitExceeded => GuardError::new(
            ErrorCode::TooDeep,
            Stage::Parse,
            format!("the SQL nests deeper than the limit of {max_depth}"),
        )
        .with_hint("flatten nested parentheses or subqueries"),
        ParserError::TokenizerError(message) | ParserError::ParserError(message) => {
            let location = location_in_message(&message);
            let clean = message
                .split(" at Line:")
                .next()
                .unwrap_or(&message)
                .to_string();
            GuardError::new(
                ErrorCode::ParseError,
                Stage::Parse,
                format!("not valid {dialect} SQL: {clean}"),
            )
            .with_hint(format!(
                "fix the syntax; the SQL must be one valid {dialect} query"
            ))
            .at(location)
        }
    }
}

/// sqlparser appends ` at Line: L, Column: C` to its messages.
fn location_in_message(message: &str) -> Option<Location> {
    let rest = message.rsplit("Line: ").next()?;
    let mut parts = rest.split(", Column: ");
    let line = parts.next()?.trim().parse().ok()?;
    let column = parts
        .next()?
        .trim()
        .trim_end_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .ok()?;
    Some(Location { line, column })
}

/// Names a parse failure more precisely when the text holds a construct sqlparser does not
/// parse but whose intent is clear: MySQL's `LOCK IN SHARE MODE`, PostgreSQL's `FOR NO KEY UPDATE`
/// and `FOR KEY SHARE`, and `INTO OUTFILE / DUMPFILE`.
/// The payload stays refused either way; this only gives the agent the real reason.
pub(crate) fn explain_parse_failure(
    tokens: &[TokenWithSpan],
) -> Option<(ErrorCode, &'static str, &'static str)> {
    let words: Vec<(String, &TokenWithSpan)> = tokens
        .iter()
        .filter(|t| !is_trivia(&t.token))
        .map(|t| match &t.token {
            Token::Word(w) if w.quote_style.is_none() => (w.value.to_ascii_uppercase(), t),
            _ => (String::new(), t),
        })
        .collect();
    let has = |seq: &[&str]| {
        words
            .windows(seq.len())
            .any(|w| w.iter().zip(seq).all(|((word, _), want)| word == want))
    };
    if has(&["LOCK", "IN", "SHARE", "MODE"]) {
        return Some((
            ErrorCode::LockingClause,
            "`LOCK IN SHARE MODE` takes row locks",
            "remove LOCK IN SHARE MODE",
        ));
    }
    if has(&["FOR", "NO", "KEY", "UPDATE"]) || has(&["FOR", "KEY", "SHARE"]) {
        return Some((
            ErrorCode::LockingClause,
            "`FOR NO KEY UPDATE` / `FOR KEY SHARE` takes row locks",
            "remove the FOR NO KEY UPDATE / FOR KEY SHARE clause",
        ));
    }
    if has(&["INTO", "OUTFILE"]) || has(&["INTO", "DUMPFILE"]) {
        return Some((
            ErrorCode::SelectInto,
            "`INTO OUTFILE` / `INTO DUMPFILE` writes the result to a file on the server",
            "remove the INTO clause",
        ));
    }
    None
}

/// True when a token is a comment or whitespace.
pub(crate) fn is_trivia(token: &Token) -> bool {
    matches!(
        token,
        Token::Whitespace(
            Whitespace::Space
                | Whitespace::Newline
                | Whitespace::Tab
                | Whitespace::SingleLineComment { .. }
                | Whitespace::MultiLineComment(_)
        )
    )
}

#[cfg(test)]
mod tests;
