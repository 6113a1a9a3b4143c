//! The guard: one policy compiled once, checking payloads through the whole pipeline.

use sqlparser::ast::Statement;
use sqlparser::tokenizer::TokenWithSpan;

mod appended_limit;
mod classify;
mod mutation;
mod placeholders;
mod read;
mod read_access;
mod self_check;
mod steps;
mod touched_rows;

pub use classify::classify;
pub use placeholders::number_named_placeholders;
pub use read_access::ReadAccess;

use crate::access::AccessPolicy;
use crate::class::{class_of_unparsed, statement_class, QueryClass};
use crate::dialect::Dialect;
use crate::error::{ErrorCode, GuardError, Stage};
use crate::functions::FunctionPolicy;
use crate::parse::{count_statements, parse_prepared_keeping_tokens, prepare, tokenize};
use crate::policy::{Policy, PolicyError};
use crate::precheck::{check_nul, check_size, check_token_count, check_tokens};
use crate::rows::{Form, RowFilters, Vars};
use crate::validate::Context;
use crate::verdict::{Approved, LimitAction, LimitInfo, Rejection, Verdict};
use crate::writes::WritePolicy;
use self_check::ReadFrom;
use steps::{Changes, Checked, Entry, Steps};

/// Stack kept free for the pipeline, plus a budget per token: a tree is at most one level per
/// token deep (a 50 000-term `OR` chain parses into a 50 000-deep tree), and printing, visiting
/// and dropping it recurse once per level. Debug builds have much larger frames.
const BASE_STACK: usize = 256 * 1024;
const STACK_PER_TOKEN: usize = if cfg!(debug_assertions) { 8192 } else { 4096 };

/// The stack to reserve for a pipeline pass over `tokens`.
fn stack_for(tokens: &[TokenWithSpan]) -> usize {
    let meaningful = tokens
        .iter()
        .filter(|t| !crate::parse::is_trivia(&t.token))
        .count();
    BASE_STACK.saturating_add(meaningful.saturating_mul(STACK_PER_TOKEN))
}

/// A compiled policy. Build it once and share it: it is `Send + Sync` and holds no mutable state.
#[derive(Debug, Clone)]
pub struct Guard {
    policy: Policy,
    functions: FunctionPolicy,
    access: AccessPolicy,
    writes: Option<WritePolicy>,
    rows: Option<RowFilters>,
}

fn reject(class: QueryClass, count: usize) -> impl Fn(GuardError) -> Rejection + Copy {
    move |error| Rejection {
        query_class: class,
        statement_count: count,
        error,
    }
}

impl Guard {
    /// Compiles `policy`; an unusable policy is an error naming the field.
    pub fn new(policy: Policy) -> Result<Guard, PolicyError> {
        if policy.max_sql_bytes == 0 {
            return Err(PolicyError::new("max_sql_bytes", "must be at least 1"));
        }
        if policy.max_depth == 0 || policy.max_depth > 4096 {
            return Err(PolicyError::new("max_depth", "must be between 1 and 4096"));
        }
        if policy.max_tokens == 0 {
            return Err(PolicyError::new("max_tokens", "must be at least 1"));
        }
        if policy.max_rows == Some(0) {
            return Err(PolicyError::new(
                "max_rows",
                "must be at least 1, or null for no cap",
            ));
        }
        let functions = FunctionPolicy::new(policy.dialect, &policy.functions)?;
        let access = AccessPolicy::new(&policy)?;
        let writes = policy
            .writes
            .as_ref()
            .map(|rules| WritePolicy::new(rules, policy.dialect))
            .transpose()?;
        let rows = policy
            .rows
            .as_ref()
            .filter(|rules| !rules.filters.is_empty())
            .map(|rules| RowFilters::compile(rules, &policy, &functions, &access))
            .transpose()?;
        Ok(Guard {
            policy,
            functions,
            access,
            writes,
            rows,
        })
    }

    /// A guard with the default policy for `dialect`.
    pub fn for_dialect(dialect: Dialect) -> Guard {
        Guard {
            functions: FunctionPolicy::new(dialect, &Default::default())
                .unwrap_or_else(|_| unreachable_policy()),
            access: AccessPolicy::new(&Policy::for_dialect(dialect))
                .unwrap_or_else(|_| unreachable_policy()),
            policy: Policy::for_dialect(dialect),
            writes: None,
            rows: None,
        }
    }

    /// The policy this guard enforces.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Checks `sql`: `Ok` with the SQL to execute in its place, or the refusal. Under a policy
    /// with row filters that use variables, use [`Guard::check_with`]: without the variables
    /// every read of a filtered table is refused.
    pub fn check(&self, sql: &str) -> Result<Approved, Rejection> {
        self.check_with_vars_and_row_cap(sql, &Vars::new(), self.policy.max_rows)
    }

    /// Checks `sql` with `vars` bound to the row filters' variables (`rows` in the policy).
    pub fn check_with(&self, sql: &str, vars: &Vars) -> Result<Approved, Rejection> {
        self.check_with_vars_and_row_cap(sql, vars, self.policy.max_rows)
    }

    /// Like [`Guard::check`] with another row cap than the policy's. A server that wants to
    /// know whether the cap cut a result asks for `max_rows + 1` here and returns `max_rows`.
    pub fn check_with_row_cap(
        &self,
        sql: &str,
        max_rows: Option<u64>,
    ) -> Result<Approved, Rejection> {
        self.check_with_vars_and_row_cap(sql, &Vars::new(), max_rows)
    }

    /// [`Guard::check_with`] and [`Guard::check_with_row_cap`] in one.
    pub fn check_with_vars_and_row_cap(
        &self,
        sql: &str,
        vars: &Vars,
        max_rows: Option<u64>,
    ) -> Result<Approved, Rejection> {
        if max_rows == Some(0) {
            return Err(Rejection {
                query_class: QueryClass::Unknown,
                statement_count: 0,
                error: GuardError::new(
                    ErrorCode::BadRequest,
                    Stage::Precheck,
                    "a row cap of 0 rows",
                ),
            });
        }
        let checked = self.run(
            sql,
            Steps {
                entry: Entry::Read,
                append_limit: max_rows,
                check: |statement: &mut Statement, class| {
                    self.check_statement(statement, class, max_rows)
                },
                rewrite: |statement: &mut Statement, (analysis, _): &mut (_, _)| {
                    self.filter_rows(statement, analysis, vars)
                },
                changes: |(analysis, limit): &(crate::validate::Analysis, LimitInfo)| Changes {
                    cap: !matches!(limit.action, LimitAction::None | LimitAction::Kept),
                    other: !analysis.masked.is_empty(),
                },
            },
        )?;
        let (analysis, limit) = checked.found;
        Ok(Approved {
            sql: checked.sql,
            query_class: checked.class,
            statement_count: 1,
            tables: analysis.tables.into_iter().collect(),
            columns: analysis.columns.into_iter().collect(),
            functions: analysis.functions.into_iter().collect(),
            limit,
            row_filters: analysis.row_filters.into_iter().collect(),
            parameters: analysis.parameters,
        })
    }

    /// True when the policy lets queries read `table`, given as its name parts the way the
    /// engine stores them (`["public", "customer"]` or `["customer"]`).
    pub fn table_allowed(&self, table: &[&str]) -> bool {
        let parts: Vec<String> = table.iter().map(|s| s.to_string()).collect();
        self.access.table_allowed(&parts)
    }

    /// True when a mutation may modify `table`, given as its name parts the way the engine
    /// stores them: the policy has `writes`, the table matches `writes.tables`, is not denied,
    /// not a system catalog and not a view the catalog knows. The mutation's class and columns
    /// are [`Guard::check_mutation`]'s to judge.
    pub fn table_writable(&self, table: &[&str]) -> bool {
        let Some(writes) = &self.writes else {
            return false;
        };
        let parts: Vec<String> = table.iter().map(|s| s.to_string()).collect();
        self.access
            .table_writable(&parts, |p, default| writes.writable(p, default))
    }

    /// True when `column` of `table` (name parts as stored) is protected by `columns.deny` or
    /// by a blocked PII category (`pii.block`).
    pub fn column_protected(&self, table: &[&str], column: &str) -> bool {
        let parts: Vec<String> = table.iter().map(|s| s.to_string()).collect();
        self.access.column_protected(&parts, column)
    }

    /// The mask of `column` of `table` (name parts as stored), when the policy masks it (a
    /// column's own `mask`, or its PII category's in `pii.mask`, and not blocked or denied).
    pub fn column_mask(&self, table: &[&str], column: &str) -> Option<crate::policy::MaskKind> {
        let parts: Vec<String> = table.iter().map(|s| s.to_string()).collect();
        self.access.column_mask(&parts, column)
    }

    /// The verdict for `sql` in its JSON shape (ARCHITECTURE.md, "Verdict contract"); never fails.
    pub fn verdict(&self, sql: &str) -> Verdict {
        Verdict::from(self.check(sql))
    }

    /// The verdict of [`Guard::check_with`] in its JSON shape; never fails.
    pub fn verdict_with(&self, sql: &str, vars: &Vars) -> Verdict {
        Verdict::from(self.check_with(sql, vars))
    }

    /// True when the policy has row filters.
    pub fn has_row_filters(&self) -> bool {
        self.rows.is_some()
    }

    /// The variables the policy's row filters need (names without the `:`), sorted: a front
    /// end checks at start-up that it has a value for each.
    pub fn row_filter_variables(&self) -> Vec<String> {
        self.rows
            .as_ref()
            .map(|rows| rows.variables().into_iter().collect())
            .unwrap_or_default()
    }

    /// The compiled row filters (tests look inside them).
    #[cfg(test)]
    pub(crate) fn row_filters(&self) -> Option<&RowFilters> {
        self.rows.as_ref()
    }

    /// One pass of the pipeline, on a stack sized for the input: pre-checks, parsing, one
    /// statement, `check` (which validates and may rewrite it), regeneration and the self-check.
    fn run<T, C, R, U>(&self, sql: &str, steps: Steps<C, R, U>) -> Result<Checked<T>, Rejection>
    where
        C: Fn(&mut Statement, QueryClass) -> Result<T, GuardError>,
        R: Fn(&mut Statement, &mut T) -> Result<Option<Form>, GuardError>,
        U: Fn(&T) -> Changes,
    {
        check_size(sql, self.policy.max_sql_bytes).map_err(reject(QueryClass::Unknown, 0))?;
        check_nul(sql).map_err(reject(QueryClass::Unknown, 0))?;
        let tokens = tokenize(sql, self.policy.dialect).map_err(reject(QueryClass::Unknown, 0))?;
        check_token_count(&tokens, self.policy.max_tokens)
            .map_err(reject(QueryClass::Unknown, 0))?;
        check_tokens(&tokens, &self.policy).map_err(reject(QueryClass::Unknown, 0))?;
        let stack = stack_for(&tokens);
        // Parsing, analysis, printing and dropping the tree all happen on this stack.
        stacker::maybe_grow(stack, stack, || self.run_on_stack(sql, tokens, &steps))
    }

    fn run_on_stack<T, C, R, U>(
        &self,
        sql: &str,
        tokens: Vec<TokenWithSpan>,
        steps: &Steps<C, R, U>,
    ) -> Result<Checked<T>, Rejection>
    where
        C: Fn(&mut Statement, QueryClass) -> Result<T, GuardError>,
        R: Fn(&mut Statement, &mut T) -> Result<Option<Form>, GuardError>,
        U: Fn(&T) -> Changes,
    {
        let dialect = self.policy.dialect;
        let (token_count, separator) = count_statements(&tokens);
        let guess = (steps.entry == Entry::Read && token_count == 1)
            .then(|| self.guess(&tokens, steps.append_limit))
            .flatten();
        let tokens = match guess {
            Some(guess) => match self.run_guessed(sql, tokens, guess, steps) {
                Some(checked) => return checked,
                // The guess did not hold: the usual way, from the same tokens again.
                None => tokenize(sql, dialect).map_err(reject(QueryClass::Unknown, 0))?,
            },
            None => tokens,
        };
        let tokens = prepare(tokens, dialect).map_err(|e| self.unparsed(sql, e, token_count))?;
        let (statements, read_from) =
            parse_prepared_keeping_tokens(tokens, dialect, self.policy.max_depth);
        let statements = statements.map_err(|error| self.unparsed(sql, error, token_count))?;
        let class = statements
            .iter()
            .map(statement_class)
            .max()
            .unwrap_or(QueryClass::Unknown);
        let count = token_count.max(statements.len());
        let rejected = reject(class, count);
        if count > 1 {
            return Err(rejected(
                GuardError::new(
                    ErrorCode::MultipleStatements,
                    Stage::Validate,
                    format!(
                        "{count} statements found; only one {} may run at a time",
                        steps.entry.noun()
                    ),
                )
                .with_hint(steps.entry.one_at_a_time(class))
                .at(separator),
            ));
        }
        let Some(mut statement) = statements.into_iter().next() else {
            return Err(rejected(GuardError::new(
                ErrorCode::Empty,
                Stage::Parse,
                "no SQL statement found",
            )));
        };
        let found = (steps.check)(&mut statement, class).map_err(rejected)?;
        let untouched = (steps.changes)(&found).none(&read_from);
        let read_from = untouched.then_some(ReadFrom {
            tokens: read_from.as_slice(),
            source: sql,
        });
        self.finish(statement, class, found, read_from, steps)
    }

    /// Regeneration, the self-check and the row filters: the end of a pass whose `statement`
    /// passed `check` with `found`. `read_from` is the token stream the parser read to build
    /// `statement`, when `check` left it as parsed (the self-check may then skip its parse).
    fn finish<T, C, R, U>(
        &self,
        mut statement: Statement,
        class: QueryClass,
        mut found: T,
        read_from: Option<ReadFrom<'_>>,
        steps: &Steps<C, R, U>,
    ) -> Result<Checked<T>, Rejection>
    where
        R: Fn(&mut Statement, &mut T) -> Result<Option<Form>, GuardError>,
    {
        let rejected = reject(class, 1);
        let not_faithful = |detail: String| {
            rejected(
                GuardError::new(
                    ErrorCode::InternalRoundtrip,
                    Stage::Rewrite,
                    format!("the regenerated SQL did not re-check identically: {detail}"),
                )
                .with_hint("simplify the statement; this construct does not print back faithfully"),
            )
        };
        // Printed into a buffer of about the submitted text's length (where it is at hand), so
        // that printing does not regrow and copy the string as it goes.
        let about = read_from.as_ref().map_or(0, |r| r.source.len());
        let mut sql = printed(&statement, about).map_err(not_faithful)?;
        self.self_check(&sql, &statement, read_from)
            .map_err(not_faithful)?;
        // Row filters, on the tree just checked (ARCHITECTURE.md, "Pipeline", step 5): what
        // they insert is verified piece by piece as it is built (`rows/rewrite.rs`); debug
        // builds (every test and fuzz run) re-check the whole result as well: against the tree,
        // or, where the rewrite inserted printed text, that it parses back and prints the same.
        if let Some(form) = (steps.rewrite)(&mut statement, &mut found).map_err(rejected)? {
            sql = printed(&statement, sql.len()).map_err(not_faithful)?;
            if cfg!(debug_assertions) {
                match form {
                    Form::Tree => self.self_check(&sql, &statement, None),
                    Form::Text => self.reprint_check(&sql),
                }
                .map_err(not_faithful)?;
            }
        }
        Ok(Checked { sql, class, found })
    }

    /// The refusal of a payload that does not parse. Its class comes from the statements that do
    /// parse and from the leading keywords of those that do not (see
    /// [`crate::class::class_of_unparsed`]); the error names the construct when
    /// [`crate::parse::explain_parse_failure`] recognises it.
    fn unparsed(&self, sql: &str, error: GuardError, count: usize) -> Rejection {
        let dialect = self.policy.dialect;
        // Error path only: the tokens were moved into the parser, so tokenize again (this
        // succeeded before).
        let tokens = tokenize(sql, dialect).unwrap_or_default();
        let mut class = class_of_unparsed(&tokens, dialect, self.policy.max_depth);
        let mut error = error;
        if error.code == ErrorCode::ParseError {
            if let Some((code, message, hint)) = crate::parse::explain_parse_failure(&tokens) {
                error = GuardError::new(code, Stage::Validate, message)
                    .with_hint(hint)
                    .at(error.location);
                if code == ErrorCode::SelectInto {
                    class = class.max(QueryClass::Ddl);
                }
            }
        }
        Rejection {
            query_class: class,
            statement_count: count,
            error,
        }
    }
}

impl Guard {
    /// What the walker needs from this guard.
    fn context(&self) -> Context<'_> {
        Context {
            dialect: self.policy.dialect,
            functions: &self.functions,
            access: &self.access,
            rows: self
                .rows
                .as_ref()
                .map(|r| r as &dyn crate::validate::RowFilterLookup),
            bounds: crate::bounds::Bounds::of(&self.policy),
        }
    }
}

fn location_of(statement: &Statement) -> Option<crate::error::Location> {
    use sqlparser::ast::Spanned;
    let span = statement.span();
    (span.start.line > 0).then_some(crate::error::Location {
        line: span.start.line,
        column: span.start.column,
    })
}

fn unreachable_policy<T>() -> T {
    // The default policy has no patterns, so compiling it cannot fail.
    panic!("the default policy failed to compile")
}

/// `statement` printed, into a string that starts with room for `about` bytes and a margin
/// (the SQL it was read from is the best guess of its printed length). A `Display` that fails
/// would leave the text short: that is a refusal, as `to_string` would have been a panic.
fn printed(statement: &Statement, about: usize) -> Result<String, String> {
    use std::fmt::Write as _;
    let mut sql = String::with_capacity(about + 64);
    write!(sql, "{statement}").map_err(|_| "the checked tree did not print".to_string())?;
    Ok(sql)
}
