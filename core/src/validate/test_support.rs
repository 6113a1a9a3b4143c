//! Policies and helpers shared by the validator's unit tests; tests/vectors/resolution.jsonl
//! has the attacks in every dialect and tests/engines runs the approved ones on real engines.

use crate::error::GuardError;
use crate::{Guard, Policy};

/// `employee` denied; `customer.email` and `customer.phone` protected; no catalog.
pub(super) const PII: &str = r#"{"tables": {"deny": ["employee"]},
    "columns": {"deny": ["customer.email", "customer.phone"]}}"#;

/// The same policy with a catalog: `vendor` has an open `email` column.
pub(super) const CATALOG: &str = r#"{"tables": {"deny": ["employee"]},
    "columns": {"deny": ["customer.email", "customer.phone"]},
    "catalog": {"tables": [
        {"name": "customer", "columns": [{"name": "customer_id"}, {"name": "first_name"},
            {"name": "email"}, {"name": "phone"}]},
        {"name": "vendor", "columns": [{"name": "vendor_id"}, {"name": "email"}]}]}}"#;

/// A guard for `policy` in `dialect`.
pub(super) fn guard(policy: &str, dialect: &str) -> Guard {
    let mut policy = Policy::from_json(policy).expect("test policy");
    policy.dialect = dialect.parse().expect("dialect");
    Guard::new(policy).expect("test policy compiles")
}

/// The refusal of `sql`, if any.
pub(super) fn refusal(guard: &Guard, sql: &str) -> Option<GuardError> {
    guard.check(sql).err().map(|r| r.error)
}

/// The refusal code of `sql`, if any.
pub(super) fn code(guard: &Guard, sql: &str) -> Option<String> {
    refusal(guard, sql).map(|e| e.code.as_str().to_string())
}
