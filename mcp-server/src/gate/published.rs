//! What the operator publishes besides the built-in tools: parameterized queries (`[[queries]]`,
//! each its own MCP tool) and prompts (`[[prompts]]`). A query's SQL names its parameters
//! `:name`; the guard checks that text when the server starts (under every principal who sees
//! it) and again at every call, under the caller's policy, row filters and quota, exactly as
//! `run_query` does ([`Engine::run_checked`]); the values are bound by the driver
//! ([`crate::backend::params`]), never written into the SQL.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value};
use sqlgate::Vars;

use super::error::GateError;
use super::Engine;
use crate::backend::params::{ParamType, ParamValue, Params};

/// The queries and prompts of the settings file.
#[derive(Debug, Clone, Default)]
pub struct Published {
    /// `[[queries]]`.
    pub queries: Vec<PublishedQuery>,
    /// `[[prompts]]`.
    pub prompts: Vec<PromptDef>,
}

/// One `[[queries]]` entry: a vetted query published as a tool of its own.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedQuery {
    /// The tool's name (letters, digits, `_` and `-`; not a built-in tool's).
    pub name: String,
    /// What it answers, for the model.
    pub description: String,
    /// One read-only query; `:name` for each parameter.
    pub sql: String,
    /// Its parameters: name -> `{ type, description }`.
    #[serde(default)]
    pub params: BTreeMap<String, ParamSpec>,
    /// Row cap of this query (never above the policy's).
    pub max_rows: Option<u64>,
    /// The principals who see it; every one when absent.
    pub principals: Option<Vec<String>>,
}

/// One parameter of a published query.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamSpec {
    /// `string`, `integer`, `number` or `boolean`.
    #[serde(rename = "type")]
    pub ty: ParamType,
    /// What it means, for the model.
    pub description: Option<String>,
}

/// One `[[prompts]]` entry: a text the client may offer its user, `{argument}` filled in.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptDef {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// The text; `{name}` is replaced by the argument `name`.
    pub text: String,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Vec<PromptArgDef>,
}

/// One argument of a prompt.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptArgDef {
    /// Its name.
    pub name: String,
    /// What it means.
    pub description: Option<String>,
    /// Whether the prompt needs it.
    #[serde(default)]
    pub required: bool,
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
}

impl Published {
    /// Checks what needs no database: names (unique, not `reserved`, a tool name's characters),
    /// parameter names, and principals that exist (`principals`: `None` when the server has
    /// none).
    pub fn validate(
        &self,
        reserved: &[String],
        principals: Option<&[String]>,
    ) -> Result<(), String> {
        let mut seen = BTreeSet::new();
        for q in &self.queries {
            let what = format!("[[queries]] `{}`", q.name);
            if !valid_name(&q.name) {
                return Err(format!(
                    "{what}: a name is 1-64 letters, digits, `_` or `-`"
                ));
            }
            if reserved.contains(&q.name) || !seen.insert(q.name.as_str()) {
                return Err(format!("{what}: the name is already a tool's"));
            }
            if let Some(p) = q.params.keys().find(|p| !valid_name(p) || p.contains('-')) {
                return Err(format!(
                    "{what}: parameter `{p}`: a name is letters, digits and `_`"
                ));
            }
            if q.max_rows == Some(0) {
                return Err(format!("{what}: max_rows must be at least 1"));
            }
            for p in q.principals.iter().flatten() {
                if !principals.is_some_and(|known| known.contains(p)) {
                    return Err(format!("{what}: no principal `{p}`"));
                }
            }
        }
        let mut seen = BTreeSet::new();
        for p in &self.prompts {
            if !valid_name(&p.name) || !seen.insert(p.name.as_str()) {
                return Err(format!(
                    "[[prompts]] `{}`: a unique name of letters, digits, `_` or `-`",
                    p.name
                ));
            }
        }
        Ok(())
    }

    /// The query published as tool `name`.
    pub fn query(&self, name: &str) -> Option<&PublishedQuery> {
        self.queries.iter().find(|q| q.name == name)
    }
}

impl PublishedQuery {
    /// Whether `principal` (`None`: the server's own policy) sees it.
    pub fn visible_to(&self, principal: Option<&str>) -> bool {
        match (&self.principals, principal) {
            (None, _) => true,
            (Some(names), Some(p)) => names.iter().any(|n| n == p),
            (Some(_), None) => false,
        }
    }

    /// The call's arguments as typed values: every parameter given, of its type, and nothing
    /// else. A refusal is `bad_request`, naming the parameter.
    pub fn bind(&self, args: Option<&Map<String, Value>>) -> Result<Params, GateError> {
        let empty = Map::new();
        let args = args.unwrap_or(&empty);
        let hint = format!("call {} with {}", self.name, self.signature());
        if let Some(extra) = args.keys().find(|k| !self.params.contains_key(*k)) {
            let m = format!("`{extra}` is not a parameter of {}", self.name);
            return Err(GateError::bad_request(m, Some(&hint)));
        }
        let mut bound = Vec::with_capacity(self.params.len());
        for (name, spec) in &self.params {
            let Some(v) = args.get(name) else {
                let m = format!("the parameter `{name}` is missing");
                return Err(GateError::bad_request(m, Some(&hint)));
            };
            let value = match (spec.ty, v) {
                (ParamType::String, Value::String(s)) => Some(ParamValue::Text(s.clone())),
                (ParamType::Integer, Value::Number(n)) => n.as_i64().map(ParamValue::Int),
                (ParamType::Number, Value::Number(n)) => n.as_f64().map(ParamValue::Float),
                (ParamType::Boolean, Value::Bool(b)) => Some(ParamValue::Bool(*b)),
                _ => None,
            };
            let Some(value) = value else {
                let m = format!(
                    "the parameter `{name}` must be {} {}",
                    if spec.ty == ParamType::Integer {
                        "an"
                    } else {
                        "a"
                    },
                    spec.ty.json_type()
                );
                return Err(GateError::bad_request(m, Some(&hint)));
            };
            bound.push((name.clone(), value));
        }
        Ok(Params(bound))
    }

    /// `{a: integer, b: string}`, for hints.
    fn signature(&self) -> String {
        let parts: Vec<String> = self
            .params
            .iter()
            .map(|(n, s)| format!("{n}: {}", s.ty.json_type()))
            .collect();
        format!("{{{}}}", parts.join(", "))
    }

    /// The row cap of a call: the query's, never above the policy's.
    pub fn row_cap(&self, policy_cap: Option<u64>) -> Option<u64> {
        match (self.max_rows, policy_cap) {
            (Some(q), Some(p)) => Some(q.min(p)),
            (q, p) => q.or(p),
        }
    }
}

/// The approved SQL names exactly the parameters bound (fail closed: a placeholder without a
/// value, or a value without a placeholder, refuses before anything runs); else why not.
/// `found` is core's list of the approved SQL's placeholders (`Approved::parameters`: `:name`,
/// `?`, `$1`, ...).
pub fn same_parameters(found: &[String], params: &Params) -> Result<(), String> {
    if let Some(p) = found.iter().find(|p| !p.starts_with(':')) {
        let m = if p.starts_with('?') || p.starts_with('$') {
            format!("the query has a positional placeholder `{p}`: name each parameter `:name`")
        } else {
            format!("the query has a placeholder `{p}`: name each parameter `:name`")
        };
        return Err(m);
    }
    let found: BTreeSet<&str> = found.iter().map(|p| &p[1..]).collect();
    if found == params.names() {
        return Ok(());
    }
    let m = format!(
        "the query's placeholders ({}) are not its declared parameters ({})",
        list(&found),
        list(&params.names())
    );
    Err(m)
}

fn list(names: &BTreeSet<&str>) -> String {
    let v: Vec<String> = names.iter().map(|n| format!(":{n}")).collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

impl Engine {
    /// Publishes `published` to this engine's principal.
    pub fn set_published(&mut self, published: Arc<Published>) {
        self.published = published;
    }

    /// The queries and prompts published (to every principal; see
    /// [`PublishedQuery::visible_to`]).
    pub fn published(&self) -> &Published {
        &self.published
    }

    /// The guard's verdict on every query this principal sees, at start: a refusal names the
    /// query, the principal and the reason. `from_claims` stands for the variables its callers'
    /// tokens bind (a value of each one's type): their row filters are checked too.
    pub fn check_published(&self, from_claims: &Vars) -> Result<(), String> {
        let guard = self.guard();
        let mut vars = self.vars().clone();
        for (name, value) in from_claims.iter() {
            if vars.get(name).is_none() {
                vars.set(name, value.clone());
            }
        }
        let who = match self.principal() {
            Some(p) => format!(" (principal {p})"),
            None => String::new(),
        };
        for q in &self.published.queries {
            if !q.visible_to(self.principal()) {
                continue;
            }
            let cap = q.row_cap(self.row_cap());
            let approved = guard
                .check_with_vars_and_row_cap(&q.sql, &vars, cap)
                .map_err(|r| {
                    format!(
                        "published query `{}`{who} is refused: {}: {}",
                        q.name,
                        r.error.code.as_str(),
                        r.error.message
                    )
                })?;
            let declared = Params(
                q.params
                    .keys()
                    .map(|n| (n.clone(), ParamValue::Bool(false)))
                    .collect(),
            );
            same_parameters(&approved.parameters, &declared)
                .map_err(|e| format!("published query `{}`{who}: {}", q.name, e))?;
        }
        Ok(())
    }
}
