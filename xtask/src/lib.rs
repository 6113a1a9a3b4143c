//! Repository checks for the layout rules of ARCHITECTURE.md ("Layout rules"), run by
//! `cargo test -p xtask` (so by `cargo test --workspace` and CI) and by `cargo run -p xtask -- layout`:
//!
//! - no import cycle between the files of a crate;
//! - in a crate that declares `[package.metadata.layers] order`, imports point down the layers;
//! - a crate listed in `[package.metadata.layers.confined]` is named only inside its folder;
//! - no two top-level modules of a library import each other (a two-way tie);
//! - a crate depends on nothing its `[package.metadata.layers.forbidden]` lists;
//! - no hand-written source file over [`MAX_FILE_LINES`] lines (a generated file says so in a
//!   marker line);
//! - the Python and Node packages build every crate they share with the same features, so that
//!   their dist builds compile core once between them (`shared_build`).
//! - the MCP server prints (`println!`, `eprintln!`, ...) only in its commands (`app/`,
//!   `main.rs`); the rest logs through `tracing` (`prints`).
//!
//! Functions over 80 lines are clippy's `too_many_lines` (workspace lints), not checked here.

mod crates;
mod dependencies;
mod graph;
mod modules;
mod prints;
mod references;
mod report;
mod rules;
mod shared_build;
mod sizes;
mod ties;

use std::path::{Path, PathBuf};

pub use report::{Report, Violation};
pub use sizes::MAX_FILE_LINES;

/// Why the check could not run (as opposed to a violation it found).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A Rust file did not parse.
    #[error("{path}: does not parse as Rust: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// syn's message.
        message: String,
    },
    /// A `Cargo.toml` did not parse or has a malformed `[package.metadata.layers]`.
    #[error("{path}: {message}")]
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A command the check runs (`cargo tree`, `rustc -vV`) failed.
    #[error("{command}: {message}")]
    Command {
        /// The command.
        command: String,
        /// What it said.
        message: String,
    },
    /// `git ls-files` failed (the size rule reads the tracked files).
    #[error("git ls-files in {root}: {message}")]
    Git {
        /// The repository root.
        root: PathBuf,
        /// What git said.
        message: String,
    },
}

/// Runs every check on the workspace at `root` (its root `Cargo.toml` lists the members; the fuzz
/// crate, a workspace of its own, is checked too).
pub fn check_workspace(root: &Path) -> Result<Report, CheckError> {
    let root = &root.canonicalize().map_err(|source| CheckError::Io {
        path: root.to_path_buf(),
        source,
    })?;
    let mut report = Report::default();
    for krate in crates::workspace_crates(root)? {
        let tree = modules::ModuleTree::load(&krate)?;
        report.files_read += tree.files.len();
        let edges = references::edges(&tree);
        report.edges += edges.imports.len();
        let cycles = rules::cycles(&edges, root);
        let ties = ties::two_way_ties(&edges, &krate, root, &cycles);
        report.violations.extend(cycles);
        report
            .violations
            .extend(rules::layers(&tree, &edges, &krate, root));
        report
            .violations
            .extend(rules::confined(&edges, &krate, root));
        report.violations.extend(ties);
        report
            .violations
            .extend(dependencies::forbidden_dependencies(&krate, root));
    }
    report.violations.extend(sizes::oversized_files(root)?);
    report.violations.extend(shared_build::split_builds(root)?);
    report
        .violations
        .extend(prints::prints_outside_the_edge(root, &prints::MCP_SERVER)?);
    Ok(report)
}
