//! When two prepared token streams are the same input to the parser: the comparison that lets
//! the self-check skip its second parse (ARCHITECTURE.md, "Self-check").

use sqlparser::tokenizer::{Token, TokenWithSpan, Whitespace};

use crate::dialect::Dialect;

/// True when the parser, reading `a` and `b` (both prepared by [`super::prepare`]) in
/// `dialect`, is bound to build equal trees (equal as [`sqlparser::ast::Statement`]'s
/// `PartialEq` sees them, which ignores source positions).
///
/// sqlparser 0.64's parser is a deterministic function of the token sequence it reads; it skips
/// whitespace and comments except in these places, which this comparison covers:
///
/// - comments: optimizer hints (`/*+ ... */`) become part of the tree (MySQL, PostgreSQL,
///   generic): a stream with any comment is never called the same;
/// - `:name` and `@name` placeholders need the name right after the sign: whether a gap
///   follows a `:`, `@` or `-` (and precedes a `-`) must agree;
/// - BigQuery's hyphenated names and Snowflake's stage names read gaps between many tokens:
///   there, whether a gap follows must agree after every token;
/// - Redshift joins string literals separated by a newline: there, a stream with a newline is
///   never called the same.
///
/// Source positions differ (the spans): the tree's equality ignores them.
pub(crate) fn reads_the_same(a: &[TokenWithSpan], b: &[TokenWithSpan], dialect: Dialect) -> bool {
    let mut a = Meaningful::new(a);
    let mut b = Meaningful::new(b);
    let every_gap = matches!(dialect, Dialect::Bigquery | Dialect::Snowflake);
    let newlines_matter = dialect == Dialect::Redshift;
    loop {
        match (a.next(), b.next()) {
            (None, None) => {
                return !(a.odd || b.odd || (newlines_matter && (a.newline || b.newline)))
            }
            (Some(x), Some(y)) => {
                if x.token != y.token {
                    return false;
                }
                let gaps_matter =
                    every_gap || gap_sensitive(x.token) || x.next.is_some_and(gap_sensitive);
                if gaps_matter && x.gap_after != y.gap_after {
                    return false;
                }
            }
            _ => return false,
        }
        if a.odd || b.odd {
            return false;
        }
    }
}

/// Tokens after which (or before which, for `-`) the parser looks at whether a gap follows.
fn gap_sensitive(token: &Token) -> bool {
    matches!(token, Token::Colon | Token::AtSign | Token::Minus)
}

/// One meaningful token, whether whitespace follows it, and the meaningful token after it.
struct Step<'a> {
    token: &'a Token,
    gap_after: bool,
    next: Option<&'a Token>,
}

/// Walks the meaningful tokens of a stream (not whitespace, not EOF), noting what lies between.
struct Meaningful<'a> {
    tokens: &'a [TokenWithSpan],
    at: usize,
    /// A comment (or a kind of whitespace this module does not know) was seen.
    odd: bool,
    /// A newline was seen.
    newline: bool,
}

impl<'a> Meaningful<'a> {
    fn new(tokens: &'a [TokenWithSpan]) -> Meaningful<'a> {
        Meaningful {
            tokens,
            at: 0,
            odd: false,
            newline: false,
        }
    }

    /// Skips whitespace from `self.at`; true when any was skipped.
    fn skip_gap(&mut self) -> bool {
        let start = self.at;
        while let Some(t) = self.tokens.get(self.at) {
            match &t.token {
                Token::Whitespace(Whitespace::Space | Whitespace::Tab) => {}
                Token::Whitespace(Whitespace::Newline) => self.newline = true,
                Token::Whitespace(_) => self.odd = true,
                Token::EOF => {}
                _ => break,
            }
            self.at += 1;
        }
        self.at > start
    }

    fn next(&mut self) -> Option<Step<'a>> {
        self.skip_gap();
        let token = &self.tokens.get(self.at)?.token;
        self.at += 1;
        let gap_after = self.skip_gap();
        let next = self.tokens.get(self.at).map(|t| &t.token);
        Some(Step {
            token,
            gap_after,
            next,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{prepare, tokenize};

    fn same(a: &str, b: &str, dialect: Dialect) -> bool {
        let a = prepare(tokenize(a, dialect).unwrap(), dialect).unwrap();
        let b = prepare(tokenize(b, dialect).unwrap(), dialect).unwrap();
        reads_the_same(&a, &b, dialect)
    }

    #[test]
    fn layout_aside_the_same_tokens_read_the_same() {
        let pg = Dialect::Postgres;
        assert!(same("SELECT a,b\n FROM t", "SELECT a, b FROM t", pg));
        assert!(same(
            "SELECT count( * ) FROM t",
            "SELECT count(*) FROM t",
            pg
        ));
    }

    #[test]
    fn other_tokens_case_or_quotes_do_not() {
        let pg = Dialect::Postgres;
        assert!(!same("select a FROM t", "SELECT a FROM t", pg));
        assert!(!same("SELECT \"a\" FROM t", "SELECT a FROM t", pg));
        assert!(!same("SELECT a FROM t", "SELECT a FROM t LIMIT 5", pg));
        assert!(!same("SELECT a FROM t LIMIT 5", "SELECT a FROM t", pg));
    }

    #[test]
    fn comments_and_placeholder_gaps_are_never_the_same() {
        let my = Dialect::Mysql;
        assert!(!same(
            "SELECT /*+ BKA(t) */ a FROM t",
            "SELECT a FROM t",
            my
        ));
        assert!(!same("SELECT a FROM t -- x", "SELECT a FROM t", my));
        let pg = Dialect::Postgres;
        assert!(!same("SELECT : a", "SELECT :a", pg));
        assert!(same("SELECT :a", "SELECT  :a", pg));
    }

    #[test]
    fn gap_sensitive_dialects_compare_every_gap_or_newline() {
        let bq = Dialect::Bigquery;
        assert!(!same("SELECT * FROM a-b", "SELECT * FROM a - b", bq));
        assert!(same("SELECT *\nFROM t", "SELECT * FROM t", bq));
        let rs = Dialect::Redshift;
        assert!(!same("SELECT 'a'\n'b'", "SELECT 'a' 'b'", rs));
        assert!(!same("SELECT a\nFROM t", "SELECT a FROM t", rs));
    }
}
