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

/// A recursive CTE without a recognisable bound.
pub(in crate::validate) fn unbounded_recursion(
    cte: &str,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::UnboundedGeneration,
        format!(
            "the recursive CTE `{cte}` has no recognisable bound: it could recurse until the \
             statement timeout"
        ),
        format!(
            "bound the recursion of `{cte}`: carry a counter column and stop it with a literal \
             in the recursive part (`SELECT ..., depth + 1 FROM {cte} ... WHERE depth < 100`), \
             or add LIMIT 100 to its query"
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
        (unbounded_recursion("r", at), UnboundedGeneration),
    ]
}
