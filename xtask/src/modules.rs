//! A crate's module tree: every file reached from its roots by `mod name;` (with `#[path]`), the
//! module path each file holds in its root's tree, and the inline modules inside each file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::crates::Crate;
use crate::CheckError;

/// One file as a module of one root's tree.
pub struct FileModule {
    /// Index of the root (in [`Crate::roots`]) whose tree this entry belongs to.
    pub root: usize,
    /// The module path of the file in that tree (empty for the root file itself).
    pub path: Vec<String>,
    /// The file, canonical.
    pub file: PathBuf,
    /// Its syntax tree.
    pub ast: syn::File,
}

/// Every file module of a crate, and where each module path (inline ones too) lives.
pub struct ModuleTree {
    /// Each file once per root tree that reaches it.
    pub files: Vec<FileModule>,
    /// `(root, module path)` to the file that holds it.
    pub modules: HashMap<(usize, Vec<String>), PathBuf>,
}

impl ModuleTree {
    /// Walks every root of `krate`.
    pub fn load(krate: &Crate) -> Result<ModuleTree, CheckError> {
        let mut tree = ModuleTree {
            files: Vec::new(),
            modules: HashMap::new(),
        };
        for (root, file) in krate.roots.iter().enumerate() {
            let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
            tree.load_file(root, file, Vec::new(), &dir)?;
        }
        Ok(tree)
    }

    /// The file holding `path` in `root`'s tree.
    pub fn file_of(&self, root: usize, path: &[String]) -> Option<&PathBuf> {
        self.modules.get(&(root, path.to_vec()))
    }

    fn load_file(
        &mut self,
        root: usize,
        file: &Path,
        path: Vec<String>,
        child_dir: &Path,
    ) -> Result<(), CheckError> {
        let file = file.canonicalize().map_err(|source| CheckError::Io {
            path: file.to_path_buf(),
            source,
        })?;
        let text = std::fs::read_to_string(&file).map_err(|source| CheckError::Io {
            path: file.clone(),
            source,
        })?;
        let ast = syn::parse_file(&text).map_err(|e| CheckError::Parse {
            path: file.clone(),
            message: e.to_string(),
        })?;
        self.modules.insert((root, path.clone()), file.clone());
        let children = child_modules(&ast.items, &path, child_dir, &file, &mut self.modules, root);
        self.files.push(FileModule {
            root,
            path,
            file,
            ast,
        });
        for (child_path, child_file) in children {
            let dir = children_dir(&child_file);
            self.load_file(root, &child_file, child_path, &dir)?;
        }
        Ok(())
    }
}

/// The out-of-line modules declared in `items` (with their module paths and files); inline
/// modules are recorded in `modules` as living in `file` and searched for declarations too.
fn child_modules(
    items: &[syn::Item],
    path: &[String],
    child_dir: &Path,
    file: &Path,
    modules: &mut HashMap<(usize, Vec<String>), PathBuf>,
    root: usize,
) -> Vec<(Vec<String>, PathBuf)> {
    let mut out = Vec::new();
    for item in items {
        let syn::Item::Mod(m) = item else { continue };
        let name = m.ident.to_string();
        let mut child_path = path.to_vec();
        child_path.push(name.clone());
        match &m.content {
            Some((_, inner)) => {
                modules.insert((root, child_path.clone()), file.to_path_buf());
                out.extend(child_modules(
                    inner,
                    &child_path,
                    &child_dir.join(&name),
                    file,
                    modules,
                    root,
                ));
            }
            None => {
                let target = match path_attribute(&m.attrs) {
                    Some(p) => file.parent().unwrap_or(child_dir).join(p),
                    None => module_file(child_dir, &name),
                };
                out.push((child_path, target));
            }
        }
    }
    out
}

/// `name.rs` or `name/mod.rs` in `dir` (the first that exists; `name.rs` when neither does, so
/// that the error names the expected file).
fn module_file(dir: &Path, name: &str) -> PathBuf {
    let flat = dir.join(format!("{name}.rs"));
    let nested = dir.join(name).join("mod.rs");
    if !flat.is_file() && nested.is_file() {
        nested
    } else {
        flat
    }
}

/// Where the children of a module file live: beside a `mod.rs`, else in a folder named after it.
fn children_dir(file: &Path) -> PathBuf {
    let parent = file.parent().map(Path::to_path_buf).unwrap_or_default();
    match (file.file_name(), file.file_stem()) {
        (Some(n), _) if n == "mod.rs" => parent,
        (_, Some(stem)) => parent.join(stem),
        _ => parent,
    }
}

/// The value of a `#[path = "..."]` attribute.
fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}
