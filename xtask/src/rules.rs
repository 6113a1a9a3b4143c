//! The import rules over a crate's edges: no cycle between files, imports point down the
//! declared layers, confined crates are named only in their folder.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::crates::Crate;
use crate::graph::Graph;
use crate::modules::ModuleTree;
use crate::references::Edges;
use crate::report::Violation;

/// `path` relative to `root` when it is inside it.
fn relative(path: &Path, root: &Path) -> PathBuf {
    path.strip_prefix(root).unwrap_or(path).to_path_buf()
}

/// Each group of files that import each other, as one cycle through its first file.
pub fn cycles(edges: &Edges, root: &Path) -> Vec<Violation> {
    let graph = Graph::new(edges.imports.iter().map(|e| (e.from.clone(), e.to.clone())));
    graph
        .cycles()
        .into_iter()
        .map(|component| {
            let cycle = graph.cycle_through(&component[0], &component);
            Violation::Cycle {
                files: cycle.iter().map(|f| relative(f, root)).collect(),
                group: component.iter().map(|f| relative(f, root)).collect(),
            }
        })
        .collect()
}

/// Imports between top-level modules of the library that point up `layers.order`, and top-level
/// modules the order does not list.
pub fn layers(tree: &ModuleTree, edges: &Edges, krate: &Crate, root: &Path) -> Vec<Violation> {
    if krate.layer_order.is_empty() {
        return Vec::new();
    }
    let Some(lib) = krate.library_root_index() else {
        return Vec::new();
    };
    let rank = |module: &str| krate.layer_order.iter().position(|m| m == module);
    let mut out = Vec::new();
    let top_level: BTreeSet<&String> = tree
        .modules
        .keys()
        .filter(|(r, path)| *r == lib && path.len() == 1)
        .map(|(_, path)| &path[0])
        .collect();
    for module in top_level {
        if rank(module).is_none() {
            out.push(Violation::UnlistedLayer {
                manifest: relative(&krate.dir.join("Cargo.toml"), root),
                module: module.clone(),
            });
        }
    }
    for edge in edges.imports.iter().filter(|e| e.root == lib) {
        let (Some(from), Some(to)) = (edge.from_module.first(), edge.to_module.first()) else {
            continue; // the crate root re-exports and declares; it is no layer
        };
        if let (Some(f), Some(t)) = (rank(from), rank(to)) {
            if t < f {
                out.push(Violation::UpwardImport {
                    file: relative(&edge.from, root),
                    line: edge.line,
                    from_layer: from.clone(),
                    to_layer: to.clone(),
                });
            }
        }
    }
    out
}

/// Uses of a confined crate in a library or binary file outside the crate's folder (tests,
/// benches and examples may name any crate).
pub fn confined(edges: &Edges, krate: &Crate, root: &Path) -> Vec<Violation> {
    let src = krate.dir.join("src").canonicalize().unwrap_or_default();
    let mut out = Vec::new();
    for (name, folder) in &krate.confined {
        let allowed = krate.dir.join(folder).canonicalize().unwrap_or_default();
        for use_ in edges.externs.iter().filter(|u| &u.name == name) {
            if use_.file.starts_with(&src) && !use_.file.starts_with(&allowed) {
                out.push(Violation::Confined {
                    file: relative(&use_.file, root),
                    line: use_.line,
                    name: name.clone(),
                    folder: relative(&krate.dir.join(folder), root),
                });
            }
        }
    }
    out
}
