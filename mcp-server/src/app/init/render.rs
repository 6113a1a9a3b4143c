//! The draft policy as TOML text, in the format of the catalog spec (issue 30): the dialect,
//! `tables.allow`, `annotations.tables` (descriptions from the database's comments, PII guesses
//! each with its reason as a comment), `annotations.relationships` from the foreign keys, and a
//! commented `[pii]` block naming the categories found.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::guess::Guess;
use crate::backend::TableDetail;

/// One table as the draft writes it.
pub struct DraftTable<'a> {
    /// What introspection found.
    pub table: &'a TableDetail,
    /// The name the policy uses (unqualified in the default schema).
    pub name: String,
    /// The guess for each column (in column order; `None`: no guess).
    pub guesses: Vec<Option<Guess>>,
    /// Its unique keys' columns (besides the primary key).
    pub unique: Vec<Vec<String>>,
}

/// A TOML basic string.
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A TOML key: bare when it can be, quoted otherwise (a dotted table name is one key).
pub fn key(s: &str) -> String {
    let bare = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        s.to_string()
    } else {
        string(s)
    }
}

/// The draft policy.
pub fn draft(kind: &str, dialect: &str, tables: &[DraftTable<'_>]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Draft sqlgate policy, written by `sqlgate-mcp init --from-db` from a {kind} database.\n\
         # Review every line before you use it: every table and view found is allowed, and the PII\n\
         # categories are guesses (each says why). Descriptions are the database's comments."
    );
    let _ = writeln!(s, "dialect = {}\n\n[tables]\nallow = [", string(dialect));
    for t in tables {
        let _ = writeln!(s, "    {},  # {}", string(&t.name), t.table.kind);
    }
    s.push_str("]\n");
    let found: BTreeSet<&str> = tables
        .iter()
        .flat_map(|t| t.guesses.iter().flatten().map(|g| g.category))
        .collect();
    if !found.is_empty() {
        let list: Vec<String> = found.iter().map(|c| string(c)).collect();
        let _ = writeln!(
            s,
            "\n# Categories guessed below. To refuse every column tagged so, uncomment:\n\
             # [pii]\n# block = [{}]",
            list.join(", ")
        );
    }
    for t in tables {
        annotations(&mut s, t);
    }
    relationships(&mut s, tables);
    s
}

/// `[annotations.tables.NAME]` and its columns, when there is something to say.
fn annotations(s: &mut String, t: &DraftTable<'_>) {
    let prefix = format!("annotations.tables.{}", key(&t.name));
    if let Some(c) = t.table.comment.as_deref().filter(|c| !c.trim().is_empty()) {
        let _ = writeln!(s, "\n[{prefix}]\ndescription = {}", string(c.trim()));
    }
    for (col, guess) in t.table.columns.iter().zip(&t.guesses) {
        let comment = col.comment.as_deref().filter(|c| !c.trim().is_empty());
        if comment.is_none() && guess.is_none() {
            continue;
        }
        let _ = writeln!(s, "\n[{prefix}.columns.{}]", key(&col.name));
        if let Some(c) = comment {
            let _ = writeln!(s, "description = {}", string(c.trim()));
        }
        if let Some(g) = guess {
            let reason = g.reason.replace('\n', " ");
            let _ = writeln!(s, "pii = {}  # {reason}", string(g.category));
        }
    }
}

/// One `[[annotations.relationships]]` per foreign key between two tables of the draft:
/// `many_to_one` from the referencing side, `one_to_one` when its columns are its primary key
/// or another unique key.
fn relationships(s: &mut String, tables: &[DraftTable<'_>]) {
    for t in tables {
        for fk in &t.table.foreign_keys {
            let target = tables.iter().find(|o| {
                o.table.name == fk.referenced_table
                    && (fk.referenced_schema.is_none() || o.table.schema == fk.referenced_schema)
            });
            let Some(target) = target else { continue };
            let side = |table: &str, cols: &[String]| {
                let names: Vec<String> = cols
                    .iter()
                    .map(|c| string(&format!("{table}.{c}")))
                    .collect();
                match names.as_slice() {
                    [one] => one.clone(),
                    many => format!("[{}]", many.join(", ")),
                }
            };
            let sorted = |v: &[String]| {
                let mut v = v.to_vec();
                v.sort();
                v
            };
            let cols = sorted(&fk.columns);
            let unique = std::iter::once(&t.table.primary_key)
                .chain(&t.unique)
                .any(|k| !k.is_empty() && sorted(k) == cols);
            let cardinality = if unique { "one_to_one" } else { "many_to_one" };
            let _ = writeln!(
                s,
                "\n[[annotations.relationships]]\nfrom = {}\nto = {}\ncardinality = {}",
                side(&t.name, &fk.columns),
                side(&target.name, &fk.referenced_columns),
                string(cardinality)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_strings() {
        assert_eq!(key("customer"), "customer");
        assert_eq!(key("public.customer"), "\"public.customer\"");
        assert_eq!(key("Order Details"), "\"Order Details\"");
        assert_eq!(string("a \"b\" \\ c\n"), "\"a \\\"b\\\" \\\\ c\\n\"");
    }
}
