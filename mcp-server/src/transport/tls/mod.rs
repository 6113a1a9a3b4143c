//! HTTPS: the server's certificate and key (reloaded on SIGHUP), and with mutual TLS the client
//! certificates a CA signed, whose subject or SAN may select a principal ([`peer`]). The
//! handshake happens in [`listener`], before any HTTP is read; a client whose certificate does
//! not chain to the CA is refused there.

pub mod listener;
pub mod peer;

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, CertificateRevocationListDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::ServerConfig;

/// Whether a client must present a certificate when a client CA is configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum ClientAuth {
    /// Every client presents a certificate the CA signed (the default with a CA).
    #[default]
    Required,
    /// A client may come without one (and then needs a bearer token); one it presents must
    /// still chain to the CA.
    Optional,
}

/// Where the TLS material is, as resolved from the settings.
#[derive(Debug, Clone, PartialEq)]
pub struct TlsSettings {
    /// PEM certificate chain, leaf first.
    pub cert_file: PathBuf,
    /// PEM private key (PKCS#8, PKCS#1 or SEC1).
    pub key_file: PathBuf,
    /// PEM CA certificates that sign client certificates (mutual TLS); `None`: no client
    /// certificates are asked for.
    pub client_ca_file: Option<PathBuf>,
    /// With a client CA: must every client present a certificate.
    pub client_auth: ClientAuth,
    /// PEM certificate revocation lists of the client CA: a revoked client certificate is
    /// refused in the handshake (reloaded on SIGHUP with the rest).
    pub client_crl_file: Option<PathBuf>,
}

/// The rustls configuration in force, replaced whole by [`TlsConfig::reload`]: a connection
/// keeps the configuration it was accepted with.
#[derive(Debug, Clone)]
pub struct TlsConfig {
    settings: TlsSettings,
    current: Arc<RwLock<Arc<ServerConfig>>>,
}

impl TlsConfig {
    /// Reads the files; an error names the file and what is wrong with it.
    pub fn load(settings: TlsSettings) -> Result<Self, String> {
        let config = build(&settings)?;
        Ok(TlsConfig {
            settings,
            current: Arc::new(RwLock::new(Arc::new(config))),
        })
    }

    /// The configuration for the next handshake.
    pub fn current(&self) -> Arc<ServerConfig> {
        match self.current.read() {
            Ok(c) => c.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Reads the files again (certificate renewal); on an error the configuration in force
    /// stays, and the error is returned for the log.
    pub fn reload(&self) -> Result<(), String> {
        let fresh = Arc::new(build(&self.settings)?);
        match self.current.write() {
            Ok(mut c) => *c = fresh,
            Err(poisoned) => *poisoned.into_inner() = fresh,
        }
        Ok(())
    }

    /// Whether client certificates are verified (mutual TLS).
    pub fn verifies_clients(&self) -> bool {
        self.settings.client_ca_file.is_some()
    }

    /// Whether every client must present a certificate.
    pub fn requires_client_certificates(&self) -> bool {
        self.verifies_clients() && self.settings.client_auth == ClientAuth::Required
    }
}

/// Every `kind` PEM section of the file at `path` (at least one); errors name the setting `what`.
fn read_pem<T: PemObject>(path: &Path, what: &str, kind: &str) -> Result<Vec<T>, String> {
    let err = |e: &dyn std::fmt::Display| format!("{what} {}: {e}", path.display());
    let items = T::pem_file_iter(path)
        .map_err(|e| err(&e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| err(&e))?;
    if items.is_empty() {
        return Err(err(&format!("no PEM {kind} in it")));
    }
    Ok(items)
}

fn read_certs(path: &Path, what: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    read_pem(path, what, "certificate")
}

fn build(s: &TlsSettings) -> Result<ServerConfig, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let chain = read_certs(&s.cert_file, "tls_cert_file")?;
    let key = PrivateKeyDer::from_pem_file(&s.key_file)
        .map_err(|e| format!("tls_key_file {}: {e}", s.key_file.display()))?;
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?;
    let builder = match &s.client_ca_file {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let mut roots = rustls::RootCertStore::empty();
            for cert in read_certs(ca, "tls_client_ca_file")? {
                roots
                    .add(cert)
                    .map_err(|e| format!("tls_client_ca_file {}: {e}", ca.display()))?;
            }
            let mut verifier =
                WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider);
            if let Some(crl) = &s.client_crl_file {
                verifier = verifier.with_crls(read_pem::<CertificateRevocationListDer<'static>>(
                    crl,
                    "tls_client_crl_file",
                    "X509 CRL",
                )?);
            }
            let verifier = match s.client_auth {
                ClientAuth::Required => verifier,
                ClientAuth::Optional => verifier.allow_unauthenticated(),
            };
            let verifier = verifier
                .build()
                .map_err(|e| format!("tls_client_ca_file {}: {e}", ca.display()))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder.with_single_cert(chain, key).map_err(|e| {
        format!(
            "tls_key_file {} does not match tls_cert_file {}: {e}",
            s.key_file.display(),
            s.cert_file.display()
        )
    })?;
    // axum serves HTTP/1.1 here.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}
