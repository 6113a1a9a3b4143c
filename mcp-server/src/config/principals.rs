//! Principals: the `[[principals]]` of the settings file resolved into who may call, with which
//! token, policy layer, variables and mode; and which one stdio serves (`--principal`).

use std::path::Path;

use sqlgate::{PolicyLayer, Vars};

use super::error::ConfigError;
use super::file::{literal_vars, PrincipalFile, VarSetting};
use super::values::load_policy_layer;
use crate::codes::Mode;
use crate::gate::quota::QuotaLimits;
use crate::transport::auth::claims::{ClaimRule, ClaimVar};
use crate::transport::identify::Credential;

/// The principal name the `--auth-token-env` token gets when principals are configured.
pub const DEFAULT_PRINCIPAL: &str = "default";

/// A principal, resolved: what serves a request that carries its token.
#[derive(Debug, Clone)]
pub struct Principal {
    /// Its name.
    pub name: String,
    /// How its requests prove who they are (HTTP): its bearer token, or the claims of a
    /// verified JWT; `Credential::None` over stdio, where nothing is read.
    pub credential: Credential,
    /// Row filter variables (those given as values; a `Credential::Claims` binds the rest per
    /// call).
    pub vars: Vars,
    /// What it adds to the server's policy (`None`: the server's policy as is).
    pub layer: Option<PolicyLayer>,
    /// Its mode (already checked to be at most the server's).
    pub mode: Mode,
    /// Its quota.
    pub quota: QuotaLimits,
}

/// Reads a bearer token from the environment variable `var`; `what` names the setting.
pub fn read_token(var: &str, what: &str) -> Result<String, ConfigError> {
    match std::env::var(var) {
        Ok(t) if !t.trim().is_empty() => Ok(t.trim().to_string()),
        _ => Err(ConfigError(format!(
            "{what} {var}: the variable is not set or empty"
        ))),
    }
}

/// Resolves `[[principals]]`: names, tokens (HTTP only), policy layers and modes; and which of
/// them stdio serves (`--principal`). Errors name the principal and the field.
#[allow(clippy::too_many_arguments)]
pub fn resolve_principals(
    entries: &[PrincipalFile],
    base_dir: &Path,
    server_mode: Mode,
    http: bool,
    chosen: Option<&str>,
    auth_token_env: Option<&str>,
    allow_unauthenticated: bool,
    server_vars: Vars,
    server_quota: QuotaLimits,
) -> Result<Vec<Principal>, ConfigError> {
    if entries.is_empty() {
        return match chosen {
            Some(name) => Err(ConfigError(format!(
                "--principal {name}: the config file has no [[principals]]"
            ))),
            None => Ok(Vec::new()),
        };
    }
    if http && chosen.is_some() {
        return Err(ConfigError(
            "--principal is for stdio; over HTTP each request's bearer token selects its principal"
                .into(),
        ));
    }
    if http && allow_unauthenticated {
        return Err(ConfigError(
            "--allow-unauthenticated cannot serve [[principals]]: each principal is chosen by its \
             bearer token"
                .into(),
        ));
    }
    let mut out: Vec<Principal> = Vec::new();
    for (i, p) in entries.iter().enumerate() {
        let principal = resolve_entry(i, p, &out, base_dir, server_mode, http)?;
        out.push(principal);
    }
    if http {
        if let Some(var) = auth_token_env {
            out.push(Principal {
                name: DEFAULT_PRINCIPAL.to_string(),
                credential: Credential::Token(read_token(var, "--auth-token-env")?),
                vars: server_vars,
                layer: None,
                mode: server_mode,
                quota: server_quota,
            });
        }
        for (i, a) in out.iter().enumerate() {
            let Credential::Token(token) = &a.credential else {
                continue;
            };
            let same = |b: &&Principal| matches!(&b.credential, Credential::Token(t) if t == token);
            if let Some(b) = out[..i].iter().find(same) {
                return Err(ConfigError(format!(
                    "principals `{}` and `{}` have the same token: each needs its own",
                    b.name, a.name
                )));
            }
        }
        return Ok(out);
    }
    let Some(name) = chosen else {
        let names: Vec<&str> = out.iter().map(|p| p.name.as_str()).collect();
        return Err(ConfigError(format!(
            "the config file has [[principals]]; over stdio pass --principal NAME ({})",
            names.join(", ")
        )));
    };
    match out.into_iter().find(|p| p.name == name) {
        Some(p) => match p.credential {
            Credential::Claims(rule) if !rule.vars.is_empty() => Err(ConfigError(format!(
                "--principal {name}: its variables come from the claims of an access token, \
                 which stdio does not carry; serve it over HTTP with [oauth]"
            ))),
            _ => Ok(vec![Principal {
                credential: Credential::None,
                ..p
            }]),
        },
        None => Err(ConfigError(format!(
            "--principal {name}: no such principal in the config file"
        ))),
    }
}

/// One `[[principals]]` entry (`principals[i]`), checked against those before it (`taken`).
fn resolve_entry(
    i: usize,
    p: &PrincipalFile,
    taken: &[Principal],
    base_dir: &Path,
    server_mode: Mode,
    http: bool,
) -> Result<Principal, ConfigError> {
    let at = |field: &str| format!("principal `{}` (principals[{i}]): {field}", p.name);
    let name = p.name.trim();
    if name.is_empty() || name.chars().any(|c| c.is_control()) {
        return Err(ConfigError(format!(
            "principals[{i}]: name must be a non-empty name"
        )));
    }
    if name == DEFAULT_PRINCIPAL {
        return Err(ConfigError(format!(
            "{}: `{DEFAULT_PRINCIPAL}` is reserved for the --auth-token-env token",
            at("name")
        )));
    }
    if taken.iter().any(|o| o.name == name) {
        return Err(ConfigError(format!(
            "{}: two principals are named `{name}`",
            at("name")
        )));
    }
    let layer = match (&p.policy, &p.policy_file) {
        (Some(_), Some(_)) => {
            return Err(ConfigError(format!(
                "{}: give `policy` or `policy_file`, not both",
                at("policy")
            )))
        }
        (Some(l), None) => Some(l.clone()),
        (None, Some(f)) => Some(
            load_policy_layer(&base_dir.join(f))
                .map_err(|e| ConfigError(format!("{}: {e}", at("policy_file"))))?,
        ),
        (None, None) => None,
    };
    let mode = p.mode.unwrap_or(server_mode);
    if mode.rank() > server_mode.rank() {
        return Err(ConfigError(format!(
            "{}: `{}` is above the server's mode `{}`; a principal may only narrow",
            at("mode"),
            mode.as_str(),
            server_mode.as_str()
        )));
    }
    let rule = claim_rule(p, &at)?;
    let credential = match (&p.token_env, rule, &p.client_cert) {
        (None, None, None) => {
            return Err(ConfigError(format!(
                "{}: give `token_env` (a static token), `match` (claims of an [oauth] token) or `client_cert` (a client certificate's names)",
                at("token_env")
            )))
        }
        (Some(var), None, None) if http => Credential::Token(read_token(var, &at("token_env"))?),
        (Some(_), None, None) => Credential::None,
        (None, Some(rule), None) => Credential::Claims(rule),
        (None, None, Some(rule)) if rule.is_empty() => {
            return Err(ConfigError(format!(
                "{}: name the certificate by `cn`, `san` or `subject`",
                at("client_cert")
            )))
        }
        (None, None, Some(_)) if !http => Credential::None,
        (None, None, Some(rule)) => Credential::ClientCert(rule.clone()),
        _ => {
            return Err(ConfigError(format!(
                "{}: give one of `token_env`, `match` and `client_cert`",
                at("token_env")
            )))
        }
    };
    Ok(Principal {
        name: name.to_string(),
        credential,
        vars: literal_vars(&p.vars),
        layer,
        mode,
        quota: p.quota.unwrap_or_default(),
    })
}

/// The principal's `match` and the variables it takes from claims; `None` without `match`
/// (variables from claims then refused: nothing would bind them).
fn claim_rule(
    p: &PrincipalFile,
    at: &dyn Fn(&str) -> String,
) -> Result<Option<ClaimRule>, ConfigError> {
    let vars: Vec<ClaimVar> = p
        .vars
        .iter()
        .filter_map(|(name, v)| match v {
            VarSetting::Claim(c) => Some(ClaimVar {
                var: name.clone(),
                claim: c.claim.clone(),
                ty: c.ty,
            }),
            VarSetting::Value(_) => None,
        })
        .collect();
    let Some(matches) = &p.claims_match else {
        if let Some(v) = vars.first() {
            return Err(ConfigError(format!(
                "{}: `{}` comes from the claim `{}`, which only a principal with `match` has",
                at("vars"),
                v.var,
                v.claim
            )));
        }
        return Ok(None);
    };
    Ok(Some(ClaimRule {
        matches: matches
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        vars,
    }))
}
