//! The two-way tie rule: two top-level modules (folders) of a crate's library that each import
//! the other are one room in two places; a reader cannot learn one without the other. A crate
//! with declared layers finds this as an upward import; this rule holds in every crate.

use std::collections::BTreeMap;
use std::path::Path;

use crate::crates::Crate;
use crate::references::{Edges, Import};
use crate::report::Violation;

/// Each pair of top-level modules of the library that import each other, with one import
/// each way (the first met), unless those two imports are already part of one import cycle
/// among `cycles` (the stronger finding, reported once).
pub fn two_way_ties(
    edges: &Edges,
    krate: &Crate,
    root: &Path,
    cycles: &[Violation],
) -> Vec<Violation> {
    let Some(lib) = krate.library_root_index() else {
        return Vec::new();
    };
    let mut first: BTreeMap<(&str, &str), &Import> = BTreeMap::new();
    for edge in edges.imports.iter().filter(|e| e.root == lib) {
        let (Some(from), Some(to)) = (edge.from_module.first(), edge.to_module.first()) else {
            continue; // the crate root re-exports and declares; it is no room
        };
        if from != to {
            first.entry((from.as_str(), to.as_str())).or_insert(edge);
        }
    }
    let relative = |p: &Path| p.strip_prefix(root).unwrap_or(p).to_path_buf();
    first
        .iter()
        .filter(|((a, b), _)| a < b)
        .filter_map(|(&(a, b), there)| {
            let back = first.get(&(b, a))?;
            let (there_file, back_file) = (relative(&there.from), relative(&back.from));
            let in_a_cycle = cycles.iter().any(|c| {
                matches!(c, Violation::Cycle { group, .. }
                    if group.contains(&there_file) && group.contains(&back_file))
            });
            (!in_a_cycle).then(|| Violation::TwoWayTie {
                modules: (a.to_string(), b.to_string()),
                there: (there_file, there.line),
                back: (back_file, back.line),
            })
        })
        .collect()
}
