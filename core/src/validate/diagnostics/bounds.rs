//! Refusals of what a query would generate: values over `max_generated_bytes`, rows over
//! `max_generated_rows`, sizes that are not literals, recursion without a bound.

use super::refusal;
use crate::error::{ErrorCode, GuardError, Location};

/// A whole number for a message (an infinite or huge count reads as such).
fn count(n: f64) -> String {
    if n.is_finite() && n < 1e15 {
        format!("{}", n.ceil() as u64)
    } else if n.is_finite() {
        format!("{n:.3e}")
    } else {
        "unbounded".to_string()
    }
}

/// A generating call's literal size builds a value over the bound.
pub(in crate::validate) fn too_many_bytes(
    function: &str,
    bytes: f64,
    bound: f64,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::GeneratedTooLarge,
        format!(
            "`{function}` would build a value of {} bytes; the policy allows {} \
             (max_generated_bytes)",
            count(bytes),
            count(bound)
        ),
        format!(
            "give `{function}` a smaller literal size: its result may be at most {} bytes",
            count(bound)
        ),
        location,
    )
}

/// A part of an expression (`||`, an encoder, a call holding generated values) that builds a
/// value over the bound from parts each within it.
pub(in crate::validate) fn too_many_composed_bytes(
    part: &str,
    bytes: f64,
    bound: f64,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::GeneratedTooLarge,
        format!(
            "`{part}` would build a value of {} bytes from what it is given; the policy allows \
             {} (max_generated_bytes)",
            count(bytes),
            count(bound)
        ),
        format!(
            "build smaller parts: what `{part}` joins or encodes may come to at most {} bytes",
            count(bound)
        ),
        location,
    )
}

/// A collecting aggregate whose one value, over generated rows, would pass the byte bound.
pub(in crate::validate) fn too_many_collected_bytes(
    aggregate: &str,
    bytes: f64,
    rows: f64,
    bound: f64,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::GeneratedTooLarge,
        format!(
            "`{aggregate}` would collect {} generated rows into one value of about {} bytes; \
             the policy allows {} (max_generated_bytes)",
            count(rows),
            count(bytes),
            count(bound)
        ),
        format!(
            "collect fewer generated rows or smaller values: `{aggregate}`'s result may be at \
             most {} bytes",
            count(bound)
        ),
        location,
    )
}

/// A collecting aggregate over the data's rows (a number the guard does not know) whose every
/// row adds a generated value over the per-row allowance.
pub(in crate::validate) fn collected_per_data_row(
    aggregate: &str,
    bytes: f64,
    per_row: f64,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::UnboundedGeneration,
        format!(
            "`{aggregate}` would collect a generated value of {} bytes for every row it reads, \
             and the number of rows is the data's, so what it builds has no bound",
            count(bytes)
        ),
        format!(
            "collect the column values themselves, or generated values of at most {} bytes a \
             row (a thousandth of max_generated_bytes)",
            count(per_row)
        ),
        location,
    )
}

/// Series and generators whose rows multiply past the bound.
pub(in crate::validate) fn too_many_rows(
    what: &str,
    rows: f64,
    bound: f64,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::GeneratedTooLarge,
        format!(
            "the query would generate {} rows (at `{what}`: series, generators, and cross joins \
             and nesting of them multiply); the policy allows {} (max_generated_rows)",
            count(rows),
            count(bound)
        ),
        format!(
            "narrow the bounds of the series or generators, or do not cross join them: at most \
             {} generated rows in all",
            count(bound)
        ),
        location,
    )
}

/// A generating call whose size or bounds do not fold to a literal.
pub(in crate::validate) fn unbounded_size(
    function: &str,
    argument: &str,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::UnboundedGeneration,
        format!("{argument} of `{function}` is not a literal, so what it generates has no bound"),
        format!(
            "write {argument} of `{function}` as a literal number (a literal date for a series \
             of dates): only what the guard can compute is bounded"
        ),
        location,
    )
}

/// A text of unknown size amplified by more than a small constant.
pub(in crate::validate) fn unsized_text(
    function: &str,
    bound: f64,
    cast_cuts: bool,
    location: Option<Location>,
) -> GuardError {
    // SQLite and DuckDB keep the whole value of a `varchar(n)` cast: no cut to offer there.
    let cast = if cast_cuts {
        ", `CAST(x AS varchar(100))`"
    } else {
        ""
    };
    refusal(
        ErrorCode::UnboundedGeneration,
        format!(
            "`{function}` would amplify a text whose size the guard does not know (a column, or \
             a value computed from one), so what it builds has no bound"
        ),
        format!(
            "cut the text to a literal length first (`left(x, 100)`, `substr(x, 1, 100)`{cast}) \
             or amplify a literal: `{function}`'s result may be at most {} bytes \
             (max_generated_bytes)",
            count(bound)
        ),
        location,
    )
}

/// A recursive CTE the guard cannot prove ends (`why`: what the proof lacked).
pub(in crate::validate) fn unbounded_recursion(
    cte: &str,
    why: &str,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::UnboundedGeneration,
        format!(
            "the recursive CTE `{cte}` has no bound the guard can prove: {why}; it could recurse \
             until the statement timeout"
        ),
        format!(
            "bound the recursion of `{cte}` with a counter: start it at a literal in the anchor, \
             move it by a literal in the recursive part and stop it with a literal there \
             (`SELECT 1 AS depth ... UNION ALL SELECT ..., depth + 1 FROM {cte} ... WHERE depth \
             < 100`); a walk over existing rows may use UNION instead of UNION ALL"
        ),
        location,
    )
}

/// A recursive CTE whose steps grow a value past `max_generated_bytes`.
pub(in crate::validate) fn recursion_grows(
    cte: &str,
    bytes: f64,
    bound: f64,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::GeneratedTooLarge,
        format!(
            "the recursive CTE `{cte}` would build a value of {} bytes at its last step (it grows \
             one each step); the policy allows {} (max_generated_bytes)",
            count(bytes),
            count(bound)
        ),
        format!(
            "stop the recursion of `{cte}` sooner (a smaller bound on its counter) or append less \
             each step; never concatenate a value with itself: at most {} bytes",
            count(bound)
        ),
        location,
    )
}

/// One refusal of each constructor above, with its code (for the shared checks of every
/// refusal in `diagnostics`).
#[cfg(test)]
pub(super) fn samples(at: Option<Location>) -> Vec<(GuardError, ErrorCode)> {
    use ErrorCode::{GeneratedTooLarge, UnboundedGeneration};
    vec![
        (too_many_rows("range", 2e6, 1e6, at), GeneratedTooLarge),
        (too_many_bytes("repeat", 2e6, 1e6, at), GeneratedTooLarge),
        (
            unbounded_size("repeat", "the repeat count", at),
            UnboundedGeneration,
        ),
        (
            unbounded_recursion("r", "its recursive part has no WHERE that stops it", at),
            UnboundedGeneration,
        ),
        (recursion_grows("r", 2e6, 1e6, at), GeneratedTooLarge),
        (unsized_text("repeat", 1e6, true, at), UnboundedGeneration),
        (unsized_text("repeat", 1e6, false, at), UnboundedGeneration),
        (
            too_many_composed_bytes("||", 2e6, 1e6, at),
            GeneratedTooLarge,
        ),
    ]
}
