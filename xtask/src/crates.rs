//! The crates to check and what their manifests declare: module roots (lib, bins, tests,
//! examples, benches) and the layer rules of `[package.metadata.layers]`.

use std::path::{Path, PathBuf};

use toml::{Table, Value};

use crate::CheckError;

/// One crate of the workspace.
#[derive(Debug, Clone)]
pub struct Crate {
    /// Its folder (where its `Cargo.toml` is).
    pub dir: PathBuf,
    /// Files that start a module tree: the library, each binary, test, example and bench.
    pub roots: Vec<PathBuf>,
    /// `[package.metadata.layers] order`: top-level modules of the library, highest first.
    pub layer_order: Vec<String>,
    /// `[package.metadata.layers.confined]`: an external crate's name and the folder (relative to
    /// the crate) that alone may name it.
    pub confined: Vec<(String, PathBuf)>,
    /// `[package.metadata.layers.forbidden]`: a crate this one may not depend on, and why.
    pub forbidden: Vec<(String, String)>,
    /// The crates its manifest depends on (`[dependencies]`, `[dev-dependencies]`,
    /// `[build-dependencies]`, and their `[target.*]` forms), by the name the manifest gives.
    pub dependencies: Vec<String>,
}

impl Crate {
    /// The index in `roots` of the library's root file (`src/lib.rs` or `[lib] path`), if any.
    pub fn library_root_index(&self) -> Option<usize> {
        let lib = self.dir.join("src/lib.rs").canonicalize().ok()?;
        self.roots
            .iter()
            .position(|r| r.canonicalize().is_ok_and(|f| f == lib))
    }
}

/// The members of the root workspace plus `fuzz/` (its own workspace).
pub fn workspace_crates(root: &Path) -> Result<Vec<Crate>, CheckError> {
    let manifest = read_manifest(&root.join("Cargo.toml"))?;
    let members = manifest
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(Value::as_array)
        .ok_or_else(|| CheckError::Manifest {
            path: root.join("Cargo.toml"),
            message: "no [workspace] members".into(),
        })?;
    let mut dirs: Vec<PathBuf> = members
        .iter()
        .filter_map(Value::as_str)
        .map(|m| root.join(m))
        .collect();
    if root.join("fuzz/Cargo.toml").is_file() {
        dirs.push(root.join("fuzz"));
    }
    dirs.iter().map(|dir| load_crate(dir)).collect()
}

fn read_manifest(path: &Path) -> Result<Table, CheckError> {
    let text = std::fs::read_to_string(path).map_err(|source| CheckError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    text.parse::<Table>().map_err(|e| CheckError::Manifest {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Reads one crate's manifest: its module roots and layer rules.
pub fn load_crate(dir: &Path) -> Result<Crate, CheckError> {
    let path = dir.join("Cargo.toml");
    let manifest = read_manifest(&path)?;
    let mut roots = Vec::new();
    let lib = manifest
        .get("lib")
        .and_then(|l| l.get("path"))
        .and_then(Value::as_str)
        .unwrap_or("src/lib.rs");
    roots.push(dir.join(lib));
    roots.push(dir.join("src/main.rs"));
    for section in ["bin", "example", "bench", "test"] {
        let targets = manifest.get(section).and_then(Value::as_array);
        for target in targets.into_iter().flatten() {
            if let Some(p) = target.get("path").and_then(Value::as_str) {
                roots.push(dir.join(p));
            }
        }
    }
    for folder in ["tests", "benches", "examples"] {
        roots.extend(rust_files_in(&dir.join(folder)));
    }
    roots.retain(|r| r.is_file());
    roots.sort();
    roots.dedup();
    let layers = manifest
        .get("package")
        .and_then(|p| p.get("metadata"))
        .and_then(|m| m.get("layers"));
    let layer_order = match layers.and_then(|l| l.get("order")) {
        None => Vec::new(),
        Some(order) => strings(order).ok_or_else(|| CheckError::Manifest {
            path: path.clone(),
            message: "[package.metadata.layers] order must be an array of module names".into(),
        })?,
    };
    let confined = string_table(layers, "confined", "must be a folder", &path)?
        .into_iter()
        .map(|(name, folder)| (name, PathBuf::from(folder)))
        .collect();
    let forbidden = string_table(layers, "forbidden", "must say why", &path)?;
    Ok(Crate {
        dir: dir.to_path_buf(),
        roots,
        layer_order,
        confined,
        forbidden,
        dependencies: dependency_names(&manifest),
    })
}

/// Every dependency the manifest names, in any section and target.
fn dependency_names(manifest: &Table) -> Vec<String> {
    const SECTIONS: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];
    let targets = manifest
        .get("target")
        .and_then(Value::as_table)
        .into_iter()
        .flat_map(|t| t.values().filter_map(Value::as_table));
    let mut names: Vec<String> = std::iter::once(manifest)
        .chain(targets)
        .flat_map(|table| SECTIONS.iter().filter_map(|s| table.get(*s)))
        .filter_map(Value::as_table)
        .flat_map(|deps| deps.keys().cloned())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// `[package.metadata.layers.<key>]`: a table of names to strings (`each` says what each
/// string must be, for the error); empty when absent.
fn string_table(
    layers: Option<&Value>,
    key: &str,
    each: &str,
    path: &Path,
) -> Result<Vec<(String, String)>, CheckError> {
    let error = |message: String| CheckError::Manifest {
        path: path.to_path_buf(),
        message,
    };
    match layers.and_then(|l| l.get(key)) {
        None => Ok(Vec::new()),
        Some(Value::Table(t)) => t
            .iter()
            .map(|(name, value)| match value.as_str() {
                Some(v) => Ok((name.clone(), v.to_string())),
                None => Err(error(format!(
                    "[package.metadata.layers.{key}] {name} {each}"
                ))),
            })
            .collect(),
        Some(_) => Err(error(format!(
            "[package.metadata.layers.{key}] must be a table"
        ))),
    }
}

fn strings(value: &Value) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// The crate roots cargo finds in `dir` by itself: each `.rs` file directly in it
/// (`tests/*.rs`, `examples/*.rs`, ...) and each folder's `main.rs` (`tests/audit/main.rs`: a test
/// target whose modules are the folder's other files). A folder without `main.rs`
/// (`tests/common/`) is a module some root includes, not a root.
fn rust_files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            if p.is_dir() {
                Some(p.join("main.rs")).filter(|m| m.is_file())
            } else {
                Some(p).filter(|p| p.extension().is_some_and(|x| x == "rs"))
            }
        })
        .collect()
}
