//! The layout rules hold in this repository, and each rule catches what it is for (fixtures:
//! small crates written into a temporary git repository).

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use xtask::check_workspace;

/// The workspace has no violation but those `layout-baseline.txt` still lists, and each listed
/// one is still there (a fixed violation leaves the list in the same commit: it only shrinks).
#[test]
fn the_workspace_keeps_its_layout() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let report = check_workspace(&root).unwrap();
    assert!(report.files_read > 100, "too few files read: {report}");
    let baseline_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("layout-baseline.txt");
    let baseline: BTreeSet<String> = std::fs::read_to_string(baseline_file)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    let found: BTreeSet<String> = report.violations.iter().map(|v| v.baseline_key()).collect();
    let new: Vec<String> = report
        .violations
        .iter()
        .filter(|v| !baseline.contains(&v.baseline_key()))
        .map(ToString::to_string)
        .collect();
    assert!(new.is_empty(), "layout violations:\n{}", new.join("\n"));
    let fixed: Vec<&String> = baseline.difference(&found).collect();
    assert!(
        fixed.is_empty(),
        "fixed, so remove from xtask/layout-baseline.txt: {fixed:#?}"
    );
}

/// A workspace with one member crate `app` whose files are `files` (path, text).
fn fixture(manifest_extra: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("Cargo.toml", "[workspace]\nmembers = [\"app\"]\n");
    write(
        "app/Cargo.toml",
        &format!("[package]\nname = \"app\"\nversion = \"0.1.0\"\n{manifest_extra}"),
    );
    for (path, text) in files {
        write(&format!("app/{path}"), text);
    }
    let git = Command::new("git")
        .arg("init")
        .arg("-q")
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(git.success());
    dir
}

fn violations(dir: &tempfile::TempDir) -> Vec<String> {
    check_workspace(dir.path())
        .unwrap()
        .violations
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn a_cycle_between_siblings_is_found_from_any_kind_of_path() {
    for (a, b) in [
        (
            "use crate::b::B; pub struct A;",
            "pub struct B(crate::a::A);",
        ),
        (
            "pub fn a() { super::b::b() }",
            "pub fn b() { let _ = format!(\"{}\", crate::a::a as usize); }",
        ),
        (
            "use super::b::*; pub struct A;",
            "pub fn f(_: Option<super::a::A>) {}",
        ),
    ] {
        let dir = fixture(
            "",
            &[
                ("src/lib.rs", "mod a;\nmod b;\n"),
                ("src/a.rs", a),
                ("src/b.rs", b),
            ],
        );
        let found = violations(&dir);
        assert_eq!(found.len(), 1, "{a} / {b}: {found:?}");
        assert!(
            found[0].starts_with("import cycle: app/src/a.rs -> app/src/b.rs -> app/src/a.rs"),
            "{found:?}"
        );
    }
}

/// A test target may be a folder (`tests/suite/main.rs` and its modules): cargo builds it as a
/// crate, so the check reads it as one, and a cycle between its modules is found.
#[test]
fn a_test_target_in_a_folder_is_checked_like_a_crate() {
    let dir = fixture(
        "",
        &[
            ("src/lib.rs", "pub fn f() {}\n"),
            ("tests/suite/main.rs", "mod a;\nmod b;\n"),
            ("tests/suite/a.rs", "pub fn a() { super::b::b() }\n"),
            ("tests/suite/b.rs", "pub fn b() { super::a::a() }\n"),
        ],
    );
    let found = violations(&dir);
    assert!(
        found
            .iter()
            .any(|v| v.contains("tests/suite/a.rs") && v.contains("tests/suite/b.rs")),
        "{found:?}"
    );
}

#[test]
fn a_parent_using_its_children_is_no_cycle_but_a_cross_folder_loop_is() {
    let dir = fixture(
        "",
        &[
            ("src/lib.rs", "mod x;\nmod y;\npub use x::inner::I;\n"),
            ("src/x/mod.rs", "pub mod inner;\npub fn f() -> inner::I { inner::I }\n"),
            ("src/x/inner.rs", "pub struct I;\nfn g() { super::f(); }\n#[cfg(test)]\nmod tests { use super::*; }\n"),
            ("src/y.rs", "pub fn h() {}\n"),
        ],
    );
    assert!(violations(&dir).is_empty(), "{:?}", violations(&dir));
    let dir = fixture(
        "",
        &[
            ("src/lib.rs", "mod x;\nmod y;\n"),
            ("src/x/mod.rs", "pub mod inner;\n"),
            ("src/x/inner.rs", "pub fn i() { crate::y::h() }\n"),
            (
                "src/y.rs",
                "pub fn h() {}\npub fn k() { crate::x::inner::i() }\n",
            ),
        ],
    );
    let found = violations(&dir);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("app/src/x/inner.rs"), "{found:?}");
}

#[test]
fn imports_must_point_down_the_declared_layers() {
    let layers = "[package.metadata.layers]\norder = [\"tools\", \"gate\"]\n";
    let down = [
        ("src/lib.rs", "pub mod tools;\npub mod gate;\n"),
        ("src/tools.rs", "pub fn t() { crate::gate::g() }\n"),
        ("src/gate.rs", "pub fn g() {}\n"),
    ];
    assert!(violations(&fixture(layers, &down)).is_empty());
    let up = [
        (
            "src/lib.rs",
            "pub mod tools;\npub mod gate;\npub mod extra;\n",
        ),
        ("src/tools.rs", "pub fn t() {}\n"),
        ("src/gate.rs", "pub fn g() {}\n\nuse crate::tools::t;\n"),
        ("src/extra.rs", "\n"),
    ];
    let found = violations(&fixture(layers, &up));
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found.iter().any(|v| v.contains("module `extra` is not in")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|v| v
            == "app/src/gate.rs:3: upward import: layer `gate` names `tools`, which is above it"),
        "{found:?}"
    );
}

#[test]
fn a_confined_crate_is_named_only_in_its_folder() {
    let manifest = "[package.metadata.layers.confined]\nrusqlite = \"src/backend/sqlite\"\n";
    let files = [
        ("src/lib.rs", "mod backend;\nmod gate;\n"),
        ("src/backend/mod.rs", "mod sqlite;\n"),
        ("src/backend/sqlite/mod.rs", "use rusqlite::Connection;\n"),
        ("src/gate.rs", "fn f(_: &::rusqlite::Connection) {}\n"),
        ("tests/it.rs", "use rusqlite::Connection;\n"),
    ];
    let found = violations(&fixture(manifest, &files));
    assert_eq!(
        found,
        ["app/src/gate.rs:1: names `rusqlite`, which only app/src/backend/sqlite may name"]
    );
    // A local module of that name is not the crate.
    let local = [
        ("src/lib.rs", "mod rusqlite;\nfn f() { rusqlite::g() }\n"),
        ("src/rusqlite.rs", "pub fn g() {}\n"),
    ];
    assert!(violations(&fixture(manifest, &local)).is_empty());
}

#[test]
fn hand_written_files_over_the_limit_are_found_generated_ones_are_not() {
    let long = "fn f() {}\n".repeat(xtask::MAX_FILE_LINES + 1);
    let generated = format!("// @generated by a script\n{long}");
    // A docstring that merely holds the words is no marker: this one once exempted a file.
    let python = format!(
        "\"\"\"Generated bytes and rows\"\"\"\n{}",
        "x = 1\n".repeat(xtask::MAX_FILE_LINES)
    );
    let at_limit = "fn g() {}\n".repeat(xtask::MAX_FILE_LINES);
    let dir = fixture(
        "",
        &[
            ("src/lib.rs", "mod long;\nmod generated;\nmod at_limit;\n"),
            ("src/long.rs", &long),
            ("src/generated.rs", &generated),
            ("src/at_limit.rs", &at_limit),
            ("scripts/cases.py", &python),
        ],
    );
    let mut found = violations(&dir);
    found.sort();
    assert_eq!(
        found,
        [
            format!("app/scripts/cases.py: {} lines (at most 500; split it, or mark a generated file as generated)", xtask::MAX_FILE_LINES + 1),
            format!("app/src/long.rs: {} lines (at most 500; split it, or mark a generated file as generated)", xtask::MAX_FILE_LINES + 1),
        ]
    );
}

#[test]
fn a_file_that_does_not_parse_is_an_error_not_a_pass() {
    let dir = fixture("", &[("src/lib.rs", "mod a;\n"), ("src/a.rs", "fn (\n")]);
    let err = check_workspace(dir.path()).unwrap_err().to_string();
    assert!(err.contains("a.rs: does not parse as Rust"), "{err}");
    let dir = fixture("", &[("src/lib.rs", "mod missing;\n")]);
    assert!(check_workspace(dir.path()).is_err());
}

/// Two top-level folders that name each other are one room in two places: found in a crate
/// without declared layers too, from the library's modules only (a test may name any module).
#[test]
fn two_top_level_modules_that_import_each_other_are_a_tie() {
    let files = [
        ("src/lib.rs", "mod rows;\nmod validate;\n"),
        ("src/rows/mod.rs", "mod compile;\npub struct Filters;\n"),
        (
            "src/rows/compile.rs",
            "use crate::validate::walk;\npub fn c() { walk() }\n",
        ),
        ("src/validate/mod.rs", "mod relation;\npub fn walk() {}\n"),
        (
            "src/validate/relation.rs",
            "pub fn r(_: &crate::rows::Filters) {}\n",
        ),
    ];
    let found = violations(&fixture("", &files));
    assert_eq!(
        found,
        ["app/src/rows/compile.rs:1: two-way tie: `rows` names `validate`, and `validate` names \
          `rows` (app/src/validate/relation.rs:1); settle which one serves the other"],
        "{found:?}"
    );
    // The port settles it: validate defines what it asks, rows implements it.
    let settled = [
        files[0],
        (
            "src/rows/mod.rs",
            "mod compile;\npub struct Filters;\nimpl crate::validate::Lookup for Filters {}\n",
        ),
        files[2],
        (
            "src/validate/mod.rs",
            "mod relation;\npub trait Lookup {}\npub fn walk() {}\n",
        ),
        (
            "src/validate/relation.rs",
            "pub fn r(_: &dyn super::Lookup) {}\n",
        ),
    ];
    let found = violations(&fixture("", &settled));
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn a_crate_does_not_depend_on_what_it_forbids_itself() {
    let forbids = "[package.metadata.layers.forbidden]\nsqlparser = \"core reads SQL\"\n";
    let files = [("src/lib.rs", "pub fn f() {}\n")];
    for section in [
        "dependencies",
        "dev-dependencies",
        "target.'cfg(unix)'.dependencies",
    ] {
        let manifest = format!("[{section}]\nsqlparser = \"0.64\"\n{forbids}");
        assert_eq!(
            violations(&fixture(&manifest, &files)),
            ["app/Cargo.toml: depends on `sqlparser`, which it forbids itself: core reads SQL"],
            "{section}"
        );
    }
    let manifest = format!("[dependencies]\nserde = \"1\"\n{forbids}");
    assert!(violations(&fixture(&manifest, &files)).is_empty());
}
