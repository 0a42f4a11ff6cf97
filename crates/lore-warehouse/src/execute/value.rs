//! Database values as JSON, without loss.
//!
//! - Integers beyond ±(2^53 − 1) become strings: JSON numbers above that
//!   lose precision in JavaScript clients.
//! - Non-finite floats become the strings `"Infinity"`, `"-Infinity"`, `"NaN"`.
//! - Blobs (and text that is not UTF-8) become `{"$base64": "<data>"}`.

use base64::Engine;
use rusqlite::types::ValueRef;
use serde_json::{Map, Number, Value};

/// The largest integer a JSON number carries exactly in JavaScript.
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// The key of the object that marks base64-encoded binary data.
pub const BLOB_MARKER: &str = "$base64";

/// Converts one SQLite value.
pub fn sqlite_to_json(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => integer_to_json(i),
        ValueRef::Real(f) => float_to_json(f),
        ValueRef::Text(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => Value::String(text.to_string()),
            Err(_) => blob_to_json(bytes),
        },
        ValueRef::Blob(bytes) => blob_to_json(bytes),
    }
}

/// An integer as a JSON number when exact, else as a string.
pub fn integer_to_json(i: i64) -> Value {
    if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&i) {
        Value::Number(i.into())
    } else {
        Value::String(i.to_string())
    }
}

/// A float as a JSON number when finite, else as a named string.
pub fn float_to_json(f: f64) -> Value {
    match Number::from_f64(f) {
        Some(n) => Value::Number(n),
        None if f.is_nan() => Value::String("NaN".into()),
        None if f > 0.0 => Value::String("Infinity".into()),
        None => Value::String("-Infinity".into()),
    }
}

/// Binary data as `{"$base64": "..."}`.
pub fn blob_to_json(bytes: &[u8]) -> Value {
    let mut marker = Map::new();
    marker.insert(
        BLOB_MARKER.to_string(),
        Value::String(base64::engine::general_purpose::STANDARD.encode(bytes)),
    );
    Value::Object(marker)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn safe_integers_stay_numbers_and_big_ones_become_strings() {
        assert_eq!(
            integer_to_json(MAX_SAFE_INTEGER),
            json!(9_007_199_254_740_991i64)
        );
        assert_eq!(
            integer_to_json(MAX_SAFE_INTEGER + 1),
            json!("9007199254740992")
        );
        assert_eq!(integer_to_json(i64::MIN), json!("-9223372036854775808"));
    }

    #[test]
    fn non_finite_floats_are_named() {
        assert_eq!(float_to_json(1.5), json!(1.5));
        assert_eq!(float_to_json(f64::INFINITY), json!("Infinity"));
        assert_eq!(float_to_json(f64::NAN), json!("NaN"));
    }

    #[test]
    fn blobs_and_invalid_text_are_base64_with_a_marker() {
        assert_eq!(
            sqlite_to_json(ValueRef::Blob(&[0, 255])),
            json!({"$base64": "AP8="})
        );
        assert_eq!(
            sqlite_to_json(ValueRef::Text(&[0xff, 0xfe])),
            json!({"$base64": "//4="})
        );
        assert_eq!(sqlite_to_json(ValueRef::Text(b"ok")), json!("ok"));
    }
}
