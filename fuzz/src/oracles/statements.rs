//! Statements counted independently of core, on sqlparser's token stream in the same dialect.

use sqlgate::Dialect;
use sqlparser::tokenizer::{Token, Tokenizer, Whitespace};

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
