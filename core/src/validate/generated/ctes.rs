//! CTEs: the rows and values a CTE generates, kept for the references that read it, and the
//! termination proof a recursive one needs.

use sqlparser::ast::{Cte, Query};

use super::super::diagnostics as refuse;
use super::super::recursion::{self, Outcome, Sides};
use super::super::scope::Scope;
use super::super::{span_location, Walker};
use super::GeneratingCte;
use crate::bounds;
use crate::error::{GuardError, Location};

impl Walker<'_, '_> {
    /// A reference to the CTE `name`: the rows it generates; a reference to a recursive CTE
    /// from inside its own definition is counted (that makes it recursive).
    pub(in crate::validate) fn cte_reference(
        &mut self,
        name: &str,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let recorded = self
            .generated
            .ctes
            .iter()
            .enumerate()
            .rev()
            .find(|(_, c)| c.name == name);
        let defining = self
            .generated
            .recursive
            .iter()
            .rev()
            .find(|(r, _)| r == name)
            .map(|(_, began)| *began);
        let cte = match (recorded, defining) {
            // A CTE of the same name defined inside the one being defined is nearer.
            (Some((at, cte)), Some(began)) if at >= began => cte,
            // The recursive CTE reading itself (not an outer CTE of the same name).
            (_, Some(_)) => {
                self.generated.recursive_refs += 1;
                return Ok(());
            }
            (Some((_, cte)), None) => cte,
            (None, None) => return Ok(()),
        };
        let (rows, bytes) = (cte.rows, cte.bytes);
        self.generated.bytes = self.generated.bytes.max(bytes);
        self.generate_rows(rows, name, location)
    }

    /// A CTE's query: its rows are kept for its references instead of counting here; a
    /// recursive one (it reads itself) needs a termination proof (`recursion::prove`), from
    /// the LIMIT of `outer`, the query reading it, and `siblings`, the CTEs of its
    /// WITH (whose literal rows its anchor may start from).
    pub(in crate::validate) fn cte_query(
        &mut self,
        cte: &Cte,
        name: &str,
        recursive: bool,
        outer: Option<&Query>,
        siblings: &[Cte],
        scope: &Scope<'_>,
    ) -> Result<Option<Vec<String>>, GuardError> {
        let alias = &cte.alias;
        let fetched = outer.and_then(|q| recursion::outer_limit(q, name, self.dialect()));
        let outer_rows = self.generated.rows;
        let outer_bytes = self.generated.bytes;
        let refs = self.generated.recursive_refs;
        let recorded = self.generated.set_operations.len();
        if recursive {
            let began = self.generated.ctes.len();
            self.generated.recursive.push((name.to_string(), began));
        }
        let columns = self.query(&cte.query, Some(scope));
        if recursive {
            self.generated.recursive.pop();
        }
        let sides = self.set_operation(&cte.query.body).map(|o| o.sides);
        self.generated.set_operations.truncate(recorded);
        let columns = columns?;
        self.generated.rows = outer_rows;
        self.generated.bytes = outer_bytes;
        let bytes = self.generated.last_bytes;
        let mut rows = self.generated.last;
        let location = span_location(alias.name.span);
        let self_reads = self.generated.recursive_refs - refs;
        if self_reads > 0 && !self.ctx.bounds.allow_unbounded_recursion {
            let sides = sides.unwrap_or(Sides {
                anchor: rows,
                step: 1.0,
            });
            let shown = &alias.name.value;
            match recursion::prove(cte, self_reads, sides, fetched, siblings, self.dialect()) {
                Outcome::Ends { rows: all, bytes } => {
                    rows = all;
                    let bound = self.ctx.bounds.max_bytes;
                    if !bounds::within(bytes, bound) {
                        return Err(refuse::recursion_grows(shown, bytes, bound, location));
                    }
                }
                Outcome::Unproven(why) => {
                    let streams = recursion::streams(self.dialect());
                    return Err(refuse::unbounded_recursion(shown, why, streams, location));
                }
            }
            if !bounds::within(rows, self.ctx.bounds.max_rows) {
                let bound = self.ctx.bounds.max_rows;
                return Err(refuse::too_many_rows(shown, rows, bound, location));
            }
        }
        if rows > 1.0 || bytes > 0.0 {
            self.generated.ctes.push(GeneratingCte {
                name: name.to_string(),
                rows,
                bytes,
            });
        }
        Ok(columns)
    }
}
