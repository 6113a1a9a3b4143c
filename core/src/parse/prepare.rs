//! Token-level rewrites and refusals before parsing (`U&"..."`, `FOR READ ONLY`, string frame
//! offsets), for what no parser hook reaches.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::is_trivia;
use crate::dialect::Dialect;
use crate::error::{ErrorCode, GuardError, Location, Stage};

/// Token-level work before parsing, for what no parser hook reaches:
///
/// - refuses PostgreSQL's Unicode-escaped identifiers `U&"..."`, which sqlparser reads as
///   `U & "..."` while the server reads one identifier (`U&"\0065mail"` is `email`);
/// - drops PostgreSQL's `FOR READ ONLY` locking clause, which asks for no lock: a no-op;
/// - parenthesises a window frame offset that starts with a string literal
///   (`'1 year'::interval PRECEDING`, `'1' PRECEDING`): sqlparser reads a string there as the
///   start of an `INTERVAL` and fails on `::` (or turns `ROWS '1' PRECEDING` into an interval),
///   while `('1 year'::interval) PRECEDING` is read the same way by the server and by sqlparser.
///
/// Idempotent: the regenerated SQL comes back through here unchanged.
pub(super) fn prepare_tokens(
    tokens: Vec<TokenWithSpan>,
    dialect: Dialect,
) -> Result<Vec<TokenWithSpan>, GuardError> {
    if dialect.reads_unicode_identifiers() {
        refuse_unicode_identifiers(&tokens, dialect)?;
    }
    // One cheap pass decides whether the rarer rewrites need to look at all.
    let (mut has_read, mut has_frame) = (false, false);
    for t in &tokens {
        if let Token::Word(w) = &t.token {
            has_read |= w.keyword == Keyword::READ;
            has_frame |= matches!(w.keyword, Keyword::ROWS | Keyword::RANGE | Keyword::GROUPS);
        }
    }
    let drop_read_only = has_read && dialect.reads_for_read_only();
    let frames = has_frame && dialect.reads_string_frame_offsets();
    let read_only = if drop_read_only {
        read_only_clauses(&tokens)
    } else {
        Vec::new()
    };
    let mut parens = if frames {
        frame_offsets_to_wrap(&tokens)
    } else {
        Vec::new()
    };
    parens.sort_by_key(|(at, _)| *at);
    if read_only.is_empty() && parens.is_empty() {
        return Ok(tokens);
    }
    let mut out = Vec::with_capacity(tokens.len() + parens.len());
    let mut dropped = read_only.iter().peekable();
    let mut inserted = parens.iter().peekable();
    for (i, t) in tokens.into_iter().enumerate() {
        while let Some((_, token)) = inserted.next_if(|(at, _)| *at == i) {
            out.push(TokenWithSpan::new(token.clone(), t.span));
        }
        while dropped.next_if(|r| r.end <= i).is_some() {}
        if dropped.peek().is_some_and(|r| r.contains(&i)) {
            continue;
        }
        out.push(t);
    }
    Ok(out)
}

/// Refuses `U&"..."`: a word `U` directly followed by `&` directly followed by a double-quoted
/// identifier (no whitespace or comment between, as the server's lexer requires).
fn refuse_unicode_identifiers(
    tokens: &[TokenWithSpan],
    dialect: Dialect,
) -> Result<(), GuardError> {
    for w in tokens.windows(3) {
        let u = matches!(&w[0].token, Token::Word(word) if word.quote_style.is_none() && word.value.eq_ignore_ascii_case("u"));
        let quoted = matches!(&w[2].token, Token::Word(word) if word.quote_style == Some('"'));
        if u && w[1].token == Token::Ampersand && quoted {
            return Err(GuardError::new(
                ErrorCode::UnsupportedSyntax,
                Stage::Parse,
                format!(
                    "`U&\"...\"` is a Unicode-escaped identifier in {dialect}: the server reads one name where the parser reads `U & \"...\"`"
                ),
            )
            .with_hint("write the identifier plainly, e.g. \"email\" instead of U&\"\\0065mail\"")
            .at(Some(Location {
                line: w[0].span.start.line,
                column: w[0].span.start.column,
            })));
        }
    }
    Ok(())
}

/// True when `token` is the unquoted keyword `kw`.
fn is_keyword(token: &Token, kw: Keyword) -> bool {
    matches!(token, Token::Word(w) if w.keyword == kw && w.quote_style.is_none())
}

/// Index ranges (into `tokens`) of every `FOR READ ONLY`, from FOR through ONLY.
fn read_only_clauses(tokens: &[TokenWithSpan]) -> Vec<std::ops::Range<usize>> {
    let sig: Vec<usize> = (0..tokens.len())
        .filter(|&i| !is_trivia(&tokens[i].token))
        .collect();
    let mut out = Vec::new();
    for w in sig.windows(3) {
        if is_keyword(&tokens[w[0]].token, Keyword::FOR)
            && is_keyword(&tokens[w[1]].token, Keyword::READ)
            && is_keyword(&tokens[w[2]].token, Keyword::ONLY)
        {
            out.push(w[0]..w[2] + 1);
        }
    }
    out
}

/// Where to insert `(` and `)` (index into `tokens`, token inserted before it) around window
/// frame offsets that start with a string literal followed by `::` or by PRECEDING / FOLLOWING.
/// A frame is recognised only directly inside the parentheses of `OVER (...)` or of a
/// `WINDOW name AS (...)` definition.
pub(super) fn frame_offsets_to_wrap(tokens: &[TokenWithSpan]) -> Vec<(usize, Token)> {
    let sig: Vec<usize> = (0..tokens.len())
        .filter(|&i| !is_trivia(&tokens[i].token))
        .collect();
    let tok = |k: usize| sig.get(k).map(|&i| &tokens[i].token);
    let kw = |k: usize, keyword: Keyword| tok(k).is_some_and(|t| is_keyword(t, keyword));
    // For each open parenthesis: whether it opens a window specification.
    let mut window_parens: Vec<bool> = Vec::new();
    let mut window_clause_depth: Option<usize> = None;
    let mut out = Vec::new();
    for k in 0..sig.len() {
        match tok(k) {
            Some(Token::LParen) => {
                let depth = window_parens.len();
                let spec = k > 0
                    && (kw(k - 1, Keyword::OVER)
                        || (kw(k - 1, Keyword::AS) && window_clause_depth == Some(depth)));
                window_parens.push(spec);
            }
            Some(Token::RParen) => {
                window_parens.pop();
                if window_clause_depth.is_some_and(|d| d > window_parens.len()) {
                    window_clause_depth = None;
                }
            }
            Some(Token::SemiColon) => window_clause_depth = None,
            Some(t) if is_keyword(t, Keyword::WINDOW) => {
                window_clause_depth = Some(window_parens.len());
            }
            Some(t)
                if window_parens.last() == Some(&true)
                    && (is_keyword(t, Keyword::ROWS)
                        || is_keyword(t, Keyword::RANGE)
                        || is_keyword(t, Keyword::GROUPS)) =>
            {
                if kw(k + 1, Keyword::BETWEEN) {
                    let Some(end) = frame_bound(&sig, tokens, k + 2, &mut out) else {
                        continue;
                    };
                    if kw(end + 1, Keyword::AND) {
                        frame_bound(&sig, tokens, end + 2, &mut out);
                    }
                } else {
                    frame_bound(&sig, tokens, k + 1, &mut out);
                }
            }
            _ => {}
        }
    }
    out
}

/// One frame bound starting at significant position `start`: returns the position of the word
/// that ends it (PRECEDING, FOLLOWING, or ROW of CURRENT ROW), and records the parentheses to
/// add when the offset starts with a string literal followed by `::` or by the end word.
fn frame_bound(
    sig: &[usize],
    tokens: &[TokenWithSpan],
    start: usize,
    out: &mut Vec<(usize, Token)>,
) -> Option<usize> {
    let ends = |t: &Token| {
        is_keyword(t, Keyword::PRECEDING)
            || is_keyword(t, Keyword::FOLLOWING)
            || is_keyword(t, Keyword::ROW)
    };
    let mut depth = 0usize;
    let mut end = None;
    for (k, &i) in sig.iter().enumerate().skip(start) {
        let t = &tokens[i].token;
        match t {
            Token::LParen | Token::LBracket => depth += 1,
            Token::RParen | Token::RBracket => {
                if depth == 0 {
                    return None;
                }
                depth -= 1;
            }
            Token::Comma | Token::SemiColon if depth == 0 => return None,
            _ if depth == 0 && ends(t) => {
                end = Some(k);
                break;
            }
            _ => {}
        }
    }
    let end = end?;
    let first = &tokens[*sig.get(start)?].token;
    let second = &tokens[*sig.get(start + 1)?].token;
    let offset_end = is_keyword(&tokens[sig[end]].token, Keyword::PRECEDING)
        || is_keyword(&tokens[sig[end]].token, Keyword::FOLLOWING);
    if matches!(first, Token::SingleQuotedString(_))
        && offset_end
        && (*second == Token::DoubleColon || start + 1 == end)
    {
        out.push((sig[start], Token::LParen));
        out.push((sig[end], Token::RParen));
    }
    Some(end)
}
