//! Oracles shared by the fuzz targets and by `core/tests/fuzz_regressions.rs`, which includes this
//! folder (`mod.rs` with `#[path]`) so that plain `cargo test` replays `fuzz/seeds/` through the
//! very same checks. Only `sqlgate`, `sqlparser` and `std` are used here, and paths between these
//! files are relative (`super::`), so that both crates can build it.
//!
//! Input layout for `check_bytes`, `fixed_point` and `differential_pg`: the first byte picks the
//! dialect (`byte % 13`, the order of [`Dialect::ALL`](sqlgate::Dialect::ALL)) and the policy
//! (`byte / 13 % 3`, see [`policy`]); the rest is the SQL, decoded as lossy UTF-8. A seed written
//! by hand therefore starts with one selector byte: `\x00` is postgres with the default policy.

mod grammar;
mod guards;
mod mutations;
mod names;
mod row_filters;
mod statements;
mod verdicts;

pub use grammar::{grammar_oracle, parse_grammar_case, Expect, GRAMMAR_HEADER};
pub use guards::{guard, policy, split_input, POLICIES};
pub use mutations::{mutation_fixed_point, mutation_guard};
pub use names::{
    fixture_catalog, names_guard, names_oracle, names_policy, protected_reads, DENIED_TABLE,
    FIXTURE, NAME_DIALECTS, PROTECTED_COLUMNS, PROTECTED_TABLE,
};
pub use row_filters::{row_filter_guard, row_filter_oracle};
pub use statements::{parser_dialect, plain_statement_count};
pub use verdicts::{check_bytes, fixed_point, fixed_point_with, verdict_invariants};
