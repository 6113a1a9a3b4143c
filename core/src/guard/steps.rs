//! What an entry point (read or mutation) runs inside the guard's pipeline, and what a pass
//! hands back.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use crate::class::QueryClass;

/// Which entry point a pipeline pass serves: it changes only the wording of shared refusals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Entry {
    /// [`Guard::check`]: one read-only query.
    Read,
    /// [`Guard::check_mutation`]: one data-modifying statement.
    Mutation,
}

impl Entry {
    pub(super) fn noun(self) -> &'static str {
        match self {
            Entry::Read => "query",
            Entry::Mutation => "statement",
        }
    }

    pub(super) fn one_at_a_time(self, class: QueryClass) -> &'static str {
        match (self, class) {
            (Entry::Read, QueryClass::Select) => "send one query at a time",
            (Entry::Read, _) => "send the SELECT alone",
            (Entry::Mutation, _) => "send one INSERT, UPDATE, DELETE or MERGE at a time",
        }
    }
}

/// What an entry point runs inside the pipeline ([`Guard::run`]).
pub(super) struct Steps<C, R, U> {
    /// Which entry point this is.
    pub(super) entry: Entry,
    /// The row cap of a read, appended as `LIMIT n` when it has none: a read may be parsed with
    /// the cap already appended (`appended_limit.rs`).
    pub(super) append_limit: Option<u64>,
    /// Validates (and may rewrite) the one statement.
    pub(super) check: C,
    /// Rewrites the checked statement after its self-check (row filters).
    pub(super) rewrite: R,
    /// What `check` changed in the statement it was given.
    pub(super) changes: U,
}

/// What an entry's `check` changed in the parsed statement: the self-check may skip its parse
/// only for a statement left as parsed (ARCHITECTURE.md, "Self-check").
#[derive(Debug, Clone, Copy)]
pub(super) struct Changes {
    /// The row cap was injected or rewritten.
    pub(super) cap: bool,
    /// Anything else was rewritten (a masked column's expression).
    pub(super) other: bool,
}

impl Changes {
    /// True when nothing was changed, so that the statement is the one parsed from `tokens`
    /// (a TOP is rewritten even when kept, `limit.rs`: a stream with TOP is never untouched).
    pub(super) fn none(self, tokens: &[TokenWithSpan]) -> bool {
        !self.cap && !self.other && !mentions(tokens, Keyword::TOP)
    }
}

/// True when a word of `tokens` is `keyword` (quoted or not).
pub(super) fn mentions(tokens: &[TokenWithSpan], keyword: Keyword) -> bool {
    tokens
        .iter()
        .any(|t| matches!(&t.token, Token::Word(w) if w.keyword == keyword))
}

/// A statement that passed the pipeline: its regenerated SQL, its class and what `check` found.
pub(super) struct Checked<T> {
    pub(super) sql: String,
    pub(super) class: QueryClass,
    pub(super) found: T,
}
