//! Fuzz targets for sqlgate: shared oracles, the grammars of the `grammar` target and the
//! PostgreSQL-parser differential. See README.md for how to run them.

// A fuzz oracle panics on purpose: the panic is the finding.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod grammar;
pub mod names;
pub mod oracles;
pub mod pg;
pub mod sizes;
