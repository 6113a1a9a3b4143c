//! Tokenizing and parsing in the policy's dialect, with a depth limit and a statement count taken
//! from the token stream as well as from the tree.

use sqlparser::ast::Statement;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError, ParserOptions};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer, Whitespace};

use crate::dialect::Dialect;
use crate::error::{ErrorCode, GuardError, Location, Stage};

/// Tokenizes without unescaping, so that literals print back exactly as written.
pub fn tokenize(sql: &str, dialect: Dialect) -> Result<Vec<TokenWithSpan>, GuardError> {
    let parser_dialect = dialect.parser_dialect();
    Tokenizer::new(parser_dialect.as_ref(), sql)
        .with_unescape(false)
        .tokenize_with_location()
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
    let tokens = prepare_tokens(tokens, dialect)?;
    let parser_dialect = dialect.parser_dialect();
    let options = ParserOptions::new()
        .with_trailing_commas(false)
        .with_unescape(false);
    let mut parser = Parser::new(parser_dialect.as_ref())
        .with_recursion_limit(max_depth)
        .with_options(options)
        .with_tokens_with_locations(tokens);
    parser
        .parse_statements()
        .map_err(|e| parse_error(e, dialect, max_depth))
}

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
pub(crate) fn prepare_tokens(
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
fn frame_offsets_to_wrap(tokens: &[TokenWithSpan]) -> Vec<(usize, Token)> {
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
mod tests {
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
            pg("SELECT sum(a) OVER w FROM t WINDOW w AS (ORDER BY a ROWS '1' PRECEDING)")
                .as_deref(),
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
}
