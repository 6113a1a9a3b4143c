//! The guessed path of a read: parsed without its trailing `;`s and, when it has no limit of its
//! own, with its cap already appended as `LIMIT n`, so that the parser reads exactly the tokens
//! of the SQL the guard returns and the self-check can prove the round trip without a second
//! parse (ARCHITECTURE.md, "Self-check").

use sqlparser::ast::{Expr, LimitClause, Statement, Value};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Location, Span, Token, TokenWithSpan, Whitespace};

use super::self_check::ReadFrom;
use super::{Changes, Checked, Guard, Steps};
use crate::class::{statement_class, QueryClass};
use crate::error::GuardError;
use crate::parse::{is_trivia, parse_prepared_keeping_tokens, prepare};
use crate::rows::Form;
use crate::verdict::Rejection;

/// The most tokens (whitespace included) a read may have to take the guessed path: a few
/// milliseconds of parsing at most, were the guess to fail and the usual path parse again.
const GUESS_MAX_TOKENS: usize = 4096;

/// How a read's tokens are parsed on the guessed path.
#[derive(Debug, Clone, Copy)]
pub(super) struct Guess {
    /// The cap, to append as `LIMIT cap`: the read has no limit of its own.
    append: Option<u64>,
}

impl Guard {
    /// The guess for `tokens` (one statement) of a read capped at `cap`, when they read like a
    /// query: they start with SELECT or WITH, hold no comment, and a `;` only at the end. The
    /// cap is appended when no word outside parentheses is LIMIT, OFFSET, FETCH or TOP (a limit
    /// of its own, which the cap keeps or clamps in place) and the dialect caps with LIMIT.
    pub(super) fn guess(&self, tokens: &[TokenWithSpan], cap: Option<u64>) -> Option<Guess> {
        // A guess that fails costs a second parse: only where that stays cheap (the worst-case
        // bound of BENCHMARKS.md is for the largest inputs).
        if tokens.len() > GUESS_MAX_TOKENS {
            return None;
        }
        let mut meaningful = tokens.iter().filter(|t| !is_trivia(&t.token));
        let starts_like_a_query = matches!(
            meaningful.next().map(|t| &t.token),
            Some(Token::Word(w)) if matches!(w.keyword, Keyword::SELECT | Keyword::WITH)
        );
        if !starts_like_a_query {
            return None;
        }
        let (mut own_limit, mut ended, mut depth) = (false, false, 0usize);
        for t in tokens {
            match &t.token {
                Token::LParen if !ended => depth += 1,
                Token::RParen if !ended => depth = depth.saturating_sub(1),
                Token::Whitespace(
                    Whitespace::SingleLineComment { .. } | Whitespace::MultiLineComment(_),
                ) => return None,
                Token::Whitespace(_) | Token::EOF => {}
                Token::SemiColon => ended = true,
                _ if ended => return None,
                Token::Word(w) if depth == 0 => {
                    own_limit |= matches!(
                        w.keyword,
                        Keyword::LIMIT | Keyword::OFFSET | Keyword::FETCH | Keyword::TOP
                    );
                }
                _ => {}
            }
        }
        let caps_with_limit = !self.policy.dialect.limits_rows_with_top_or_fetch();
        Some(Guess {
            append: cap.filter(|_| !own_limit && caps_with_limit),
        })
    }

    /// The pass over a read parsed without its trailing `;`s and, when `guess` says so, with
    /// ` LIMIT cap` appended to its tokens. An appended clause is taken off again before the
    /// check (which never sees the cap, as on the usual path) and the cap then injects the very
    /// same clause: the tree is then the one the parser built from the tokens it read, so the
    /// self-check's shortcut applies to it as to any read the check left as parsed.
    ///
    /// `None` when the guess does not hold (the parse fails, the clause did not end up as the
    /// query's own limit, or the check refuses): the caller then takes the usual path, whose
    /// answer (and refusal) is the reference.
    pub(super) fn run_guessed<T, C, R, U>(
        &self,
        sql: &str,
        mut tokens: Vec<TokenWithSpan>,
        guess: Guess,
        steps: &Steps<C, R, U>,
    ) -> Option<Result<Checked<T>, Rejection>>
    where
        C: Fn(&mut Statement, QueryClass) -> Result<T, GuardError>,
        R: Fn(&mut Statement, &mut T) -> Result<Option<Form>, GuardError>,
        U: Fn(&T) -> Changes,
    {
        let dialect = self.policy.dialect;
        if let Some(end) = tokens
            .iter()
            .position(|t| matches!(t.token, Token::SemiColon))
        {
            tokens.truncate(end);
        }
        if let Some(cap) = guess.append {
            append_limit(&mut tokens, cap);
        }
        let tokens = prepare(tokens, dialect).ok()?;
        let (statements, read_from) =
            parse_prepared_keeping_tokens(tokens, dialect, self.policy.max_depth);
        let mut statement = match <[Statement; 1]>::try_from(statements.ok()?) {
            Ok([statement]) => statement,
            Err(_) => return None,
        };
        let expected = guess.append.map(limit_clause);
        if let Some(expected) = &expected {
            let Statement::Query(query) = &mut statement else {
                return None;
            };
            if query.limit_clause.as_ref() != Some(expected) || query.fetch.is_some() {
                return None;
            }
            query.limit_clause = None;
        }
        let class = statement_class(&statement);
        let found = (steps.check)(&mut statement, class).ok()?;
        let as_parsed = match (&expected, &statement) {
            // The cap went in as the clause parsed.
            (Some(expected), Statement::Query(query)) => {
                query.limit_clause.as_ref() == Some(expected)
                    && query.fetch.is_none()
                    && !(steps.changes)(&found).other
            }
            (Some(_), _) => false,
            (None, _) => (steps.changes)(&found).none(&read_from),
        };
        let read_from = as_parsed.then_some(ReadFrom {
            tokens: read_from.as_slice(),
            source: sql,
        });
        Some(self.finish(statement, class, found, read_from, steps))
    }
}

/// `LIMIT cap` as `limit.rs` injects it.
fn limit_clause(cap: u64) -> LimitClause {
    LimitClause::LimitOffset {
        limit: Some(Expr::Value(Value::Number(cap.to_string(), false).into())),
        offset: None,
        limit_by: vec![],
    }
}

/// Appends ` LIMIT cap` to `tokens` (before a closing EOF token, if any), placed after the
/// last token.
fn append_limit(tokens: &mut Vec<TokenWithSpan>, cap: u64) {
    let eof = tokens.last().is_some_and(|t| matches!(t.token, Token::EOF));
    let end = tokens.last().map_or(Location::new(1, 1), |t| t.span.end);
    let at = |offset: u64| {
        let column = end.column.saturating_add(offset);
        Span::new(
            Location::new(end.line, column),
            Location::new(end.line, column),
        )
    };
    let tail = [
        TokenWithSpan::new(Token::Whitespace(Whitespace::Space), at(0)),
        TokenWithSpan::new(Token::make_keyword("LIMIT"), at(1)),
        TokenWithSpan::new(Token::Whitespace(Whitespace::Space), at(6)),
        TokenWithSpan::new(Token::Number(cap.to_string(), false), at(7)),
    ];
    let position = tokens.len() - usize::from(eof);
    tokens.splice(position..position, tail);
}

#[cfg(test)]
mod tests {
    use crate::dialect::Dialect;
    use crate::guard::Guard;
    use crate::verdict::LimitAction;

    #[test]
    fn a_query_without_a_limit_gets_the_cap_appended_as_before() {
        let guard = Guard::for_dialect(Dialect::Postgres);
        let cap = guard
            .policy()
            .max_rows
            .expect("the default policy caps rows");
        for (sql, expected) in [
            ("SELECT a\n  FROM t", format!("SELECT a FROM t LIMIT {cap}")),
            (
                "SELECT a FROM t UNION SELECT b FROM u",
                format!("SELECT a FROM t UNION SELECT b FROM u LIMIT {cap}"),
            ),
            // The cap goes inside the parentheses: not the clause parsed, so a full self-check.
            (
                "(SELECT a FROM t)",
                format!("(SELECT a FROM t LIMIT {cap})"),
            ),
        ] {
            let approved = guard.check(sql).expect("a plain read passes");
            assert_eq!(approved.sql, expected);
            assert_eq!(approved.limit.action, LimitAction::Injected);
            assert_eq!(approved.limit.original, None);
        }
    }

    #[test]
    fn refusals_come_from_the_usual_path() {
        let guard = Guard::for_dialect(Dialect::Postgres);
        let refused = guard
            .check("SELECT a FROM pg_shadow")
            .expect_err("a catalog");
        let usual = guard
            .check("SELECT a FROM pg_shadow LIMIT 5")
            .expect_err("a catalog");
        assert_eq!(refused.error.code, usual.error.code);
        assert_eq!(refused.error.location, usual.error.location);
    }
}
