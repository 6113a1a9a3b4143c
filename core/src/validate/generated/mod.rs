//! Bounds on what a query generates: a generating call's bytes and rows (measured in
//! `crate::bounds`), and the rows multiplied up the query: generators in one FROM, a nested
//! query inside a SELECT and references to a generating CTE multiply, the sides of a set
//! operation add. Only generators count (a table's rows are the data's, not the query's), so an
//! ordinary query only ever multiplies by nothing.

use sqlparser::ast::{FunctionArg, Ident, Query, TableAlias};

use super::diagnostics as refuse;
use super::scope::Scope;
use super::{recursion, span_location, Walker};
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
    /// CTEs that generate rows, and how many, in definition order.
    ctes: Vec<(String, f64)>,
    /// Recursive CTEs whose definition is being walked.
    recursive: Vec<String>,
    /// References to those seen so far.
    recursive_refs: usize,
}

impl Default for Generated {
    fn default() -> Self {
        Generated {
            rows: 1.0,
            last: 1.0,
            ctes: Vec::new(),
            recursive: Vec::new(),
            recursive_refs: 0,
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
        match bounds::measure(kind, args, self.dialect()) {
            Ok(Amount::Bytes(bytes)) if bytes <= bound => Ok(()),
            Ok(Amount::Bytes(bytes)) => Err(refuse::too_many_bytes(name, bytes, bound, location)),
            Ok(Amount::Rows(rows)) => self.generate_rows(rows, name, location),
            Err(unfolded) => Err(refuse::unbounded_size(name, unfolded.0, location)),
        }
    }

    /// A collecting aggregate (`string_agg`, `array_agg`, ...) over the rows this query
    /// generates: one value of their product, bounded by `max_generated_bytes`
    /// (`string_agg(repeat('x', 1000000), '')` over `generate_series(1, 1000)` is a gigabyte).
    pub(super) fn collecting_call(
        &self,
        name: &str,
        args: &[FunctionArg],
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let rows = self.generated.rows;
        if rows <= 1.0 {
            return Ok(());
        }
        let bytes = bounds::row_bytes(args, self.dialect()) * rows;
        let bound = self.ctx.bounds.max_bytes;
        if bounds::within(bytes, bound) {
            Ok(())
        } else {
            Err(refuse::too_many_collected_bytes(
                name, bytes, rows, bound, location,
            ))
        }
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

    /// Starts counting a nested query's rows; returns the enclosing query's count.
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
        self.generate_rows(own, "a nested query", location)
    }

    /// Starts the right side of a set operation; returns the left side's rows.
    pub(super) fn between_set_sides(&mut self) -> f64 {
        std::mem::replace(&mut self.generated.rows, 1.0)
    }

    /// Ends a set operation: its sides' rows add up.
    pub(super) fn after_set_sides(
        &mut self,
        before: f64,
        left: f64,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let right = std::mem::replace(&mut self.generated.rows, before);
        self.generate_rows(combined(left, right), "a set operation", location)
    }

    /// A reference to the CTE `name`: the rows it generates; a reference to a recursive CTE
    /// from inside its own definition is counted (that makes it recursive).
    pub(super) fn cte_reference(
        &mut self,
        name: &str,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        if self.generated.recursive.iter().any(|r| r == name) {
            self.generated.recursive_refs += 1;
        }
        let rows = self
            .generated
            .ctes
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, r)| *r);
        match rows {
            Some(rows) => self.generate_rows(rows, name, location),
            None => Ok(()),
        }
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

    /// A CTE's query: its rows are kept for its references instead of counting here; a
    /// recursive one (it reads itself) needs a bound (`recursion::bound`), which multiplies
    /// them.
    pub(super) fn cte_query(
        &mut self,
        query: &Query,
        alias: &TableAlias,
        name: &str,
        recursive: bool,
        scope: &Scope<'_>,
    ) -> Result<Option<Vec<String>>, GuardError> {
        let outer = self.generated.rows;
        let refs = self.generated.recursive_refs;
        if recursive {
            self.generated.recursive.push(name.to_string());
        }
        let columns = self.query(query, Some(scope));
        if recursive {
            self.generated.recursive.pop();
        }
        let columns = columns?;
        self.generated.rows = outer;
        let mut rows = self.generated.last;
        let location = span_location(alias.name.span);
        if self.generated.recursive_refs > refs {
            let names = alias_names(alias, self.dialect());
            match recursion::bound(query, name, names.as_deref(), self.dialect()) {
                Some(iterations) => rows *= iterations.max(1.0),
                None if self.ctx.bounds.allow_unbounded_recursion => {}
                None => return Err(refuse::unbounded_recursion(&alias.name.value, location)),
            }
            if !bounds::within(rows, self.ctx.bounds.max_rows) {
                let bound = self.ctx.bounds.max_rows;
                return Err(refuse::too_many_rows(
                    &alias.name.value,
                    rows,
                    bound,
                    location,
                ));
            }
        }
        if rows > 1.0 {
            self.generated.ctes.push((name.to_string(), rows));
        }
        Ok(columns)
    }
}

/// The folded names of `AS t(a, b)`, when given.
fn alias_names(alias: &TableAlias, dialect: Dialect) -> Option<Vec<String>> {
    let columns: Vec<&Ident> = alias.columns.iter().map(|c| &c.name).collect();
    (!columns.is_empty()).then(|| {
        columns
            .into_iter()
            .map(|c| crate::names::fold_ident(c, dialect))
            .collect()
    })
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

#[cfg(test)]
mod tests {
    use super::super::test_support::{code, guard, PII};
    use super::*;

    fn refusal(dialect: &str, sql: &str) -> Option<String> {
        code(&guard(PII, dialect), sql)
    }

    #[test]
    fn generators_in_one_query_multiply() {
        let big = "generated_too_large";
        for sql in [
            "SELECT count(*) FROM generate_series(1, 1000) a, generate_series(1, 10000) b",
            "SELECT count(*) FROM generate_series(1, 1000) a CROSS JOIN generate_series(1, 1000) b \
             JOIN generate_series(1, 2) c ON true",
            "SELECT count(*) FROM (SELECT * FROM generate_series(1, 1000)) a, \
             (SELECT * FROM generate_series(1, 1001)) b",
            "WITH g AS (SELECT * FROM generate_series(1, 1001)) SELECT count(*) FROM g a, g b",
            "SELECT generate_series(1, 1000) FROM generate_series(1, 1001)",
            "SELECT (SELECT count(*) FROM generate_series(1, 1001)) FROM generate_series(1, 1000)",
            "SELECT 1 FROM generate_series(1, 600000) UNION ALL SELECT 1 FROM generate_series(1, 600000)",
        ] {
            assert_eq!(refusal("postgres", sql).as_deref(), Some(big), "{sql}");
        }
        for sql in [
            "SELECT count(*) FROM generate_series(1, 1000) a, generate_series(1, 1000) b",
            "SELECT count(*) FROM generate_series(1, 1000) a, customer c, customer d",
            "WITH g AS (SELECT * FROM generate_series(1, 1000)) SELECT count(*) FROM g",
            "SELECT 1 FROM generate_series(1, 500000) UNION ALL SELECT 1 FROM customer",
        ] {
            assert_eq!(refusal("postgres", sql), None, "{sql}");
        }
    }

    #[test]
    fn sizes_that_do_not_fold_are_refused() {
        for sql in [
            "SELECT repeat('x', customer_id) FROM customer",
            "SELECT count(*) FROM generate_series(1, (SELECT max(customer_id) FROM customer))",
            "SELECT lpad(first_name, customer_id) FROM customer",
        ] {
            assert_eq!(
                refusal("postgres", sql).as_deref(),
                Some("unbounded_generation"),
                "{sql}"
            );
        }
        assert_eq!(
            refusal("sqlite", "SELECT randomblob(900000000)").as_deref(),
            Some("generated_too_large")
        );
        assert_eq!(refusal("sqlite", "SELECT hex(randomblob(16))"), None);
    }

    #[test]
    fn recursion_needs_a_bound() {
        let unbounded = Some("unbounded_generation");
        for sql in [
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n - 1 FROM r WHERE n < 10) \
             SELECT count(*) FROM r",
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10 OR true) \
             SELECT count(*) FROM r",
            "WITH RECURSIVE r AS (SELECT customer_id FROM customer UNION ALL SELECT c.customer_id \
             FROM customer c JOIN r ON c.customer_id = r.customer_id) SELECT count(*) FROM r",
        ] {
            assert_eq!(refusal("postgres", sql).as_deref(), unbounded, "{sql}");
        }
        assert_eq!(
            refusal(
                "postgres",
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1e9) \
                 SELECT count(*) FROM r"
            )
            .as_deref(),
            Some("generated_too_large")
        );
        for sql in [
            "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10) \
             SELECT n FROM t",
            "WITH RECURSIVE t AS (SELECT 1 AS n UNION ALL SELECT t.n + 1 FROM t WHERE 100 > t.n) \
             SELECT n FROM t",
            "WITH RECURSIVE t(n) AS (SELECT min(customer_id) FROM customer UNION ALL \
             SELECT n + 1 FROM t WHERE n < 20) SELECT n FROM t",
            "WITH RECURSIVE d(x) AS (SELECT DATE '2024-01-01' UNION ALL \
             SELECT x + 1 FROM d WHERE x < DATE '2024-12-31') SELECT x FROM d",
            // Not recursive: no self-reference.
            "WITH RECURSIVE a AS (SELECT 1 AS n) SELECT n FROM a",
        ] {
            assert_eq!(refusal("postgres", sql), None, "{sql}");
        }
        assert_eq!(
            refusal(
                "sqlite",
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 100) \
                 SELECT n FROM r"
            ),
            None
        );
        let open = crate::Guard::new(crate::Policy {
            allow_unbounded_recursion: true,
            ..crate::Policy::default()
        })
        .map(|g| {
            g.check(
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r",
            )
            .is_ok()
        });
        assert_eq!(open, Ok(true));
    }

    #[test]
    fn stages_are_refused_in_every_position() {
        for sql in [
            "SELECT t.$1 FROM @my_stage (FILE_FORMAT => 'csv') t",
            "SELECT $1 FROM @s/path/file.csv (FILE_FORMAT => 'csv')",
            "SELECT $1 FROM @~ (PATTERN => '.*')",
            "SELECT $1 FROM @my_stage",
            "SELECT $1 FROM '@my_stage'",
        ] {
            assert_eq!(
                refusal("snowflake", sql).as_deref(),
                Some("table_not_allowed"),
                "{sql}"
            );
        }
    }

    #[test]
    fn mariadb_sequence_tables_count() {
        assert_eq!(
            refusal("mysql", "SELECT count(*) FROM seq_1_to_1000000000").as_deref(),
            Some("generated_too_large")
        );
        assert_eq!(
            refusal(
                "mysql",
                "SELECT count(*) FROM seq_1_to_1000 a, seq_1_to_1001 b"
            )
            .as_deref(),
            Some("generated_too_large")
        );
        assert_eq!(refusal("mysql", "SELECT seq FROM seq_1_to_100"), None);
    }

    #[test]
    fn set_operations_add_only_what_generates() {
        assert_eq!(combined(1.0, 1.0), 1.0);
        assert_eq!(combined(10.0, 1.0), 10.0);
        assert_eq!(combined(1.0, 10.0), 10.0);
        assert_eq!(combined(10.0, 20.0), 30.0);
    }

    #[test]
    fn sequence_table_names_give_their_rows() {
        assert_eq!(sequence_rows("seq_1_to_100").map(|r| r.0), Some(100.0));
        assert_eq!(sequence_rows("SEQ_100_TO_1").map(|r| r.0), Some(100.0));
        assert_eq!(
            sequence_rows("seq_0_to_99_step_10").map(|r| r.0),
            Some(10.0)
        );
        assert_eq!(
            sequence_rows("seq_1_to_1000000000000").map(|r| r.0),
            Some(1e12)
        );
        assert_eq!(
            sequence_rows("seq_1_to_10_step_0").map(|r| r.0),
            Some(f64::INFINITY)
        );
        assert_eq!(sequence_rows("sequence"), None);
        assert_eq!(sequence_rows("seq_a_to_b"), None);
    }
}
