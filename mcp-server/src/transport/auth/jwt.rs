//! OAuth 2.1 access tokens as JWTs, verified as a resource server: the signature with the
//! issuer's key ([`super::jwks`]) under an asymmetric algorithm this server accepts, then `iss`,
//! `aud` (this server's resource URL, RFC 8707), `exp` / `nbf` with a small leeway, and the
//! scopes every call needs.

use std::time::Duration;

use jsonwebtoken::{decode, decode_header, Algorithm, Validation};
use serde_json::{Map, Value};

use super::bearer::token_digest;
use super::jwks::{KeyCache, KeyError, KeySource};
use super::verified::VerifiedTokens;

/// The algorithms accepted when the settings name none.
pub const DEFAULT_ALGORITHMS: &[&str] = &["RS256", "PS256", "ES256", "EdDSA"];
/// The scope every call needs when the settings name none.
pub const DEFAULT_READ_SCOPE: &str = "sql:read";
/// The scope `run_mutation` needs besides, when the settings name none.
pub const DEFAULT_WRITE_SCOPE: &str = "sql:write";
/// Clock skew allowed on `exp` and `nbf` when the settings name none.
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);
/// A longer bearer token is refused unread.
const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// How access tokens are verified (`[oauth]` in the settings file).
#[derive(Debug, Clone, PartialEq)]
pub struct OAuthSettings {
    /// The issuer (`iss`); discovery starts there.
    pub issuer: String,
    /// This server's resource URL (`https://host/mcp`): the audience a token must name.
    pub resource: String,
    /// Where the issuer's keys come from.
    pub keys: KeySource,
    /// The accepted algorithms (names as in a JWT header; asymmetric only).
    pub algorithms: Vec<String>,
    /// Scopes every call needs.
    pub required_scopes: Vec<String>,
    /// The scope `run_mutation` needs besides.
    pub write_scope: String,
    /// Clock skew allowed on `exp` and `nbf`.
    pub leeway: Duration,
    /// The least time between two reloads of the keys (a token naming an unknown `kid`).
    pub reload_interval: Duration,
}

/// Why a bearer token is not a valid access token for this server.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TokenError {
    /// Not a JWT this server can read.
    #[error("the bearer token is not a JWT")]
    Malformed,
    /// Its algorithm is not one this server accepts (never `none` nor a shared secret).
    #[error("tokens signed with {0} are not accepted")]
    Algorithm(String),
    /// The key it names cannot verify it.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// The key's own algorithm or type differs from the token's.
    #[error("the key `{kid}` is not a {alg:?} key")]
    KeyMismatch {
        /// The key.
        kid: String,
        /// The token's algorithm.
        alg: Algorithm,
    },
    /// The signature does not verify.
    #[error("the token's signature does not verify")]
    Signature,
    /// Past `exp`.
    #[error("the token has expired")]
    Expired,
    /// Before `nbf`.
    #[error("the token is not valid yet")]
    NotYetValid,
    /// Another issuer.
    #[error("the token was issued by another issuer")]
    Issuer,
    /// Another audience.
    #[error("the token is not for this resource (aud)")]
    Audience,
    /// A required claim is absent or malformed.
    #[error("the token has no valid `{0}` claim")]
    Claim(String),
    /// Its header marks extensions critical (`crit`), which this server does not understand.
    #[error("the token's header marks {0} critical, which this server does not understand")]
    Critical(String),
}

/// The token lacks a scope this call needs (403 `insufficient_scope`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the token lacks the scope `{0}`")]
pub struct MissingScope(pub String);

/// A verified token.
#[derive(Debug, Clone, PartialEq)]
pub struct VerifiedToken {
    /// Its claims.
    pub claims: Map<String, Value>,
    /// Its scopes (`scope`, space-separated; or `scp`, a list or a string).
    pub scopes: Vec<String>,
}

impl VerifiedToken {
    fn text(&self, name: &str) -> Option<String> {
        self.claims
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_string)
    }

    /// `iss`.
    pub fn issuer(&self) -> Option<String> {
        self.text("iss")
    }

    /// `sub`.
    pub fn subject(&self) -> Option<String> {
        self.text("sub")
    }

    /// The OAuth client: `client_id` (RFC 9068), else `azp`.
    pub fn client_id(&self) -> Option<String> {
        self.text("client_id").or_else(|| self.text("azp"))
    }

    /// True when it holds `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }
}

/// Verifies access tokens for one issuer and resource.
pub struct JwtVerifier {
    settings: OAuthSettings,
    algorithms: Vec<Algorithm>,
    keys: KeyCache,
    verified: VerifiedTokens<VerifiedToken>,
}

impl JwtVerifier {
    /// A verifier; fails on an algorithm it does not know or will not accept.
    pub fn new(settings: OAuthSettings) -> Result<Self, String> {
        super::ring_crypto::install();
        let algorithms = settings
            .algorithms
            .iter()
            .map(|name| accepted_algorithm(name))
            .collect::<Result<Vec<_>, _>>()?;
        if algorithms.is_empty() {
            return Err("[oauth] algorithms: name at least one".into());
        }
        let keys = KeyCache::new(
            settings.keys.clone(),
            &settings.issuer,
            settings.reload_interval,
        )?;
        Ok(JwtVerifier {
            settings,
            algorithms,
            keys,
            verified: VerifiedTokens::default(),
        })
    }

    /// The settings.
    pub fn settings(&self) -> &OAuthSettings {
        &self.settings
    }

    /// Loads the keys now (at start).
    pub async fn load_keys(&self) -> Result<usize, String> {
        self.keys.load().await
    }

    /// Verifies `token`; then checks the scopes every call needs.
    pub async fn verify(
        &self,
        token: &str,
    ) -> Result<Result<VerifiedToken, MissingScope>, TokenError> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(TokenError::Malformed);
        }
        let digest = token_digest(token.as_bytes());
        let (keys, fresh) = self.keys.current();
        let cached = if fresh {
            self.verified.get(&digest, &keys)
        } else {
            None
        };
        let token = match cached {
            Some(t) => t,
            None => {
                let t = self.verify_signed(token).await?;
                // Kept against the set in force before: if a reload replaced it meanwhile, the
                // entry is stale at once and the next call verifies again (never the reverse).
                let exp = t.claims.get("exp").and_then(Value::as_u64);
                self.verified
                    .put(digest, &t, exp, keys, self.settings.leeway);
                t
            }
        };
        Ok(
            match self
                .settings
                .required_scopes
                .iter()
                .find(|s| !token.has_scope(s))
            {
                Some(missing) => Err(MissingScope(missing.clone())),
                None => Ok(token),
            },
        )
    }

    /// The signature, `iss`, `aud`, `exp` and `nbf` of `token`.
    async fn verify_signed(&self, token: &str) -> Result<VerifiedToken, TokenError> {
        refuse_critical(token)?;
        let header = decode_header(token).map_err(|_| TokenError::Malformed)?;
        if !self.algorithms.contains(&header.alg) {
            return Err(TokenError::Algorithm(format!("{:?}", header.alg)));
        }
        let key = self.keys.key_for(header.kid.as_deref(), header.alg).await?;
        let mismatch = || TokenError::KeyMismatch {
            kid: key.kid.clone().unwrap_or_default(),
            alg: header.alg,
        };
        if key.alg.is_some_and(|a| a != header.alg) || key.key.family() != header.alg.family() {
            return Err(mismatch());
        }
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.settings.issuer]);
        validation.set_audience(&[&self.settings.resource]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.validate_nbf = true;
        validation.leeway = self.settings.leeway.as_secs();
        let data = decode::<Map<String, Value>>(token, &key.key, &validation)
            .map_err(|e| token_error(e.into_kind()))?;
        Ok(VerifiedToken {
            scopes: scopes_of(&data.claims),
            claims: data.claims,
        })
    }
}

/// Refuses a token whose header has `crit` (RFC 7515 4.1.11): jsonwebtoken reads only the
/// header fields it knows, so an extension the issuer marked must-understand would be ignored.
fn refuse_critical(token: &str) -> Result<(), TokenError> {
    use base64::Engine as _;
    let encoded = token.split('.').next().unwrap_or_default();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(encoded.trim_end_matches('='))
        .map_err(|_| TokenError::Malformed)?;
    let header: Map<String, Value> =
        serde_json::from_slice(&bytes).map_err(|_| TokenError::Malformed)?;
    match header.get("crit") {
        None => Ok(()),
        Some(crit) => Err(TokenError::Critical(crit.to_string())),
    }
}

/// An algorithm name from the settings, when it is asymmetric and known.
fn accepted_algorithm(name: &str) -> Result<Algorithm, String> {
    let alg: Algorithm = name
        .parse()
        .map_err(|_| format!("[oauth] algorithms: `{name}` is not a JWT algorithm"))?;
    if matches!(alg, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512) {
        return Err(format!(
            "[oauth] algorithms: `{name}` uses a shared secret; a resource server verifies with the issuer's public keys"
        ));
    }
    Ok(alg)
}

fn token_error(kind: jsonwebtoken::errors::ErrorKind) -> TokenError {
    use jsonwebtoken::errors::ErrorKind as K;
    match kind {
        K::ExpiredSignature => TokenError::Expired,
        K::ImmatureSignature => TokenError::NotYetValid,
        K::InvalidIssuer => TokenError::Issuer,
        K::InvalidAudience => TokenError::Audience,
        K::MissingRequiredClaim(c) | K::InvalidClaimFormat(c) => TokenError::Claim(c),
        K::InvalidSignature => TokenError::Signature,
        K::InvalidAlgorithm | K::MissingAlgorithm | K::InvalidAlgorithmName => {
            TokenError::Algorithm("another algorithm".into())
        }
        K::InvalidEcdsaKey | K::InvalidEddsaKey | K::InvalidRsaKey(_) | K::InvalidKeyFormat => {
            TokenError::Signature
        }
        _ => TokenError::Malformed,
    }
}

/// The scopes a token grants: `scope` (RFC 9068, space-separated), else `scp` (a list, or a
/// space-separated string, as some issuers write it).
fn scopes_of(claims: &Map<String, Value>) -> Vec<String> {
    let words = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(s)), _) => words(s),
        (_, Some(Value::String(s))) => words(s),
        (_, Some(Value::Array(items))) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shared_secret_algorithms_are_refused_in_the_settings() {
        assert!(accepted_algorithm("RS256").is_ok());
        assert!(accepted_algorithm("EdDSA").is_ok());
        assert!(accepted_algorithm("HS256")
            .unwrap_err()
            .contains("shared secret"));
        assert!(accepted_algorithm("none")
            .unwrap_err()
            .contains("not a JWT algorithm"));
    }

    #[test]
    fn scopes_from_scope_or_scp() {
        let c = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert_eq!(
            scopes_of(&c(json!({"scope": "sql:read  sql:write"}))),
            vec!["sql:read", "sql:write"]
        );
        assert_eq!(
            scopes_of(&c(json!({"scp": ["sql:read"]}))),
            vec!["sql:read"]
        );
        assert_eq!(scopes_of(&c(json!({"scp": "a b"}))), vec!["a", "b"]);
        assert!(scopes_of(&c(json!({"scope": 5}))).is_empty());
    }
}
