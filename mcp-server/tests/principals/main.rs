//! Principals (`[[principals]]` in the config file): configuration errors that refuse to start
//! (naming the principal and the field) and a principal that cannot widen the server's policy
//! (`refusals`); stdio with `--principal`, HTTP routing by bearer token (401 for an unknown one, a
//! session bound to its principal) and audit records naming the principal, never its token
//! (`serving`); the README's configuration (`readme`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;
// Shared with the oauth, tls and approvals tests, which use parts this target does not.
#[allow(dead_code)]
mod fixture;
mod quotas;
mod readme;
mod refusals;
mod serving;
