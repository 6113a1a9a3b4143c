//! The Python and Node packages' dist builds (`pip install ./bindings-python`, `napi build`) run
//! one after the other into one target directory, and compile core, sqlparser and serde once
//! between them only when every crate both depend on is built with the same features in both
//! (cargo hashes a crate's features, and its dependencies', into its artifact's name). A crate
//! one binding's dependencies enable a feature of, and the other's do not, makes the second
//! build compile core again: minutes of the test command on two cores. The bindings' manifests
//! name what unifies them; this check fails when a new dependency or version drifts them apart.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use crate::{CheckError, Violation};

/// The two packages whose dist builds share core.
const BINDINGS: [&str; 2] = ["sqlgate-python", "sqlgate-node"];

/// A crate (`name vX.Y.Z`) and the feature lists it is built with (once for the host, for a
/// build script or proc macro, and once for the target, when both).
type Features = BTreeMap<String, BTreeSet<String>>;

/// A violation for every crate the two bindings both build with different features; nothing
/// when the workspace at `root` has no such bindings (a test workspace).
pub fn split_builds(root: &Path) -> Result<Vec<Violation>, CheckError> {
    if !root.join("bindings-python/Cargo.toml").is_file()
        || !root.join("bindings-node/Cargo.toml").is_file()
    {
        return Ok(Vec::new());
    }
    let host = host_triple()?;
    let python = features(root, BINDINGS[0], &host)?;
    let node = features(root, BINDINGS[1], &host)?;
    Ok(python
        .iter()
        .filter_map(|(krate, in_python)| {
            let in_node = node.get(krate)?;
            (in_python != in_node).then(|| Violation::SplitBuild {
                krate: krate.clone(),
                python: in_python.iter().cloned().collect::<Vec<_>>().join(" / "),
                node: in_node.iter().cloned().collect::<Vec<_>>().join(" / "),
            })
        })
        .collect())
}

/// Every crate `package` builds for `target` (and the host), with its features, from
/// `cargo tree` (with `--target`, as the bindings build, host and target features are apart).
fn features(root: &Path, package: &str, target: &str) -> Result<Features, CheckError> {
    let tree = run(
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .current_dir(root)
            .args(["tree", "--locked", "-e", "normal,build", "--prefix", "none"])
            .args(["-f", "{p} [{f}]", "-p", package, "--target", target]),
    )?;
    Ok(parse_tree(&tree))
}

/// The crates and feature lists of `cargo tree -f "{p} [{f}]" --prefix none` output.
fn parse_tree(tree: &str) -> Features {
    let mut crates = Features::new();
    for line in tree.lines() {
        // `serde v1.0.229 [alloc,default,std]`, `syn v3.0.10 (proc-macro) [...] (*)`.
        let Some((id, rest)) = line.split_once(" [") else {
            continue;
        };
        let features = rest.split(']').next().unwrap_or_default();
        let mut words = id.split_whitespace();
        let (Some(name), Some(version)) = (words.next(), words.next()) else {
            continue;
        };
        crates
            .entry(format!("{name} {version}"))
            .or_default()
            .insert(format!("[{features}]"));
    }
    crates
}

/// The host's target triple (`rustc -vV`).
fn host_triple() -> Result<String, CheckError> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = run(Command::new(rustc).arg("-vV"))?;
    version
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_string)
        .ok_or_else(|| CheckError::Command {
            command: "rustc -vV".into(),
            message: "no `host:` line".into(),
        })
}

/// What `command` printed, or why it failed.
fn run(command: &mut Command) -> Result<String, CheckError> {
    let shown = format!("{command:?}");
    let output = command.output().map_err(|e| CheckError::Command {
        command: shown.clone(),
        message: e.to_string(),
    })?;
    if !output.status.success() {
        return Err(CheckError::Command {
            command: shown,
            message: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::parse_tree;

    #[test]
    fn a_crate_built_for_host_and_target_keeps_both_feature_lists() {
        let tree = "sqlgate v0.1.0 (/w/core) []\n\
                    memchr v2.8.3 [alloc,std]\n\
                    syn v3.0.10 (proc-macro) [full] (*)\n\
                    memchr v2.8.3 [alloc,default,std] (*)\n\
                    \n";
        let crates = parse_tree(tree);
        let memchr: Vec<&String> = crates["memchr v2.8.3"].iter().collect();
        assert_eq!(memchr, ["[alloc,default,std]", "[alloc,std]"]);
        assert!(crates["syn v3.0.10"].contains("[full]"));
        assert!(crates["sqlgate v0.1.0"].contains("[]"));
        assert_eq!(crates.len(), 3);
    }
}
