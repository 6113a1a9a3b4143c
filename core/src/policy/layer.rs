//! A policy laid on top of another that can only narrow it (`Policy::narrowed_by`): what a
//! principal of the MCP server adds to the server's policy.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::*;

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
/// - `pii.block` added to the base's; `pii.mask` added for categories the base does not mask,
///   and for one it masks only the same mask or a stricter one (`redact`, `null`): a layer
///   cannot unblock or unmask;
/// - `dialect` must be the base's; `catalog` and `mysql_ansi_quotes` are the server's facts and
///   cannot be set, and `annotations` come from the base policy only.
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
    /// PII categories blocked and masked, added to the base's.
    #[serde(default, skip_serializing_if = "PiiRules::is_empty")]
    pub pii: PiiRules,
    /// Refused: annotations come from the base policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
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
        if layer.annotations.is_some() {
            return Err(PolicyError::new(
                "annotations",
                "annotations come from the base policy; a layer cannot set them",
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
        out.pii = self.narrowed_pii(&layer.pii)?;
        Ok(out)
    }

    /// The base's `pii` with the layer's blocks and masks added; a mask may not be replaced by
    /// a laxer one.
    fn narrowed_pii(&self, layer: &PiiRules) -> Result<PiiRules, PolicyError> {
        layer.validate()?;
        let mut out = self.pii.clone();
        add_missing(&mut out.block, &layer.block);
        for (category, &kind) in &layer.mask {
            match out.mask.get(category) {
                Some(&base)
                    if base != kind && !matches!(kind, MaskKind::Redact | MaskKind::Null) =>
                {
                    return Err(PolicyError::new(
                        format!("pii.mask.{category}"),
                        format!(
                            "the base policy masks {category} with `{}`: a layer may only keep \
                             it or replace it by `redact` or `null`",
                            base.as_str()
                        ),
                    ));
                }
                _ => {
                    out.mask.insert(category.clone(), kind);
                }
            }
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
#[path = "layer_tests.rs"]
mod tests;
