//! The read whose cap is appended as `LIMIT n`, parsed with the cap already in place: the
//! parser then reads exactly the tokens of the SQL the guard returns, and the self-check can
//! prove the round trip without a second parse (ARCHITECTURE.md, "Self-check").

use sqlparser::ast::{Expr, LimitClause, Statement, Value};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Location, Span, Token, TokenWithSpan, Whitespace};

use super::{Checked, Guard, Steps};
use crate::class::{statement_class, QueryClass};
use crate::error::GuardError;
use crate::parse::{is_trivia, parse_prepared_keeping_tokens, prepare};
use crate::rows::Form;
use crate::verdict::Rejection;

impl Guard {
    /// True when `tokens` (one statement) read like a query that will get the cap appended:
    /// it starts like a query, and no word of it is LIMIT, OFFSET, FETCH or TOP (a limit of its
    /// own, which the cap keeps or clamps in place), nor is there a `;` or a comment; and the
    /// dialect caps with LIMIT.
    pub(super) fn may_append_limit(&self, tokens: &[TokenWithSpan]) -> bool {
        if self.policy.dialect.limits_rows_with_top_or_fetch() {
            return false;
        }
        let mut meaningful = tokens.iter().filter(|t| !is_trivia(&t.token));
        let starts_like_a_query = matches!(
            meaningful.next().map(|t| &t.token),
            Some(Token::Word(w)) if matches!(w.keyword, Keyword::SELECT | Keyword::WITH)
        );
        starts_like_a_query
            && tokens.iter().all(|t| match &t.token {
                Token::Word(w) => !matches!(
                    w.keyword,
                    Keyword::LIMIT | Keyword::OFFSET | Keyword::FETCH | Keyword::TOP
                ),
                Token::SemiColon => false,
                Token::Whitespace(w) => !matches!(
                    w,
                    Whitespace::SingleLineComment { .. } | Whitespace::MultiLineComment(_)
                ),
                _ => true,
            })
    }

    /// The pass over a query parsed as `tokens` followed by `LIMIT cap`. The query is checked
    /// without that clause (what the user sent: the validation never sees the cap, as on the
    /// usual path) and the cap then injects the very same clause again. The parser read the
    /// tokens of the SQL returned, so the self-check's shortcut applies.
    ///
    /// `None` when the guess does not hold (the parse fails, the clause did not end up as the
    /// query's own limit, or the check refuses): the caller then takes the usual path, whose
    /// answer (and refusal) is the reference.
    pub(super) fn with_appended_limit<T, C, R, U>(
        &self,
        mut tokens: Vec<TokenWithSpan>,
        cap: u64,
        steps: &Steps<C, R, U>,
    ) -> Option<Result<Checked<T>, Rejection>>
    where
        C: Fn(&mut Statement, QueryClass) -> Result<T, GuardError>,
        R: Fn(&mut Statement, &mut T) -> Result<Option<Form>, GuardError>,
    {
        let dialect = self.policy.dialect;
        append_limit(&mut tokens, cap);
        let tokens = prepare(tokens, dialect).ok()?;
        let (statements, read_from) =
            parse_prepared_keeping_tokens(tokens, dialect, self.policy.max_depth);
        let mut statement = match <[Statement; 1]>::try_from(statements.ok()?) {
            Ok([statement]) => statement,
            Err(_) => return None,
        };
        let expected = Some(limit_clause(cap));
        let Statement::Query(query) = &mut statement else {
            return None;
        };
        if query.limit_clause != expected || query.fetch.is_some() {
            return None;
        }
        query.limit_clause = None;
        let class = statement_class(&statement);
        let found = (steps.check)(&mut statement, class).ok()?;
        let Statement::Query(query) = &statement else {
            return None;
        };
        // The cap went in as the clause parsed: the tree is the one the parser built.
        let as_parsed = query.limit_clause == expected && query.fetch.is_none();
        let read_from = as_parsed.then_some(read_from.as_slice());
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
    let eof = matches!(tokens.last(), Some(t) if t.token == Token::EOF);
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
