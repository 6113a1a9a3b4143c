//! The policy: what a guard allows. A serde type (JSON or TOML) whose defaults are the safe choice.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::catalog::Catalog;
use crate::class::QueryClass;
use crate::dialect::Dialect;
use crate::names::{Pattern, PatternPart};

/// Default for [`Policy::max_rows`].
pub const DEFAULT_MAX_ROWS: u64 = 1000;
/// Default for [`Policy::max_sql_bytes`].
pub const DEFAULT_MAX_SQL_BYTES: usize = 262_144;
/// Default for [`Policy::max_depth`].
pub const DEFAULT_MAX_DEPTH: usize = 64;
/// Default for [`Policy::max_tokens`]: keeps any check under about 75 ms on an idle 2-core machine
/// with the system allocator (40 ms with mimalloc). The costliest shapes, long `UNION ALL` chains,
/// cost up to 4.7 µs per token; a 16 000-token query is about 45 KiB of `IN (...)` list.
pub const DEFAULT_MAX_TOKENS: usize = 16_000;

/// Extra functions on top of the dialect's built-in list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FunctionRules {
    /// Names (optionally schema-qualified) allowed in addition to the dialect's list.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Names refused even when the dialect's list allows them.
    #[serde(default)]
    pub deny: Vec<String>,
}

/// Which tables may be read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableRules {
    /// Patterns such as `public.*`, `sales.orders` or `*`. Empty means every user table.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Patterns refused even when `allow` matches; checked after `allow`.
    #[serde(default)]
    pub deny: Vec<String>,
}

/// Which columns are protected.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ColumnRules {
    /// `table.column`, `schema.table.column` or `*.column`: refused wherever referenced.
    #[serde(default)]
    pub deny: Vec<String>,
}

/// Which mutations [`crate::Guard::check_mutation`] may approve. Absent from a policy (the
/// default), every mutation is refused: the guard is read-only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteRules {
    /// Patterns, as in `tables.allow`, of the tables a mutation may modify; nothing else may be.
    /// `tables.deny` still wins.
    pub tables: Vec<String>,
    /// The mutation classes allowed: `mutation_create` (INSERT, UPDATE, MERGE without DELETE) and
    /// `mutation_delete` (DELETE, MERGE with a DELETE action).
    #[serde(default = "default_write_classes")]
    pub classes: Vec<QueryClass>,
    /// The most rows one mutation may change, for front ends that preview it (the MCP server
    /// runs it in a rolled-back transaction first); `null` (or `"none"`) for no bound.
    #[serde(
        default = "default_max_affected_rows",
        deserialize_with = "max_rows_from"
    )]
    #[schemars(with = "Option<RowCap>")]
    pub max_affected_rows: Option<u64>,
    /// Allow UPDATE / DELETE without a WHERE clause (or with one that names no column).
    #[serde(default)]
    pub allow_unbounded: bool,
}

/// Default for [`WriteRules::max_affected_rows`].
pub const DEFAULT_MAX_AFFECTED_ROWS: u64 = 100;

fn default_write_classes() -> Vec<QueryClass> {
    vec![QueryClass::MutationCreate]
}

fn default_max_affected_rows() -> Option<u64> {
    Some(DEFAULT_MAX_AFFECTED_ROWS)
}

impl WriteRules {
    /// Rules that let mutations of `classes` modify the tables matching `tables`, with the
    /// defaults for the rest.
    pub fn new(tables: &[&str], classes: &[QueryClass]) -> WriteRules {
        WriteRules {
            tables: tables.iter().map(|t| t.to_string()).collect(),
            classes: classes.to_vec(),
            max_affected_rows: default_max_affected_rows(),
            allow_unbounded: false,
        }
    }
}

/// What a [`crate::Guard`] allows. Every field is optional; defaults are the safe choice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// SQL dialect to parse and fold names with.
    #[serde(default)]
    pub dialect: Dialect,
    /// Row cap on the outermost query; `null` (or `"none"`, for TOML, which has no null) for none.
    #[serde(default = "default_max_rows", deserialize_with = "max_rows_from")]
    #[schemars(with = "Option<RowCap>")]
    pub max_rows: Option<u64>,
    /// Larger input is refused before parsing.
    #[serde(default = "default_max_sql_bytes")]
    pub max_sql_bytes: usize,
    /// Parser recursion limit; deeper input is refused.
    #[serde(default = "default_max_depth")]
    pub max_depth: usize,
    /// Input with more tokens (whitespace aside, comments included) is refused before parsing:
    /// the bound on a check's work, as `max_sql_bytes` is on its input.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: usize,
    /// Allow `EXPLAIN` (never `EXPLAIN ANALYZE`) of an allowed query.
    #[serde(default)]
    pub allow_explain: bool,
    /// Allow system catalogs (`pg_catalog`, `information_schema`, `sqlite_master`, ...).
    #[serde(default)]
    pub allow_system_catalogs: bool,
    /// Extra allowed / denied functions.
    #[serde(default)]
    pub functions: FunctionRules,
    /// Allowed / denied tables.
    #[serde(default)]
    pub tables: TableRules,
    /// Protected columns.
    #[serde(default)]
    pub columns: ColumnRules,
    /// Tables and columns that exist, when the caller knows them (enables hints and `*` expansion).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog: Option<Catalog>,
    /// MySQL / MariaDB only: whether the server runs with `ANSI_QUOTES` in its `sql_mode`.
    /// `None` (unknown, the default): `"x"` could be a string or a name, so double-quoted tokens
    /// are refused. `false`: `"x"` is a string. `true`: `"x"` is a name, which sqlgate's MySQL
    /// parser would read as a string, so double-quoted tokens are refused too (use backticks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mysql_ansi_quotes: Option<bool>,
    /// Mutations [`crate::Guard::check_mutation`] may approve; absent: none (read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writes: Option<WriteRules>,
    /// Row filters: one predicate per table, applied to every read of the table (see
    /// [`crate::RowFilterRules`]); absent: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<crate::RowFilterRules>,
}

/// How a row cap may be written: a number, or the word `none` (TOML has no null).
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum RowCap {
    /// At most this many rows.
    Rows(u64),
    /// No cap.
    Word(NoCap),
}

/// The word `none`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum NoCap {
    None,
}

fn max_rows_from<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(match Option::<RowCap>::deserialize(d)? {
        Some(RowCap::Rows(n)) => Some(n),
        Some(RowCap::Word(NoCap::None)) | None => None,
    })
}

fn default_max_rows() -> Option<u64> {
    Some(DEFAULT_MAX_ROWS)
}
fn default_max_sql_bytes() -> usize {
    DEFAULT_MAX_SQL_BYTES
}
fn default_max_depth() -> usize {
    DEFAULT_MAX_DEPTH
}
fn default_max_tokens() -> usize {
    DEFAULT_MAX_TOKENS
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            dialect: Dialect::default(),
            max_rows: default_max_rows(),
            max_sql_bytes: DEFAULT_MAX_SQL_BYTES,
            max_depth: DEFAULT_MAX_DEPTH,
            max_tokens: DEFAULT_MAX_TOKENS,
            allow_explain: false,
            allow_system_catalogs: false,
            functions: FunctionRules::default(),
            tables: TableRules::default(),
            columns: ColumnRules::default(),
            catalog: None,
            mysql_ansi_quotes: None,
            writes: None,
            rows: None,
        }
    }
}

/// A policy that cannot be used, naming the field at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid policy: {field}: {message}")]
pub struct PolicyError {
    /// The field at fault, e.g. `tables.allow[2]`.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl PolicyError {
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        PolicyError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl Policy {
    /// A default policy for `dialect`.
    pub fn for_dialect(dialect: Dialect) -> Self {
        Policy {
            dialect,
            ..Policy::default()
        }
    }

    /// Parses a policy from JSON.
    pub fn from_json(text: &str) -> Result<Policy, PolicyError> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." {
                "policy".to_string()
            } else {
                path
            };
            PolicyError::new(field, e.into_inner().to_string())
        })
    }

    /// The JSON Schema of the policy.
    pub fn json_schema() -> serde_json::Value {
        serde_json::to_value(schemars::schema_for!(Policy)).unwrap_or_default()
    }
}

/// A policy laid on top of another that can only narrow it: what a principal of the MCP server
/// (one API key) adds to the server's policy. Every field is optional; an absent field keeps the
/// base policy's value. [`Policy::narrowed_by`] applies it, and refuses (naming the field)
/// anything that would widen the base:
///
/// - `max_rows`, `max_sql_bytes`, `max_depth`, `max_tokens`: at most the base's (a base without a
///   row cap takes the layer's);
/// - `allow_explain`, `allow_system_catalogs`: may turn them off, not on;
/// - `tables.allow`: each pattern must lie within one of the base's (`public.orders` within
///   `public.*` or `*`); the layer's list then replaces the base's, so a table must be allowed by
///   both. `tables.deny`, `columns.deny`, `functions.deny`: added to the base's;
///   `functions.allow`: only names the base already allows extra;
/// - `writes`: only where the base has `writes`; `tables` within the base's (same number of
///   parts), `classes` a subset, `max_affected_rows` at most the base's, `allow_unbounded` only
///   if the base allows it;
/// - `rows`: filters are added; a table filtered by both gets both predicates (`AND`). When the
///   layer adds filters, only the views it lists in `trusted_views` stay readable (and those must
///   be trusted by the base too, if the base has filters): a view reads its tables unfiltered;
/// - `dialect` must be the base's; `catalog` and `mysql_ansi_quotes` are the server's facts and
///   cannot be set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicyLayer {
    /// Must be the base's dialect when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect: Option<Dialect>,
    /// A lower row cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rows: Option<u64>,
    /// A lower input size cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_sql_bytes: Option<usize>,
    /// A lower parser depth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<usize>,
    /// A lower token cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<usize>,
    /// `false` turns EXPLAIN off; `true` only where the base allows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_explain: Option<bool>,
    /// `false` turns system catalogs off; `true` only where the base allows them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_system_catalogs: Option<bool>,
    /// Denied functions added; `allow` only names the base allows already.
    #[serde(default)]
    pub functions: FunctionRules,
    /// `allow` within the base's, `deny` added.
    #[serde(default)]
    pub tables: TableRules,
    /// Protected columns added.
    #[serde(default)]
    pub columns: ColumnRules,
    /// Narrower write rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writes: Option<WriteLayer>,
    /// Row filters added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<crate::RowFilterRules>,
    /// Refused: the base's catalog is the database's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog: Option<Catalog>,
    /// Refused: a fact about the server, not a permission.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mysql_ansi_quotes: Option<bool>,
}

/// The `writes` of a [`PolicyLayer`]: every field optional, each at most the base's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteLayer {
    /// Patterns within the base's `writes.tables`; replaces them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables: Option<Vec<String>>,
    /// A subset of the base's classes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classes: Option<Vec<QueryClass>>,
    /// At most the base's bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_affected_rows: Option<u64>,
    /// `true` only where the base allows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_unbounded: Option<bool>,
}

/// True when every name `inner` matches, `outer` matches too (patterns aligned on the right; a
/// shorter `outer` is looser). `exact_length`: the patterns must have as many parts (write
/// patterns, where a missing schema means the default schema, not any).
fn pattern_within(inner: &Pattern, outer: &Pattern, exact_length: bool) -> bool {
    if outer.parts.len() > inner.parts.len()
        || (exact_length && outer.parts.len() != inner.parts.len())
    {
        return false;
    }
    outer
        .parts
        .iter()
        .rev()
        .zip(inner.parts.iter().rev())
        .all(|(o, i)| match (o, i) {
            (PatternPart::Any, _) => true,
            (PatternPart::Exact(o), PatternPart::Exact(i)) => o == i,
            (PatternPart::Exact(_), PatternPart::Any) => false,
        })
}

/// Checks that each pattern of `inner` lies within one of `outer` (an empty `outer` with
/// `empty_is_everything` allows all). `field` names the list, e.g. `tables.allow`.
fn patterns_within(
    inner: &[String],
    outer: &[String],
    empty_is_everything: bool,
    exact_length: bool,
    dialect: Dialect,
    field: &str,
) -> Result<(), PolicyError> {
    if outer.is_empty() && empty_is_everything {
        return Ok(());
    }
    let outer: Vec<Pattern> = outer
        .iter()
        .filter_map(|p| Pattern::parse(p, dialect).ok())
        .collect();
    for (i, text) in inner.iter().enumerate() {
        let field = format!("{field}[{i}]");
        let p = Pattern::parse(text, dialect).map_err(|m| PolicyError::new(&field, m))?;
        if !outer.iter().any(|o| pattern_within(&p, o, exact_length)) {
            return Err(PolicyError::new(
                field,
                format!(
                    "`{text}` is not within the base policy's patterns: a layer may only narrow"
                ),
            ));
        }
    }
    Ok(())
}

/// `base` lowered to `layer`, or an error when `layer` is higher.
fn lower<T: PartialOrd + Copy + std::fmt::Display>(
    base: T,
    layer: Option<T>,
    field: &str,
) -> Result<T, PolicyError> {
    match layer {
        Some(l) if l > base => Err(PolicyError::new(
            field,
            format!("{l} is above the base policy's {base}: a layer may only lower it"),
        )),
        Some(l) => Ok(l),
        None => Ok(base),
    }
}

/// `base` turned off by `layer`, or an error when `layer` turns it on.
fn switch_off(base: bool, layer: Option<bool>, field: &str) -> Result<bool, PolicyError> {
    match layer {
        Some(true) if !base => Err(PolicyError::new(
            field,
            "the base policy has it off: a layer may only turn it off",
        )),
        Some(l) => Ok(l),
        None => Ok(base),
    }
}

fn add_missing(to: &mut Vec<String>, more: &[String]) {
    for m in more {
        if !to.contains(m) {
            to.push(m.clone());
        }
    }
}

impl Policy {
    /// This policy narrowed by `layer` (the rules are on [`PolicyLayer`]); an error names the
    /// layer's field that would widen it. The result is not compiled: build a `Guard` from it.
    pub fn narrowed_by(&self, layer: &PolicyLayer) -> Result<Policy, PolicyError> {
        let mut out = self.clone();
        let dialect = self.dialect;
        if let Some(d) = layer.dialect {
            if d != dialect {
                return Err(PolicyError::new(
                    "dialect",
                    format!(
                        "`{}` is not the base policy's dialect `{}`",
                        d.as_str(),
                        dialect.as_str()
                    ),
                ));
            }
        }
        if layer.catalog.is_some() {
            return Err(PolicyError::new(
                "catalog",
                "the catalog is read from the database; a layer cannot set it",
            ));
        }
        if layer.mysql_ansi_quotes.is_some() {
            return Err(PolicyError::new(
                "mysql_ansi_quotes",
                "a fact about the server, set in the base policy only",
            ));
        }
        out.max_rows = match (self.max_rows, layer.max_rows) {
            (None, l) => l,
            (Some(b), l) => Some(lower(b, l, "max_rows")?),
        };
        out.max_sql_bytes = lower(self.max_sql_bytes, layer.max_sql_bytes, "max_sql_bytes")?;
        out.max_depth = lower(self.max_depth, layer.max_depth, "max_depth")?;
        out.max_tokens = lower(self.max_tokens, layer.max_tokens, "max_tokens")?;
        out.allow_explain = switch_off(self.allow_explain, layer.allow_explain, "allow_explain")?;
        out.allow_system_catalogs = switch_off(
            self.allow_system_catalogs,
            layer.allow_system_catalogs,
            "allow_system_catalogs",
        )?;
        for (i, f) in layer.functions.allow.iter().enumerate() {
            if !self.functions.allow.contains(f) {
                return Err(PolicyError::new(
                    format!("functions.allow[{i}]"),
                    format!(
                        "`{f}` is not allowed by the base policy's functions.allow: a layer may \
                         only deny more"
                    ),
                ));
            }
        }
        add_missing(&mut out.functions.deny, &layer.functions.deny);
        if !layer.tables.allow.is_empty() {
            patterns_within(
                &layer.tables.allow,
                &self.tables.allow,
                true,
                false,
                dialect,
                "tables.allow",
            )?;
            out.tables.allow = layer.tables.allow.clone();
        }
        add_missing(&mut out.tables.deny, &layer.tables.deny);
        add_missing(&mut out.columns.deny, &layer.columns.deny);
        if let Some(w) = &layer.writes {
            out.writes = Some(self.narrowed_writes(w)?);
        }
        if let Some(rows) = &layer.rows {
            out.rows = Some(self.narrowed_rows(rows)?);
        }
        Ok(out)
    }

    fn narrowed_writes(&self, layer: &WriteLayer) -> Result<WriteRules, PolicyError> {
        let Some(base) = &self.writes else {
            return Err(PolicyError::new(
                "writes",
                "the base policy has no `writes`: a layer cannot allow mutations",
            ));
        };
        let mut out = base.clone();
        if let Some(tables) = &layer.tables {
            patterns_within(
                tables,
                &base.tables,
                false,
                true,
                self.dialect,
                "writes.tables",
            )?;
            out.tables = tables.clone();
        }
        if let Some(classes) = &layer.classes {
            for (i, c) in classes.iter().enumerate() {
                if !base.classes.contains(c) {
                    return Err(PolicyError::new(
                        format!("writes.classes[{i}]"),
                        format!("`{}` is not among the base policy's classes", c.as_str()),
                    ));
                }
            }
            out.classes = classes.clone();
        }
        out.max_affected_rows = match (base.max_affected_rows, layer.max_affected_rows) {
            (None, l) => l,
            (Some(b), l) => Some(lower(b, l, "writes.max_affected_rows")?),
        };
        out.allow_unbounded = switch_off(
            base.allow_unbounded,
            layer.allow_unbounded,
            "writes.allow_unbounded",
        )?;
        Ok(out)
    }

    fn narrowed_rows(
        &self,
        layer: &crate::RowFilterRules,
    ) -> Result<crate::RowFilterRules, PolicyError> {
        let dialect = self.dialect;
        let mut out = self.rows.clone().unwrap_or_default();
        let base_has_filters = !out.filters.is_empty();
        for (key, predicate) in &layer.filters {
            let field = format!("rows.{key}");
            let parsed = Pattern::parse(key, dialect).map_err(|m| PolicyError::new(&field, m))?;
            let mut same = None;
            for base_key in out.filters.keys() {
                let Ok(b) = Pattern::parse(base_key, dialect) else {
                    continue;
                };
                if b == parsed {
                    same = Some(base_key.clone());
                } else if b.parts.last() == parsed.parts.last() {
                    return Err(PolicyError::new(
                        &field,
                        format!(
                            "the base policy filters `{base_key}`: name the table the same way \
                             to add a predicate to it"
                        ),
                    ));
                }
            }
            match same.and_then(|k| out.filters.get_mut(&k)) {
                Some(base_predicate) => {
                    *base_predicate = format!("({base_predicate}) AND ({predicate})");
                }
                None => {
                    out.filters.insert(key.clone(), predicate.clone());
                }
            }
        }
        if !layer.filters.is_empty() || !layer.trusted_views.is_empty() {
            if base_has_filters {
                for (i, v) in layer.trusted_views.iter().enumerate() {
                    if !out.trusted_views.contains(v) {
                        return Err(PolicyError::new(
                            format!("rows.trusted_views[{i}]"),
                            format!(
                                "`{v}` is not trusted by the base policy: a layer may only \
                                 trust fewer views"
                            ),
                        ));
                    }
                }
            }
            // A view reads its tables without the layer's filters: only the layer's own list.
            if !layer.filters.is_empty() || base_has_filters {
                out.trusted_views = layer.trusted_views.clone();
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Policy {
        toml::from_str(
            r#"
            dialect = "postgres"
            max_rows = 100
            [tables]
            allow = ["public.*"]
            deny = ["secrets"]
            [columns]
            deny = ["customer.phone"]
            [writes]
            tables = ["public.invoice"]
            classes = ["mutation_create"]
            max_affected_rows = 10
            [rows]
            invoice = "customer_id > 0"
            "#,
        )
        .expect("base policy")
    }

    fn layer(text: &str) -> PolicyLayer {
        toml::from_str(text).expect("layer")
    }

    fn refused(text: &str) -> String {
        match base().narrowed_by(&layer(text)) {
            Ok(p) => panic!("{text} widened nothing? {p:?}"),
            Err(e) => e.field,
        }
    }

    #[test]
    fn a_layer_narrows() {
        let p = base()
            .narrowed_by(&layer(
                r#"
                max_rows = 5
                [tables]
                allow = ["public.invoice", "public.customer", "public.invoice_line"]
                deny = ["employee"]
                [columns]
                deny = ["customer.email"]
                [writes]
                max_affected_rows = 3
                [rows]
                invoice = "customer_id = :tenant"
                invoice_line = "invoice_id IN (SELECT invoice_id FROM invoice)"
                "#,
            ))
            .expect("narrower");
        assert_eq!(p.max_rows, Some(5));
        assert_eq!(p.tables.allow.len(), 3);
        assert_eq!(p.tables.deny, vec!["secrets", "employee"]);
        assert_eq!(p.columns.deny, vec!["customer.phone", "customer.email"]);
        let w = p.writes.clone().expect("writes");
        assert_eq!(
            (w.tables.clone(), w.max_affected_rows),
            (vec!["public.invoice".to_string()], Some(3))
        );
        let rows = p.rows.clone().expect("rows");
        assert_eq!(
            rows.filters.get("invoice").map(String::as_str),
            Some("(customer_id > 0) AND (customer_id = :tenant)")
        );
        assert!(rows.filters.contains_key("invoice_line"));
        let guard = crate::Guard::new(p).expect("compiles");
        assert_eq!(guard.row_filter_variables(), vec!["tenant".to_string()]);
        // An empty layer changes nothing.
        assert_eq!(base().narrowed_by(&PolicyLayer::default()), Ok(base()));
    }

    #[test]
    fn a_layer_cannot_widen() {
        assert_eq!(refused("max_rows = 101"), "max_rows");
        assert_eq!(refused("max_sql_bytes = 300000"), "max_sql_bytes");
        assert_eq!(refused("allow_explain = true"), "allow_explain");
        assert_eq!(
            refused("allow_system_catalogs = true"),
            "allow_system_catalogs"
        );
        assert_eq!(refused("dialect = \"mysql\""), "dialect");
        assert_eq!(refused("mysql_ansi_quotes = true"), "mysql_ansi_quotes");
        assert_eq!(
            refused("functions = { allow = [\"pg_read_file\"] }"),
            "functions.allow[0]"
        );
        for wider in ["*", "sales.*", "*.invoice", "other.invoice", "invoice"] {
            let text = format!("tables = {{ allow = [\"public.customer\", \"{wider}\"] }}");
            assert_eq!(refused(&text), "tables.allow[1]", "{wider}");
        }
        assert_eq!(
            refused("writes = { tables = [\"public.customer\"] }"),
            "writes.tables[0]"
        );
        assert_eq!(
            refused("writes = { tables = [\"invoice\"] }"),
            "writes.tables[0]"
        );
        assert_eq!(
            refused("writes = { classes = [\"mutation_delete\"] }"),
            "writes.classes[0]"
        );
        assert_eq!(
            refused("writes = { max_affected_rows = 11 }"),
            "writes.max_affected_rows"
        );
        assert_eq!(
            refused("writes = { allow_unbounded = true }"),
            "writes.allow_unbounded"
        );
        assert_eq!(
            refused("rows = { trusted_views = [\"invoice_summary\"] }"),
            "rows.trusted_views[0]"
        );
        assert_eq!(
            refused("rows = { \"public.invoice\" = \"true\" }"),
            "rows.public.invoice"
        );
        // No writes in the base: none in a layer.
        let read_only = Policy::for_dialect(Dialect::Postgres);
        let e = read_only.narrowed_by(&layer("writes = { tables = [\"invoice\"] }"));
        assert_eq!(e.err().map(|e| e.field), Some("writes".to_string()));
        // Unknown fields are refused, not ignored.
        assert!(toml::from_str::<PolicyLayer>("max_rowz = 1").is_err());
    }

    #[test]
    fn a_layer_with_filters_trusts_only_its_own_views() {
        let mut b = Policy::for_dialect(Dialect::Postgres);
        b.max_rows = None;
        let p = b
            .narrowed_by(&layer(
                "max_rows = 7\nrows = { invoice = \"customer_id = 1\" }",
            ))
            .expect("narrower");
        assert_eq!(p.max_rows, Some(7));
        let mut trusting = base();
        if let Some(r) = trusting.rows.as_mut() {
            r.trusted_views = vec!["invoice_summary".into()];
        }
        let p = trusting
            .narrowed_by(&layer("rows = { customer = \"customer_id = 1\" }"))
            .expect("narrower");
        assert!(p.rows.expect("rows").trusted_views.is_empty());
    }
}
