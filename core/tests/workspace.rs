//! The fuzz crate is its own Cargo workspace (libpg_query's C build, nightly sanitizers), so it
//! cannot inherit `[workspace.dependencies]` or `[workspace.lints]`: it repeats them, and these
//! tests fail when the copy drifts from the root.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use toml::{Table, Value};

fn manifest(relative: &str) -> Table {
    let path = format!("{}/../{relative}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.parse::<Table>()
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn get<'a>(table: &'a Table, path: &[&str]) -> &'a Value {
    let mut value = table
        .get(path[0])
        .unwrap_or_else(|| panic!("no `{}`", path[0]));
    for key in &path[1..] {
        value = value
            .get(key)
            .unwrap_or_else(|| panic!("no `{}` in {path:?}", key));
    }
    value
}

/// The `features` array of a dependency entry, sorted (empty when absent).
fn features(dependency: &Value) -> Vec<&str> {
    let mut list: Vec<&str> = dependency
        .get("features")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    list.sort_unstable();
    list
}

#[test]
fn fuzz_pins_the_workspace_sqlparser() {
    let root = manifest("Cargo.toml");
    let fuzz = manifest("fuzz/Cargo.toml");
    let ours = get(&root, &["workspace", "dependencies", "sqlparser"]);
    let theirs = get(&fuzz, &["dependencies", "sqlparser"]);
    assert_eq!(
        theirs.get("version").and_then(Value::as_str),
        ours.get("version").and_then(Value::as_str),
        "fuzz/Cargo.toml must require the root workspace's sqlparser version"
    );
    // The fuzz crate turns default features off (core decides recursive-protection), so it lists
    // `std` itself; every feature the root asks for must be there too.
    let fuzz_features = features(theirs);
    for feature in features(ours) {
        assert!(
            fuzz_features.contains(&feature),
            "fuzz/Cargo.toml's sqlparser lacks feature `{feature}` that the root workspace enables"
        );
    }
}

#[test]
fn fuzz_repeats_the_workspace_lint_levels() {
    let root = manifest("Cargo.toml");
    let fuzz = manifest("fuzz/Cargo.toml");
    for tool in ["rust", "clippy"] {
        assert_eq!(
            get(&fuzz, &["lints", tool]),
            get(&root, &["workspace", "lints", tool]),
            "fuzz/Cargo.toml's [lints.{tool}] must equal the root's [workspace.lints.{tool}]"
        );
    }
}
