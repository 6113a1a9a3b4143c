//! The `annotations` section of a policy: what tables and columns mean (display names,
//! descriptions, synonyms), the PII category and mask of a column, and declared relationships.
//! The format is fixed in `catalog-spec.md` (issue 30); validation against the dialect and the
//! catalog is [`Annotations::validate`].

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::pii::{check_category, MaskKind};
use super::PolicyError;
use crate::catalog::Catalog;
use crate::dialect::Dialect;
use crate::names::{Pattern, PatternPart};

/// Meaning for agents and PII tags, per table and column, and relationships between tables.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Annotations {
    /// Per table, keyed by the table's name as the policy writes tables elsewhere (`customer`
    /// or `public.customer`), folded and resolved like a `tables.allow` entry without wildcards.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tables: BTreeMap<String, TableAnnotation>,
    /// Declared relationships (foreign keys and the like).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relationships: Vec<Relationship>,
}

/// What one table means.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableAnnotation {
    /// A human name for the table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// What a row is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Other words people use for it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
    /// Per column, keyed by the column's name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub columns: BTreeMap<String, ColumnAnnotation>,
}

/// What one column means, and its PII category.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ColumnAnnotation {
    /// A human name for the column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// What the value is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Other words people use for it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
    /// The PII category: `EMAIL_ADDRESS`, `PHONE_NUMBER`, `PERSON`, `CREDIT_CARD`, `IBAN`,
    /// `IP_ADDRESS`, `LOCATION`, `DATE_OF_BIRTH`, `NATIONAL_ID` or any other UPPER_SNAKE_CASE
    /// word (custom). `pii.block` and `pii.mask` act on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pii: Option<String>,
    /// This column's masking, winning over `pii.mask` (a blocked category still refuses it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask: Option<MaskKind>,
}

/// A relationship between the columns of two tables.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Relationship {
    /// `table.column` or `schema.table.column`; a list for a composite key.
    pub from: ColumnRefs,
    /// The same shape as `from`, with as many columns.
    pub to: ColumnRefs,
    /// Seen from the `from` side.
    pub cardinality: Cardinality,
    /// What the relationship means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// One column reference, or a list of them (a composite key), all of one table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(
    untagged,
    expecting = "must be a column name or a list of column names"
)]
pub enum ColumnRefs {
    /// One column.
    One(String),
    /// The columns of a composite key, in order.
    Many(Vec<String>),
}

impl ColumnRefs {
    /// The references, in order.
    pub fn as_slice(&self) -> &[String] {
        match self {
            ColumnRefs::One(one) => std::slice::from_ref(one),
            ColumnRefs::Many(many) => many,
        }
    }
}

/// How many rows of one side relate to how many of the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Cardinality {
    /// One to one.
    OneToOne,
    /// One `from` row to many `to` rows.
    OneToMany,
    /// Many `from` rows to one `to` row (a foreign key, seen from the referencing side).
    ManyToOne,
    /// Many to many.
    ManyToMany,
}

/// A table key of `annotations.tables` parsed: folded name parts, no wildcard.
pub(crate) fn table_key(key: &str, dialect: Dialect, field: &str) -> Result<Pattern, PolicyError> {
    let pattern = Pattern::parse(key, dialect).map_err(|m| PolicyError::new(field, m))?;
    if pattern.parts.contains(&PatternPart::Any) || pattern.parts.len() > 2 {
        return Err(PolicyError::new(
            field,
            format!("`{key}` must name one table (`table` or `schema.table`), not a pattern"),
        ));
    }
    Ok(pattern)
}

/// A column key parsed: one folded name.
pub(crate) fn column_key(key: &str, dialect: Dialect, field: &str) -> Result<String, PolicyError> {
    match Pattern::parse(key, dialect).map(|p| p.parts) {
        Ok(parts) => match parts.as_slice() {
            [PatternPart::Exact(name)] => Ok(name.clone()),
            _ => Err(PolicyError::new(
                field,
                format!("`{key}` must be one column name"),
            )),
        },
        Err(m) => Err(PolicyError::new(field, m)),
    }
}

impl Annotations {
    /// True when it annotates nothing.
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty() && self.relationships.is_empty()
    }

    /// Checks names, categories and relationships; with a `catalog`, that every table and
    /// column named exists in it. Errors name the field.
    pub fn validate(&self, dialect: Dialect, catalog: Option<&Catalog>) -> Result<(), PolicyError> {
        for (key, table) in &self.tables {
            let field = format!("annotations.tables.{key}");
            let pattern = table_key(key, dialect, &field)?;
            let columns = match catalog {
                Some(c) => Some(catalog_columns(c, &pattern, dialect).ok_or_else(|| {
                    PolicyError::new(&field, format!("the catalog has no table `{key}`"))
                })?),
                None => None,
            };
            for (name, column) in &table.columns {
                let field = format!("{field}.columns.{name}");
                let folded = column_key(name, dialect, &field)?;
                if columns.as_ref().is_some_and(|cols| !cols.contains(&folded)) {
                    return Err(PolicyError::new(
                        &field,
                        format!("the catalog's `{key}` has no column `{name}`"),
                    ));
                }
                if let Some(category) = &column.pii {
                    check_category(category, &format!("{field}.pii"))?;
                }
            }
        }
        for (i, relationship) in self.relationships.iter().enumerate() {
            relationship.validate(dialect, catalog, &format!("annotations.relationships[{i}]"))?;
        }
        Ok(())
    }

    /// The annotated column `(table pattern, folded column, annotation)` triples.
    pub(crate) fn columns(
        &self,
        dialect: Dialect,
    ) -> Result<Vec<(Pattern, String, &ColumnAnnotation)>, PolicyError> {
        let mut out = Vec::new();
        for (key, table) in &self.tables {
            let field = format!("annotations.tables.{key}");
            let pattern = table_key(key, dialect, &field)?;
            for (name, column) in &table.columns {
                let folded = column_key(name, dialect, &format!("{field}.columns.{name}"))?;
                out.push((pattern.clone(), folded, column));
            }
        }
        Ok(out)
    }
}

impl Relationship {
    fn validate(
        &self,
        dialect: Dialect,
        catalog: Option<&Catalog>,
        field: &str,
    ) -> Result<(), PolicyError> {
        let from = self.from.as_slice();
        let to = self.to.as_slice();
        if from.is_empty() {
            return Err(PolicyError::new(format!("{field}.from"), "no column"));
        }
        if from.len() != to.len() {
            return Err(PolicyError::new(
                format!("{field}.to"),
                format!(
                    "{} columns for the {} of `from`: both sides name as many columns",
                    to.len(),
                    from.len()
                ),
            ));
        }
        for (side, refs) in [("from", from), ("to", to)] {
            let mut table: Option<Vec<PatternPart>> = None;
            for (i, text) in refs.iter().enumerate() {
                let field = match refs.len() {
                    1 => format!("{field}.{side}"),
                    _ => format!("{field}.{side}[{i}]"),
                };
                let (pattern, column) = column_ref(text, dialect, &field)?;
                if table.as_ref().is_some_and(|t| *t != pattern.parts) {
                    return Err(PolicyError::new(
                        &field,
                        "every column of one side must be of the same table",
                    ));
                }
                if let Some(c) = catalog {
                    match catalog_columns(c, &pattern, dialect) {
                        None => {
                            return Err(PolicyError::new(
                                &field,
                                format!("the catalog has no table for `{text}`"),
                            ))
                        }
                        Some(cols) if !cols.contains(&column) => {
                            return Err(PolicyError::new(
                                &field,
                                format!("the catalog's table has no column for `{text}`"),
                            ))
                        }
                        Some(_) => {}
                    }
                }
                table = Some(pattern.parts);
            }
        }
        Ok(())
    }
}

/// `table.column` or `schema.table.column`: the table's name and the folded column.
fn column_ref(text: &str, dialect: Dialect, field: &str) -> Result<(Pattern, String), PolicyError> {
    let mut pattern = Pattern::parse(text, dialect).map_err(|m| PolicyError::new(field, m))?;
    let shape = || {
        PolicyError::new(
            field,
            format!("`{text}` must be `table.column` or `schema.table.column`"),
        )
    };
    if !(2..=3).contains(&pattern.parts.len()) || pattern.parts.contains(&PatternPart::Any) {
        return Err(shape());
    }
    match pattern.parts.pop() {
        Some(PatternPart::Exact(column)) => Ok((pattern, column)),
        _ => Err(shape()),
    }
}

/// The folded columns of the catalog table `pattern` names (qualified: that schema's; not:
/// the only table of that name, or the one in the dialect's default schema).
pub(crate) fn catalog_columns(
    catalog: &Catalog,
    pattern: &Pattern,
    dialect: Dialect,
) -> Option<Vec<String>> {
    let fold = |s: &str| {
        if dialect.quoted_names_are_exact() {
            s.to_string()
        } else {
            s.to_lowercase()
        }
    };
    let default = dialect
        .default_schema()
        .map(|s| crate::names::fold_unquoted(s, dialect));
    let candidates: Vec<_> = catalog
        .tables
        .iter()
        .filter(|t| {
            let mut parts: Vec<String> = t.schema.iter().map(|s| fold(s)).collect();
            parts.push(fold(&t.name));
            pattern.matches_conservatively(&parts)
        })
        .collect();
    let table = match candidates.as_slice() {
        [] => return None,
        [one] => *one,
        many => many
            .iter()
            .find(|t| t.schema.as_deref().map(fold) == default)
            .copied()
            .unwrap_or(many[0]),
    };
    Some(table.columns.iter().map(|c| fold(&c.name)).collect())
}
