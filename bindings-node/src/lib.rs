//! # sqlgate for Node.js
//!
//! napi-rs bindings to the `sqlgate` core: a read-only SQL guard for AI agents. Every decision is
//! made by core; this crate converts types, forwards calls and maps errors.
//!
//! ```js
//! const { Guard } = require('sqlgate')
//! const guard = new Guard({ dialect: 'sqlite', maxRows: 100 })
//! const approved = guard.check('SELECT name FROM artist') // throws an Error with .code on refusal
//! db.prepare(approved.sql).all()                           // run approved.sql, never the input
//! ```

mod convert;
mod types;

use std::str::FromStr;
use std::sync::Arc;

use napi::bindgen_prelude::{AsyncTask, Unknown};
use napi::{Env, Error, Result, Task, ValueType};
use napi_derive::napi;

use convert::{Keys, OptionError};
pub use types::*;

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

/// Compiles a policy, or throws a `TypeError` naming the field at fault.
fn compile(
    env: &Env,
    what: &str,
    policy: std::result::Result<sqlgate::Policy, OptionError>,
    keys: Keys,
) -> Result<Guard> {
    let policy = policy.map_err(|e| convert::throw_type_error(env, what, e))?;
    match sqlgate::Guard::new(policy) {
        Ok(guard) => Ok(Guard {
            inner: Arc::new(guard),
        }),
        Err(e) => Err(convert::throw_type_error(
            env,
            what,
            OptionError {
                field: convert::spell_path(&e.field, keys),
                message: e.message,
            },
        )),
    }
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
    match json {
        serde_json::Value::Object(_) => convert::policy_from_json(json, keys),
        _ => Err(OptionError {
            field: String::from(match keys {
                Keys::Camel => "options",
                Keys::Snake => "policy",
            }),
            message: String::from("expected an object"),
        }),
    }
}

#[napi]
impl Guard {
    /// A guard for `options` (camelCase names; every field optional, defaults are the safe
    /// choice). Throws a `TypeError` naming the field when an option is unknown, mistyped or out
    /// of range; the error's `field` property holds the name.
    #[napi(
        constructor,
        ts_args_type = "options?: GuardOptions | undefined | null"
    )]
    pub fn new(env: Env, options: Option<Unknown>) -> Result<Self> {
        compile(
            &env,
            "option",
            read_policy(options, Keys::Camel),
            Keys::Camel,
        )
    }

    /// A guard for core's policy: a snake_case object or its JSON text, the same policy file the
    /// CLI, the Python package and the MCP server read. Throws a `TypeError` naming the field.
    #[napi(factory, ts_args_type = "policy: Policy | string")]
    pub fn from_policy(env: Env, policy: Unknown) -> Result<Self> {
        let read = match policy.get_type()? {
            ValueType::String => {
                let text = <String as napi::bindgen_prelude::FromNapiValue>::from_unknown(policy)?;
                serde_json::from_str::<serde_json::Value>(&text)
                    .map_err(|e| OptionError {
                        field: String::from("policy"),
                        message: format!("not valid JSON: {e}"),
                    })
                    .and_then(read_policy_json)
            }
            _ => read_policy(Some(policy), Keys::Snake),
        };
        compile(&env, "policy field", read, Keys::Snake)
    }

    /// Checks `sql`. Returns the approved query (execute its `sql`, never the submitted text), or
    /// throws an `Error` with the properties of {@link Rejection} (`code`, `stage`, `retryable`,
    /// `hint`, `location`, `queryClass`, `statementCount`) and the message `code: explanation`.
    #[napi]
    pub fn check(&self, env: Env, sql: String) -> Result<Approved> {
        match self.inner.check(&sql) {
            Ok(a) => Ok(convert::approved(a)),
            Err(r) => Err(convert::throw_rejection(&env, &r)),
        }
    }

    /// Like `check`, on the libuv thread pool: resolves to the approved query or rejects with the
    /// same `Error` that `check` throws.
    #[napi(ts_return_type = "Promise<Approved>")]
    pub fn check_async(&self, sql: String) -> AsyncTask<CheckTask> {
        AsyncTask::new(CheckTask {
            guard: Arc::clone(&self.inner),
            sql,
        })
    }

    /// The verdict for `sql` in DESIGN's JSON shape (snake_case keys, exactly core's JSON); never
    /// throws for a refusal.
    #[napi(ts_return_type = "Verdict")]
    pub fn verdict<'e>(&self, env: &'e Env, sql: String) -> Result<Unknown<'e>> {
        convert::json_parse(env, &self.inner.verdict(&sql).to_json())
    }

    /// The policy this guard enforces, as core's JSON (snake_case keys, defaults filled in).
    #[napi(getter, ts_return_type = "Policy")]
    pub fn policy<'e>(&self, env: &'e Env) -> Result<Unknown<'e>> {
        let text = serde_json::to_string(self.inner.policy())
            .map_err(|e| Error::from_reason(e.to_string()))?;
        convert::json_parse(env, &text)
    }
}

fn read_policy_json(json: serde_json::Value) -> std::result::Result<sqlgate::Policy, OptionError> {
    match json {
        serde_json::Value::Object(_) => convert::policy_from_json(json, Keys::Snake),
        _ => Err(OptionError {
            field: String::from("policy"),
            message: String::from("expected a JSON object"),
        }),
    }
}

/// `guard.checkAsync(sql)`: one check on the libuv thread pool.
pub struct CheckTask {
    guard: Arc<sqlgate::Guard>,
    sql: String,
}

impl Task for CheckTask {
    type Output = std::result::Result<sqlgate::Approved, sqlgate::Rejection>;
    type JsValue = Approved;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(self.guard.check(&self.sql))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
        match output {
            Ok(a) => Ok(convert::approved(a)),
            Err(r) => {
                let error = convert::rejection_error(&env, &r)?;
                Err(Error::from(napi::JsValue::to_unknown(&error)))
            }
        }
    }
}

/// The class of `sql` (the most privileged among its statements) in `dialect` (default
/// `postgres`), without checking it against a policy. Throws a `TypeError` for an unknown dialect.
#[napi(ts_args_type = "sql: string, dialect?: Dialect | undefined | null")]
pub fn classify(env: Env, sql: String, dialect: Option<String>) -> Result<QueryClass> {
    let dialect = match dialect {
        None => sqlgate::Dialect::default(),
        Some(name) => sqlgate::Dialect::from_str(&name).map_err(|message| {
            convert::throw_type_error(
                &env,
                "argument",
                OptionError {
                    field: String::from("dialect"),
                    message,
                },
            )
        })?,
    };
    Ok(convert::query_class(sqlgate::classify(&sql, dialect)))
}
