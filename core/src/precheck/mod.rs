//! Checks on the raw text and its tokens, before any statement is parsed: size, forbidden
//! characters outside string literals, MySQL executable comments, literals that servers read
//! differently depending on a setting (`literals`), and empty input.

mod literals;

pub(crate) use literals::Lexing;
use literals::{check_literal, check_quoted_name, is_literal_token};

use sqlparser::tokenizer::{Token, TokenWithSpan, Whitespace};

use crate::error::{ErrorCode, GuardError, Location, Stage};

/// Refuses input over `max_sql_bytes` without looking at it further.
pub(crate) fn check_size(sql: &str, max_sql_bytes: usize) -> Result<(), GuardError> {
    if sql.len() > max_sql_bytes {
        return Err(GuardError::new(
            ErrorCode::TooLarge,
            Stage::Precheck,
            format!(
                "the SQL is {} bytes; at most {max_sql_bytes} are accepted",
                sql.len()
            ),
        )
        .with_hint("send a shorter query"));
    }
    Ok(())
}

/// Refuses input with more than `max_tokens` tokens, not counting whitespace: the cost of a check
/// grows with its tokens (comments included), not its bytes.
pub fn check_token_count(tokens: &[TokenWithSpan], max_tokens: usize) -> Result<(), GuardError> {
    let count = tokens
        .iter()
        .filter(|t| {
            !matches!(
                t.token,
                Token::EOF
                    | Token::Whitespace(Whitespace::Space | Whitespace::Newline | Whitespace::Tab)
            )
        })
        .count();
    if count > max_tokens {
        return Err(GuardError::new(
            ErrorCode::TooLarge,
            Stage::Precheck,
            format!("the SQL has {count} tokens; at most {max_tokens} are accepted"),
        )
        .with_hint("send a shorter query: split a long IN list or UNION into several queries"));
    }
    Ok(())
}

/// True for characters that hide or reorder text: NBSP, zero-width and bidi controls, word
/// joiners and invisible operators, the BOM and tag characters.
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00A0}' | '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}'
        | '\u{17B4}' | '\u{17B5}' | '\u{180B}'..='\u{180F}'
        | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202F}'
        | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FEFF}' | '\u{FFA0}'
        | '\u{FFF0}'..='\u{FFF8}' | '\u{E0000}'..='\u{E007F}')
        || (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

/// Refuses a NUL anywhere (before tokenizing, since tokenizers disagree about it).
pub(crate) fn check_nul(sql: &str) -> Result<(), GuardError> {
    if let Some(offset) = sql.find('\0') {
        return Err(GuardError::new(
            ErrorCode::InvalidCharacter,
            Stage::Precheck,
            "the SQL contains a NUL byte",
        )
        .with_hint("remove the NUL byte")
        .at(Some(location_of_offset(sql, offset))));
    }
    Ok(())
}

/// Checks every token: forbidden characters outside string literals, MySQL executable comments
/// (`/*! ... */`, run by MySQL as SQL), literals whose end depends on a server setting (see
/// [`check_literal`]); returns `empty` when no token is a statement token.
///
/// `lexing` is the dialect, or better the whole policy (which may say how a MySQL server quotes).
pub(crate) fn check_tokens(
    tokens: &[TokenWithSpan],
    lexing: impl Into<Lexing>,
) -> Result<(), GuardError> {
    let lexing = lexing.into();
    let mut meaningful = false;
    for t in tokens {
        let location = Some(Location {
            line: t.span.start.line,
            column: t.span.start.column,
        });
        match &t.token {
            Token::Whitespace(ws) => {
                let text = match ws {
                    Whitespace::SingleLineComment { comment, .. } => comment.as_str(),
                    Whitespace::MultiLineComment(comment) => {
                        if comment.starts_with('!') {
                            return Err(GuardError::new(
                                ErrorCode::UnsupportedSyntax,
                                Stage::Precheck,
                                "MySQL executable comment `/*! ... */`: MySQL runs its contents as SQL",
                            )
                            .with_hint("remove the /*! ... */ comment")
                            .at(location));
                        }
                        comment.as_str()
                    }
                    _ => "",
                };
                reject_invisible(text, location)?;
            }
            Token::EOF | Token::SemiColon => {}
            token if is_literal_token(token) => {
                meaningful = true;
                check_literal(token, lexing).map_err(|(message, hint)| {
                    GuardError::new(ErrorCode::UnsupportedSyntax, Stage::Precheck, message)
                        .with_hint(hint)
                        .at(location)
                })?;
            }
            token => {
                meaningful = true;
                // Only these tokens carry text from the input; the rest are fixed ASCII.
                match token {
                    Token::Word(w) => {
                        reject_invisible(&w.value, location)?;
                        check_quoted_name(w, lexing).map_err(|(message, hint)| {
                            GuardError::new(ErrorCode::UnsupportedSyntax, Stage::Precheck, message)
                                .with_hint(hint)
                                .at(location)
                        })?;
                    }
                    Token::Number(n, _) | Token::Placeholder(n) => reject_invisible(n, location)?,
                    Token::Char(c) if is_invisible(*c) => {
                        reject_invisible(&c.to_string(), location)?
                    }
                    _ => {}
                }
            }
        }
    }
    if !meaningful {
        return Err(GuardError::new(
            ErrorCode::Empty,
            Stage::Precheck,
            "no SQL statement found (empty, or only comments)",
        )
        .with_hint("send one SELECT statement"));
    }
    Ok(())
}

fn reject_invisible(text: &str, location: Option<Location>) -> Result<(), GuardError> {
    // Fast path: printable ASCII (the common case) holds none of them.
    if text
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) || matches!(b, b'\t' | b'\n' | b'\r'))
    {
        return Ok(());
    }
    if let Some(c) = text.chars().find(|&c| is_invisible(c)) {
        return Err(GuardError::new(
            ErrorCode::InvalidCharacter,
            Stage::Precheck,
            format!(
                "invisible or control character U+{:04X} outside a string literal",
                c as u32
            ),
        )
        .with_hint("retype the query with plain spaces and visible characters")
        .at(location));
    }
    Ok(())
}

/// 1-based line/column (in characters) of a byte offset.
pub(crate) fn location_of_offset(sql: &str, offset: usize) -> Location {
    let before = &sql[..offset.min(sql.len())];
    let line = before.matches('\n').count() as u64 + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u64 + 1;
    Location { line, column }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_limit_is_exclusive() {
        assert!(check_size("SELECT 1", 8).is_ok());
        let e = check_size("SELECT 10", 8).unwrap_err();
        assert_eq!(e.code, ErrorCode::TooLarge);
        assert_eq!(e.stage, Stage::Precheck);
    }

    #[test]
    fn nul_is_located() {
        let e = check_nul("SELECT 1\nFROM t\0").unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidCharacter);
        assert_eq!(e.location, Some(Location { line: 2, column: 7 }));
    }

    #[test]
    fn invisible_characters() {
        for c in [
            '\u{200B}',
            '\u{202E}',
            '\u{FEFF}',
            '\u{E0041}',
            '\u{00A0}',
            '\u{2066}',
        ] {
            assert!(is_invisible(c), "{c:?}");
        }
        for c in ['a', ' ', '\n', '\t', 'é', '中'] {
            assert!(!is_invisible(c), "{c:?}");
        }
    }
}
