//! TLS for the server connectors, with the modes of `libpq`'s `sslmode`.
//!
//! Lore speaks TLS through rustls (pure Rust, with the `ring` provider), so
//! the binary needs no OpenSSL. Trusted roots are Mozilla's list compiled in
//! (`webpki-roots`) or, when the URL names one (`sslrootcert=` /
//! `ssl-ca=`), the certificates of a PEM file.
//!
//! The mode is read from the connection URL before the driver sees it,
//! because the drivers know fewer modes than their users write:
//! `tokio-postgres` has no `verify-ca`/`verify-full`, and MySQL users write
//! `ssl-mode=REQUIRED`.
//!
//! [`postgres`] holds what every PostgreSQL client of Lore (the warehouse
//! connector, the knowledge store and its change feed) does with a URL:
//! the driver's configuration, the TLS its `sslmode` asks for, connecting,
//! and saying what to change when TLS fails.
#![doc = include_str!("../README.md")]

pub mod postgres;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};

/// How much TLS a connection asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsMode {
    /// Plain TCP.
    Disable,
    /// TLS when the server offers it, plain otherwise; the certificate is
    /// not checked (libpq's default).
    Prefer,
    /// TLS or nothing; the certificate is not checked.
    Require,
    /// TLS, and the certificate must chain to a trusted root.
    VerifyCa,
    /// TLS, a trusted chain, and the certificate must name the host.
    VerifyFull,
}

impl TlsMode {
    /// The mode for a MySQL `ssl-mode` value, in any case, with `_` or `-`
    /// (libpq's names are accepted too).
    pub fn parse(value: &str) -> Option<TlsMode> {
        match value.to_ascii_lowercase().replace('_', "-").as_str() {
            "disable" | "disabled" | "false" => Some(TlsMode::Disable),
            "allow" | "prefer" | "preferred" => Some(TlsMode::Prefer),
            "require" | "required" | "true" => Some(TlsMode::Require),
            "verify-ca" => Some(TlsMode::VerifyCa),
            "verify-full" | "verify-identity" => Some(TlsMode::VerifyFull),
            _ => None,
        }
    }

    /// The mode for a libpq `sslmode` value, spelled exactly as libpq
    /// spells it (PostgreSQL URLs are shared with other libpq clients).
    pub fn parse_libpq(value: &str) -> Option<TlsMode> {
        match value {
            "disable" => Some(TlsMode::Disable),
            "allow" | "prefer" => Some(TlsMode::Prefer),
            "require" => Some(TlsMode::Require),
            "verify-ca" => Some(TlsMode::VerifyCa),
            "verify-full" => Some(TlsMode::VerifyFull),
            _ => None,
        }
    }

    /// Whether the certificate chain is checked.
    pub fn verifies(self) -> bool {
        matches!(self, TlsMode::VerifyCa | TlsMode::VerifyFull)
    }
}

/// The TLS settings found in a connection URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSettings {
    /// The mode asked for (or the driver's default).
    pub mode: TlsMode,
    /// A PEM file of trusted roots, instead of the built-in list.
    pub root_cert: Option<PathBuf>,
}

/// Splits the named query parameters out of `url` (`scheme://…?a=1&b=2`)
/// or out of a `key=value key=value` connection string, returning the rest
/// of the URL unchanged and the taken `(key, value)` pairs, values
/// percent-decoded. Keys are compared ignoring case, `-` and `_`.
pub fn take_params(url: &str, keys: &[&str]) -> (String, Vec<(String, String)>) {
    let wanted = |key: &str| {
        let key = normalize_key(key);
        keys.iter().any(|k| normalize_key(k) == key)
    };
    let mut taken = Vec::new();
    if url.contains("://") {
        let Some((base, query)) = url.split_once('?') else {
            return (url.to_string(), taken);
        };
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            if wanted(key) {
                taken.push((normalize_key(key), percent_decode(value)));
            } else {
                kept.push(pair);
            }
        }
        let rest = if kept.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", kept.join("&"))
        };
        (rest, taken)
    } else {
        let mut kept = Vec::new();
        for token in url.split_whitespace() {
            match token.split_once('=') {
                Some((key, value)) if wanted(key) => {
                    taken.push((normalize_key(key), value.trim_matches('\'').to_string()));
                }
                _ => kept.push(token),
            }
        }
        (kept.join(" "), taken)
    }
}

fn normalize_key(key: &str) -> String {
    key.to_ascii_lowercase().replace('-', "_")
}

fn percent_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A rustls client configuration for `settings` (never for
/// [`TlsMode::Disable`], which needs none). Errors are messages for the
/// user: an unreadable or empty CA file.
pub fn client_config(settings: &TlsSettings, project_dir: &Path) -> Result<ClientConfig, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS setup failed: {e}"))?;
    let algorithms = provider.signature_verification_algorithms;
    let verifier = if settings.mode.verifies() {
        let (roots, pinned) = match settings.root_cert.as_deref() {
            None => (
                RootCertStore {
                    roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
                },
                Vec::new(),
            ),
            Some(path) => {
                let (_, certs) = read_ca_file(path, project_dir)?;
                let mut roots = RootCertStore::empty();
                // A certificate that cannot be an anchor (a pinned
                // self-signed server certificate) is still matched verbatim.
                roots.add_parsable_certificates(certs.iter().cloned());
                (roots, certs)
            }
        };
        let webpki = if roots.is_empty() {
            None
        } else {
            Some(
                WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
                    .build()
                    .map_err(|e| format!("TLS setup failed: {e}"))?,
            )
        };
        Verifier {
            verify: true,
            check_name: settings.mode == TlsMode::VerifyFull,
            webpki,
            pinned,
            algorithms,
        }
    } else {
        Verifier {
            verify: false,
            check_name: false,
            webpki: None,
            pinned: Vec::new(),
            algorithms,
        }
    };
    Ok(builder
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth())
}

/// The certificates of a PEM CA file (a relative path is taken from the
/// project), with the absolute path; an unreadable file, or one without a
/// certificate, is an error that names it.
pub fn read_ca_file(
    path: &Path,
    project_dir: &Path,
) -> Result<(PathBuf, Vec<CertificateDer<'static>>), String> {
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        project_dir.join(path)
    };
    let certs = CertificateDer::pem_file_iter(&path)
        .map_err(|e| format!("cannot read the CA file {}: {e}", path.display()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("the CA file {} is not valid PEM: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "the CA file {} holds no certificate (expected PEM `BEGIN CERTIFICATE` blocks)",
            path.display()
        ));
    }
    Ok((path, certs))
}

/// Checks what the mode asks for: nothing, the chain, or the chain and
/// the name. A server certificate found verbatim in the CA file is trusted
/// as it is (a self-signed server certificate the user pinned, as libpq
/// allows). Handshake signatures are always verified, so even an
/// unchecked certificate proves the server holds its key.
#[derive(Debug)]
struct Verifier {
    verify: bool,
    check_name: bool,
    webpki: Option<Arc<WebPkiServerVerifier>>,
    pinned: Vec<CertificateDer<'static>>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if !self.verify || self.pinned.iter().any(|pinned| pinned == end_entity) {
            return Ok(ServerCertVerified::assertion());
        }
        let Some(webpki) = &self.webpki else {
            return Err(rustls::Error::InvalidCertificate(
                CertificateError::UnknownIssuer,
            ));
        };
        match webpki.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) if !self.check_name => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// A user-facing reason for a failed TLS handshake, with what to change.
/// `ca_key` is the url parameter that names a CA file, `unverified` the
/// mode that encrypts without verifying (both spelled as the driver's
/// users write them).
pub fn explain_failure(
    message: &str,
    settings: &TlsSettings,
    ca_key: &str,
    unverified: &str,
) -> String {
    let lower = message.to_ascii_lowercase();
    let lower_mode = format!(", or use {unverified} to encrypt without verifying");
    let hint = if lower.contains("unknownissuer") || lower.contains("unknown issuer") {
        format!(
            "the server's certificate is not signed by a trusted authority; name its CA with `{ca_key}=/path/to/ca.pem` in the url{}",
            if settings.mode.verifies() {
                lower_mode.as_str()
            } else {
                ""
            }
        )
    } else if lower.contains("notvalidforname") || lower.contains("not valid for name") {
        "the server's certificate does not name this host; connect with the host name on the certificate, or verify the chain only (verify-ca)".to_string()
    } else if lower.contains("expired") {
        "the server's certificate has expired".to_string()
    } else {
        "check the server's TLS configuration".to_string()
    };
    format!("TLS failed ({message}): {hint}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_accept_the_spellings_of_both_drivers() {
        assert_eq!(TlsMode::parse("verify-full"), Some(TlsMode::VerifyFull));
        assert_eq!(TlsMode::parse("VERIFY_IDENTITY"), Some(TlsMode::VerifyFull));
        assert_eq!(TlsMode::parse("REQUIRED"), Some(TlsMode::Require));
        assert_eq!(TlsMode::parse("prefer"), Some(TlsMode::Prefer));
        assert_eq!(TlsMode::parse("DISABLED"), Some(TlsMode::Disable));
        assert_eq!(TlsMode::parse("sometimes"), None);
        assert_eq!(
            TlsMode::parse_libpq("verify-full"),
            Some(TlsMode::VerifyFull)
        );
        assert_eq!(
            TlsMode::parse_libpq("verify_full"),
            None,
            "libpq spells it with a hyphen"
        );
        assert_eq!(TlsMode::parse_libpq("REQUIRED"), None);
    }

    #[test]
    fn params_are_taken_out_of_urls_and_connection_strings() {
        let (rest, taken) = take_params(
            "postgres://u:p@h:5432/db?sslmode=verify-full&application_name=x&sslrootcert=%2Fetc%2Fca.pem",
            &["sslmode", "sslrootcert"],
        );
        assert_eq!(rest, "postgres://u:p@h:5432/db?application_name=x");
        assert_eq!(
            taken,
            vec![
                ("sslmode".to_string(), "verify-full".to_string()),
                ("sslrootcert".to_string(), "/etc/ca.pem".to_string())
            ]
        );
        let (rest, taken) = take_params("mysql://u@h/db?ssl-mode=REQUIRED", &["ssl_mode"]);
        assert_eq!(rest, "mysql://u@h/db");
        assert_eq!(
            taken,
            vec![("ssl_mode".to_string(), "REQUIRED".to_string())]
        );
        let (rest, taken) = take_params("host=h user=u sslmode=require dbname=d", &["sslmode"]);
        assert_eq!(rest, "host=h user=u dbname=d");
        assert_eq!(taken, vec![("sslmode".to_string(), "require".to_string())]);
        let (rest, taken) = take_params("postgres://h/db", &["sslmode"]);
        assert_eq!((rest.as_str(), taken.len()), ("postgres://h/db", 0));
    }

    #[test]
    fn a_missing_or_empty_ca_file_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let settings = TlsSettings {
            mode: TlsMode::VerifyFull,
            root_cert: Some(PathBuf::from("missing.pem")),
        };
        let error = client_config(&settings, dir.path()).unwrap_err();
        assert!(
            error.contains("cannot read the CA file") && error.contains("missing.pem"),
            "{error}"
        );
        std::fs::write(dir.path().join("empty.pem"), "not a certificate\n").unwrap();
        let settings = TlsSettings {
            mode: TlsMode::VerifyCa,
            root_cert: Some(PathBuf::from("empty.pem")),
        };
        let error = client_config(&settings, dir.path()).unwrap_err();
        assert!(error.contains("holds no certificate"), "{error}");
    }
}
