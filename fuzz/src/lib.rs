//! Fuzz targets for sqlgate: shared oracles, the grammars of the `grammar` target and the
//! PostgreSQL-parser differential. See README.md for how to run them.

pub mod grammar;
pub mod names;
pub mod oracles;
pub mod pg;
