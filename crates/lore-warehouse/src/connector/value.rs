//! Database values as JSON, without loss.
//!
//! - Integers beyond ±(2^53 − 1) become strings: JSON numbers above that
//!   lose precision in JavaScript clients.
//! - Non-finite floats become the strings `"Infinity"`, `"-Infinity"`, `"NaN"`.
//! - Blobs (and text that is not UTF-8) become `{"$base64": "<data>"}`.
//! - Exact decimals (PostgreSQL `numeric`, MySQL `DECIMAL`) become numbers
//!   only when a JSON number carries them exactly, else strings.
//! - Values of types Lore cannot decode become
//!   `{"$unsupportedType": "<type>", "hint": …}` rather than a guess.

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

/// An exact decimal (`-12.50`, `NaN`) as a JSON number when a double
/// holds it exactly (`12.5`), else as the decimal string.
pub fn decimal_to_json(text: &str) -> Value {
    if let Ok(i) = text.parse::<i64>() {
        return integer_to_json(i);
    }
    match text.parse::<f64>() {
        Ok(f) if f.is_finite() && same_decimal(&f.to_string(), text) => float_to_json(f),
        _ => Value::String(text.to_string()),
    }
}

/// Whether two decimal strings denote the same number once trailing zeros
/// of the fraction are ignored (`12.50` and `12.5`).
fn same_decimal(a: &str, b: &str) -> bool {
    fn canonical(s: &str) -> &str {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.')
        } else {
            s
        }
    }
    canonical(a) == canonical(b)
}

/// An interval as an ISO-8601 duration (`P1Y2M3DT4H5M6.5S`, `PT0S`):
/// months, days and microseconds kept apart, as the databases keep them.
pub fn interval_to_iso(months: i32, days: i32, micros: i64) -> String {
    let mut text = String::from("P");
    if months / 12 != 0 {
        text.push_str(&format!("{}Y", months / 12));
    }
    if months % 12 != 0 {
        text.push_str(&format!("{}M", months % 12));
    }
    if days != 0 {
        text.push_str(&format!("{days}D"));
    }
    if micros != 0 {
        let sign = if micros < 0 { "-" } else { "" };
        let abs = micros.unsigned_abs();
        let (hours, minutes) = (abs / 3_600_000_000, abs / 60_000_000 % 60);
        let seconds = abs % 60_000_000;
        text.push('T');
        if hours != 0 {
            text.push_str(&format!("{sign}{hours}H"));
        }
        if minutes != 0 {
            text.push_str(&format!("{sign}{minutes}M"));
        }
        if seconds != 0 {
            let whole = seconds / 1_000_000;
            let fraction = seconds % 1_000_000;
            if fraction == 0 {
                text.push_str(&format!("{sign}{whole}S"));
            } else {
                let digits = format!("{fraction:06}");
                text.push_str(&format!("{sign}{whole}.{}S", digits.trim_end_matches('0')));
            }
        }
    }
    if text == "P" {
        text.push_str("T0S");
    }
    text
}

/// A value Lore cannot decode, named so an agent knows how to read it.
pub fn unsupported_to_json(type_name: &str) -> Value {
    serde_json::json!({
        "$unsupportedType": type_name,
        "hint": "cast the column to text in SQL to read it (e.g. CAST(col AS TEXT) or col::text)",
    })
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
    fn decimals_are_numbers_only_when_exact() {
        assert_eq!(decimal_to_json("12.50"), json!(12.5));
        assert_eq!(decimal_to_json("-3"), json!(-3));
        assert_eq!(decimal_to_json("0.1"), json!(0.1));
        assert_eq!(
            decimal_to_json("12345678901234567890.12"),
            json!("12345678901234567890.12")
        );
        assert_eq!(decimal_to_json("NaN"), json!("NaN"));
        assert_eq!(
            decimal_to_json("9007199254740993"),
            json!("9007199254740993")
        );
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
