//! Test-only PKI made with rcgen: a CA, a server certificate for 127.0.0.1 / localhost, and
//! client certificates it signs, written as PEM files.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rcgen::{
    date_time_ymd, BasicConstraints, CertificateParams, CertificateRevocationListParams,
    DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyIdMethod, KeyPair,
    KeyUsagePurpose, RevokedCertParams, SanType, SerialNumber,
};

/// Serial numbers, unique in the test process.
static SERIAL: AtomicU64 = AtomicU64::new(1000);

/// A certificate authority.
pub struct Ca {
    /// Its certificate, PEM.
    pub pem: String,
    issuer: Issuer<'static, KeyPair>,
}

/// A certificate and its key, PEM, and its serial number.
pub struct Leaf {
    pub cert: String,
    pub key: String,
    pub serial: u64,
}

impl Ca {
    /// A new CA named `name`.
    pub fn new(name: &str) -> Ca {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("params");
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().expect("key");
        let cert = params.self_signed(&key).expect("self-signed");
        Ca {
            pem: cert.pem(),
            issuer: Issuer::new(params, key),
        }
    }

    /// A server certificate for 127.0.0.1 and localhost.
    pub fn server(&self) -> Leaf {
        let mut params =
            CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()])
                .expect("params");
        params
            .distinguished_name
            .push(DnType::CommonName, "sqlgate test server");
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        self.sign(params)
    }

    /// A client certificate with common name `cn` and, if given, a URI subjectAltName.
    pub fn client(&self, cn: &str, organization: &str, uri: Option<&str>) -> Leaf {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("params");
        // Encoded organization first, as CAs do: RFC 4514 then reads `CN=...,O=...` (and
        // without rcgen's default common name, which would come first).
        params.distinguished_name = DistinguishedName::new();
        params
            .distinguished_name
            .push(DnType::OrganizationName, organization);
        params.distinguished_name.push(DnType::CommonName, cn);
        if let Some(uri) = uri {
            params.subject_alt_names = vec![SanType::URI(uri.try_into().expect("uri"))];
        }
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        self.sign(params)
    }

    fn sign(&self, mut params: CertificateParams) -> Leaf {
        let serial = SERIAL.fetch_add(1, Ordering::SeqCst);
        params.serial_number = Some(SerialNumber::from(serial));
        let key = KeyPair::generate().expect("key");
        let cert = params.signed_by(&key, &self.issuer).expect("sign");
        Leaf {
            cert: cert.pem(),
            key: key.serialize_pem(),
            serial,
        }
    }

    /// A CRL of this CA revoking the certificates with these serial numbers, PEM.
    pub fn crl(&self, revoked: &[u64], number: u64) -> String {
        let params = CertificateRevocationListParams {
            this_update: date_time_ymd(2020, 1, 1),
            next_update: date_time_ymd(2099, 1, 1),
            crl_number: SerialNumber::from(number),
            issuing_distribution_point: None,
            revoked_certs: revoked
                .iter()
                .map(|s| RevokedCertParams {
                    serial_number: SerialNumber::from(*s),
                    revocation_time: date_time_ymd(2024, 1, 1),
                    reason_code: None,
                    invalidity_date: None,
                })
                .collect(),
            key_identifier_method: KeyIdMethod::Sha256,
        };
        params
            .signed_by(&self.issuer)
            .expect("crl")
            .pem()
            .expect("pem")
    }
}

impl Leaf {
    /// Writes `NAME.pem` and `NAME.key` into `dir`; returns their paths.
    pub fn write(&self, dir: &Path, name: &str) -> (PathBuf, PathBuf) {
        let cert = dir.join(format!("{name}.pem"));
        let key = dir.join(format!("{name}.key"));
        std::fs::write(&cert, &self.cert).expect("write cert");
        std::fs::write(&key, &self.key).expect("write key");
        (cert, key)
    }

    /// The certificate and key as one PEM (reqwest's client identity).
    pub fn identity(&self) -> reqwest::Identity {
        reqwest::Identity::from_pem(format!("{}{}", self.cert, self.key).as_bytes())
            .expect("identity")
    }
}
