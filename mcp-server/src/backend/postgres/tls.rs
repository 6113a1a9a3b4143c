//! TLS for PostgreSQL URLs: libpq's `sslmode` read from the URL, and the rustls configuration it
//! asks for (`require`: encrypted, not verified; `verify-ca` / `verify-full`: the web PKI roots).

use std::sync::Arc;

/// How the URL asks for TLS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TlsMode {
    None,
    /// Encrypt, do not verify the certificate (libpq's `require`).
    Require,
    /// Encrypt and verify against the web PKI roots (`verify-ca` / `verify-full`).
    Verify,
}

pub(super) fn sslmode(url: &str) -> (String, TlsMode) {
    let lower = url.to_ascii_lowercase();
    for (needle, mode) in [
        ("sslmode=verify-full", TlsMode::Verify),
        ("sslmode=verify-ca", TlsMode::Verify),
        ("sslmode=require", TlsMode::Require),
    ] {
        if let Some(i) = lower.find(needle) {
            let mut fixed = url.to_string();
            fixed.replace_range(i..i + needle.len(), "sslmode=require");
            return (fixed, mode);
        }
    }
    (url.to_string(), TlsMode::None)
}

mod insecure {
    //! A certificate verifier for `sslmode=require`: encrypted, not authenticated (as libpq).
    use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
    use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
    use rustls::{DigitallySignedStruct, SignatureScheme};

    #[derive(Debug)]
    pub struct NoVerify(pub std::sync::Arc<rustls::crypto::CryptoProvider>);

    impl ServerCertVerifier for NoVerify {
        fn verify_server_cert(
            &self,
            _end_entity: &CertificateDer<'_>,
            _intermediates: &[CertificateDer<'_>],
            _server_name: &ServerName<'_>,
            _ocsp_response: &[u8],
            _now: UnixTime,
        ) -> Result<ServerCertVerified, rustls::Error> {
            Ok(ServerCertVerified::assertion())
        }
        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls12_signature(
                message,
                cert,
                dss,
                &self.0.signature_verification_algorithms,
            )
        }
        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls13_signature(
                message,
                cert,
                dss,
                &self.0.signature_verification_algorithms,
            )
        }
        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.0.signature_verification_algorithms.supported_schemes()
        }
    }
}

pub(super) fn tls_config(mode: TlsMode) -> rustls::ClientConfig {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap_or_else(|_| rustls::ClientConfig::builder());
    if mode == TlsMode::Verify {
        let roots =
            rustls::RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        builder.with_root_certificates(roots).with_no_client_auth()
    } else {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(insecure::NoVerify(provider)))
            .with_no_client_auth()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sslmodes() {
        assert_eq!(sslmode("postgres://h/db").1, TlsMode::None);
        assert_eq!(
            sslmode("postgres://h/db?sslmode=require").1,
            TlsMode::Require
        );
        let (u, m) = sslmode("postgres://h/db?sslmode=verify-full");
        assert_eq!(m, TlsMode::Verify);
        assert!(u.ends_with("sslmode=require"));
    }
}
