//! Every Rust block of the README, pasted as it is into a fresh project that depends on this
//! crate the way the README says (a path to `core/`, and `toml`), built and run: a snippet that
//! compiles only inside rustdoc's wrapper, or needs an unnamed dependency, fails here. Doc tests
//! (`ReadmeDoctests` in lib.rs) run the same blocks, but a doc test forgives what a user's
//! `main.rs` does not.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The README's ```rust blocks, in order.
fn rust_blocks(readme: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in readme.lines() {
        match (&mut current, line.trim_end()) {
            (None, "```rust") => current = Some(Vec::new()),
            (Some(body), "```") => {
                blocks.push(body.join("\n") + "\n");
                current = None;
            }
            (Some(body), _) => body.push(line),
            (None, _) => {}
        }
    }
    blocks
}

/// A project in `dir` with one binary per block and the README's dependencies; the workspace's
/// lock file pins the versions, so that the build needs no network.
fn write_project(dir: &Path, core: &Path, blocks: &[String]) {
    let bin = dir.join("src/bin");
    if dir.exists() {
        std::fs::remove_dir_all(dir.join("src")).ok();
    }
    std::fs::create_dir_all(&bin).unwrap();
    let manifest = format!(
        "[package]\nname = \"readme-snippets\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\nsqlgate = {{ path = {core:?} }}\ntoml = \"1\"\n\n[workspace]\n",
        core = core.display().to_string(),
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(core.join("../Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    for (i, block) in blocks.iter().enumerate() {
        std::fs::write(bin.join(format!("snippet_{i}.rs")), block).unwrap();
    }
}

#[test]
fn every_rust_block_of_the_readme_builds_and_runs_as_pasted() {
    let core = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(core.join("../README.md")).unwrap();
    let blocks = rust_blocks(&readme);
    assert!(
        blocks.len() >= 4,
        "the README's Rust blocks: {}",
        blocks.len()
    );
    for (i, block) in blocks.iter().enumerate() {
        assert!(
            block.contains("fn main()"),
            "Rust block {i} of the README is not a whole main.rs:\n{block}"
        );
    }
    // Kept between runs (cargo's per-test scratch folder), so that a rerun builds only what
    // changed.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme-snippets");
    write_project(&dir, &core, &blocks);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let built = Command::new(&cargo)
        .args(["build", "--offline", "--bins", "--quiet"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("CARGO_BUILD_TARGET")
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "the README's Rust blocks do not build as pasted:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    for (i, block) in blocks.iter().enumerate() {
        let exe = dir.join(format!("target/debug/snippet_{i}"));
        let ran = Command::new(&exe).output().unwrap();
        assert!(
            ran.status.success(),
            "Rust block {i} of the README failed when run:\n{block}\n{}",
            String::from_utf8_lossy(&ran.stderr)
        );
    }
}
