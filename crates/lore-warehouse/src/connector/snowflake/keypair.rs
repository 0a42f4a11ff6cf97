//! Key-pair authentication: a JWT signed with the user's RSA private key,
//! as Snowflake's `SNOWFLAKE_JWT` authenticator expects it.
//!
//! The key is read from PEM — PKCS#8 (`BEGIN PRIVATE KEY`, what `openssl
//! genpkey` writes) or PKCS#1 (`BEGIN RSA PRIVATE KEY`) — or from base64
//! DER. The token says who signs (`iss`: `ACCOUNT.USER.SHA256:<fingerprint>`,
//! the fingerprint being the SHA-256 of the public key's
//! SubjectPublicKeyInfo, as `DESC USER` shows it in `RSA_PUBLIC_KEY_FP`),
//! for whom (`sub`: `ACCOUNT.USER`) and for how long (`iat`, `exp`), signed
//! with RS256 by `ring`. The key itself never leaves this module: `Debug`
//! shows the fingerprint only.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ring::rand::SystemRandom;
use ring::signature::{KeyPair as _, RSA_PKCS1_SHA256, RsaKeyPair};

/// How long a token is valid (Snowflake accepts at most an hour).
const LIFETIME_SECONDS: u64 = 3540;

/// An RSA private key ready to sign login tokens.
pub(crate) struct KeyPair {
    key: RsaKeyPair,
    /// `SHA256:<base64>` of the public key.
    fingerprint: String,
}

impl std::fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyPair")
            .field("fingerprint", &self.fingerprint)
            .finish_non_exhaustive()
    }
}

impl KeyPair {
    /// Reads a private key from PEM (or base64 DER). Errors say what to do
    /// and never quote the key.
    pub(crate) fn from_pem(text: &str) -> Result<KeyPair, String> {
        // A key pasted into an environment variable often has `\n` for
        // its line breaks.
        let text = text.replace("\\n", "\n");
        let (label, der) = match pem_block(&text) {
            Some((label, body)) => (label, decode_base64(&body)?),
            None => ("PRIVATE KEY".to_string(), decode_base64(&text)?),
        };
        let key = match label.as_str() {
            "PRIVATE KEY" => RsaKeyPair::from_pkcs8(&der),
            "RSA PRIVATE KEY" => RsaKeyPair::from_der(&der),
            "ENCRYPTED PRIVATE KEY" => {
                return Err("the private key is encrypted; Lore needs it unencrypted: \
                     `openssl pkcs8 -topk8 -nocrypt -in key.p8 -out lore.p8`, and keep that file readable by Lore only"
                    .to_string());
            }
            other => {
                return Err(format!(
                    "the private_key holds a `{other}` block, not an RSA private key (BEGIN PRIVATE KEY)"
                ));
            }
        }
        .map_err(|e| {
            format!("the private_key is not an RSA key ring accepts ({e}); generate one with `openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048`")
        })?;
        let fingerprint = fingerprint(key.public_key().as_ref());
        Ok(KeyPair { key, fingerprint })
    }

    /// `SHA256:<base64>`: what Snowflake shows as `RSA_PUBLIC_KEY_FP`.
    pub(crate) fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// A login token for `account_name` (without region) and `user`,
    /// issued at `now_seconds` (Unix time).
    pub(crate) fn token(&self, account_name: &str, user: &str, now_seconds: u64) -> String {
        let subject = format!(
            "{}.{}",
            account_name.to_ascii_uppercase(),
            user.to_ascii_uppercase()
        );
        let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"RS256","typ":"JWT"}"#);
        let claims = serde_json::json!({
            "iss": format!("{subject}.{}", self.fingerprint),
            "sub": subject,
            "iat": now_seconds,
            "exp": now_seconds + LIFETIME_SECONDS,
        });
        let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
        let signing_input = format!("{header}.{payload}");
        let mut signature = vec![0; self.key.public().modulus_len()];
        // Signing with a valid key into a buffer of the modulus' length
        // only fails if the system has no randomness at all.
        let signed = self.key.sign(
            &RSA_PKCS1_SHA256,
            &SystemRandom::new(),
            signing_input.as_bytes(),
            &mut signature,
        );
        if signed.is_err() {
            signature.clear();
        }
        format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature))
    }
}

/// The label and base64 body of the first PEM block of `text`.
fn pem_block(text: &str) -> Option<(String, String)> {
    let start = text.find("-----BEGIN ")?;
    let after = &text[start + "-----BEGIN ".len()..];
    let label_end = after.find("-----")?;
    let label = after[..label_end].trim().to_string();
    let body_start = &after[label_end + 5..];
    let end = body_start.find("-----END ")?;
    Some((label, body_start[..end].to_string()))
}

fn decode_base64(body: &str) -> Result<Vec<u8>, String> {
    let compact: String = body.chars().filter(|c| !c.is_whitespace()).collect();
    STANDARD.decode(compact).map_err(|_| {
        "the private_key is neither PEM (-----BEGIN PRIVATE KEY-----) nor base64 DER".to_string()
    })
}

/// `SHA256:` and the base64 SHA-256 of the SubjectPublicKeyInfo wrapping
/// the PKCS#1 `rsa_public_key`.
fn fingerprint(rsa_public_key: &[u8]) -> String {
    // AlgorithmIdentifier { rsaEncryption, NULL }.
    const RSA_ALGORITHM: &[u8] = &[
        0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
    ];
    let mut bit_string = vec![0x00];
    bit_string.extend_from_slice(rsa_public_key);
    let mut inner = RSA_ALGORITHM.to_vec();
    inner.extend(der(0x03, &bit_string));
    let spki = der(0x30, &inner);
    let digest = ring::digest::digest(&ring::digest::SHA256, &spki);
    format!("SHA256:{}", STANDARD.encode(digest.as_ref()))
}

/// One DER element: tag, definite length, content.
fn der(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = content.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes: Vec<u8> = len
            .to_be_bytes()
            .into_iter()
            .skip_while(|b| *b == 0)
            .collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend_from_slice(content);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn der_lengths_use_the_long_form_past_127_bytes() {
        assert_eq!(der(0x04, &[1, 2]), vec![0x04, 2, 1, 2]);
        let long = der(0x04, &[0; 300]);
        assert_eq!(&long[..4], &[0x04, 0x82, 0x01, 0x2c]);
        assert_eq!(long.len(), 304);
    }

    #[test]
    fn text_that_is_no_key_is_refused_without_being_quoted() {
        let err = KeyPair::from_pem("not-a-key-hunter2").unwrap_err();
        assert!(!err.contains("hunter2"), "{err}");
        let err = KeyPair::from_pem(
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n",
        )
        .unwrap_err();
        assert!(err.contains("-nocrypt"), "{err}");
        let err =
            KeyPair::from_pem("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
                .unwrap_err();
        assert!(err.contains("not an RSA key"), "{err}");
    }
}
