//! `tls_cert_file`, `tls_key_file`, `tls_client_ca_file`, `tls_client_auth`: HTTPS and mutual
//! TLS, from the flags or the settings file (its paths relative to it).

use std::path::{Path, PathBuf};

use super::error::ConfigError;
use super::file::FileConfig;
use super::flags::ServeArgs;
use super::principals::Principal;
use crate::transport::identify::Credential;
use crate::transport::tls::TlsSettings;

/// The TLS settings (`None`: plain HTTP); `http` says whether HTTP is served at all.
pub fn resolve_tls(
    args: &ServeArgs,
    file: &FileConfig,
    base_dir: &Path,
    http: bool,
) -> Result<Option<TlsSettings>, ConfigError> {
    let from_file = |p: &Option<PathBuf>| p.as_ref().map(|p| base_dir.join(p));
    let cert = args
        .tls_cert_file
        .clone()
        .or(from_file(&file.tls_cert_file));
    let key = args.tls_key_file.clone().or(from_file(&file.tls_key_file));
    let client_ca = args
        .tls_client_ca_file
        .clone()
        .or(from_file(&file.tls_client_ca_file));
    let client_auth = args.tls_client_auth.or(file.tls_client_auth);
    let client_crl = args
        .tls_client_crl_file
        .clone()
        .or(from_file(&file.tls_client_crl_file));
    let (cert_file, key_file) = match (cert, key) {
        (Some(c), Some(k)) => (c, k),
        (None, None) if client_ca.is_none() && client_auth.is_none() && client_crl.is_none() => {
            return Ok(None)
        }
        (None, None) => {
            return Err(ConfigError(
                "tls_client_ca_file / tls_client_auth / tls_client_crl_file need the server's own tls_cert_file and tls_key_file".into(),
            ))
        }
        (Some(_), None) => {
            return Err(ConfigError(
                "tls_cert_file needs tls_key_file (the certificate's private key)".into(),
            ))
        }
        (None, Some(_)) => {
            return Err(ConfigError(
                "tls_key_file needs tls_cert_file (the certificate chain)".into(),
            ))
        }
    };
    if !http {
        return Err(ConfigError(
            "tls_cert_file serves HTTPS: add --http ADDRESS (stdio has no TLS)".into(),
        ));
    }
    if client_ca.is_none() && (client_auth.is_some() || client_crl.is_some()) {
        return Err(ConfigError(
            "tls_client_auth and tls_client_crl_file need tls_client_ca_file (the CA that signs client certificates)"
                .into(),
        ));
    }
    Ok(Some(TlsSettings {
        cert_file,
        key_file,
        client_ca_file: client_ca,
        client_auth: client_auth.unwrap_or_default(),
        client_crl_file: client_crl,
    }))
}

/// Refuses a principal chosen by client certificate when no client certificate is verified.
pub fn check_cert_principals(
    tls: Option<&TlsSettings>,
    principals: &[Principal],
) -> Result<(), ConfigError> {
    if tls.is_some_and(|t| t.client_ca_file.is_some()) {
        return Ok(());
    }
    match principals
        .iter()
        .find(|p| matches!(p.credential, Credential::ClientCert(_)))
    {
        Some(p) => Err(ConfigError(format!(
            "principal `{}`: `client_cert` selects it by a client certificate; set tls_cert_file, tls_key_file and tls_client_ca_file (mutual TLS)",
            p.name
        ))),
        None => Ok(()),
    }
}
