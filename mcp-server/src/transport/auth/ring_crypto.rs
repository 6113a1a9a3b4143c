//! JWT signature verification with `ring` (already the TLS stack's crypto here), installed as
//! jsonwebtoken's process-wide `CryptoProvider`: RS256 verifies in ~20 µs with ring against
//! ~180 µs with the pure-Rust `rsa` crate, ES256 in ~50 µs against ~270 µs (`auth_bench`).
//! EdDSA stays with RustCrypto (`ed25519-dalek`, ~30 µs, faster than ring's ~45), as do the
//! shared-secret algorithms (never accepted here), signing (which this server never does;
//! tests sign their tokens) and the JWK utilities.

use jsonwebtoken::crypto::{rust_crypto, CryptoProvider, JwkUtils, JwtSigner, JwtVerifier};
use jsonwebtoken::errors::{Error, ErrorKind};
use jsonwebtoken::jwk::{EllipticCurve, ThumbprintHash};
use jsonwebtoken::signature::{self, Verifier};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, DecodingKeyKind, EncodingKey};
use ring::signature as ring_sig;

/// The provider: ring's verification, RustCrypto's signing and JWK utilities.
pub static RING_PROVIDER: CryptoProvider = CryptoProvider {
    signer_factory: new_signer,
    verifier_factory: new_verifier,
    jwk_utils: JwkUtils {
        extract_rsa_public_key_components,
        extract_ec_public_key_coordinates,
        compute_digest,
    },
};

/// Installs [`RING_PROVIDER`] as the process's provider, unless one already is (the first
/// install wins; a second is harmless).
pub fn install() {
    let _ = RING_PROVIDER.install_default();
}

fn new_signer(alg: &Algorithm, key: &EncodingKey) -> Result<Box<dyn JwtSigner>, Error> {
    (rust_crypto::DEFAULT_PROVIDER.signer_factory)(alg, key)
}

#[allow(clippy::type_complexity)]
fn extract_rsa_public_key_components(der: &[u8]) -> Result<(Vec<u8>, Vec<u8>), Error> {
    (rust_crypto::DEFAULT_PROVIDER
        .jwk_utils
        .extract_rsa_public_key_components)(der)
}

#[allow(clippy::type_complexity)]
fn extract_ec_public_key_coordinates(
    der: &[u8],
    alg: Algorithm,
) -> Result<(EllipticCurve, Vec<u8>, Vec<u8>), Error> {
    (rust_crypto::DEFAULT_PROVIDER
        .jwk_utils
        .extract_ec_public_key_coordinates)(der, alg)
}

fn compute_digest(data: &[u8], hash: ThumbprintHash) -> Vec<u8> {
    (rust_crypto::DEFAULT_PROVIDER.jwk_utils.compute_digest)(data, hash)
}

/// How one algorithm verifies with ring.
#[derive(Clone, Copy)]
enum Scheme {
    Rsa(&'static ring_sig::RsaParameters),
    /// ECDSA (an uncompressed point).
    Point(&'static dyn ring_sig::VerificationAlgorithm),
}

fn scheme(alg: Algorithm) -> Option<Scheme> {
    use Algorithm as A;
    Some(match alg {
        A::RS256 => Scheme::Rsa(&ring_sig::RSA_PKCS1_2048_8192_SHA256),
        A::RS384 => Scheme::Rsa(&ring_sig::RSA_PKCS1_2048_8192_SHA384),
        A::RS512 => Scheme::Rsa(&ring_sig::RSA_PKCS1_2048_8192_SHA512),
        A::PS256 => Scheme::Rsa(&ring_sig::RSA_PSS_2048_8192_SHA256),
        A::PS384 => Scheme::Rsa(&ring_sig::RSA_PSS_2048_8192_SHA384),
        A::PS512 => Scheme::Rsa(&ring_sig::RSA_PSS_2048_8192_SHA512),
        A::ES256 => Scheme::Point(&ring_sig::ECDSA_P256_SHA256_FIXED),
        A::ES384 => Scheme::Point(&ring_sig::ECDSA_P384_SHA384_FIXED),
        // Faster with RustCrypto. Shared secrets: never accepted by this server (refused in the
        // settings); left to RustCrypto so that the provider stays complete.
        A::EdDSA | A::HS256 | A::HS384 | A::HS512 => return None,
    })
}

struct RingVerifier {
    alg: Algorithm,
    scheme: Scheme,
    key: DecodingKey,
}

fn new_verifier(alg: &Algorithm, key: &DecodingKey) -> Result<Box<dyn JwtVerifier>, Error> {
    let Some(scheme) = scheme(*alg) else {
        return (rust_crypto::DEFAULT_PROVIDER.verifier_factory)(alg, key);
    };
    if key.family() != alg.family() || key.family() == AlgorithmFamily::Hmac {
        return Err(ErrorKind::InvalidKeyFormat.into());
    }
    Ok(Box::new(RingVerifier {
        alg: *alg,
        scheme,
        key: key.clone(),
    }))
}

impl Verifier<Vec<u8>> for RingVerifier {
    fn verify(&self, msg: &[u8], sig: &Vec<u8>) -> Result<(), signature::Error> {
        let verified = match (self.scheme, self.key.kind()) {
            (Scheme::Rsa(params), DecodingKeyKind::RsaModulusExponent { n, e }) => {
                ring_sig::RsaPublicKeyComponents { n, e }.verify(params, msg, sig)
            }
            (Scheme::Rsa(params), DecodingKeyKind::SecretOrDer(der)) => {
                ring_sig::UnparsedPublicKey::new(params, der).verify(msg, sig)
            }
            (Scheme::Point(alg), DecodingKeyKind::SecretOrDer(bytes)) => {
                ring_sig::UnparsedPublicKey::new(alg, bytes).verify(msg, sig)
            }
            (Scheme::Point(_), DecodingKeyKind::RsaModulusExponent { .. }) => {
                return Err(signature::Error::new())
            }
        };
        verified.map_err(|_| signature::Error::new())
    }
}

impl JwtVerifier for RingVerifier {
    fn algorithm(&self) -> Algorithm {
        self.alg
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::crypto::sign;
    use ring::rand::SystemRandom;
    use ring::signature::{EcdsaKeyPair, Ed25519KeyPair, KeyPair};

    fn ring_verify(sig: &str, msg: &[u8], key: &DecodingKey, alg: Algorithm) -> bool {
        with(new_verifier, sig, msg, key, alg)
    }

    fn rustcrypto_verify(sig: &str, msg: &[u8], key: &DecodingKey, alg: Algorithm) -> bool {
        with(
            rust_crypto::DEFAULT_PROVIDER.verifier_factory,
            sig,
            msg,
            key,
            alg,
        )
    }

    type Factory = fn(&Algorithm, &DecodingKey) -> Result<Box<dyn JwtVerifier>, Error>;

    fn with(factory: Factory, sig: &str, msg: &[u8], key: &DecodingKey, alg: Algorithm) -> bool {
        let Ok(v) = factory(&alg, key) else {
            return false;
        };
        let Ok(bytes) =
            base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, sig)
        else {
            return false;
        };
        v.verify(msg, &bytes).is_ok()
    }

    #[test]
    fn ring_verifies_what_rustcrypto_signs_and_nothing_else() {
        let rng = SystemRandom::new();
        let es = EcdsaKeyPair::generate_pkcs8(&ring_sig::ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .expect("p-256");
        let es_pub = EcdsaKeyPair::from_pkcs8(
            &ring_sig::ECDSA_P256_SHA256_FIXED_SIGNING,
            es.as_ref(),
            &rng,
        )
        .expect("p-256")
        .public_key()
        .as_ref()
        .to_vec();
        let ed = Ed25519KeyPair::generate_pkcs8(&rng).expect("ed25519");
        let ed_pub = Ed25519KeyPair::from_pkcs8(ed.as_ref())
            .expect("ed25519")
            .public_key()
            .as_ref()
            .to_vec();
        let cases = [
            (
                Algorithm::ES256,
                EncodingKey::from_ec_der(es.as_ref()),
                DecodingKey::from_ec_der(&es_pub),
            ),
            (
                Algorithm::EdDSA,
                EncodingKey::from_ed_der(ed.as_ref()),
                DecodingKey::from_ed_der(&ed_pub),
            ),
        ];
        for (alg, signing, public) in &cases {
            let msg = b"header.payload";
            let sig = sign(msg, signing, *alg).expect("sign");
            let mut other = sig.clone().into_bytes();
            other[3] = if other[3] == b'A' { b'B' } else { b'A' };
            let other = String::from_utf8(other).unwrap_or_default();
            // ring and RustCrypto agree on the signature, a tampered message, another signature.
            for (s, m, valid) in [
                (&sig, &msg[..], true),
                (&sig, b"header.payloaD", false),
                (&other, msg, false),
            ] {
                assert_eq!(ring_verify(s, m, public, *alg), valid, "{alg:?} {valid}");
                assert_eq!(
                    rustcrypto_verify(s, m, public, *alg),
                    valid,
                    "{alg:?} {valid}"
                );
            }
        }
        // A key of one family never verifies another's algorithm.
        let sig = sign(b"m", &cases[0].1, Algorithm::ES256).expect("sign");
        assert!(!ring_verify(&sig, b"m", &cases[1].2, Algorithm::ES256));
        assert!(new_verifier(&Algorithm::ES256, &cases[1].2).is_err());
        assert!(new_verifier(&Algorithm::RS256, &cases[0].2).is_err());
    }
}
