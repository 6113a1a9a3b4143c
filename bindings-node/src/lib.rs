//! # sqlgate for Node.js
//!
//! napi-rs bindings to the `sqlgate` core: a read-only SQL guard for AI agents. Every decision is
//! made by core; this crate forwards calls, passes core's values through serde and maps errors
//! (`error.rs`). The TypeScript types of those values are generated from core's JSON Schemas
//! (`scripts/gen-types.mjs` writes `types/generated.d.ts`); only the class and functions below are
//! declared by napi.
//!
//! ```js
//! const { Guard } = require('sqlgate')
//! const guard = new Guard({ dialect: 'sqlite', maxRows: 100 })
//! const approved = guard.check('SELECT name FROM artist') // throws an Error with .code on refusal
//! db.prepare(approved.sql).all()                           // run approved.sql, never the input
//! ```

mod catalog;
mod convert;
mod error;

use std::str::FromStr;
use std::sync::Arc;

use napi::bindgen_prelude::{AsyncTask, FromNapiValue, JsObjectValue, Object, Unknown};
use napi::{Env, Error, JsValue, Result, ScopedTask, ValueType};
use napi_derive::napi;

use convert::{Keys, OptionError};
use error::{Failure, OrThrow};

/// mimalloc, as in pydantic-core and most napi-rs addons: a check allocates hundreds of small
/// nodes, and glibc's malloc and free were a quarter of its instructions.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A compiled policy. Build it once and share it: checking holds no mutable state, and
/// `checkAsync` runs on the libuv thread pool.
#[napi]
pub struct Guard {
    inner: Arc<sqlgate::Guard>,
}

/// Compiles a policy, or names the field at fault (`what` says which kind of field).
fn compile(
    what: &'static str,
    policy: std::result::Result<sqlgate::Policy, OptionError>,
    keys: Keys,
) -> std::result::Result<Guard, Failure> {
    let invalid = |error| Failure::Invalid { what, error };
    let guard = sqlgate::Guard::new(policy.map_err(invalid)?).map_err(|e| {
        invalid(OptionError {
            field: convert::spell_path(&e.field, keys),
            message: e.message,
        })
    })?;
    Ok(Guard {
        inner: Arc::new(guard),
    })
}

/// Reads a JavaScript value (or nothing) into a core policy.
fn read_policy(
    value: Option<Unknown<'_>>,
    keys: Keys,
) -> std::result::Result<sqlgate::Policy, OptionError> {
    let json = match value {
        None => serde_json::Value::Object(serde_json::Map::new()),
        Some(v) => convert::js_to_json(v, keys, "", 0)?,
    };
    let field = match keys {
        Keys::Camel => "options",
        Keys::Snake => "policy",
    };
    policy_object(json, keys, field, "expected an object")
}

/// Reads a policy from JSON, which must be an object (else `field` is at fault: `expected`).
fn policy_object(
    json: serde_json::Value,
    keys: Keys,
    field: &str,
    expected: &str,
) -> std::result::Result<sqlgate::Policy, OptionError> {
    match json {
        serde_json::Value::Object(_) => convert::policy_from_json(json, keys),
        _ => Err(OptionError::new(field, expected)),
    }
}

/// What a check approved as its JavaScript value (`to_js`), or its refusal thrown as the `Error`
/// of `check`.
fn approved_or_throw<'e, T>(
    env: &'e Env,
    checked: std::result::Result<T, sqlgate::Rejection>,
    to_js: fn(&'e Env, &T) -> Result<Unknown<'e>>,
) -> Result<Unknown<'e>> {
    match checked {
        Ok(approved) => to_js(env, &approved),
        Err(rejection) => Err(Failure::Refused(rejection).throw(env)),
    }
}

#[napi]
impl Guard {
    /// A guard for `options` (core's policy with camelCase names; every field optional, defaults
    /// are the safe choice). Throws a `TypeError` naming the field when an option is unknown,
    /// mistyped or out of range; the error's `field` property holds the name.
    #[napi(
        constructor,
        ts_args_type = "options?: GuardOptions | undefined | null"
    )]
    pub fn new(env: Env, options: Option<Unknown>) -> Result<Self> {
        compile("option", read_policy(options, Keys::Camel), Keys::Camel).or_throw(&env)
    }

    /// A guard for core's policy: a snake_case object or its JSON text, the same policy file the
    /// CLI, the Python package and the MCP server read. Throws a `TypeError` naming the field.
    #[napi(factory, ts_args_type = "policy: Policy | string")]
    pub fn from_policy(env: Env, policy: Unknown) -> Result<Self> {
        let read = match policy.get_type()? {
            ValueType::String => {
                let text = <String as FromNapiValue>::from_unknown(policy)?;
                serde_json::from_str::<serde_json::Value>(&text)
                    .map_err(|e| OptionError::new("policy", format!("not valid JSON: {e}")))
                    .and_then(|json| {
                        policy_object(json, Keys::Snake, "policy", "expected a JSON object")
                    })
            }
            _ => read_policy(Some(policy), Keys::Snake),
        };
        compile("policy field", read, Keys::Snake).or_throw(&env)
    }

    /// Checks `sql`. Returns the approved query (execute its `sql`, never the submitted text), or
    /// throws an `Error` with the properties of {@link Rejection} (`code`, `stage`, `retryable`,
    /// `hint`, `location`, `queryClass`, `statementCount`) and the message `code: explanation`.
    /// `options.vars` binds the policy's row filter variables (`{ vars: { tenant: 42 } }`).
    #[napi(
        ts_args_type = "sql: string, options?: CheckOptions | undefined | null",
        ts_return_type = "Approved"
    )]
    pub fn check<'e>(
        &self,
        env: &'e Env,
        sql: String,
        options: Option<Unknown<'e>>,
    ) -> Result<Unknown<'e>> {
        let vars = check_vars(options).or_throw(env)?;
        approved_or_throw(env, self.inner.check_with(&sql, &vars), convert::approved)
    }

    /// Like `check` with another row cap than the policy's: `null` for no cap; `0` is refused
    /// (thrown as a `bad_request` refusal) as core refuses it. A tool that must tell "exactly N
    /// rows" from "cut at N" asks for `N + 1` here and returns at most `N` rows. Throws a
    /// `TypeError` when `maxRows` is not a non-negative integer or null.
    #[napi(
        ts_args_type = "sql: string, maxRows: number | null, options?: CheckOptions | undefined | null",
        ts_return_type = "Approved"
    )]
    pub fn check_with_row_cap<'e>(
        &self,
        env: &'e Env,
        sql: String,
        max_rows: Option<Unknown<'e>>,
        options: Option<Unknown<'e>>,
    ) -> Result<Unknown<'e>> {
        let max_rows = row_cap(max_rows).or_throw(env)?;
        let vars = check_vars(options).or_throw(env)?;
        let checked = self
            .inner
            .check_with_vars_and_row_cap(&sql, &vars, max_rows);
        approved_or_throw(env, checked, convert::approved)
    }

    /// Like `check`, on the libuv thread pool: resolves to the approved query or rejects with the
    /// same `Error` that `check` throws.
    #[napi(
        ts_args_type = "sql: string, options?: CheckOptions | undefined | null",
        ts_return_type = "Promise<Approved>"
    )]
    pub fn check_async(
        &self,
        env: Env,
        sql: String,
        options: Option<Unknown>,
    ) -> Result<AsyncTask<CheckTask>> {
        let vars = check_vars(options).or_throw(&env)?;
        Ok(AsyncTask::new(CheckTask {
            guard: Arc::clone(&self.inner),
            sql,
            vars,
        }))
    }

    /// The verdict for `sql` (ARCHITECTURE.md, "Verdict contract"): exactly core's JSON,
    /// snake_case keys in core's order; never throws for a refusal.
    #[napi(
        ts_args_type = "sql: string, options?: CheckOptions | undefined | null",
        ts_return_type = "Verdict"
    )]
    pub fn verdict<'e>(
        &self,
        env: &'e Env,
        sql: String,
        options: Option<Unknown<'e>>,
    ) -> Result<Unknown<'e>> {
        let vars = check_vars(options).or_throw(env)?;
        convert::json_parse(env, &self.inner.verdict_with(&sql, &vars).to_json())
    }

    /// Checks `sql` as one mutation (INSERT, UPDATE, DELETE or MERGE) under the policy's
    /// `writes`. Returns the approved mutation (execute its `sql`, never the submitted text), or
    /// throws the same `Error` as `check`. `check` still refuses every mutation.
    #[napi(
        ts_args_type = "sql: string, options?: CheckOptions | undefined | null",
        ts_return_type = "ApprovedMutation"
    )]
    pub fn check_mutation<'e>(
        &self,
        env: &'e Env,
        sql: String,
        options: Option<Unknown<'e>>,
    ) -> Result<Unknown<'e>> {
        let vars = check_vars(options).or_throw(env)?;
        let checked = self.inner.check_mutation_with(&sql, &vars);
        approved_or_throw(env, checked, convert::to_js_camel)
    }

    /// The mutation verdict for `sql`: exactly core's JSON, snake_case keys in core's order;
    /// never throws for a refusal.
    #[napi(
        ts_args_type = "sql: string, options?: CheckOptions | undefined | null",
        ts_return_type = "MutationVerdict"
    )]
    pub fn mutation_verdict<'e>(
        &self,
        env: &'e Env,
        sql: String,
        options: Option<Unknown<'e>>,
    ) -> Result<Unknown<'e>> {
        let vars = check_vars(options).or_throw(env)?;
        let verdict = self.inner.mutation_verdict_with(&sql, &vars);
        convert::json_parse(env, &verdict.to_json())
    }

    /// The variables the policy's row filters need (names without the `:`), sorted.
    #[napi(getter)]
    pub fn row_filter_variables(&self) -> Vec<String> {
        self.inner.row_filter_variables()
    }

    /// The policy this guard enforces, as core's JSON (snake_case keys, defaults filled in).
    #[napi(getter, ts_return_type = "Policy")]
    pub fn policy<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        let text = serde_json::to_string(self.inner.policy())
            .map_err(|e| Error::from_reason(e.to_string()))?;
        convert::json_parse(env, &text)
    }
}

/// The `options` argument of a check: `{ vars }`, the row filter variables (names to numbers,
/// strings, booleans or null). A `TypeError` names the field at fault (`options.vars.tenant`).
fn check_vars(options: Option<Unknown<'_>>) -> std::result::Result<sqlgate::Vars, Failure> {
    let invalid = Failure::argument;
    let Some(options) = options else {
        return Ok(sqlgate::Vars::new());
    };
    let json = convert::js_to_json(options, Keys::Snake, "options", 0).map_err(|error| {
        Failure::Invalid {
            what: "argument",
            error,
        }
    })?;
    let mut map = match json {
        serde_json::Value::Null => return Ok(sqlgate::Vars::new()),
        serde_json::Value::Object(map) => map,
        _ => return Err(invalid("options", "expected an object")),
    };
    let vars = map.remove("vars");
    if let Some(key) = map.keys().next() {
        return Err(invalid(
            &format!("options.{key}"),
            "unknown option (expected `vars`)",
        ));
    }
    match vars {
        None | Some(serde_json::Value::Null) => Ok(sqlgate::Vars::new()),
        Some(vars) => serde_path_to_error::deserialize::<_, sqlgate::Vars>(vars).map_err(|e| {
            invalid(
                &format!("options.vars.{}", e.path()),
                "expected a number, string, boolean or null",
            )
        }),
    }
}

/// A row cap argument: `null` / `undefined` for none, else a non-negative integer.
fn row_cap(value: Option<Unknown<'_>>) -> std::result::Result<Option<u64>, Failure> {
    let invalid = || Failure::argument("maxRows", convert::ROW_CAP_EXPECTED);
    let Some(value) = value else {
        return Ok(None);
    };
    match value.get_type().map_err(|_| invalid())? {
        ValueType::Null | ValueType::Undefined => Ok(None),
        ValueType::Number => {
            let n = <f64 as FromNapiValue>::from_unknown(value).map_err(|_| invalid())?;
            match serde_json::from_value::<u64>(convert::number_json(n).ok_or_else(invalid)?) {
                Ok(n) => Ok(Some(n)),
                Err(_) => Err(invalid()),
            }
        }
        _ => Err(invalid()),
    }
}

/// `guard.checkAsync(sql, options)`: one check on the libuv thread pool.
pub struct CheckTask {
    guard: Arc<sqlgate::Guard>,
    sql: String,
    vars: sqlgate::Vars,
}

impl<'task> ScopedTask<'task> for CheckTask {
    type Output = std::result::Result<sqlgate::Approved, sqlgate::Rejection>;
    type JsValue = Unknown<'task>;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(self.guard.check_with(&self.sql, &self.vars))
    }

    fn resolve(&mut self, env: &'task Env, output: Self::Output) -> Result<Self::JsValue> {
        match output {
            Ok(a) => convert::approved(env, &a),
            Err(r) => {
                let error = Failure::Refused(r).to_js(env)?;
                Err(Error::from(error.to_unknown()))
            }
        }
    }
}

/// The class of `sql` (the most privileged among its statements) in `dialect` (default
/// `postgres`), without checking it against a policy. Throws a `TypeError` for an unknown dialect.
#[napi(
    ts_args_type = "sql: string, dialect?: Dialect | undefined | null",
    ts_return_type = "QueryClass"
)]
pub fn classify(env: Env, sql: String, dialect: Option<String>) -> Result<&'static str> {
    let dialect = match dialect {
        None => sqlgate::Dialect::default(),
        Some(name) => sqlgate::Dialect::from_str(&name)
            .map_err(|message| Failure::argument("dialect", message))
            .or_throw(&env)?,
    };
    Ok(sqlgate::classify(&sql, dialect).as_str())
}

/// The tables and views of a better-sqlite3 `Database` with their columns (type, nullability),
/// primary keys and foreign keys, SQLite's internal tables left out: the `catalog` option of
/// `new Guard`. Throws a `TypeError` (field `db`) when `db` is not such a database.
#[napi(
    ts_args_type = "db: { prepare(sql: string): { all(...params: unknown[]): unknown[] } }",
    ts_return_type = "CatalogOptions"
)]
pub fn catalog_from_database<'e>(env: &'e Env, db: Unknown<'e>) -> Result<Unknown<'e>> {
    let read = match db.get_type()? {
        ValueType::Object => catalog::from_database(&Object::from_unknown(db)?),
        _ => Err(catalog::bad_db("expected a better-sqlite3 Database")),
    };
    catalog::to_js(env, &read.or_throw(env)?)
}

/// The JSON Schemas of core's policy, verdict, catalog, approved query, mutation verdict and
/// approved mutation (snake_case JSON, as core serialises them); `scripts/gen-types.mjs`
/// generates `types/generated.d.ts` from them.
#[napi(
    ts_return_type = "{ policy: object; verdict: object; catalog: object; approved: object; mutationVerdict: object; approvedMutation: object }"
)]
pub fn json_schemas() -> serde_json::Value {
    serde_json::json!({
        "policy": sqlgate::Policy::json_schema(),
        "verdict": sqlgate::Verdict::json_schema(),
        "catalog": sqlgate::Catalog::json_schema(),
        "approved": schemars::schema_for!(sqlgate::Approved).to_value(),
        "mutationVerdict": sqlgate::MutationVerdict::json_schema(),
        "approvedMutation": schemars::schema_for!(sqlgate::ApprovedMutation).to_value(),
    })
}

/// Exports core's lists of names (`ERROR_CODES`, `STAGES`, `QUERY_CLASSES`, `DIALECTS`,
/// `LIMIT_ACTIONS`, declared in `types/api.d.ts`), taken from each enum's `ALL` and `as_str`.
#[napi(module_exports)]
pub fn export_names(mut exports: Object) -> Result<()> {
    fn names<T: Copy>(all: &[T], name: fn(T) -> &'static str) -> Vec<&'static str> {
        all.iter().map(|&v| name(v)).collect()
    }
    exports.set_named_property(
        "ERROR_CODES",
        names(sqlgate::ErrorCode::ALL, sqlgate::ErrorCode::as_str),
    )?;
    exports.set_named_property("STAGES", names(sqlgate::Stage::ALL, sqlgate::Stage::as_str))?;
    exports.set_named_property(
        "QUERY_CLASSES",
        names(sqlgate::QueryClass::ALL, sqlgate::QueryClass::as_str),
    )?;
    exports.set_named_property(
        "DIALECTS",
        names(sqlgate::Dialect::ALL, sqlgate::Dialect::as_str),
    )?;
    exports.set_named_property(
        "LIMIT_ACTIONS",
        names(sqlgate::LimitAction::ALL, sqlgate::LimitAction::as_str),
    )?;
    Ok(())
}
