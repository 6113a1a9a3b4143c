//! `cargo run -p xtask -- layout`: prints every layout violation of the workspace (import cycles,
//! upward imports, confined crates named outside their folder, files over the size limit) and
//! exits 1 when there is one. `cargo test -p xtask` runs the same check as a test.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some("layout") {
        eprintln!("usage: cargo run -p xtask -- layout");
        return ExitCode::from(2);
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    match xtask::check_workspace(&root) {
        Ok(report) => {
            print!("{report}");
            if report.violations.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("xtask layout: {e}");
            ExitCode::from(2)
        }
    }
}
