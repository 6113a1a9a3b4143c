//! Row filters as printed text. A read's tree is only printed after the rewrite, so a filtered
//! reference can become SQL text assembled from pieces printed once, when the guard is built:
//! the template's and the predicate's own print, cut at the slot (the statement's table), the
//! qualifier (a grouped SELECT's table) and the variables. This spares each check cloning,
//! binding, printing and dropping a template per reference (most of what row filters cost a
//! check). The text is exactly what printing the tree rewrite gives: the pieces are that print,
//! and debug builds assert the equality at every use (`rewrite.rs`).

use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, Ident, ObjectName, ObjectNamePart, Query, SetExpr, TableFactor, Value, VisitMut,
    VisitorMut,
};

use super::bind::{literal_of, variable_name};
use super::vars::Vars;
use super::{visit_levels, INNER_ALIAS};
use crate::error::GuardError;

/// A filter's template and predicate, printed and cut into pieces.
#[derive(Debug, Clone)]
pub(super) struct PrintedFilter {
    /// `SELECT * FROM <slot> AS sqlgate_filtered WHERE <predicate>`, the predicate's columns
    /// qualified with the inner alias.
    derived: Pieces,
    /// The predicate alone, its own columns qualified with `<qualifier>` (a grouped SELECT's
    /// table that keeps its place, see `Rewriter::filter_in_place`).
    in_place: Pieces,
}

#[derive(Debug, Clone)]
struct Pieces(Vec<Piece>);

#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Text(String),
    Slot,
    Qualifier,
    Var(String),
}

/// Brackets a marker in the marked print. A filter whose print holds it already (in a string
/// literal) gets no printed pieces, and is rewritten as a tree.
const MARK: char = '\u{1}';

impl PrintedFilter {
    /// The pieces of `template` (whose FROM item is the filtered table under the inner alias)
    /// and of `predicate` (its WHERE); `None` when a print cannot be cut unambiguously.
    pub(super) fn new(template: &Query, predicate: &Expr) -> Option<PrintedFilter> {
        // Every marker in the marked prints must be one put there below (a string literal of
        // the predicate could hold the character).
        if template.to_string().contains(MARK) {
            return None;
        }
        let mut marked = template.clone();
        let SetExpr::Select(select) = marked.body.as_mut() else {
            return None;
        };
        let Some(TableFactor::Table { name, .. }) =
            select.from.first_mut().map(|t| &mut t.relation)
        else {
            return None;
        };
        *name = ObjectName(vec![ObjectNamePart::Identifier(marker("S"))]);
        mark_variables(&mut marked);
        let derived = Pieces::cut(&marked.to_string())?;

        let mut predicate = predicate.clone();
        // As `bind_target_predicate` qualifies the predicate's own columns.
        visit_levels(&mut predicate, 0, |expr, own| {
            if let (true, Expr::CompoundIdentifier(parts)) = (own, expr) {
                if let [qualifier, _] = parts.as_mut_slice() {
                    if qualifier.value == INNER_ALIAS {
                        *qualifier = marker("Q");
                    }
                }
            }
        });
        mark_variables(&mut predicate);
        let in_place = Pieces::cut(&predicate.to_string())?;

        let slots = |p: &Pieces| p.0.iter().filter(|&x| *x == Piece::Slot).count();
        (slots(&derived) == 1 && slots(&in_place) == 0)
            .then_some(PrintedFilter { derived, in_place })
    }

    /// Appends the derived table's query for a reference printed as `slot`, with `vars`
    /// bound; `key` names the filter in errors.
    pub(super) fn render_derived(
        &self,
        out: &mut String,
        slot: &str,
        vars: &Vars,
        key: &str,
    ) -> Result<(), GuardError> {
        self.derived.render(out, slot, "", vars, key)
    }

    /// Appends the predicate, its own columns qualified with `qualifier` (printed).
    pub(super) fn render_in_place(
        &self,
        out: &mut String,
        qualifier: &str,
        vars: &Vars,
        key: &str,
    ) -> Result<(), GuardError> {
        self.in_place.render(out, "", qualifier, vars, key)
    }
}

impl Pieces {
    /// Cuts a marked print at its markers.
    fn cut(printed: &str) -> Option<Pieces> {
        let mut pieces = Vec::new();
        for (i, part) in printed.split(MARK).enumerate() {
            if i % 2 == 0 {
                if !part.is_empty() {
                    pieces.push(Piece::Text(part.to_string()));
                }
                continue;
            }
            pieces.push(match part {
                "S" => Piece::Slot,
                "Q" => Piece::Qualifier,
                _ => Piece::Var(part.strip_prefix('V')?.to_string()),
            });
        }
        // Every marker closed.
        (printed.matches(MARK).count() % 2 == 0).then_some(Pieces(pieces))
    }

    fn render(
        &self,
        out: &mut String,
        slot: &str,
        qualifier: &str,
        vars: &Vars,
        key: &str,
    ) -> Result<(), GuardError> {
        for piece in &self.0 {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::Slot => out.push_str(slot),
                Piece::Qualifier => out.push_str(qualifier),
                Piece::Var(name) => {
                    let literal = literal_of(vars, name, key)?;
                    out.push_str(&literal.to_string());
                }
            }
        }
        Ok(())
    }
}

/// An identifier that prints as `text`, unquoted: the marker of a piece, and the node that
/// holds assembled SQL text in a read's rewritten tree (which is printed, never walked again).
pub(super) fn verbatim(text: String) -> Ident {
    Ident::new(text)
}

fn marker(code: &str) -> Ident {
    verbatim(format!("{MARK}{code}{MARK}"))
}

/// Replaces every variable (`:name`) with its marker, as `rewrite::bind` replaces it with a
/// literal.
fn mark_variables<T: VisitMut>(tree: &mut T) {
    struct Marker;
    impl VisitorMut for Marker {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
            if let Expr::Value(v) = expr {
                if let Value::Placeholder(p) = &v.value {
                    if let Some(name) = variable_name(p) {
                        *expr = Expr::Identifier(marker(&format!("V{name}")));
                    }
                }
            }
            ControlFlow::Continue(())
        }
    }
    let _ = tree.visit(&mut Marker);
}
