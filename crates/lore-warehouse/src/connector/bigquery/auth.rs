//! Service-account authentication: a JWT signed with the key's RSA private
//! key (RS256), exchanged at the key's `token_uri` for an access token
//! (OAuth 2.0 JWT bearer grant, RFC 7523), which is cached until shortly
//! before it expires.
//!
//! Neither the private key nor a token ever appears in an error, a log
//! line or a `Debug` print: errors name the key file's fields and the
//! token endpoint's host only.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{RSA_PKCS1_SHA256, RsaKeyPair};
use serde::Deserialize;

use super::rest::{Http, HttpError};

/// The OAuth scope Lore asks for: BigQuery (`jobs.cancel` needs more than
/// the read-only cloud scope).
pub const SCOPE: &str = "https://www.googleapis.com/auth/bigquery";

/// How long a signed assertion is valid (Google's maximum).
const ASSERTION_LIFETIME: Duration = Duration::from_secs(3600);

/// A token is renewed this long before it expires.
const RENEW_BEFORE: Duration = Duration::from_secs(120);

/// Why no access token could be had.
#[derive(Debug)]
pub enum AuthError {
    /// The key file cannot be used; the message says what to fix.
    BadKey(String),
    /// The token endpoint refused the assertion.
    Refused(String),
    /// The token endpoint could not be reached.
    Unreachable {
        /// `host:port` of the token endpoint.
        target: String,
        /// What failed.
        message: String,
    },
}

#[derive(Deserialize)]
struct KeyFile {
    #[serde(rename = "type")]
    kind: Option<String>,
    client_email: Option<String>,
    private_key: Option<String>,
    private_key_id: Option<String>,
    token_uri: Option<String>,
}

/// A service-account key, parsed and ready to sign.
pub struct ServiceAccount {
    email: String,
    key_id: Option<String>,
    token_uri: String,
    key: RsaKeyPair,
}

impl std::fmt::Debug for ServiceAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceAccount")
            .field("email", &self.email)
            .field("token_uri", &self.token_uri)
            .finish_non_exhaustive()
    }
}

impl ServiceAccount {
    /// Parses a service-account key file (the JSON Google Cloud's console
    /// downloads).
    pub fn from_json(json: &str) -> Result<ServiceAccount, AuthError> {
        let bad = |m: &str| AuthError::BadKey(m.to_string());
        let file: KeyFile = serde_json::from_str(json).map_err(|e| {
            AuthError::BadKey(format!(
                "it is not a service-account key file (JSON at line {}, column {}: {})",
                e.line(),
                e.column(),
                match e.classify() {
                    serde_json::error::Category::Syntax | serde_json::error::Category::Eof =>
                        "malformed JSON",
                    _ => "unexpected field type",
                }
            ))
        })?;
        match file.kind.as_deref() {
            Some("service_account") => {}
            Some(other) => {
                return Err(AuthError::BadKey(format!(
                    "its type is `{other}`, not `service_account`; create a key for a service account (IAM → Service accounts → Keys → Add key → JSON)"
                )));
            }
            None => return Err(bad("it has no `type`; is it a service-account key file?")),
        }
        let email = file
            .client_email
            .filter(|e| !e.is_empty())
            .ok_or_else(|| bad("it has no `client_email`"))?;
        let token_uri = file
            .token_uri
            .filter(|u| u.starts_with("https://") || u.starts_with("http://"))
            .ok_or_else(|| bad("it has no `token_uri` (an https:// url)"))?;
        let pem = file
            .private_key
            .ok_or_else(|| bad("it has no `private_key`"))?;
        let der = pem_body(&pem).ok_or_else(|| {
            bad("its `private_key` is not a PEM `BEGIN PRIVATE KEY` block (PKCS#8)")
        })?;
        let key = RsaKeyPair::from_pkcs8(&der).map_err(|_| {
            bad("its `private_key` is not an RSA private key in PKCS#8 form; download a new JSON key")
        })?;
        Ok(ServiceAccount {
            email,
            key_id: file.private_key_id,
            token_uri,
            key,
        })
    }

    /// The service account's email, for messages.
    pub fn email(&self) -> &str {
        &self.email
    }

    /// A signed assertion for the token endpoint, issued at `now` (seconds
    /// since the epoch).
    pub fn assertion(&self, now: u64) -> Result<String, AuthError> {
        let mut header = serde_json::json!({"alg": "RS256", "typ": "JWT"});
        if let Some(id) = &self.key_id {
            header["kid"] = serde_json::Value::String(id.clone());
        }
        let claims = serde_json::json!({
            "iss": self.email,
            "scope": SCOPE,
            "aud": self.token_uri,
            "iat": now,
            "exp": now + ASSERTION_LIFETIME.as_secs(),
        });
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let signing_input = format!(
            "{}.{}",
            b64.encode(header.to_string()),
            b64.encode(claims.to_string())
        );
        let mut signature = vec![0; self.key.public().modulus_len()];
        self.key
            .sign(
                &RSA_PKCS1_SHA256,
                &SystemRandom::new(),
                signing_input.as_bytes(),
                &mut signature,
            )
            .map_err(|_| AuthError::BadKey("its private key could not sign".to_string()))?;
        Ok(format!("{signing_input}.{}", b64.encode(signature)))
    }
}

/// The DER inside a PEM `PRIVATE KEY` block.
fn pem_body(pem: &str) -> Option<Vec<u8>> {
    let start = pem.find("-----BEGIN PRIVATE KEY-----")? + "-----BEGIN PRIVATE KEY-----".len();
    let end = pem[start..].find("-----END PRIVATE KEY-----")? + start;
    let body: String = pem[start..end]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    base64::engine::general_purpose::STANDARD.decode(body).ok()
}

/// An access token and when to stop using it.
#[derive(Clone)]
pub struct AccessToken {
    /// The bearer token.
    pub value: String,
    renew_at: Instant,
}

impl std::fmt::Debug for AccessToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AccessToken(<redacted>)")
    }
}

impl AccessToken {
    /// Whether the token is still good for a request.
    pub fn fresh(&self) -> bool {
        Instant::now() < self.renew_at
    }
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: Option<String>,
    expires_in: Option<u64>,
    error: Option<String>,
    error_description: Option<String>,
}

/// Exchanges a fresh assertion for an access token (blocking).
pub fn fetch_token(http: &Http, account: &ServiceAccount) -> Result<AccessToken, AuthError> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let assertion = account.assertion(now)?;
    let body = form_urlencoded::Serializer::new(String::new())
        .append_pair("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer")
        .append_pair("assertion", &assertion)
        .finish();
    let requested = Instant::now();
    let (status, text) = http
        .post_form(&account.token_uri, &body)
        .map_err(|e| match e {
            HttpError::Transport { target, message } => AuthError::Unreachable {
                target,
                message: format!("the token endpoint did not answer: {message}"),
            },
        })?;
    let answer: Option<TokenAnswer> = serde_json::from_str(&text).ok();
    if status == 200
        && let Some(TokenAnswer {
            access_token: Some(value),
            expires_in,
            ..
        }) = answer
    {
        let lifetime = Duration::from_secs(expires_in.unwrap_or(3600));
        return Ok(AccessToken {
            value,
            renew_at: requested + lifetime.saturating_sub(RENEW_BEFORE),
        });
    }
    let (code, description) = answer
        .map(|a| {
            (
                a.error.unwrap_or_default(),
                a.error_description.unwrap_or_default(),
            )
        })
        .unwrap_or_default();
    // The endpoint's own words, minus anything that looks like a token.
    let description: String = description
        .split_whitespace()
        .filter(|w| w.len() < 60)
        .collect::<Vec<_>>()
        .join(" ");
    let advice = match code.as_str() {
        "invalid_grant" => {
            "the key was revoked or deleted, the service account is disabled, or this machine's clock is off; create a new key for the service account"
        }
        "invalid_client" | "unauthorized_client" => {
            "the service account or its key does not exist any more; create a new key"
        }
        _ => "check that the key file is a current key of an enabled service account",
    };
    Err(AuthError::Refused(format!(
        "the token endpoint refused the service account {} (HTTP {status}{}{}): {advice}",
        account.email,
        if code.is_empty() {
            String::new()
        } else {
            format!(", {code}")
        },
        if description.is_empty() {
            String::new()
        } else {
            format!(": {description}")
        }
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_file_mistakes_are_named_without_the_key() {
        let secret = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC-NOT-A-KEY";
        for (json, says) in [
            ("not json", "malformed JSON"),
            (r#"{"type":"authorized_user"}"#, "authorized_user"),
            (
                &format!(
                    r#"{{"type":"service_account","client_email":"a@b","token_uri":"https://t","private_key":"-----BEGIN PRIVATE KEY-----\n{secret}\n-----END PRIVATE KEY-----\n"}}"#
                ),
                "PEM",
            ),
            (
                r#"{"type":"service_account","client_email":"a@b","private_key":"x"}"#,
                "token_uri",
            ),
        ] {
            let Err(AuthError::BadKey(message)) = ServiceAccount::from_json(json) else {
                panic!("{json} was accepted");
            };
            assert!(message.contains(says), "{message}");
            assert!(!message.contains(secret), "{message}");
        }
    }
}
