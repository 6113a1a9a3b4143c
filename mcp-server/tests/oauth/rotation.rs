//! Key rotation: a token signed with a key the server has not seen makes it reload the issuer's
//! keys (at most once per `jwks_reload_interval`, here 1 s); a reload replaces the set, so a
//! key the issuer dropped is refused after it.

use std::time::Duration;

use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use serde_json::json;

use crate::fixture::initialize_body;
use crate::issuer::{sign, Issuer};
use crate::{keys, serve};

async fn status(url: &str, token: &str) -> u16 {
    reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("Authorization", format!("Bearer {token}"))
        .json(&initialize_body())
        .send()
        .await
        .expect("send")
        .status()
        .as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_key_is_fetched_once_and_a_dropped_key_is_refused() {
    let issuer = Issuer::start(&[keys::RSA_JWK]).await;
    let (_server, url, _dir) = serve(&issuer);
    assert_eq!(issuer.fetches(), 1, "the keys are loaded at start");
    let claims = issuer.claims("u", "sql:read", json!({"roles": "support"}));
    let old = sign(&claims, "rsa-1", Algorithm::RS256);
    let new = sign(&claims, "rsa-2", Algorithm::RS256);
    let interval = Duration::from_millis(1100);

    // An unknown key: one reload, then no more within the interval, however many tokens.
    tokio::time::sleep(interval).await;
    for _ in 0..3 {
        assert_eq!(status(&url, &new).await, 401);
    }
    assert_eq!(issuer.fetches(), 2, "one reload per interval");
    assert_eq!(status(&url, &old).await, 200, "a known key needs no reload");
    assert_eq!(issuer.fetches(), 2);

    // The issuer publishes the new key: served after the next reload.
    issuer.publish(&[keys::RSA_JWK, keys::RSA2_JWK]);
    tokio::time::sleep(interval).await;
    assert_eq!(status(&url, &new).await, 200);
    assert_eq!(issuer.fetches(), 3);

    // The issuer drops the old key; the next reload (here for an unknown kid) drops it too.
    issuer.publish(&[keys::RSA2_JWK]);
    tokio::time::sleep(interval).await;
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some("rsa-3".into());
    let rsa = EncodingKey::from_rsa_pem(keys::RSA_PEM.as_bytes()).expect("rsa key");
    let unknown = encode(&header, &claims, &rsa).expect("sign");
    assert_eq!(status(&url, &unknown).await, 401);
    assert_eq!(issuer.fetches(), 4);
    assert_eq!(status(&url, &old).await, 401, "a dropped key is refused");
    assert_eq!(status(&url, &new).await, 200);
}
