//! What a table means to the calling principal: the policy's annotations found for it and its
//! columns (merged with the database's comments, the policy winning), its columns' PII marks,
//! and its relationships (declared in the policy, plus the database's foreign keys).
//!
//! The core decides what is protected and masked (`Guard::column_protected`,
//! `Guard::column_mask`); the category of a column and the annotations of a table are looked up
//! here from the public `Policy` fields (the core has no accessor for them), matching names
//! case-insensitively: they describe, they do not decide.

use sqlgate::{Cardinality, Guard, Policy, Relationship, TableAnnotation};

use crate::backend::{ColumnDetail, TableDetail};
use crate::tools::read::schema_output::{
    ColumnDescription, Direction, RelationshipDescription, RelationshipSource, TableDescription,
};

/// A dotted name of the policy split into its parts, quotes removed (`"public"."Customer"` ->
/// `public`, `Customer`), as the core reads the policy's names (`sqlgate::split_dotted`); the
/// core refused a policy with a malformed one, so the text whole is only a fallback.
fn split_name(text: &str) -> Vec<String> {
    match sqlgate::split_dotted(text) {
        Ok(parts) => parts.into_iter().map(|(part, _)| part).collect(),
        Err(_) => vec![text.to_string()],
    }
}

/// True when two names are the same but for case.
pub(crate) fn same(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b) || a.to_lowercase() == b.to_lowercase()
}

/// True when the table name `parts` (`[table]` or `[schema, table]`) names `schema.name`.
fn names_table(parts: &[String], schema: Option<&str>, name: &str) -> bool {
    match parts {
        [table] => same(table, name),
        [s, table] => same(table, name) && schema.is_some_and(|sc| same(s, sc)),
        _ => false,
    }
}

/// The policy's annotation of table `schema.name`: a schema-qualified key before a bare one.
pub fn table_annotation<'a>(
    policy: &'a Policy,
    schema: Option<&str>,
    name: &str,
) -> Option<&'a TableAnnotation> {
    let keyed: Vec<(Vec<String>, &TableAnnotation)> = policy
        .annotations
        .tables
        .iter()
        .map(|(k, a)| (split_name(k), a))
        .filter(|(parts, _)| names_table(parts, schema, name))
        .collect();
    keyed
        .iter()
        .find(|(parts, _)| parts.len() == 2)
        .or_else(|| keyed.first())
        .map(|(_, a)| *a)
}

/// The policy's description if it has one, else the database's comment.
pub fn merged_description(policy: Option<&String>, comment: Option<&String>) -> Option<String> {
    policy.or(comment).cloned()
}

/// A table as `describe_table` shows it: annotations, PII marks, primary key ordinals and
/// relationships, for the principal whose guard is `guard`.
pub fn describe(guard: &Guard, t: &TableDetail) -> TableDescription {
    let policy = guard.policy();
    let annotation = table_annotation(policy, t.schema.as_deref(), &t.name);
    let parts: Vec<&str> = t
        .schema
        .iter()
        .map(String::as_str)
        .chain([t.name.as_str()])
        .collect();
    let columns = t
        .columns
        .iter()
        .map(|c| describe_column(guard, &parts, t, annotation, c))
        .collect();
    TableDescription {
        schema: t.schema.clone(),
        name: t.name.clone(),
        kind: t.kind.clone(),
        estimated_rows: t.estimated_rows,
        comment: t.comment.clone(),
        display_name: annotation.and_then(|a| a.display_name.clone()),
        description: merged_description(
            annotation.and_then(|a| a.description.as_ref()),
            t.comment.as_ref(),
        ),
        synonyms: annotation.map(|a| a.synonyms.clone()).unwrap_or_default(),
        columns,
        primary_key: t.primary_key.clone(),
        foreign_keys: t.foreign_keys.clone(),
        referenced_by: t.referenced_by.clone(),
        relationships: relationships(guard, t),
        row_filtered: t.row_filtered,
    }
}

fn describe_column(
    guard: &Guard,
    parts: &[&str],
    t: &TableDetail,
    table: Option<&TableAnnotation>,
    c: &ColumnDetail,
) -> ColumnDescription {
    let annotation = table.and_then(|a| {
        a.columns
            .iter()
            .find(|(k, _)| split_name(k).first().is_some_and(|n| same(n, &c.name)))
            .map(|(_, a)| a)
    });
    let pii = annotation.and_then(|a| a.pii.clone());
    let blocked = pii
        .as_ref()
        .is_some_and(|p| guard.policy().pii.block.contains(p));
    let ordinal = t
        .primary_key
        .iter()
        .position(|k| *k == c.name)
        .and_then(|i| u32::try_from(i + 1).ok());
    ColumnDescription {
        name: c.name.clone(),
        data_type: c.data_type.clone(),
        nullable: c.nullable,
        default: c.default.clone(),
        comment: c.comment.clone(),
        display_name: annotation.and_then(|a| a.display_name.clone()),
        description: merged_description(
            annotation.and_then(|a| a.description.as_ref()),
            c.comment.as_ref(),
        ),
        synonyms: annotation.map(|a| a.synonyms.clone()).unwrap_or_default(),
        primary_key_ordinal: ordinal,
        pii,
        mask: guard.column_mask(parts, &c.name),
        blocked,
        protected: c.protected,
    }
}

/// The cardinality seen from the other side.
fn reversed(c: Cardinality) -> Cardinality {
    match c {
        Cardinality::OneToMany => Cardinality::ManyToOne,
        Cardinality::ManyToOne => Cardinality::OneToMany,
        other => other,
    }
}

/// One side of a declared relationship: its table's name parts and its columns.
fn side(refs: &[String]) -> Option<(Vec<String>, Vec<String>)> {
    let mut table: Option<Vec<String>> = None;
    let mut columns = Vec::new();
    for r in refs {
        let mut parts = split_name(r);
        let column = parts.pop()?;
        if parts.is_empty() || table.as_ref().is_some_and(|t| *t != parts) {
            return None;
        }
        table = Some(parts);
        columns.push(column);
    }
    Some((table?, columns))
}

/// The policy's relationships touching `t` whose other table the principal may read.
fn declared(guard: &Guard, t: &TableDetail) -> Vec<RelationshipDescription> {
    let mut out = Vec::new();
    for r in &guard.policy().annotations.relationships {
        let (Some(from), Some(to)) = (side(r.from.as_slice()), side(r.to.as_slice())) else {
            continue;
        };
        for (direction, here, there) in [
            (Direction::Outgoing, &from, &to),
            (Direction::Incoming, &to, &from),
        ] {
            if !names_table(&here.0, t.schema.as_deref(), &t.name) {
                continue;
            }
            let other: Vec<&str> = there.0.iter().map(String::as_str).collect();
            if !guard.table_allowed(&other) {
                continue;
            }
            out.push(declared_one(r, direction, &here.1, there));
        }
    }
    out
}

fn declared_one(
    r: &Relationship,
    direction: Direction,
    columns: &[String],
    (table, other_columns): &(Vec<String>, Vec<String>),
) -> RelationshipDescription {
    let (other_schema, other_table) = match table.as_slice() {
        [s, t] => (Some(s.clone()), t.clone()),
        _ => (None, table.last().cloned().unwrap_or_default()),
    };
    RelationshipDescription {
        direction,
        cardinality: match direction {
            Direction::Outgoing => r.cardinality,
            Direction::Incoming => reversed(r.cardinality),
        },
        columns: columns.to_vec(),
        other_schema,
        other_table,
        other_columns: other_columns.clone(),
        source: RelationshipSource::Policy,
        description: r.description.clone(),
    }
}

/// True when `columns` are exactly the primary key of the table (the key is then one-to-one).
fn is_key(columns: &[String], key: &[String]) -> bool {
    !key.is_empty()
        && columns.len() == key.len()
        && columns.iter().all(|c| key.iter().any(|k| same(k, c)))
}

/// The database's foreign keys of `t` in both directions, as relationships.
fn foreign_keys(t: &TableDetail) -> Vec<RelationshipDescription> {
    let outgoing = t.foreign_keys.iter().map(|fk| RelationshipDescription {
        direction: Direction::Outgoing,
        cardinality: if is_key(&fk.columns, &t.primary_key) {
            Cardinality::OneToOne
        } else {
            Cardinality::ManyToOne
        },
        columns: fk.columns.clone(),
        other_schema: fk.referenced_schema.clone(),
        other_table: fk.referenced_table.clone(),
        other_columns: fk.referenced_columns.clone(),
        source: RelationshipSource::Database,
        description: None,
    });
    // The referencing table's own key is not known here: one-to-many, the usual case.
    let incoming = t.referenced_by.iter().map(|r| RelationshipDescription {
        direction: Direction::Incoming,
        cardinality: Cardinality::OneToMany,
        columns: r.referenced_columns.clone(),
        other_schema: r.schema.clone(),
        other_table: r.table.clone(),
        other_columns: r.columns.clone(),
        source: RelationshipSource::Database,
        description: None,
    });
    outgoing.chain(incoming).collect()
}

/// True when two relationships join the same columns (whichever side declared them).
fn same_columns(a: &RelationshipDescription, b: &RelationshipDescription) -> bool {
    let all =
        |x: &[String], y: &[String]| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q));
    same(&a.other_table, &b.other_table)
        && all(&a.columns, &b.columns)
        && all(&a.other_columns, &b.other_columns)
}

/// The declared relationships of `t`, then the database's foreign keys the policy does not
/// declare on the same columns.
fn relationships(guard: &Guard, t: &TableDetail) -> Vec<RelationshipDescription> {
    let mut out = declared(guard, t);
    for fk in foreign_keys(t) {
        if !out.iter().any(|d| same_columns(d, &fk)) {
            out.push(fk);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_with_quotes() {
        assert_eq!(split_name("public.customer"), ["public", "customer"]);
        assert_eq!(split_name("\"My.Schema\".\"T\""), ["My.Schema", "T"]);
        assert_eq!(
            split_name("invoice.customer_id"),
            ["invoice", "customer_id"]
        );
    }

    #[test]
    fn a_qualified_key_names_only_its_schema() {
        let key = split_name("sales.customer");
        assert!(names_table(&key, Some("SALES"), "Customer"));
        assert!(!names_table(&key, Some("public"), "customer"));
        assert!(!names_table(&key, None, "customer"));
        assert!(names_table(
            &split_name("customer"),
            Some("public"),
            "customer"
        ));
    }

    #[test]
    fn cardinality_is_reversed_from_the_other_side() {
        assert_eq!(reversed(Cardinality::ManyToOne), Cardinality::OneToMany);
        assert_eq!(reversed(Cardinality::OneToOne), Cardinality::OneToOne);
    }
}
