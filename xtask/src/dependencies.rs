//! The forbidden dependency rule: a crate whose manifest declares
//! `[package.metadata.layers.forbidden] name = "why"` does not depend on `name`, in any section
//! (the server does not depend on `sqlparser`: every reading of SQL is core's).

use std::path::Path;

use crate::crates::Crate;
use crate::report::Violation;

/// Each forbidden crate the manifest depends on.
pub fn forbidden_dependencies(krate: &Crate, root: &Path) -> Vec<Violation> {
    let manifest = krate.dir.join("Cargo.toml");
    let manifest = manifest
        .strip_prefix(root)
        .unwrap_or(&manifest)
        .to_path_buf();
    krate
        .forbidden
        .iter()
        .filter(|(name, _)| krate.dependencies.contains(name))
        .map(|(name, why)| Violation::ForbiddenDependency {
            manifest: manifest.clone(),
            name: name.clone(),
            why: why.clone(),
        })
        .collect()
}
