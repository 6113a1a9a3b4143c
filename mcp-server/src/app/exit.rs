//! Process exit codes of every command, in one place (the README's command table documents them).

/// Success: `check` allowed every query; `schema`, `demo` and `serve` finished normally.
pub const SUCCESS: i32 = 0;
/// `check`: at least one query was refused.
pub const REFUSED: i32 = 1;
/// `demo` and `serve`: failed after starting (the database could not be reached, ...).
pub const FAILURE: i32 = 1;
/// A usage, configuration or policy error, or the command could not start (no async runtime):
/// nothing was checked or served.
pub const USAGE: i32 = 2;
