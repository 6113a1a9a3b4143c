//! What the check found, printed with paths relative to the repository root.

use std::fmt;
use std::path::PathBuf;

/// One broken layout rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Violation {
    /// Files that import each other, in cycle order.
    Cycle {
        /// The files of one cycle, each naming the next and the last naming the first.
        files: Vec<PathBuf>,
        /// Every file of the group of files that reach each other (the cycle's files and more).
        group: Vec<PathBuf>,
    },
    /// A module naming a module of a higher layer.
    UpwardImport {
        /// The naming file.
        file: PathBuf,
        /// Line of the path.
        line: usize,
        /// Its layer (top-level module).
        from_layer: String,
        /// The higher layer it names.
        to_layer: String,
    },
    /// A top-level module missing from `[package.metadata.layers] order`.
    UnlistedLayer {
        /// The crate's manifest.
        manifest: PathBuf,
        /// The module.
        module: String,
    },
    /// A confined crate named outside its folder.
    Confined {
        /// The naming file.
        file: PathBuf,
        /// Line of the path.
        line: usize,
        /// The crate.
        name: String,
        /// The only folder that may name it.
        folder: PathBuf,
    },
    /// Two top-level modules of a library that import each other.
    TwoWayTie {
        /// The two modules, in name order.
        modules: (String, String),
        /// An import of the second by the first: file and line.
        there: (PathBuf, usize),
        /// An import of the first by the second: file and line.
        back: (PathBuf, usize),
    },
    /// A dependency the crate's manifest forbids itself.
    ForbiddenDependency {
        /// The crate's manifest.
        manifest: PathBuf,
        /// The dependency.
        name: String,
        /// Why it is forbidden (the manifest says).
        why: String,
    },
    /// A hand-written source file over the limit.
    Oversized {
        /// The file.
        file: PathBuf,
        /// Its line count.
        lines: usize,
    },
    /// A print macro in the MCP server outside its commands (`app/`, `main.rs`): log instead.
    Print {
        /// The file.
        file: PathBuf,
        /// Line of the call.
        line: usize,
        /// `println`, `print`, `eprintln` or `eprint`.
        name: String,
    },
    /// A crate the Python and Node packages both build, with different features in each: their
    /// dist builds then compile core twice.
    SplitBuild {
        /// `name vX.Y.Z`.
        krate: String,
        /// Its feature lists in bindings-python's build.
        python: String,
        /// Its feature lists in bindings-node's build.
        node: String,
    },
}

impl fmt::Display for Violation {
    #[expect(
        clippy::too_many_lines,
        reason = "one exhaustive match: a message per rule"
    )]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Cycle { files, group } => {
                let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
                let first = names.first().cloned().unwrap_or_default();
                write!(f, "import cycle: {} -> {first}", names.join(" -> "))?;
                if group.len() > files.len() {
                    let all: Vec<String> = group.iter().map(|p| p.display().to_string()).collect();
                    write!(f, " (one of the cycles among {})", all.join(", "))?;
                }
                Ok(())
            }
            Violation::UpwardImport {
                file,
                line,
                from_layer,
                to_layer,
            } => write!(
                f,
                "{}:{line}: upward import: layer `{from_layer}` names `{to_layer}`, which is above it",
                file.display()
            ),
            Violation::UnlistedLayer { manifest, module } => write!(
                f,
                "{}: top-level module `{module}` is not in [package.metadata.layers] order",
                manifest.display()
            ),
            Violation::Confined {
                file,
                line,
                name,
                folder,
            } => write!(
                f,
                "{}:{line}: names `{name}`, which only {} may name",
                file.display(),
                folder.display()
            ),
            Violation::TwoWayTie {
                modules: (a, b),
                there,
                back,
            } => write!(
                f,
                "{}:{}: two-way tie: `{a}` names `{b}`, and `{b}` names `{a}` ({}:{}); \
                 settle which one serves the other",
                there.0.display(),
                there.1,
                back.0.display(),
                back.1
            ),
            Violation::ForbiddenDependency {
                manifest,
                name,
                why,
            } => write!(
                f,
                "{}: depends on `{name}`, which it forbids itself: {why}",
                manifest.display()
            ),
            Violation::Oversized { file, lines } => write!(
                f,
                "{}: {lines} lines (at most {}; split it, or mark a generated file as generated)",
                file.display(),
                crate::MAX_FILE_LINES
            ),
            Violation::Print { file, line, name } => write!(
                f,
                "{}:{line}: {name}! outside app/ and main.rs: emit a tracing event (a command's \
                 own output is printed in app/)",
                file.display()
            ),
            Violation::SplitBuild {
                krate,
                python,
                node,
            } => write!(
                f,
                "{krate}: built with features {python} for bindings-python and {node} for \
                 bindings-node, so their dist builds compile core twice (add the missing \
                 features to the other binding's Cargo.toml, beside memchr / syn there)"
            ),
        }
    }
}

impl Violation {
    /// The violation without what moves when unrelated lines change (line numbers, line
    /// counts): how `layout-baseline.txt` lists the violations it tolerates.
    pub fn baseline_key(&self) -> String {
        let join = |files: &[PathBuf]| {
            let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
            names.join(", ")
        };
        match self {
            Violation::Cycle { group, .. } => format!("import cycle among {}", join(group)),
            Violation::UpwardImport {
                file,
                from_layer,
                to_layer,
                ..
            } => format!(
                "{}: upward import {from_layer} -> {to_layer}",
                file.display()
            ),
            Violation::Confined { file, name, .. } => format!("{}: names {name}", file.display()),
            Violation::Oversized { file, .. } => format!("{}: over 500 lines", file.display()),
            Violation::TwoWayTie {
                modules: (a, b),
                there,
                ..
            } => format!("{}: two-way tie {a} <-> {b}", there.0.display()),
            Violation::Print { file, name, .. } => format!("{}: {name}!", file.display()),
            Violation::UnlistedLayer { .. }
            | Violation::SplitBuild { .. }
            | Violation::ForbiddenDependency { .. } => self.to_string(),
        }
    }
}

/// Everything one run found.
#[derive(Debug, Default)]
pub struct Report {
    /// Module files read (a file reached from two roots counts twice).
    pub files_read: usize,
    /// Import edges between files.
    pub edges: usize,
    /// What is wrong.
    pub violations: Vec<Violation>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for v in &self.violations {
            writeln!(f, "{v}")?;
        }
        writeln!(
            f,
            "layout: {} module files, {} imports between files, {} violations",
            self.files_read,
            self.edges,
            self.violations.len()
        )
    }
}
