//! Which modules each file names: every path of a `use`, an expression, a type, a pattern or a
//! macro's tokens that starts with `crate`, `super` or `self` resolves to the module that holds
//! it (an import edge between two files); a path that starts with another crate's name is an
//! external use.

use std::path::PathBuf;

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

use crate::modules::{FileModule, ModuleTree};

/// One file naming a module held by another file.
#[derive(Debug, Clone)]
pub struct Import {
    /// The root tree the edge was found in.
    pub root: usize,
    /// The naming file.
    pub from: PathBuf,
    /// Its module path (a file-level module).
    pub from_module: Vec<String>,
    /// The file holding the module named.
    pub to: PathBuf,
    /// The module named.
    pub to_module: Vec<String>,
    /// Line of the path in `from`.
    pub line: usize,
}

/// A file naming an external crate.
#[derive(Debug, Clone)]
pub struct ExternUse {
    /// The naming file.
    pub file: PathBuf,
    /// The crate's name as written.
    pub name: String,
    /// Line of the path.
    pub line: usize,
}

/// The import edges and external uses of a crate.
#[derive(Debug, Default)]
pub struct Edges {
    /// File-to-file imports (a file naming its own descendant modules is not one).
    pub imports: Vec<Import>,
    /// Paths that name another crate.
    pub externs: Vec<ExternUse>,
}

/// Collects the edges of every file of `tree`.
pub fn edges(tree: &ModuleTree) -> Edges {
    let mut edges = Edges::default();
    for file in &tree.files {
        let mut visitor = PathCollector {
            module: file.path.clone(),
            found: Vec::new(),
        };
        visitor.visit_file(&file.ast);
        for found in visitor.found {
            resolve(tree, file, found, &mut edges);
        }
    }
    edges
}

/// A path as written, in the (possibly inline) module it appears in.
struct Found {
    module: Vec<String>,
    segments: Vec<String>,
    leading_colon: bool,
    line: usize,
}

fn resolve(tree: &ModuleTree, file: &FileModule, found: Found, edges: &mut Edges) {
    let Some(first) = found.segments.first() else {
        return;
    };
    let (mut absolute, rest) = match first.as_str() {
        "crate" if !found.leading_colon => (Vec::new(), &found.segments[1..]),
        "self" => (found.module.clone(), &found.segments[1..]),
        "super" => {
            let mut base = found.module.clone();
            let supers = found.segments.iter().take_while(|s| *s == "super").count();
            for _ in 0..supers {
                base.pop();
            }
            (base, &found.segments[supers..])
        }
        name => {
            let mut local = found.module.clone();
            local.push(name.to_owned());
            let is_local_module = tree.file_of(file.root, &local).is_some();
            if found.leading_colon || !is_local_module {
                edges.externs.push(ExternUse {
                    file: file.file.clone(),
                    name: name.to_owned(),
                    line: found.line,
                });
            }
            return;
        }
    };
    absolute.extend(rest.iter().cloned());
    // The longest prefix that is a module: the rest names an item in it.
    let target = (0..=absolute.len())
        .rev()
        .find_map(|n| tree.file_of(file.root, &absolute[..n]).map(|f| (n, f)));
    let Some((n, to)) = target else { return };
    let to_module = absolute[..n].to_vec();
    if *to == file.file || to_module.starts_with(&file.path) {
        return; // the file itself, or a module it owns
    }
    edges.imports.push(Import {
        root: file.root,
        from: file.file.clone(),
        from_module: file.path.clone(),
        to: to.clone(),
        to_module,
        line: found.line,
    });
}

/// Visits a file, collecting every multi-segment path with the module it appears in.
struct PathCollector {
    module: Vec<String>,
    found: Vec<Found>,
}

impl PathCollector {
    fn push(&mut self, segments: Vec<String>, leading_colon: bool, line: usize) {
        if segments.len() >= 2 || (leading_colon && !segments.is_empty()) {
            self.found.push(Found {
                module: self.module.clone(),
                segments,
                leading_colon,
                line,
            });
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree, leading_colon: bool) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree, leading_colon);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.use_leaf(prefix, &n.ident, leading_colon),
            syn::UseTree::Rename(r) => self.use_leaf(prefix, &r.ident, leading_colon),
            syn::UseTree::Glob(g) => {
                let line = g.star_token.spans[0].start().line;
                // `use super::*` names the parent module itself.
                let mut segments = prefix.clone();
                segments.push("*".to_owned());
                self.push(segments, leading_colon, line);
            }
            syn::UseTree::Group(g) => {
                for item in &g.items {
                    self.use_tree(prefix, item, leading_colon);
                }
            }
        }
    }

    fn use_leaf(&mut self, prefix: &[String], ident: &syn::Ident, leading_colon: bool) {
        let mut segments = prefix.to_vec();
        segments.push(ident.to_string());
        self.push(segments, leading_colon, ident.span().start().line);
    }

    /// Paths inside a macro's tokens (`format!("{}", crate::x::y())`), read as token runs
    /// `ident :: ident ...` that do not continue a path.
    fn tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i] {
                TokenTree::Group(g) => self.tokens(g.stream()),
                TokenTree::Ident(ident) if !follows_path_separator(&tokens, i) => {
                    let mut segments = vec![ident.to_string()];
                    let mut j = i;
                    while is_path_separator(&tokens, j + 1) {
                        let Some(TokenTree::Ident(next)) = tokens.get(j + 3) else {
                            break;
                        };
                        segments.push(next.to_string());
                        j += 3;
                    }
                    let line = ident.span().start().line;
                    self.push(segments, false, line);
                    i = j;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

/// `tokens[i]` and `tokens[i + 1]` are `::`.
fn is_path_separator(tokens: &[TokenTree], i: usize) -> bool {
    matches!(
        (tokens.get(i), tokens.get(i + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && b.as_char() == ':' && a.spacing() == proc_macro2::Spacing::Joint
    )
}

/// The token before `tokens[i]` ends a `::`.
fn follows_path_separator(tokens: &[TokenTree], i: usize) -> bool {
    i >= 2 && is_path_separator(tokens, i - 2)
}

impl<'ast> Visit<'ast> for PathCollector {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_some() {
            self.module.push(m.ident.to_string());
            syn::visit::visit_item_mod(self, m);
            self.module.pop();
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree, u.leading_colon.is_some());
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let line = path
            .segments
            .first()
            .map_or(0, |s| s.ident.span().start().line);
        self.push(segments, path.leading_colon.is_some(), line);
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        self.tokens(mac.tokens.clone());
    }
}
