//! When the SQL printed from a tree is the very text the tree was parsed from, only re-spaced:
//! the self-check's cheapest proof, which needs no second tokenization (ARCHITECTURE.md,
//! "Self-check").

use sqlparser::tokenizer::{Location, Span, Token, TokenWithSpan, Whitespace};

use crate::dialect::Dialect;

/// True when `printed`, tokenized and prepared in `dialect`, is bound to give a stream that
/// [`super::reads_the_same`] calls the same as `read`: the prepared stream the parser read,
/// tokenized from `source` (possibly cut before a `;` and with a ` LIMIT n` appended).
///
/// It holds when `printed` is `source`'s own text token by token, with only the gaps between
/// tokens changed, and only where the tokenizer is proven not to notice (module `boundary`):
///
/// - `read`'s tokens cover `source` from its start without a hole or an overlap (so the token
///   preparation inserted and dropped nothing), and a token with an empty span (one appended
///   to the stream) is an upper-case keyword, a run of digits, or a space;
/// - no comment: a comment is never printed back, and the parser reads optimizer hints;
/// - each gap of whitespace becomes one space, or disappears, or a space appears where there was
///   no gap, as [`boundary`] allows.
///
/// Then the tokenizer, reading `printed` from the left, makes the same decisions as when it read
/// `source`: each token's text is the same, the character after it matters only where the
/// boundary rules say it is the same or cannot matter, and the previous token, which the
/// tokenizer consults for a few tokens, is the same or cannot matter. The statement count, the
/// pre-checks and the token preparation are functions of the tokens, so they agree as well.
pub(crate) fn printed_as_read(
    printed: &str,
    source: &str,
    read: &[TokenWithSpan],
    dialect: Dialect,
) -> bool {
    walk(printed, source, read, dialect).is_some()
}

fn walk(printed: &str, source: &str, read: &[TokenWithSpan], dialect: Dialect) -> Option<()> {
    let mut source = Source::new(source);
    let mut out = 0usize;
    let mut left: Option<Left<'_>> = None;
    let mut gap = false;
    for t in read {
        let text = match &t.token {
            Token::EOF => continue,
            Token::Whitespace(Whitespace::Space | Whitespace::Tab | Whitespace::Newline) => {
                if dialect == Dialect::Redshift && t.token == Token::Whitespace(Whitespace::Newline)
                {
                    // Redshift joins string literals separated by a newline.
                    return None;
                }
                if !appended(t.span) {
                    source.take(t.span)?;
                }
                gap = true;
                continue;
            }
            // Comments are not printed back; a COPY payload's end depends on its newlines.
            Token::Whitespace(_) | Token::CopyData { .. } => return None,
            token if appended(t.span) => appended_text(token)?,
            _ => source.take(t.span)?,
        };
        let rest = printed.get(out..)?;
        let out_gap = rest.starts_with(' ');
        let right = Right {
            token: &t.token,
            first: text.chars().next(),
            appended: appended(t.span),
        };
        boundary::allowed(left.as_ref(), &right, gap, out_gap, dialect).then_some(())?;
        out += usize::from(out_gap);
        printed.get(out..)?.starts_with(text).then_some(())?;
        out += text.len();
        let after = if appended(t.span) {
            None
        } else {
            source.next_char()
        };
        left = Some(Left {
            token: &t.token,
            after,
            appended: appended(t.span),
        });
        gap = false;
    }
    // The end: `printed` must be used up, and the last token's next character (none) judged.
    let end = Right {
        token: &Token::EOF,
        first: None,
        appended: false,
    };
    (out == printed.len() && boundary::allowed(left.as_ref(), &end, gap, false, dialect))
        .then_some(())
}

/// A token with an empty span was not read from the source: the guessed path appended it.
fn appended(span: Span) -> bool {
    span.start == span.end
}

/// The text of an appended token, when it is one whose text tokenizes back to it alone: an
/// unquoted upper-case keyword (`LIMIT`) or a number of digits.
fn appended_text(token: &Token) -> Option<&str> {
    match token {
        Token::Word(w)
            if w.quote_style.is_none()
                && !w.value.is_empty()
                && w.value.bytes().all(|b| b.is_ascii_uppercase()) =>
        {
            Some(&w.value)
        }
        Token::Number(n, false) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            Some(n)
        }
        _ => None,
    }
}

/// The token before a boundary, and the character that followed it in the source (`None` at the
/// end of the source or when the token was appended).
struct Left<'a> {
    token: &'a Token,
    after: Option<char>,
    appended: bool,
}

/// The token after a boundary (`Token::EOF` at the end) and its first character.
struct Right<'a> {
    token: &'a Token,
    first: Option<char>,
    appended: bool,
}

/// The source text, walked token by token along the spans the tokenizer gave (lines and columns
/// counted as sqlparser's tokenizer counts them: a `\n` starts a line, every other character,
/// `\r` included, is a column).
struct Source<'a> {
    text: &'a str,
    /// Every character is one byte: a token within a line is as many bytes as columns.
    ascii: bool,
    at: usize,
    location: Location,
}

impl<'a> Source<'a> {
    fn new(text: &'a str) -> Source<'a> {
        Source {
            text,
            ascii: text.is_ascii(),
            at: 0,
            location: Location::new(1, 1),
        }
    }

    /// The text of the token at `span`, which must start where the last one ended.
    fn take(&mut self, span: Span) -> Option<&'a str> {
        if span.start != self.location {
            return None;
        }
        let start = self.at;
        if self.ascii && span.end.line == span.start.line && span.end.column > span.start.column {
            let width = usize::try_from(span.end.column - span.start.column).ok()?;
            let text = self.text.get(start..start.checked_add(width)?)?;
            // A `\n` inside would have started a line: the span would not end on this one.
            if text.contains('\n') {
                return None;
            }
            self.at = start + width;
            self.location = span.end;
            return Some(text);
        }
        let mut chars = self.text.get(start..)?.char_indices();
        while self.location != span.end {
            let (offset, c) = chars.next()?;
            self.at = start + offset + c.len_utf8();
            if c == '\n' {
                self.location = Location::new(self.location.line + 1, 1);
            } else {
                self.location.column += 1;
            }
            if self.location.line > span.end.line {
                return None;
            }
        }
        self.text.get(start..self.at)
    }

    /// The character after the last token taken.
    fn next_char(&self) -> Option<char> {
        self.text.get(self.at..)?.chars().next()
    }
}

/// What may change at the boundary between two tokens without the tokenizer or the parser
/// noticing. Derived from sqlparser 0.64's tokenizer (`next_token` and the functions it calls),
/// which must be read again for a new version.
mod boundary {
    use super::{Left, Right};
    use crate::dialect::Dialect;
    use sqlparser::tokenizer::Token;

    /// True when the boundary may be printed with `out_gap` (a space, or nothing) where the
    /// parser's stream had `in_gap` (whitespace, or nothing):
    ///
    /// - the left token ends where it ended, although the character after it may differ;
    /// - the right token reads the same, although its previous token may change between the
    ///   left one and whitespace (the tokenizer consults it for numbers, `.` and words);
    /// - where a gap appears or disappears, the parser does not look at it.
    pub(super) fn allowed(
        left: Option<&Left<'_>>,
        right: &Right<'_>,
        in_gap: bool,
        out_gap: bool,
        dialect: Dialect,
    ) -> bool {
        let Some(left) = left else {
            // The first token: the tokenizer sees no previous token, or whitespace, which no
            // rule of it tells apart; the printed text must start with the token.
            return !out_gap;
        };
        if right.appended && !out_gap {
            return false;
        }
        let out_next = if out_gap { Some(' ') } else { right.first };
        let left_ends = (!left.appended && left.after == out_next)
            || ends_regardless(left.token)
            || (ends_alike(left.token) && matches!(out_next, None | Some(' ' | ',' | '(' | ')')));
        if !left_ends {
            return false;
        }
        if in_gap == out_gap {
            return true;
        }
        let parser_blind = !matches!(dialect, Dialect::Bigquery | Dialect::Snowflake)
            && !gap_sensitive(left.token)
            && !gap_sensitive(right.token);
        let prev_blind = !prev_sensitive(left.token)
            || !right
                .first
                .is_some_and(|c| c.is_alphanumeric() || c == '.' || c == '_');
        parser_blind && prev_blind
    }

    /// Single-character tokens the tokenizer returns without looking at what follows.
    fn ends_regardless(token: &Token) -> bool {
        matches!(
            token,
            Token::Comma
                | Token::LParen
                | Token::RParen
                | Token::RBracket
                | Token::Plus
                | Token::Mul
        )
    }

    /// Tokens the tokenizer ends the same way when a space, `,`, `(`, `)` or the end of the
    /// input follows as when anything else did: each stops at the first character outside a
    /// fixed set (identifier parts, digits, operator characters, its closing quote doubled),
    /// and none of those is in any such set. Not here: `#`, `@` and `@@`, which peek for a
    /// space (a comment, or `AtSign`), `%`, which may start an identifier, and the rarer
    /// operators.
    fn ends_alike(token: &Token) -> bool {
        matches!(
            token,
            Token::Word(_)
                | Token::Number(..)
                | Token::SingleQuotedString(_)
                | Token::Period
                | Token::Eq
                | Token::Neq
                | Token::Lt
                | Token::Gt
                | Token::LtEq
                | Token::GtEq
                | Token::Div
                | Token::StringConcat
                | Token::DoubleColon
        )
    }

    /// The parser looks at whether a gap follows `:` and `@` and surrounds `-` (placeholders,
    /// negative numbers), as `parse/same_input.rs` lists; in BigQuery and Snowflake, everywhere.
    fn gap_sensitive(token: &Token) -> bool {
        matches!(token, Token::Colon | Token::AtSign | Token::Minus)
    }

    /// Previous tokens after which the tokenizer reads a number, a `.` or a word differently
    /// (`t.1`, `(1, 2).1`, `t.1e2`).
    fn prev_sensitive(token: &Token) -> bool {
        matches!(
            token,
            Token::Period | Token::Word(_) | Token::RParen | Token::RBracket | Token::Number(..)
        )
    }
}

#[cfg(test)]
mod tests;
