//! The self-check, the last step of the pipeline: the SQL printed from the checked tree must
//! parse back into that very tree, so that what runs is what was checked.

use sqlparser::ast::Statement;
use sqlparser::tokenizer::TokenWithSpan;

use super::{stack_for, Guard};
use crate::error::GuardError;
use crate::parse::{
    count_statements, parse_prepared, prepare, printed_as_read, reads_the_same, tokenize,
};
use crate::precheck::{check_nul, check_tokens};

/// The token stream the parser read to build a checked tree that the check left as parsed,
/// and the SQL it was tokenized from: what the self-check's shortcuts compare the printed SQL
/// with.
#[derive(Debug, Clone, Copy)]
pub(super) struct ReadFrom<'a> {
    /// The prepared tokens, as the parser read them.
    pub(super) tokens: &'a [TokenWithSpan],
    /// The submitted SQL, whose text the tokens' spans point into.
    pub(super) source: &'a str,
}

impl Guard {
    /// The self-check: `sql`, printed from the checked and capped `checked`, must pass the
    /// character pre-checks and parse back into one statement equal to `checked`. Equal trees
    /// print the same SQL and get the same verdict (class, tables, columns, functions and limit
    /// are functions of the tree), so this is the fixed point (ARCHITECTURE.md, "Pipeline")
    /// without running the validation a second time. Equality ignores only source positions.
    ///
    /// `read_from`, when given, is the prepared token stream the parser read to build
    /// `checked`, unchanged since: when `sql` is that stream's own text, re-spaced
    /// ([`printed_as_read`]), or prepares to a stream the parser reads the same way
    /// ([`reads_the_same`]), the second parse would build `checked` again and is skipped
    /// (ARCHITECTURE.md, "Self-check"). Debug and fuzzing builds check the tokens and parse
    /// anyway, and assert that both agree.
    pub(super) fn self_check(
        &self,
        sql: &str,
        checked: &Statement,
        read_from: Option<ReadFrom<'_>>,
    ) -> Result<(), String> {
        self.reparse_one(sql, read_from, |again| {
            if again == checked {
                debug_assert_eq!(again.to_string(), sql, "equal trees printed differently");
                Ok(())
            } else {
                Err(format!("it parses back as `{again}`"))
            }
        })
    }

    /// The debug builds' check of a read whose row filters were spliced in as printed text
    /// (`rows/printed.rs`), whose tree holds text nodes and so cannot be compared: `sql` must
    /// pass the pre-checks, parse as one statement and print back as itself.
    pub(super) fn reprint_check(&self, sql: &str) -> Result<(), String> {
        self.reparse_one(sql, None, |again| {
            if again.to_string() == sql {
                Ok(())
            } else {
                Err(format!("it prints back as `{again}`"))
            }
        })
    }

    /// Passes `sql` through the pre-checks and the parser as a second pass, and `judge`s the
    /// one statement it must hold; the second pass is skipped when the text says it would read
    /// `read_from` again, its parse when the tokens say so.
    fn reparse_one(
        &self,
        sql: &str,
        read_from: Option<ReadFrom<'_>>,
        judge: impl Fn(&Statement) -> Result<(), String>,
    ) -> Result<(), String> {
        let dialect = self.policy.dialect;
        if let Some(from) = read_from.filter(|f| printed_as_read(sql, f.source, f.tokens, dialect))
        {
            if cfg!(any(debug_assertions, fuzzing)) {
                let again = tokenize(sql, dialect).and_then(|tokens| prepare(tokens, dialect));
                assert!(
                    again.is_ok_and(|tokens| reads_the_same(&tokens, from.tokens, dialect)),
                    "the self-check's text shortcut disagrees with the tokens: {sql}"
                );
                let full = self.second_pass(sql, None, &judge);
                assert_eq!(
                    full,
                    Ok(()),
                    "the self-check's text shortcut disagrees: {sql}"
                );
            }
            return Ok(());
        }
        self.second_pass(sql, read_from.map(|f| f.tokens), judge)
    }

    /// The second pass: the pre-checks, the tokens and the statement count of `sql`, then the
    /// parse and the `judge`ment, the parse skipped when the tokens read as `read_from`.
    fn second_pass(
        &self,
        sql: &str,
        read_from: Option<&[TokenWithSpan]>,
        judge: impl Fn(&Statement) -> Result<(), String>,
    ) -> Result<(), String> {
        let dialect = self.policy.dialect;
        let refused = |e: GuardError| format!("the second pass refused it with {}", e.code);
        check_nul(sql).map_err(refused)?;
        let tokens = tokenize(sql, dialect).map_err(refused)?;
        check_tokens(&tokens, &self.policy).map_err(refused)?;
        let (count, _) = count_statements(&tokens);
        if count != 1 {
            return Err(format!("it reads as {count} statements"));
        }
        let stack = stack_for(&tokens);
        let tokens = prepare(tokens, dialect).map_err(refused)?;
        if read_from.is_some_and(|from| reads_the_same(&tokens, from, dialect)) {
            if cfg!(any(debug_assertions, fuzzing)) {
                let full = self.parse_and_judge(tokens, stack, judge);
                assert_eq!(full, Ok(()), "the self-check's shortcut disagrees: {sql}");
            }
            return Ok(());
        }
        self.parse_and_judge(tokens, stack, judge)
    }

    /// The second parse of the self-check, on a stack of `stack` bytes.
    fn parse_and_judge(
        &self,
        tokens: Vec<TokenWithSpan>,
        stack: usize,
        judge: impl Fn(&Statement) -> Result<(), String>,
    ) -> Result<(), String> {
        let dialect = self.policy.dialect;
        let refused = |e: GuardError| format!("the second pass refused it with {}", e.code);
        stacker::maybe_grow(stack, stack, || {
            let reparsed =
                parse_prepared(tokens, dialect, self.policy.max_depth).map_err(refused)?;
            match reparsed.as_slice() {
                [again] => judge(again),
                more => Err(format!("it parses back as {} statements", more.len())),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Dialect;
    use crate::parse::parse_tokens;

    fn parsed(guard: &Guard, sql: &str) -> Statement {
        let tokens = tokenize(sql, guard.policy.dialect).expect("test SQL tokenizes");
        let mut statements =
            parse_tokens(tokens, guard.policy.dialect, 64).expect("test SQL parses");
        assert_eq!(statements.len(), 1);
        statements.remove(0)
    }

    #[test]
    fn self_check_accepts_the_same_tree_at_other_positions() {
        let guard = Guard::for_dialect(Dialect::Postgres);
        let checked = parsed(&guard, "SELECT a\n  FROM t WHERE b = 'x' LIMIT 5");
        assert_eq!(
            guard.self_check("SELECT a FROM t WHERE b = 'x' LIMIT 5", &checked, None),
            Ok(())
        );
    }

    #[test]
    fn self_check_skips_the_parse_only_when_the_tokens_read_the_same() {
        let guard = Guard::for_dialect(Dialect::Postgres);
        let pg = Dialect::Postgres;
        let source = "SELECT a\n  FROM t WHERE b = 'x' LIMIT 5";
        let tokens = prepare(tokenize(source, pg).expect("tokenizes"), pg).expect("prepares");
        let read_from = ReadFrom {
            tokens: &tokens,
            source,
        };
        let checked = parsed(&guard, source);
        let same = "SELECT a FROM t WHERE b = 'x' LIMIT 5";
        assert_eq!(guard.self_check(same, &checked, Some(read_from)), Ok(()));
        // Other tokens: the full parse decides, and refuses.
        let other = guard.self_check(
            "SELECT a FROM t WHERE b = 'x' LIMIT 6",
            &checked,
            Some(read_from),
        );
        assert!(other.is_err_and(|d| d.contains("parses back as")));
    }

    #[test]
    fn self_check_refuses_text_that_parses_to_another_tree() {
        let guard = Guard::for_dialect(Dialect::Postgres);
        let checked = parsed(&guard, "SELECT a FROM t LIMIT 5");
        for drifted in [
            "SELECT a FROM t LIMIT 6",
            "SELECT \"a\" FROM t LIMIT 5",
            "SELECT a FROM t AS t LIMIT 5",
            "SELECT a FROM t LIMIT (5)",
        ] {
            let detail = guard
                .self_check(drifted, &checked, None)
                .expect_err("a different tree must not pass");
            assert!(detail.contains("parses back as"), "{drifted}: {detail}");
        }
    }

    #[test]
    fn self_check_refuses_extra_statements_and_precheck_failures() {
        // PostgreSQL reads `/*! ... */` as a comment (MySQL, and sqlparser's MySQL dialect, as SQL).
        let guard = Guard::for_dialect(Dialect::Postgres);
        let checked = parsed(&guard, "SELECT 1");
        let stacked = guard.self_check("SELECT 1; SELECT 1", &checked, None);
        assert_eq!(stacked, Err("it reads as 2 statements".to_string()));
        let hidden = guard.self_check("SELECT 1 /*! , 2 */", &checked, None);
        assert!(
            hidden
                .as_ref()
                .is_err_and(|d| d.contains("unsupported_syntax")),
            "{hidden:?}"
        );
        let nul = guard.self_check("SELECT 1\0", &checked, None);
        assert!(nul.is_err_and(|d| d.contains("invalid_character")));
    }
}
