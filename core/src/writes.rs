//! The write half of a policy, compiled: which tables a mutation may modify, which mutation
//! classes are allowed, and whether UPDATE / DELETE may run without a WHERE clause.

use crate::class::QueryClass;
use crate::dialect::Dialect;
use crate::names::Pattern;
use crate::policy::{PolicyError, WriteRules};

/// [`WriteRules`], compiled once per guard.
#[derive(Debug, Clone)]
pub struct WritePolicy {
    tables: Vec<Pattern>,
    /// `writes.tables` as written, for hints.
    patterns: Vec<String>,
    classes: Vec<QueryClass>,
    /// UPDATE / DELETE without WHERE may run.
    pub allow_unbounded: bool,
}

impl WritePolicy {
    /// Compiles `rules`; a bad pattern or a class that is not a mutation is an error naming the
    /// field.
    pub fn new(rules: &WriteRules, dialect: Dialect) -> Result<WritePolicy, PolicyError> {
        if rules.tables.is_empty() {
            return Err(PolicyError::new(
                "writes.tables",
                "must name at least one table: the tables mutations may modify",
            ));
        }
        let tables = rules
            .tables
            .iter()
            .enumerate()
            .map(|(i, p)| {
                Pattern::parse(p, dialect)
                    .map_err(|m| PolicyError::new(format!("writes.tables[{i}]"), m))
            })
            .collect::<Result<Vec<_>, _>>()?;
        for (i, class) in rules.classes.iter().enumerate() {
            if !matches!(
                class,
                QueryClass::MutationCreate | QueryClass::MutationDelete
            ) {
                return Err(PolicyError::new(
                    format!("writes.classes[{i}]"),
                    format!(
                        "`{class}` is not a mutation class: use mutation_create or mutation_delete"
                    ),
                ));
            }
        }
        if rules.max_affected_rows == Some(0) {
            return Err(PolicyError::new(
                "writes.max_affected_rows",
                "must be at least 1, or null for no bound",
            ));
        }
        Ok(WritePolicy {
            tables,
            patterns: rules.tables.clone(),
            classes: rules.classes.clone(),
            allow_unbounded: rules.allow_unbounded,
        })
    }

    /// True when a mutation may modify the table named `parts` (folded, as resolved).
    ///
    /// Stricter than `tables.allow`: a pattern without a schema names the table in the default
    /// schema only, so `orders` lets a mutation modify `orders` and `public.orders`, never
    /// `archive.orders` (a read may name any `orders`; a write must not reach another table of
    /// the same name).
    pub fn writable(&self, parts: &[String], default_schema: Option<&str>) -> bool {
        self.tables.iter().any(|pattern| {
            let extra = parts.len().saturating_sub(pattern.parts.len());
            let qualifiers_default = match extra {
                0 => true,
                1 => default_schema.is_some_and(|d| parts[0] == d),
                _ => false,
            };
            qualifiers_default && pattern.matches(parts, default_schema)
        })
    }

    /// `writes.tables` as the policy wrote them.
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// True when mutations of `class` are allowed.
    pub fn allows_class(&self, class: QueryClass) -> bool {
        self.classes.contains(&class)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(tables: &[&str]) -> WritePolicy {
        WritePolicy::new(
            &WriteRules::new(tables, &[QueryClass::MutationCreate]),
            Dialect::Postgres,
        )
        .expect("valid rules")
    }

    fn name(parts: &[&str]) -> Vec<String> {
        parts.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn a_pattern_without_schema_names_the_default_schema_only() {
        let writes = policy(&["orders"]);
        let public = Some("public");
        assert!(writes.writable(&name(&["orders"]), public));
        assert!(writes.writable(&name(&["public", "orders"]), public));
        assert!(!writes.writable(&name(&["archive", "orders"]), public));
        assert!(!writes.writable(&name(&["db", "public", "orders"]), public));
        assert!(!writes.writable(&name(&["customer"]), public));
        // Without a default schema (MySQL, SQLite), a qualified target needs a qualified pattern.
        assert!(!writes.writable(&name(&["shop", "orders"]), None));
    }

    #[test]
    fn schema_patterns_match_their_schema() {
        let writes = policy(&["sales.*", "public.orders"]);
        let public = Some("public");
        assert!(writes.writable(&name(&["sales", "orders"]), public));
        assert!(writes.writable(&name(&["orders"]), public));
        assert!(!writes.writable(&name(&["hr", "orders"]), public));
    }

    #[test]
    fn bad_rules_name_the_field() {
        let mut rules = WriteRules::new(&[], &[QueryClass::MutationCreate]);
        let error = WritePolicy::new(&rules, Dialect::Postgres).expect_err("no tables");
        assert_eq!(error.field, "writes.tables");
        rules.tables = vec!["orders".into()];
        rules.classes = vec![QueryClass::MutationCreate, QueryClass::Ddl];
        let error = WritePolicy::new(&rules, Dialect::Postgres).expect_err("ddl is no mutation");
        assert_eq!(error.field, "writes.classes[1]");
        rules.classes = vec![QueryClass::MutationDelete];
        rules.max_affected_rows = Some(0);
        let error = WritePolicy::new(&rules, Dialect::Postgres).expect_err("zero rows");
        assert_eq!(error.field, "writes.max_affected_rows");
        rules.max_affected_rows = None;
        rules.tables = vec!["a..b".into()];
        let error = WritePolicy::new(&rules, Dialect::Postgres).expect_err("bad pattern");
        assert_eq!(error.field, "writes.tables[0]");
    }
}
