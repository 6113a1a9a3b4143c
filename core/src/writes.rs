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
    pub fn writable(&self, parts: &[String], default_schema: Option<&str>) -> bool {
        self.tables.iter().any(|p| p.matches(parts, default_schema))
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
