//! Who a verified client certificate names: its subject (RFC 4514, as `openssl x509 -subject
//! -nameopt RFC2253` prints it), its common name, its subject alternative names, its issuer;
//! and the rule a principal's `client_cert` sets on them.

use std::net::IpAddr;

use x509_cert::der::asn1::ObjectIdentifier;
use x509_cert::der::{Decode, Tag, Tagged};
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::SubjectAltName;
use x509_cert::name::Name;
use x509_cert::Certificate;

/// commonName (2.5.4.3).
const COMMON_NAME: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.5.4.3");
/// subjectAltName (2.5.29.17).
const SUBJECT_ALT_NAME: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.5.29.17");

/// The names of a client certificate the TLS handshake verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientCert {
    /// Subject, RFC 4514.
    pub subject: String,
    /// The subject's common names (usually one).
    pub common_names: Vec<String>,
    /// DNS names, URIs, e-mail addresses and IP addresses of its subjectAltName.
    pub alt_names: Vec<String>,
    /// Issuer, RFC 4514.
    pub issuer: String,
}

impl ClientCert {
    /// Reads a DER certificate (the leaf the handshake verified).
    pub fn from_der(der: &[u8]) -> Result<Self, String> {
        let cert = Certificate::from_der(der).map_err(|e| format!("client certificate: {e}"))?;
        let tbs = &cert.tbs_certificate;
        let mut alt_names = Vec::new();
        for ext in tbs.extensions.iter().flatten() {
            if ext.extn_id != SUBJECT_ALT_NAME {
                continue;
            }
            let san = SubjectAltName::from_der(ext.extn_value.as_bytes())
                .map_err(|e| format!("client certificate subjectAltName: {e}"))?;
            alt_names.extend(san.0.iter().filter_map(general_name));
        }
        Ok(ClientCert {
            subject: tbs.subject.to_string(),
            common_names: common_names(&tbs.subject),
            alt_names,
            issuer: tbs.issuer.to_string(),
        })
    }
}

fn common_names(name: &Name) -> Vec<String> {
    name.0
        .iter()
        .flat_map(|rdn| rdn.0.iter())
        .filter(|atv| atv.oid == COMMON_NAME)
        .filter_map(|atv| match atv.value.tag() {
            Tag::Utf8String | Tag::PrintableString | Tag::Ia5String | Tag::TeletexString => {
                std::str::from_utf8(atv.value.value())
                    .ok()
                    .map(str::to_string)
            }
            _ => None,
        })
        .collect()
}

fn general_name(name: &GeneralName) -> Option<String> {
    match name {
        GeneralName::DnsName(s) | GeneralName::Rfc822Name(s) => Some(s.to_string()),
        GeneralName::UniformResourceIdentifier(s) => Some(s.to_string()),
        GeneralName::IpAddress(bytes) => {
            let b = bytes.as_bytes();
            let ip = match b.len() {
                4 => IpAddr::from(<[u8; 4]>::try_from(b).ok()?),
                16 => IpAddr::from(<[u8; 16]>::try_from(b).ok()?),
                _ => return None,
            };
            Some(ip.to_string())
        }
        _ => None,
    }
}

/// A principal's `client_cert`: every name given must be the certificate's.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CertRule {
    /// The whole subject, RFC 4514 (as `openssl x509 -noout -subject -nameopt RFC2253` prints
    /// it: `CN=agent-a,O=Acme`, last RDN first).
    pub subject: Option<String>,
    /// A common name of the subject.
    pub cn: Option<String>,
    /// One of its subjectAltNames (DNS name, URI, e-mail or IP address).
    pub san: Option<String>,
}

impl CertRule {
    /// Whether it names nothing (refused in the settings: it would match every certificate).
    pub fn is_empty(&self) -> bool {
        self.subject.is_none() && self.cn.is_none() && self.san.is_none()
    }

    /// Whether `cert` has every name this rule gives.
    pub fn matches(&self, cert: &ClientCert) -> bool {
        !self.is_empty()
            && self.subject.as_ref().is_none_or(|s| *s == cert.subject)
            && self
                .cn
                .as_ref()
                .is_none_or(|c| cert.common_names.contains(c))
            && self.san.as_ref().is_none_or(|s| cert.alt_names.contains(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cert(subject: &str, cns: &[&str], sans: &[&str]) -> ClientCert {
        ClientCert {
            subject: subject.into(),
            common_names: cns.iter().map(|s| s.to_string()).collect(),
            alt_names: sans.iter().map(|s| s.to_string()).collect(),
            issuer: "CN=ca".into(),
        }
    }

    #[test]
    fn every_given_name_must_match() {
        let c = cert(
            "CN=agent-a,O=Acme",
            &["agent-a"],
            &["spiffe://acme/a", "a.example"],
        );
        let rule = |subject: Option<&str>, cn: Option<&str>, san: Option<&str>| CertRule {
            subject: subject.map(Into::into),
            cn: cn.map(Into::into),
            san: san.map(Into::into),
        };
        assert!(rule(None, Some("agent-a"), None).matches(&c));
        assert!(rule(Some("CN=agent-a,O=Acme"), None, None).matches(&c));
        assert!(rule(None, None, Some("a.example")).matches(&c));
        assert!(rule(None, Some("agent-a"), Some("spiffe://acme/a")).matches(&c));
        assert!(!rule(None, Some("agent-a"), Some("spiffe://acme/b")).matches(&c));
        assert!(!rule(None, Some("agent"), None).matches(&c));
        assert!(!rule(Some("O=Acme,CN=agent-a"), None, None).matches(&c));
        assert!(
            !rule(None, None, None).matches(&c),
            "an empty rule matches nothing"
        );
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(ClientCert::from_der(b"not a certificate").is_err());
        assert!(ClientCert::from_der(&[]).is_err());
    }
}
