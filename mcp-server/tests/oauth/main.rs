//! OAuth 2.1 access tokens (`[oauth]`): the server started with a config file against a
//! stand-in issuer on loopback ([`issuer`]), with test-only keys ([`keys`]). A verified token's
//! claims choose the principal and bind its row-filter variables, each tenant sees only its
//! rows, the audit names the token's issuer, subject and client, scopes narrow the tools
//! (`serving`); every forged, expired, misdirected or under-scoped token is refused with the
//! status and `WWW-Authenticate` the specs ask for, and the protected resource metadata points
//! to the issuer (`refusals`); keys rotate (`rotation`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;
// Shared with the principals tests, of which this target uses a part.
#[allow(dead_code)]
#[path = "../principals/fixture.rs"]
mod fixture;
mod issuer;
mod keys;
mod readme;
mod refusals;
mod rotation;
mod serving;

use std::path::Path;

/// Two principals on the demo database, chosen by claims: `analyst` tokens (any tenant) see
/// the orders of the customer their `org_id` names; `support` tokens see every order but no
/// products. Writes (the demo's `orders`) need `sql:write`.
pub fn config(issuer: &str, audit: &Path) -> String {
    format!(
        r#"
demo = true
mode = "full_access"
audit_file = "{audit}"

[oauth]
issuer = "{issuer}"
resource = "{resource}"
jwks_reload_interval = "1s"

[[principals]]
name = "analyst"
match = {{ org_role = "analyst" }}
vars = {{ tenant = {{ claim = "org_id", type = "integer" }} }}
policy = {{ rows = {{ orders = "customer_id = :tenant" }} }}

[[principals]]
name = "support"
match = {{ roles = "support" }}
policy = {{ tables = {{ deny = ["products"] }} }}
"#,
        audit = audit.display(),
        resource = issuer::RESOURCE,
    )
}

/// The server started on `config` (HTTP on a free loopback port): the child and `/mcp`'s URL.
pub fn start(dir: &Path, config: &str) -> (std::process::Child, String) {
    let path = fixture::write_config(dir, config);
    fixture::start_http(&path, &[], &[])
}

/// The server on [`config`] for `issuer`, its audit file in a temporary folder: the server
/// (stopped when dropped), `/mcp`'s URL, and the folder (`audit.jsonl` in it).
pub fn serve(issuer: &issuer::Issuer) -> (Server, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (child, url) = start(
        dir.path(),
        &config(&issuer.url, &dir.path().join("audit.jsonl")),
    );
    (Server(child), url, dir)
}

pub use fixture::Server;
