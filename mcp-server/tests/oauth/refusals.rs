//! Every token that must not be served, refused before rmcp sees the request: with `401` and
//! `WWW-Authenticate: Bearer ... resource_metadata="..."` (no token, or one this server does not
//! accept, and why), `403 insufficient_scope` naming the scope, or `403` when no principal serves
//! the claims or they cannot bind its variables. And the metadata a client finds from the `401`.

use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use serde_json::{json, Value};

use crate::fixture::initialize_body;
use crate::issuer::{forge, now, sign, Issuer, RESOURCE};
use crate::{keys, serve};

/// POSTs `initialize` with `token` as its bearer token: the status, `WWW-Authenticate`, body.
async fn post(url: &str, token: Option<&str>) -> (u16, String, Value) {
    let mut r = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .json(&initialize_body());
    if let Some(t) = token {
        r = r.header("Authorization", format!("Bearer {t}"));
    }
    let r = r.send().await.expect("send");
    let status = r.status().as_u16();
    let www = r
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let body = r.json::<Value>().await.unwrap_or(Value::Null);
    (status, www, body)
}

const METADATA: &str =
    "resource_metadata=\"https://db.example.test/.well-known/oauth-protected-resource/mcp\"";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_expired_misdirected_and_under_scoped_tokens_are_refused() {
    let issuer = Issuer::start(&[keys::RSA_JWK, keys::EC_JWK]).await;
    let (_server, url, _dir) = serve(&issuer);

    // No token: 401, and where to learn how to get one.
    let (status, www, _) = post(&url, None).await;
    assert_eq!(status, 401);
    assert_eq!(www, format!("Bearer {METADATA}"));

    let good = issuer.claims("u", "sql:read", json!({"org_role": "analyst", "org_id": 1}));
    let (status, _, _) = post(&url, Some(&rsa(&good))).await;
    assert_eq!(status, 200, "the valid token is served");

    for (why, token, says) in invalid_tokens(&good) {
        let (status, www, body) = post(&url, Some(&token)).await;
        assert_eq!(status, 401, "{why}: {body}");
        assert!(
            www.starts_with("Bearer error=\"invalid_token\""),
            "{why}: {www}"
        );
        assert!(www.ends_with(METADATA), "{why}: {www}");
        let description = body["error_description"].as_str().unwrap_or_default();
        assert!(description.contains(says), "{why}: {description}");
    }

    // Valid, but without the scope every call needs.
    let (status, www, body) =
        post(&url, Some(&rsa(&with(&good, json!({"scope": "profile"}))))).await;
    assert_eq!(status, 403, "{body}");
    assert!(
        www.contains("error=\"insufficient_scope\", scope=\"sql:read\""),
        "{www}"
    );

    // Valid, but no principal serves these claims, or they cannot bind its tenant.
    for (why, changes, says) in [
        (
            "no principal",
            json!({"org_role": "intern"}),
            "no principal",
        ),
        ("no tenant claim", json!({"org_id": null}), "org_id"),
        (
            "tenant as a string",
            json!({"org_id": "1"}),
            "a string, not an integer",
        ),
        ("tenant as a list", json!({"org_id": [1, 2]}), "an array"),
    ] {
        let (status, _, body) = post(&url, Some(&rsa(&with(&good, changes)))).await;
        assert_eq!(status, 403, "{why}: {body}");
        let description = body["error_description"].as_str().unwrap_or_default();
        assert!(description.contains(says), "{why}: {description}");
    }
}

/// `claims` signed with `rsa-1` (RS256).
fn rsa(claims: &Value) -> String {
    sign(claims, "rsa-1", Algorithm::RS256)
}

/// `claims` with `changes` applied (`null` removes a claim).
fn with(claims: &Value, changes: Value) -> Value {
    let mut c = claims.clone();
    if let (Some(c), Some(changes)) = (c.as_object_mut(), changes.as_object()) {
        for (k, v) in changes {
            match v {
                Value::Null => c.remove(k),
                v => c.insert(k.clone(), v.clone()),
            };
        }
    }
    c
}

/// Tokens that must get `401 invalid_token`: why, the token, and what the reason must say.
fn invalid_tokens(good: &Value) -> Vec<(&'static str, String, &'static str)> {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let mut parts: Vec<String> = rsa(good).split('.').map(str::to_string).collect();
    let mut claims: Value =
        serde_json::from_slice(&b64.decode(&parts[1]).expect("payload")).expect("claims");
    claims["org_id"] = json!(2);
    parts[1] = b64.encode(claims.to_string());
    let tampered = parts.join(".");
    let with_header = |alg: Algorithm, kid: &str, key: &EncodingKey| {
        let mut header = Header::new(alg);
        header.kid = Some(kid.into());
        encode(&header, good, key).expect("sign")
    };
    let rsa_key = EncodingKey::from_rsa_pem(keys::RSA_PEM.as_bytes()).expect("rsa key");
    let ec_key = EncodingKey::from_ec_pem(keys::EC_PEM.as_bytes()).expect("ec key");
    // HS256 keyed with the RSA key's public JWK: the classic algorithm confusion.
    let public_as_secret = EncodingKey::from_secret(keys::RSA_JWK.as_bytes());
    vec![
        (
            "expired",
            rsa(&with(good, json!({"exp": now() - 3600}))),
            "expired",
        ),
        (
            "not yet valid",
            rsa(&with(good, json!({"nbf": now() + 3600}))),
            "not valid yet",
        ),
        (
            "another issuer",
            rsa(&with(good, json!({"iss": "https://evil.example"}))),
            "another issuer",
        ),
        (
            "another audience",
            rsa(&with(good, json!({"aud": "https://other.example/mcp"}))),
            "aud",
        ),
        ("no audience", rsa(&with(good, json!({"aud": null}))), "aud"),
        ("no expiry", rsa(&with(good, json!({"exp": null}))), "exp"),
        ("tampered payload", tampered, "signature"),
        (
            "alg none",
            forge(
                &json!({"alg": "none", "typ": "JWT", "kid": "rsa-1"}),
                good,
                b"",
            ),
            "not a JWT",
        ),
        (
            "HS256 with the public key",
            with_header(Algorithm::HS256, "rsa-1", &public_as_secret),
            "not accepted",
        ),
        (
            "EC key passed off as the RSA key",
            with_header(Algorithm::ES256, "rsa-1", &ec_key),
            "rsa-1",
        ),
        (
            "unknown kid",
            with_header(Algorithm::RS256, "nobody", &rsa_key),
            "nobody",
        ),
        (
            "a key the issuer does not publish",
            sign(good, "rsa-2", Algorithm::RS256),
            "rsa-2",
        ),
        ("not a JWT", "abc.def".to_string(), "not a JWT"),
        (
            "a critical header extension, validly signed",
            critical(good, &rsa_key),
            "critical",
        ),
    ]
}

/// A token signed with the issuer's RSA key whose header marks an extension critical (RFC
/// 7515 4.1.11: a recipient that does not understand it must refuse the token).
fn critical(claims: &Value, key: &EncodingKey) -> String {
    use base64::Engine as _;
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let ext = "https://example.invalid/must-understand";
    let header = json!({"alg": "RS256", "typ": "JWT", "kid": "rsa-1", "crit": [ext], ext: true});
    let unsigned = format!(
        "{}.{}",
        b64(header.to_string().as_bytes()),
        b64(claims.to_string().as_bytes())
    );
    let signature =
        jsonwebtoken::crypto::sign(unsigned.as_bytes(), key, Algorithm::RS256).expect("sign");
    format!("{unsigned}.{signature}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metadata_names_the_issuer_and_the_scopes() {
    let issuer = Issuer::start(&[keys::RSA_JWK]).await;
    let (_server, url, _dir) = serve(&issuer);
    let base = url.trim_end_matches("/mcp");
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let doc: Value = reqwest::get(format!("{base}{path}"))
            .await
            .expect("get")
            .json()
            .await
            .expect("json");
        assert_eq!(doc["resource"], RESOURCE, "{doc}");
        assert_eq!(doc["authorization_servers"], json!([issuer.url]), "{doc}");
        assert_eq!(
            doc["scopes_supported"],
            json!(["sql:read", "sql:write"]),
            "{doc}"
        );
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]), "{doc}");
    }
}
