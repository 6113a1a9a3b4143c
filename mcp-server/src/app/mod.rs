//! The commands: the command line ([`cli`]), `check` and `schema` ([`check`]), `demo`, `init`, `serve`
//! (wiring the layers below into a running server) and `audit verify`, with their exit codes;
//! the process's logging ([`logging`]).

pub mod build;
pub mod check;
pub mod cli;
pub mod connect;
pub mod demo;
pub mod exit;
pub mod init;
pub mod logging;
pub mod preflight;
pub mod serve;
pub mod signals;
pub mod verify;
