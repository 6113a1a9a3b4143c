//! Bounds on what a query generates: a generating call's bytes and rows (measured in
//! `crate::bounds`), and the rows multiplied up the query: generators in one FROM, a nested
//! query inside a SELECT and references to a generating CTE multiply, the sides of a set
//! operation add. Only generators count (a table's rows are the data's, not the query's), so an
//! ordinary query only ever multiplies by nothing.

use sqlparser::ast::{Expr, Function, FunctionArg, FunctionArgExpr, SetExpr, Spanned};

use super::diagnostics as refuse;
use super::recursion::Sides;
use super::{span_location, Walker};
use crate::bounds::compose::{self, Excess};
use crate::bounds::size::Size;
use crate::bounds::{self, Amount, Kind};
use crate::dialect::Dialect;
use crate::error::{GuardError, Location};

/// The walker's count of generated rows.
#[derive(Debug)]
pub(super) struct Generated {
    /// Rows the query being walked generates so far (a product; 1 for none).
    rows: f64,
    /// Rows of the query walked last (for its CTE).
    last: f64,
    /// The widest generated value the query being walked holds, in bytes: from its sources (a
    /// CTE or nested query that builds one) and its own expressions (0 for none).
    bytes: f64,
    /// The widest generated value of the query walked last (for its CTE).
    last_bytes: f64,
    /// CTEs that generate rows or values, in definition order.
    ctes: Vec<GeneratingCte>,
    /// Recursive CTEs whose definition is being walked, each with the number of `ctes` when it
    /// began (a CTE recorded after that is defined inside it and shadows it).
    recursive: Vec<(String, usize)>,
    /// References to those seen so far.
    recursive_refs: usize,
    /// Each set operation walked, in the order they ended: read back by the operation it is a
    /// side of, and by the recursive CTE whose body it is.
    set_operations: Vec<SetOperationRows>,
}

/// A CTE that generates: what each reference to it brings.
#[derive(Debug)]
struct GeneratingCte {
    name: String,
    /// Its rows (1 for none generated).
    rows: f64,
    /// Its widest generated value, in bytes (0 for none).
    bytes: f64,
}

/// What the walk counted for one set operation.
#[derive(Debug, Clone, Copy)]
struct SetOperationRows {
    /// The operation's identity while the walk holds the tree (its address).
    at: usize,
    /// The generated rows of its left and right sides.
    sides: Sides,
    /// Its rows when every part of it is written out (see [`Walker::written_rows`]).
    written: Option<f64>,
}

impl Default for Generated {
    fn default() -> Self {
        Generated {
            rows: 1.0,
            last: 1.0,
            bytes: 0.0,
            last_bytes: 0.0,
            ctes: Vec::new(),
            recursive: Vec::new(),
            recursive_refs: 0,
            set_operations: Vec::new(),
        }
    }
}

/// The rows of two sides of a set operation: added, where they generate any.
fn combined(left: f64, right: f64) -> f64 {
    match (left > 1.0, right > 1.0) {
        (true, true) => left + right,
        (true, false) => left,
        _ => right,
    }
}

impl Walker<'_, '_> {
    /// True when `function` can build a value larger than its arguments (`repeat`, `hex`,
    /// `lpad`, `space` ...): the expression holding it has its size composed when it ends.
    pub(super) fn grows(&self, function: &Function) -> bool {
        function
            .name
            .0
            .last()
            .and_then(|p| p.as_ident())
            .is_some_and(|i| compose::grows(&i.value.to_ascii_lowercase(), self.dialect()))
    }

    /// True when the query being walked holds a generated value (a source's, or one of its
    /// own expressions'): every expression of it then has its size composed.
    pub(super) fn holds_generated(&self) -> bool {
        self.generated.bytes > 0.0
    }

    /// The size of the expression `expr`, composed from its parts (`||` adds, an encoder
    /// multiplies, ...): refuses a part that builds more than `max_generated_bytes` or
    /// amplifies a value of the data past a small factor.
    pub(super) fn composed_size(&mut self, expr: &Expr) -> Result<(), GuardError> {
        let bound = self.ctx.bounds.max_bytes;
        // A column of this query may hold the widest value its sources generate.
        let column = Size::DATA.plus(Size::fixed(self.generated.bytes));
        let excess = match compose::size(expr, column, self.dialect(), bound) {
            Ok(size) => {
                self.generated.bytes = self.generated.bytes.max(size.bytes);
                return Ok(());
            }
            Err(excess) => excess,
        };
        let location = span_location(expr.span());
        Err(match excess {
            Excess::Bytes(what, bytes) => {
                refuse::too_many_composed_bytes(&what, bytes, bound, location)
            }
            Excess::Amplified(what) => {
                refuse::unsized_text(&what, bound, self.casts_cut(), location)
            }
            Excess::NotLiteral(what, argument) => refuse::unbounded_size(&what, argument, location),
            Excess::Unsized(what, bytes) => refuse::unsized_input(&what, bytes, location),
            Excess::PerDataElement(what, bytes, per_element) => {
                refuse::grown_per_data_element(&what, bytes, per_element, location)
            }
        })
    }

    /// True when the dialect cuts a `varchar(n)` cast to `n` characters (`compose::casts_cut`).
    fn casts_cut(&self) -> bool {
        compose::casts_cut(self.dialect())
    }

    /// A call of a generating function (`kind`, called `name`): refuses a size that does not
    /// fold or a value over `max_generated_bytes`; counts its rows.
    pub(super) fn generating_call(
        &mut self,
        kind: Kind,
        name: &str,
        args: &[FunctionArg],
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let bound = self.ctx.bounds.max_bytes;
        if let Kind::Split(_) | Kind::Matches | Kind::Unnest = kind {
            // A text this query's columns may hold generated, split into its pieces.
            let column = Size::DATA.plus(Size::fixed(self.generated.bytes));
            let rows = bounds::pieces(kind, args, column, self.dialect());
            return self.generate_rows(rows, name, location);
        }
        match bounds::measure(kind, args, self.dialect()) {
            Ok(Amount::Bytes(bytes)) if bytes <= bound => Ok(()),
            Ok(Amount::Bytes(bytes)) => Err(refuse::too_many_bytes(name, bytes, bound, location)),
            Ok(Amount::Rows(rows)) => self.generate_rows(rows, name, location),
            Err(bounds::UNSIZED_TEXT) => Err(refuse::unsized_text(
                name,
                bound,
                self.casts_cut(),
                location,
            )),
            Err(unfolded) => Err(refuse::unbounded_size(name, unfolded.0, location)),
        }
    }

    /// A collecting aggregate (`string_agg`, `array_agg`, ...) over the rows this query
    /// generates: one value of their product, bounded by `max_generated_bytes`
    /// (`string_agg(repeat('x', 1000000), '')` over `generate_series(1, 1000)` is a gigabyte).
    /// Over the data's rows, whose number the guard does not know, each row may add only a
    /// small generated value ([`per_data_row`]): `string_agg(repeat('x', 1000000), '') FROM t`
    /// is a megabyte a row of `t`.
    pub(super) fn collecting_call(
        &self,
        name: &str,
        args: &[FunctionArg],
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let rows = self.generated.rows;
        let bound = self.ctx.bounds.max_bytes;
        if rows <= 1.0 {
            let built = self.built_bytes(args);
            let per_row = bounds::per_data_value(bound);
            return if built <= per_row {
                Ok(())
            } else {
                Err(refuse::collected_per_data_row(
                    name, built, per_row, location,
                ))
            };
        }
        let bytes = bounds::row_bytes(args, self.dialect()) * rows;
        if bounds::within(bytes, bound) {
            Ok(())
        } else {
            Err(refuse::too_many_collected_bytes(
                name, bytes, rows, bound, location,
            ))
        }
    }

    /// The bytes the query builds into the positional arguments of a call (literals, generated
    /// values; a column's own value is the data's and counts nothing).
    fn built_bytes(&self, args: &[FunctionArg]) -> f64 {
        let column = Size::fixed(self.generated.bytes);
        args.iter()
            .filter_map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                _ => None,
            })
            .filter_map(|e| compose::size(e, column, self.dialect(), f64::INFINITY).ok())
            .map(|s| s.bytes)
            .sum()
    }

    /// Multiplies the rows generated so far by `rows` (from `what`); refuses past
    /// `max_generated_rows`.
    pub(super) fn generate_rows(
        &mut self,
        rows: f64,
        what: &str,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        if rows <= 1.0 {
            return Ok(());
        }
        let product = self.generated.rows * rows;
        let bound = self.ctx.bounds.max_rows;
        if !bounds::within(product, bound) {
            return Err(refuse::too_many_rows(what, product, bound, location));
        }
        self.generated.rows = product;
        Ok(())
    }

    /// Starts counting a nested query's rows and values; returns the enclosing query's rows.
    /// The nested query starts from the values the enclosing one holds (it may read them,
    /// correlated).
    pub(super) fn enter_query(&mut self) -> f64 {
        std::mem::replace(&mut self.generated.rows, 1.0)
    }

    /// Ends a query's count: its rows multiply the enclosing query's (`outer`).
    pub(super) fn leave_query(
        &mut self,
        outer: f64,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let own = std::mem::replace(&mut self.generated.rows, outer);
        self.generated.last = own;
        // Its values reach the enclosing query (a derived table's columns, a scalar
        // subquery's value); a CTE's are kept for its references instead (`cte_query`).
        self.generated.last_bytes = self.generated.bytes;
        self.generate_rows(own, "a nested query", location)
    }

    /// Starts the right side of a set operation; returns the left side's rows.
    pub(super) fn between_set_sides(&mut self) -> f64 {
        std::mem::replace(&mut self.generated.rows, 1.0)
    }

    /// Ends the set operation `body`: its sides' rows add up.
    pub(super) fn after_set_sides(
        &mut self,
        body: &SetExpr,
        before: f64,
        left: f64,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let right = std::mem::replace(&mut self.generated.rows, before);
        // Rows written out (`SELECT 1 UNION ALL SELECT 2`) add up like generated ones.
        let written = match body {
            SetExpr::SetOperation {
                left: l, right: r, ..
            } => self.written_rows(l).zip(self.written_rows(r)),
            _ => None,
        };
        self.generated.set_operations.push(SetOperationRows {
            at: address(body),
            sides: Sides {
                anchor: left,
                step: right,
            },
            written: written.map(|(l, r)| l + r),
        });
        let rows = match written {
            Some((l, r)) => left.max(l) + right.max(r),
            None => combined(left, right),
        };
        self.generate_rows(rows, "a set operation", location)
    }

    /// The rows of a side of a set operation made only of rows written out: a SELECT without
    /// FROM (one row), VALUES (its rows), and set operations of them (at most their sum, read
    /// from what the walk recorded when each ended, so that a long chain of UNIONs is not
    /// walked again at every level). `None` when any part reads a table or a generator, whose
    /// rows the walker counts instead.
    fn written_rows(&self, side: &SetExpr) -> Option<f64> {
        match side {
            SetExpr::Select(select) if select.from.is_empty() => Some(1.0),
            SetExpr::Values(values) => Some(values.rows.len() as f64),
            SetExpr::SetOperation { .. } => self.set_operation(side)?.written,
            SetExpr::Query(query) if query.with.is_none() => self.written_rows(&query.body),
            _ => None,
        }
    }

    /// What the walk recorded for the set operation `body` (the latest first: an operation's
    /// sides end just before it).
    fn set_operation(&self, body: &SetExpr) -> Option<SetOperationRows> {
        let at = address(body);
        self.generated
            .set_operations
            .iter()
            .rev()
            .find(|o| o.at == at)
            .copied()
    }

    /// MariaDB's sequence tables (`seq_1_to_100`, `seq_0_to_99_step_3`): rows from the name.
    pub(super) fn sequence_table(
        &mut self,
        parts: &[String],
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        if self.dialect() != Dialect::Mysql {
            return Ok(());
        }
        match parts.last().and_then(|t| sequence_rows(t)) {
            Some((rows, name)) => self.generate_rows(rows, name, location),
            None => Ok(()),
        }
    }
}

/// A set operation's identity while the walk holds the tree (its address).
fn address(body: &SetExpr) -> usize {
    std::ptr::from_ref(body) as usize
}

/// The rows of a MariaDB sequence table name (`seq_<from>_to_<to>[_step_<step>]`, any case).
fn sequence_rows(table: &str) -> Option<(f64, &'static str)> {
    // Every table name of a MySQL query passes here: look before allocating.
    if !table
        .get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case("seq_"))
    {
        return None;
    }
    let lower = table.to_ascii_lowercase();
    let rest = lower.strip_prefix("seq_")?;
    let (from, rest) = rest.split_once("_to_")?;
    let (to, step) = match rest.split_once("_step_") {
        Some((to, step)) => (to, step),
        None => (rest, "1"),
    };
    let number = |t: &str| {
        (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse::<f64>().ok())
            .flatten()
    };
    let (from, to, step) = (number(from)?, number(to)?, number(step)?);
    // MariaDB counts down when `from` is above `to`.
    let rows = bounds::span_rows(from.min(to), from.max(to), step);
    Some((rows, "a seq_N_to_M table"))
}

mod ctes;
#[cfg(test)]
mod tests;
