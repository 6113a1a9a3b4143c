//! Column references: qualified (`t.c`) and bare (`c`) names resolved through the scope, and
//! whole-row references. Stars are `stars.rs`.

use sqlparser::ast::Ident;

use super::diagnostics as refuse;
use super::scope::{Scope, Source, SourceKind};
use super::{span_location, Walker};
use crate::access::ResolvedTable;
use crate::error::{ErrorCode, GuardError, Location};
use crate::names::{closest, fold_ident};

impl Walker<'_, '_> {
    /// A column reference, `qualifier.column` or a bare `column`.
    pub(super) fn column(
        &mut self,
        qualifier: &[Ident],
        column: &Ident,
        scope: &Scope<'_>,
    ) -> Result<(), GuardError> {
        let access = self.ctx.access;
        if !access.has_column_rules() && !access.has_catalog() {
            return Ok(());
        }
        let location = span_location(column.span);
        let name = fold_ident(column, self.dialect());
        if qualifier.is_empty() {
            return self.bare_column(&name, scope, location).map_err(|e| {
                match column.quote_style {
                    Some('"') if e.code == ErrorCode::UnknownColumn => {
                        refuse::double_quoted_string(&column.value, location)
                    }
                    _ => e,
                }
            });
        }
        let q: Vec<String> = qualifier
            .iter()
            .map(|i| fold_ident(i, self.dialect()))
            .collect();
        if self.qualified_column(&q, &name, scope, location)? {
            return Ok(());
        }
        // Not a source: a composite value's field (`c.f`) or a name the database will reject;
        // never a masked column's plain reference.
        self.in_mask_slot = false;
        if let Some(first) = qualifier.first() {
            self.column(&[], first, scope)?;
        }
        self.conservative(&name, scope, location)
    }

    /// `q.name` where `q` names FROM items; false when it names none. SQLite (unlike
    /// PostgreSQL, which stops at the innermost item of that name) keeps looking outward when
    /// the innermost `q` lacks the column: every item named `q` up to the first known to have
    /// it is a candidate.
    fn qualified_column(
        &mut self,
        q: &[String],
        name: &str,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<bool, GuardError> {
        let mut first_named = None;
        for level in scope.levels() {
            let mut binds_here = false;
            for source in level.sources.iter().filter(|s| s.is_named(q)) {
                first_named.get_or_insert(source);
                match source.known_columns() {
                    Some(columns) if columns.iter().any(|c| c == name) => {
                        self.bound(source, name, location)?;
                        binds_here = true;
                    }
                    Some(_) => {}
                    None => self.bound(source, name, location)?,
                }
            }
            if binds_here {
                return Ok(true);
            }
        }
        match first_named {
            // Named, but no item of that name has the column: the engine's error, with a hint.
            Some(source) => self.bound(source, name, location).map(|()| true),
            None => Ok(false),
        }
    }

    /// A bare column name, resolved as [`Scope`] describes: every candidate at each level up to
    /// the level that binds it must be open, and a whole-row reference to a table with
    /// protected columns is refused.
    fn bare_column(
        &mut self,
        name: &str,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let found = self.bare_column_candidates(name, scope, location)?;
        // PostgreSQL and DuckDB read a bare name as a column when a FROM item at any level has
        // one of that name, and only otherwise as a whole-row reference to the item so named
        // (`SELECT party FROM party` with a column `party`). A select-list alias is no such
        // column, and an item of unknown columns may or may not have it.
        let is_row = !found.bound && whole_row(name, scope, location)?;
        if found.exists || found.open_ended || is_row {
            return Ok(());
        }
        // With a catalog and every source known, an unbound name does not exist.
        let all: Vec<&Source> = scope.all_sources().collect();
        if self.ctx.access.has_catalog() && !all.is_empty() {
            let visible = all.iter().flat_map(|s| s.open_columns());
            let suggestion = closest(name, visible);
            return Err(refuse::unknown_column(name, None, suggestion, location));
        }
        Ok(())
    }

    /// Checks every candidate for the bare `name`, level by level, up to the level that binds
    /// it (and through the weak levels past it).
    fn bare_column_candidates(
        &mut self,
        name: &str,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<BareColumn, GuardError> {
        let mut found = BareColumn::default();
        let mut weak_remaining = 0usize;
        let mut bound = false;
        for level in scope.levels() {
            let weak = weak_remaining > 0;
            // Bound: the levels still scanned are the SELECT's other FROM items that this part
            // of it cannot see (an ON clause); a protected one there is refused all the same,
            // since engines differ on what an ON clause sees.
            if bound && !weak {
                break;
            }
            let mut binds_here = false;
            for source in &level.sources {
                match source.known_columns() {
                    Some(columns) if columns.iter().any(|c| c == name) => {
                        self.bound(source, name, location)?;
                        binds_here = true;
                    }
                    Some(_) => {}
                    None => {
                        found.open_ended = true;
                        self.candidate(source, name, location)?;
                    }
                }
            }
            found.exists |= binds_here || level.aliases.iter().any(|a| a == name);
            bound |= binds_here && !weak;
            found.bound |= binds_here && !weak;
            weak_remaining = weak_remaining.saturating_sub(1).max(level.weak_levels);
        }
        Ok(found)
    }

    /// A column bound to a source: protected or unknown columns are refused.
    fn bound(
        &mut self,
        source: &Source,
        name: &str,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let SourceKind::Table(table) = &source.kind else {
            return Ok(());
        };
        if table.protected.iter().any(|p| p == name) && !self.masked_in_slot(table, name) {
            return Err(refuse::column_not_allowed(table, name, location));
        }
        if let Some(columns) = &table.columns {
            if !columns.iter().any(|c| c == name) {
                let suggestion = closest(name, source.open_columns());
                return Err(refuse::unknown_column(
                    name,
                    Some(&table.display),
                    suggestion,
                    location,
                ));
            }
            self.analysis
                .columns
                .insert(format!("{}.{name}", table.display));
        }
        Ok(())
    }

    /// A name that `source`, whose columns are unknown, may own: refused when the source
    /// protects it, unless it is a masked column in its slot.
    fn candidate(
        &mut self,
        source: &Source,
        name: &str,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        match source.protecting(name) {
            Some(table) if !self.masked_in_slot(table, name) => {
                Err(refuse::column_may_be_protected(table, name, location))
            }
            _ => Ok(()),
        }
    }

    /// True when `name` of `table` is masked and read in a mask slot (a plain column of the
    /// outermost select list): its mask is recorded, the strongest of the candidates.
    fn masked_in_slot(&mut self, table: &ResolvedTable, name: &str) -> bool {
        if !self.in_mask_slot {
            return false;
        }
        match table.protection(name).mask() {
            Some(kind) => {
                self.slot_mask = Some(self.slot_mask.map_or(kind, |k| k.max(kind)));
                true
            }
            None => false,
        }
    }

    /// Refuses a name that any table in scope protects, when it cannot be bound for sure.
    fn conservative(
        &self,
        name: &str,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        if !self.ctx.access.is_protected_anywhere(name) {
            return Ok(());
        }
        scope
            .all_sources()
            .try_for_each(|source| protected_candidate(source, name, location))
    }
}

/// What the level-by-level search for a bare name found.
#[derive(Debug, Default)]
struct BareColumn {
    /// A FROM item has it, or a select-list alias is called so.
    exists: bool,
    /// A FROM item known to have a column of that name binds it (not through an ON clause's
    /// weak sight): the name is that column, never a whole-row reference.
    bound: bool,
    /// Some FROM item on the way could own any name (its columns are unknown).
    open_ended: bool,
}

/// Refuses `name` when `source` is a table that protects a column of that name: a candidate the
/// name may refer to.
fn protected_candidate(
    source: &Source,
    name: &str,
    location: Option<Location>,
) -> Result<(), GuardError> {
    match source.protecting(name) {
        Some(table) => Err(refuse::column_may_be_protected(table, name, location)),
        None => Ok(()),
    }
}

/// A bare table name or alias is also a whole-row reference (`SELECT c FROM customer c`):
/// refused over a table with protected columns. True when `name` names a FROM item.
fn whole_row(
    name: &str,
    scope: &Scope<'_>,
    location: Option<Location>,
) -> Result<bool, GuardError> {
    let as_qualifier = [name.to_string()];
    let mut is_row = false;
    for source in scope.all_sources().filter(|s| s.is_named(&as_qualifier)) {
        if let Some(table) = source.protected_table() {
            return Err(refuse::whole_row_of_protected(name, table, location));
        }
        is_row = true;
    }
    Ok(is_row)
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{code, guard, refusal, CATALOG, PII};

    #[test]
    fn an_alias_never_hides_a_protected_column_in_any_clause() {
        let clauses = [
            "SELECT email AS email FROM customer",
            "SELECT first_name AS email, upper(email) AS u FROM customer",
            "SELECT first_name AS email FROM customer WHERE email > ''",
            "SELECT first_name AS email FROM customer GROUP BY email",
            "SELECT first_name AS email FROM customer GROUP BY first_name HAVING max(email) > ''",
            "SELECT first_name AS email FROM customer ORDER BY email",
            "SELECT first_name AS email FROM customer ORDER BY email || ''",
            "SELECT first_name AS email, rank() OVER (ORDER BY email) AS r FROM customer",
            "SELECT first_name AS email, rank() OVER w AS r FROM customer WINDOW w AS (ORDER BY email)",
        ];
        for dialect in ["postgres", "mysql", "sqlite", "duckdb"] {
            for policy in [PII, CATALOG] {
                let g = guard(policy, dialect);
                for sql in clauses {
                    if dialect != "postgres" && sql.contains("WINDOW w") {
                        continue;
                    }
                    assert_eq!(
                        code(&g, sql).as_deref(),
                        Some("column_not_allowed"),
                        "{dialect}: {sql}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_innermost_table_that_could_own_a_name_is_a_candidate() {
        let g = guard(PII, "postgres");
        // Without a catalog, `customer` could have `email`: the outer `d.email` does not bind it.
        for sql in [
            "SELECT (SELECT max(email) FROM customer) AS e FROM (SELECT 1 AS email) d",
            "WITH d AS (SELECT 1 AS email) SELECT (SELECT max(email) FROM customer) FROM d",
            "SELECT 1 FROM (SELECT 1 AS email) d WHERE EXISTS (SELECT 1 FROM customer WHERE email > '')",
        ] {
            assert_eq!(code(&g, sql).as_deref(), Some("column_not_allowed"), "{sql}");
        }
        // A table that could own the name inner, an open table outer: still refused when the
        // outer one is the protected one (the inner may not have the column).
        assert_eq!(
            code(&g, "SELECT (SELECT max(email) FROM vendor) FROM customer").as_deref(),
            Some("column_not_allowed")
        );
    }

    #[test]
    fn a_known_column_binds_at_its_level_and_stops_the_search() {
        let g = guard(CATALOG, "postgres");
        // The catalog says vendor has `email`: the engine binds it there, never to customer.
        assert_eq!(
            code(
                &g,
                "SELECT (SELECT max(email) FROM vendor) AS m FROM customer"
            ),
            None
        );
        // ... unless a protected table is at the same level.
        assert_eq!(
            code(&g, "SELECT max(email) FROM vendor, customer").as_deref(),
            Some("column_not_allowed")
        );
    }

    #[test]
    fn a_qualified_name_looks_outward_past_an_item_without_the_column() {
        // SQLite binds `c.email` to the outer `c` when the inner `c` has no `email`.
        let g = guard(PII, "sqlite");
        let sql = "SELECT (SELECT c.email FROM invoice c) AS e FROM customer c";
        assert_eq!(code(&g, sql).as_deref(), Some("column_not_allowed"));
        let g = guard(CATALOG, "sqlite");
        let sql = "SELECT (SELECT c.email FROM vendor c) AS e FROM customer c";
        assert_eq!(code(&g, sql), None, "vendor has email: bound there");
    }

    #[test]
    fn a_protected_item_an_on_clause_cannot_see_still_refuses() {
        let g = guard(CATALOG, "postgres");
        // Inside the ON clause, `email` binds to the join's members (vendor v, vendor w); the
        // SELECT's other item `customer` is out of the ON clause's sight in PostgreSQL but not
        // in DuckDB, so the search goes on through that weak level and refuses.
        let sql = "SELECT 1 FROM customer c, vendor v JOIN vendor w ON email > ''";
        assert_eq!(code(&g, sql).as_deref(), Some("column_not_allowed"));
        // The same ON clause with only open tables around it passes.
        let sql = "SELECT 1 FROM vendor u, vendor v JOIN vendor w ON v.email = w.email";
        assert_eq!(code(&g, sql), None);
        // Parenthesised joins: the weak levels span every join around the ON clause.
        let sql = "SELECT 1 FROM customer c, vendor v JOIN (vendor w JOIN vendor x ON email > '') \
                   ON true";
        assert_eq!(code(&g, sql).as_deref(), Some("column_not_allowed"));
    }

    #[test]
    fn a_qualifier_that_names_no_item_refuses_a_protected_field_name() {
        // `x` is not a FROM item: `x.email` may be a field of a composite column `x`, or the
        // engine's error; `email` is protected somewhere in scope, so it is refused.
        let g = guard(PII, "postgres");
        let error = refusal(&g, "SELECT x.email FROM customer").expect("refused");
        assert_eq!(error.code.as_str(), "column_not_allowed");
        assert!(
            error.message.contains("customer.email"),
            "{}",
            error.message
        );
        assert_eq!(code(&g, "SELECT x.first_name FROM customer"), None);
    }

    #[test]
    fn an_unknown_column_names_its_table_and_a_close_open_column() {
        let g = guard(CATALOG, "postgres");
        let error = refusal(&g, "SELECT vendor_idd FROM vendor").expect("refused");
        assert_eq!(error.code.as_str(), "unknown_column");
        assert_eq!(error.hint.as_deref(), Some("did you mean `vendor_id`?"));
        let error = refusal(&g, "SELECT v.vendor_idd FROM vendor v").expect("refused");
        assert!(error.message.contains("`vendor`"), "{}", error.message);
        // A protected column is never suggested.
        let error = refusal(&g, "SELECT c.emial FROM customer c").expect("refused");
        assert_ne!(error.hint.as_deref(), Some("did you mean `email`?"));
    }

    #[test]
    fn a_bare_name_is_a_column_first() {
        // `party` has a column `party` (and a protected `secret`): PostgreSQL and DuckDB read
        // the bare name as that column, not as the whole row.
        let policy = r#"{"columns": {"deny": ["party.secret"]},
            "catalog": {"tables": [
                {"name": "party", "columns": [{"name": "party_id"}, {"name": "party"},
                    {"name": "secret"}]},
                {"name": "vendor", "columns": [{"name": "vendor_id"}, {"name": "email"}]}]}}"#;
        for dialect in ["postgres", "duckdb"] {
            let g = guard(policy, dialect);
            for sql in [
                "SELECT Party FROM party GROUP BY Party HAVING count(*) >= 2",
                "SELECT party FROM party p",
                "SELECT (SELECT max(party) FROM vendor) FROM party",
                "SELECT p.party FROM party p WHERE party IS NOT NULL",
            ] {
                assert_eq!(code(&g, sql), None, "{dialect}: {sql}");
            }
            // No column of that name: the name of the item is its whole row.
            for sql in [
                "SELECT p FROM party p",
                "SELECT to_json(p) FROM party p",
                // A select-list alias is not a column of a FROM item.
                "SELECT party_id AS p, p FROM party p",
            ] {
                let error = refusal(&g, sql).expect("refused");
                assert!(
                    error.message.contains("whole-row"),
                    "{dialect}: {sql}: {error}"
                );
            }
        }
        // Without a catalog the item could lack the column: still a possible whole row.
        let g = guard(r#"{"columns": {"deny": ["party.secret"]}}"#, "postgres");
        let error = refusal(&g, "SELECT party FROM party").expect("refused");
        assert!(error.message.contains("whole-row"), "{error}");
    }

    #[test]
    fn whole_row_references_to_a_protected_table_are_refused() {
        let g = guard(PII, "postgres");
        for sql in [
            "SELECT c FROM customer c",
            "SELECT row_to_json(customer) FROM customer",
            "SELECT to_json(c.*) FROM customer c",
            "SELECT (c).email FROM customer c",
        ] {
            assert!(code(&g, sql).is_some(), "{sql}");
        }
        assert_eq!(code(&g, "SELECT v FROM vendor v"), None);
    }

    #[test]
    fn a_call_after_a_dot_is_checked_like_any_call() {
        // sqlparser reads `(c).f(x)` and `USER().DATABASE()` as a call inside a field chain
        // (fuzz: check_bytes, fixed_point): its name meets the function policy and its
        // arguments are columns of the scope, like any call's.
        let g = guard(PII, "postgres");
        for sql in [
            "SELECT (c).lower(email) FROM customer c",
            "SELECT (c).x.lower(email) FROM customer c",
        ] {
            assert_eq!(
                code(&g, sql).as_deref(),
                Some("column_not_allowed"),
                "{sql}"
            );
        }
        assert_eq!(
            code(&g, "SELECT (c).pg_read_file('/etc/passwd') FROM customer c").as_deref(),
            Some("function_not_allowed")
        );
        let g = guard(PII, "mysql");
        assert_eq!(
            code(&g, "SELECT USER().LOAD_FILE('/etc/passwd')").as_deref(),
            Some("function_not_allowed")
        );
        assert_eq!(
            code(&g, "SELECT now().lower(first_name) FROM customer"),
            None
        );
    }
}
