//! The print rule: in the MCP server, `println!`, `print!`, `eprintln!` and `eprint!` appear only
//! at the edge (`src/app/`, the commands, and `src/main.rs`); every other module logs through
//! `tracing` (issue 42). A command's own output (a verdict, a report, the wizard) is printed
//! by the command. Read as tokens, not text: a comment or a string naming a macro is no call,
//! and a call inside another macro's tokens (`tokio::select!`, `format!`) is one.

use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};

use crate::report::Violation;
use crate::CheckError;

/// The macros that write to stdout or stderr.
const PRINT_MACROS: &[&str] = &["println", "print", "eprintln", "eprint"];

/// Where the rule looks (a source folder, from the repository root) and where printing is the
/// command's job (folders or files under it).
pub struct PrintScope {
    /// The source folder checked.
    pub src: &'static str,
    /// Folders or files under `src` that may print.
    pub allowed: &'static [&'static str],
}

/// The MCP server: its commands print, its library logs.
pub const MCP_SERVER: PrintScope = PrintScope {
    src: "mcp-server/src",
    allowed: &["mcp-server/src/app", "mcp-server/src/main.rs"],
};

/// Every print macro called in a `.rs` file under `scope.src` outside `scope.allowed` (none when
/// the folder does not exist).
pub fn prints_outside_the_edge(
    root: &Path,
    scope: &PrintScope,
) -> Result<Vec<Violation>, CheckError> {
    let mut files = Vec::new();
    rust_files(&root.join(scope.src), &mut files)?;
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let relative = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        if scope.allowed.iter().any(|a| relative.starts_with(a)) {
            continue;
        }
        let text = std::fs::read_to_string(&path).map_err(|source| CheckError::Io {
            path: path.clone(),
            source,
        })?;
        let tokens: TokenStream =
            text.parse()
                .map_err(|e: proc_macro2::LexError| CheckError::Parse {
                    path: path.clone(),
                    message: e.to_string(),
                })?;
        let mut calls = Vec::new();
        print_calls(tokens, &mut calls);
        out.extend(calls.into_iter().map(|(line, name)| Violation::Print {
            file: relative.clone(),
            line,
            name,
        }));
    }
    Ok(out)
}

/// The `.rs` files under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), CheckError> {
    let io = |source| CheckError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries {
        let path = entry.map_err(io)?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// (line, macro) of every print macro call in `tokens`, inside groups and other macros' tokens.
fn print_calls(tokens: TokenStream, out: &mut Vec<(usize, String)>) {
    let mut previous: Option<proc_macro2::Ident> = None;
    for tree in tokens {
        match tree {
            TokenTree::Punct(p) if p.as_char() == '!' => {
                if let Some(ident) = previous.take() {
                    let name = ident.to_string();
                    if PRINT_MACROS.contains(&name.as_str()) {
                        out.push((ident.span().start().line, name));
                    }
                }
            }
            TokenTree::Ident(ident) => previous = Some(ident),
            TokenTree::Group(g) => {
                previous = None;
                print_calls(g.stream(), out);
            }
            _ => previous = None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, path: &str, text: &str) {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    #[test]
    fn a_print_outside_the_edge_is_found_and_one_in_the_app_is_not() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(
            root,
            "mcp-server/src/main.rs",
            "fn main() { println!(\"hi\"); }\n",
        );
        write(
            root,
            "mcp-server/src/app/check.rs",
            "fn f() { eprintln!(\"verdict\"); }\n",
        );
        write(
            root,
            "mcp-server/src/transport/http.rs",
            "//! Was `eprintln!(\"listening\")`.\nfn f() {\n    let _ = \"println!\";\n    tracing::info!(\"listening\");\n}\n",
        );
        assert!(prints_outside_the_edge(root, &MCP_SERVER)
            .expect("check")
            .is_empty());
        write(
            root,
            "mcp-server/src/gate/quota.rs",
            "fn f() {\n    eprintln!(\"over\");\n}\nfn g() {\n    tokio::select! { _ = a => std::print!(\"x\") }\n}\n",
        );
        let found: Vec<String> = prints_outside_the_edge(root, &MCP_SERVER)
            .expect("check")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found[0].starts_with("mcp-server/src/gate/quota.rs:2: eprintln!"),
            "{found:?}"
        );
        assert!(
            found[1].starts_with("mcp-server/src/gate/quota.rs:5: print!"),
            "{found:?}"
        );
    }

    #[test]
    fn a_tree_without_the_folder_has_nothing_to_check() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(prints_outside_the_edge(dir.path(), &MCP_SERVER)
            .expect("check")
            .is_empty());
    }
}
