//! What verifying an OAuth access token costs, in one run beside a static token:
//! - the check alone: a static token's constant-time route lookup, and a JWT's verification
//!   with its key cached (RS256, ES256, EdDSA), median of many: a token's first call (its
//!   signature checked: a new token each time) and its next calls (the verified token kept);
//! - the signature alone with the server's provider (ring; RustCrypto for EdDSA) and with
//!   jsonwebtoken's RustCrypto backend;
//! - a whole call: `run_query` over streamable HTTP (a session, the plain client) on the embedded
//!   demo database with a static token and with a JWT (RS256), interleaved call by call; "added"
//!   is the median of the paired differences.
//!
//! ```sh
//! cargo run --release -p sqlgate-mcp --example auth_bench 2>/dev/null   # -- [ROUNDS]
//! ```

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use serde_json::json;
use sqlgate_mcp::app::demo::{demo_backend, demo_policy};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::gate::{Engine, EngineConfig};
use sqlgate_mcp::transport::auth::claims::ClaimRule;
use sqlgate_mcp::transport::auth::jwks::KeySource;
use sqlgate_mcp::transport::auth::jwt::{JwtVerifier, OAuthSettings};
use sqlgate_mcp::transport::auth::{bearer_of, route_for, token_digest};
use sqlgate_mcp::transport::http::{serve_http_routes, Credential, HttpOptions, HttpRoute};
use tokio_util::sync::CancellationToken;

// The tests' keys, of which this uses three.
#[allow(dead_code)]
#[path = "../tests/oauth/keys.rs"]
mod keys;
// Shared with the bench example, of which this one uses a part.
#[allow(dead_code)]
mod plain_client;
#[allow(dead_code)]
mod timing;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

type Error = Box<dyn std::error::Error + Send + Sync>;

const ISSUER: &str = "https://idp.example.test";
const RESOURCE: &str = "https://db.example.test/mcp";
const STATIC_TOKEN: &str = "bench-static-token-5b1e";

fn settings(jwks: &Path) -> OAuthSettings {
    OAuthSettings {
        issuer: ISSUER.into(),
        resource: RESOURCE.into(),
        keys: KeySource::File(jwks.to_path_buf()),
        algorithms: vec!["RS256".into(), "ES256".into(), "EdDSA".into()],
        required_scopes: vec!["sql:read".into()],
        write_scope: "sql:write".into(),
        leeway: Duration::from_secs(30),
        reload_interval: Duration::from_secs(60),
    }
}

fn token(kid: &str, alg: Algorithm) -> Result<String, Error> {
    token_for(kid, alg, "bench")
}

fn token_for(kid: &str, alg: Algorithm, sub: &str) -> Result<String, Error> {
    let key = match alg {
        Algorithm::RS256 => EncodingKey::from_rsa_pem(keys::RSA_PEM.as_bytes())?,
        Algorithm::ES256 => EncodingKey::from_ec_pem(keys::EC_PEM.as_bytes())?,
        _ => EncodingKey::from_ed_pem(keys::ED_PEM.as_bytes())?,
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_secs();
    let claims = json!({"iss": ISSUER, "aud": RESOURCE, "sub": sub, "scope": "sql:read",
        "iat": now, "exp": now + 3600});
    let mut header = Header::new(alg);
    header.kid = Some(kid.into());
    Ok(encode(&header, &claims, &key)?)
}

/// Median microseconds of `n` runs of `f`.
async fn micros<F: AsyncFnMut() -> Result<(), Error>>(n: usize, mut f: F) -> Result<f64, Error> {
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        f().await?;
        v.push(start.elapsed().as_secs_f64() * 1e6);
    }
    Ok(timing::median(&mut v))
}

async fn checks_alone(jwks: &Path) -> Result<(), Error> {
    let verifier = JwtVerifier::new(settings(jwks))?;
    verifier.load_keys().await?;
    let digests: Vec<[u8; 32]> = (0..8)
        .map(|i| token_digest(format!("{STATIC_TOKEN}-{i}").as_bytes()))
        .collect();
    let header = format!("Bearer {STATIC_TOKEN}-5");
    let n = 2000;
    let t = micros(n, async || {
        std::hint::black_box(route_for(bearer_of(Some(&header)), &digests));
        Ok(())
    })
    .await?;
    println!("| static token (8 principals) | {t:.2} |");
    for (kid, alg, name) in [
        ("rsa-1", Algorithm::RS256, "JWT RS256"),
        ("ec-1", Algorithm::ES256, "JWT ES256"),
        ("ed-1", Algorithm::EdDSA, "JWT EdDSA"),
    ] {
        // First calls: every token new, so every signature is checked.
        let fresh = (0..FIRST_CALLS)
            .map(|i| token_for(kid, alg, &format!("agent-{i}")))
            .collect::<Result<Vec<_>, _>>()?;
        let mut next = fresh.iter();
        let first = micros(FIRST_CALLS, async || {
            let jwt = next.next().ok_or("no token left")?;
            match verifier.verify(jwt).await {
                Ok(Ok(_)) => Ok(()),
                other => Err(format!("{name}: {other:?}").into()),
            }
        })
        .await?;
        let jwt = token(kid, alg)?;
        let again = micros(n, async || match verifier.verify(&jwt).await {
            Ok(Ok(_)) => Ok(()),
            other => Err(format!("{name}: {other:?}").into()),
        })
        .await?;
        println!("| {name}, key cached: a token's first call | {first:.2} |");
        println!("| {name}: its next calls (verified token kept) | {again:.2} |");
    }
    signatures_alone(jwks)?;
    Ok(())
}

/// Tokens verified for the first-call rows (each signed once, beforehand).
const FIRST_CALLS: usize = 300;

/// The signature alone, the server's provider (ring; EdDSA RustCrypto's) against
/// jsonwebtoken's RustCrypto one.
fn signatures_alone(jwks: &Path) -> Result<(), Error> {
    use jsonwebtoken::crypto::rust_crypto::DEFAULT_PROVIDER;
    use sqlgate_mcp::transport::auth::ring_crypto::RING_PROVIDER;
    let set: jsonwebtoken::jwk::JwkSet = serde_json::from_str(&std::fs::read_to_string(jwks)?)?;
    for (kid, alg) in [
        ("rsa-1", Algorithm::RS256),
        ("ec-1", Algorithm::ES256),
        ("ed-1", Algorithm::EdDSA),
    ] {
        let jwt = token(kid, alg)?;
        let (message, signature) = jwt.rsplit_once('.').ok_or("not a JWT")?;
        let signature =
            base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, signature)?;
        let jwk = set.find(kid).ok_or("no such kid")?;
        let key = jsonwebtoken::DecodingKey::from_jwk(jwk)?;
        let mut row = Vec::new();
        for provider in [&RING_PROVIDER, &DEFAULT_PROVIDER] {
            let verifier = (provider.verifier_factory)(&alg, &key)?;
            let mut v = Vec::with_capacity(FIRST_CALLS);
            for _ in 0..FIRST_CALLS {
                let start = Instant::now();
                verifier
                    .verify(message.as_bytes(), &signature)
                    .map_err(|e| format!("{alg:?}: {e}"))?;
                v.push(start.elapsed().as_secs_f64() * 1e6);
            }
            row.push(timing::median(&mut v));
        }
        println!(
            "| {alg:?} signature: server's provider / RustCrypto | {:.1} / {:.1} ({:.1}x) |",
            row[0],
            row[1],
            row[1] / row[0]
        );
    }
    Ok(())
}

async fn whole_calls(jwks: &Path, rounds: usize) -> Result<(), Error> {
    let backend = demo_backend(false)?;
    let engine = Arc::new(
        Engine::new(
            backend,
            EngineConfig::read_only(demo_policy(), Duration::from_secs(5)),
        )
        .await?,
    );
    let routes = vec![
        HttpRoute {
            credential: Credential::Token(STATIC_TOKEN.into()),
            engine: engine.clone(),
        },
        HttpRoute {
            credential: Credential::Claims(ClaimRule::default()),
            engine,
        },
    ];
    let opts = HttpOptions {
        addr: "127.0.0.1:0".into(),
        stateless: false,
        token: None,
        allowed_origins: Vec::new(),
        max_body_bytes: 1 << 20,
        oauth: Some(settings(jwks)),
        tls: None,
        connections: Default::default(),
    };
    let shutdown = CancellationToken::new();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let s = shutdown.clone();
    tokio::spawn(async move {
        if let Err(e) = serve_http_routes(routes, Audit::stderr(), opts, s, Some(tx)).await {
            eprintln!("auth_bench: {e}");
        }
    });
    let url = format!("http://{}/mcp", rx.await?);
    let jwt = token("rsa-1", Algorithm::RS256)?;
    let mut clients = [
        plain_client::PlainHttp::connect_with(&url, Some(STATIC_TOKEN)).await?,
        plain_client::PlainHttp::connect_with(&url, Some(&jwt)).await?,
    ];
    let sql = "SELECT id, status FROM orders WHERE id < 4";
    let samples = timing::interleaved(rounds / 10, rounds, 2, async |_, path| {
        clients[path].run_query(sql).await.map(|_| ())
    })
    .await?;
    let mut added: Vec<f64> = samples[1]
        .iter()
        .zip(&samples[0])
        .map(|(j, s)| (j - s) * 1e3)
        .collect();
    let (mut st, mut jw) = (samples[0].clone(), samples[1].clone());
    println!(
        "| run_query, static token | {:.1} |\n| run_query, JWT RS256 | {:.1} |\n| added by the JWT (paired) | {:.1} |",
        timing::median(&mut st) * 1e3,
        timing::median(&mut jw) * 1e3,
        timing::median(&mut added)
    );
    shutdown.cancel();
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2000);
    let dir = tempfile::tempdir()?;
    let jwks = dir.path().join("jwks.json");
    let keys: Vec<serde_json::Value> = [keys::RSA_JWK, keys::EC_JWK, keys::ED_JWK]
        .iter()
        .map(|k| serde_json::from_str(k))
        .collect::<Result<_, _>>()?;
    std::fs::write(&jwks, json!({ "keys": keys }).to_string())?;
    println!("| what | µs (median) |\n|---|---|");
    checks_alone(&jwks).await?;
    whole_calls(&jwks, rounds).await?;
    Ok(())
}
