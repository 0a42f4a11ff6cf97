//! Google's OAuth token endpoint for service accounts: a JWT bearer grant
//! whose RS256 signature is verified with the test key's public key.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use base64::Engine;
use serde_json::{Value, json};

use super::google::now_seconds;
use super::{KEY_JSON, Shared};

/// The OAuth token endpoint: a JWT bearer grant signed with the test key.
pub(super) fn token(state: &Shared, body: &[u8]) -> (u16, Value) {
    let refuse = |description: &str| {
        (
            400,
            json!({"error": "invalid_grant", "error_description": description}),
        )
    };
    let form: HashMap<String, String> = form_urlencoded::parse(body).into_owned().collect();
    if form.get("grant_type").map(String::as_str)
        != Some("urn:ietf:params:oauth:grant-type:jwt-bearer")
    {
        return (
            400,
            json!({"error": "unsupported_grant_type", "error_description": "Invalid grant_type: "}),
        );
    }
    let assertion = form.get("assertion").cloned().unwrap_or_default();
    let parts: Vec<&str> = assertion.split('.').collect();
    let [header, claims, signature] = parts.as_slice() else {
        return refuse("Invalid JWT: not three parts");
    };
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let decode =
        |part: &str| -> Option<Value> { serde_json::from_slice(&b64.decode(part).ok()?).ok() };
    let (Some(header), Some(claims), Ok(signature)) =
        (decode(header), decode(claims), b64.decode(signature))
    else {
        return refuse("Invalid JWT: malformed");
    };
    if header["alg"] != "RS256" {
        return refuse("Invalid JWT: alg must be RS256");
    }
    let signed = format!("{}.{}", parts[0], parts[1]);
    let key = ring::signature::UnparsedPublicKey::new(
        &ring::signature::RSA_PKCS1_2048_8192_SHA256,
        &state.public_key,
    );
    if key.verify(signed.as_bytes(), &signature).is_err() {
        return refuse("Invalid JWT Signature.");
    }
    let email = serde_json::from_str::<Value>(KEY_JSON).unwrap_or_default()["client_email"].clone();
    let now = now_seconds();
    let (iat, exp) = (
        claims["iat"].as_i64().unwrap_or(0),
        claims["exp"].as_i64().unwrap_or(0),
    );
    if claims["iss"] != email {
        return refuse("Invalid JWT: iss is not the service account");
    }
    if claims["aud"].as_str() != Some(&format!("{}/token", state.root)) {
        return refuse("Invalid JWT: aud is not the token endpoint");
    }
    if !claims["scope"]
        .as_str()
        .unwrap_or_default()
        .split(' ')
        .any(|s| s == "https://www.googleapis.com/auth/bigquery")
    {
        return refuse("Invalid JWT: no BigQuery scope");
    }
    if iat > now + 60 || exp <= now || exp - iat > 3600 {
        return refuse(
            "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.",
        );
    }
    if state.knobs.lock().expect("knobs").refuse_tokens {
        return refuse("Invalid grant: account not found");
    }
    let n = state.counter.fetch_add(1, Ordering::SeqCst);
    let token = format!(
        "ya29.double-{n}-{:x}",
        now.wrapping_mul(0x9e37_79b9) ^ n as i64
    );
    state.tokens.lock().expect("tokens").push(token.clone());
    (
        200,
        json!({"access_token": token, "expires_in": 3599, "token_type": "Bearer"}),
    )
}
