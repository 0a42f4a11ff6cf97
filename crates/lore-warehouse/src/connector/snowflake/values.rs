//! Snowflake's wire encodings of values, and the lossless JSON every Lore
//! connector answers with.
//!
//! `FIXED` numbers come as scaled integers (or decimal text), `DATE` as
//! days since 1970, `TIME` and timestamps as seconds since midnight / 1970
//! (scaled integers, or `{epoch, fraction[, timezone]}` structs in Arrow,
//! `"secs.nanos[ tz]"` in JSON, `timezone` being the offset in minutes plus
//! 1440), `BINARY` as hex text in JSON. They become exact numbers or decimal
//! strings, ISO-8601 text (`TIMESTAMP_LTZ` in UTC with `Z`, `TIMESTAMP_TZ`
//! with its own offset), JSON for `VARIANT`, `OBJECT` and `ARRAY`, and
//! `{"$base64"}` for binary.

use serde_json::Value;

use crate::connector::value::{blob_to_json, decimal_to_json, float_to_json, integer_to_json};

/// How a column's values are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Fixed,
    Real,
    Text,
    Boolean,
    Date,
    Time,
    /// Wall-clock time without a zone.
    TimestampNtz,
    /// An instant, shown in UTC.
    TimestampLtz,
    /// An instant with its own offset.
    TimestampTz,
    Binary,
    /// `VARIANT`, `OBJECT`, `ARRAY`: JSON text.
    Semi,
    /// Anything else (`GEOGRAPHY`, `VECTOR`…): passed on as text.
    Other,
}

/// One result column, from `rowtype`.
#[derive(Debug, Clone)]
pub(crate) struct Column {
    pub(super) name: String,
    pub(super) kind: Kind,
    pub(super) scale: u32,
    pub(super) type_name: String,
}

impl Column {
    pub(super) fn from_rowtype(entry: &Value) -> Column {
        let text = |key: &str| entry.get(key).and_then(Value::as_str).unwrap_or("");
        let number = |key: &str| entry.get(key).and_then(Value::as_i64);
        let snowflake_type = text("type").to_ascii_lowercase();
        let scale = number("scale").unwrap_or(0).clamp(0, 38) as u32;
        let kind = match snowflake_type.as_str() {
            "fixed" | "decfloat" => Kind::Fixed,
            "real" => Kind::Real,
            "text" => Kind::Text,
            "boolean" => Kind::Boolean,
            "date" => Kind::Date,
            "time" => Kind::Time,
            "timestamp_ntz" | "timestamp" => Kind::TimestampNtz,
            "timestamp_ltz" => Kind::TimestampLtz,
            "timestamp_tz" => Kind::TimestampTz,
            "binary" => Kind::Binary,
            "variant" | "object" | "array" | "map" => Kind::Semi,
            _ => Kind::Other,
        };
        let type_name = match kind {
            Kind::Fixed => format!("NUMBER({},{scale})", number("precision").unwrap_or(38)),
            Kind::Real => "FLOAT".to_string(),
            Kind::Text => "VARCHAR".to_string(),
            _ => snowflake_type.to_ascii_uppercase(),
        };
        Column {
            name: text("name").to_string(),
            kind,
            scale,
            type_name,
        }
    }
}

/// One value of a JSON rowset (a string or null).
pub(super) fn json_cell(column: &Column, cell: &Value) -> Value {
    let text = match cell {
        Value::Null => return Value::Null,
        Value::String(text) => text.as_str(),
        // Not Snowflake's encoding, but not worth losing.
        other => return other.clone(),
    };
    match column.kind {
        Kind::Fixed => decimal_to_json(text),
        Kind::Real => match text.parse::<f64>() {
            Ok(f) => float_to_json(f),
            Err(_) => Value::String(text.to_string()),
        },
        Kind::Boolean => Value::Bool(matches!(text, "1" | "true" | "TRUE" | "True")),
        Kind::Date => text
            .parse::<i64>()
            .map(|days| Value::String(lore_core::time::format_date(days)))
            .unwrap_or_else(|_| Value::String(text.to_string())),
        Kind::Time => match seconds_and_nanos(text) {
            Some((seconds, nanos)) => Value::String(time_of_day(seconds, nanos)),
            None => Value::String(text.to_string()),
        },
        Kind::TimestampNtz | Kind::TimestampLtz | Kind::TimestampTz => {
            let (instant, zone) = match text.split_once(' ') {
                Some((instant, zone)) => (instant, zone.trim().parse::<i64>().ok()),
                None => (text, None),
            };
            match seconds_and_nanos(instant) {
                Some((seconds, nanos)) => timestamp(column.kind, seconds, nanos, zone),
                None => Value::String(text.to_string()),
            }
        }
        Kind::Binary => match hex_bytes(text) {
            Some(bytes) => blob_to_json(&bytes),
            None => Value::String(text.to_string()),
        },
        Kind::Semi => {
            serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
        }
        Kind::Text | Kind::Other => Value::String(text.to_string()),
    }
}

/// A scaled integer as what its column holds.
pub(super) fn scaled_integer(column: &Column, value: i128) -> Value {
    match column.kind {
        Kind::Date => Value::String(lore_core::time::format_date(value as i64)),
        Kind::Time => {
            let (seconds, nanos) = split_scaled(value, column.scale);
            Value::String(time_of_day(seconds, nanos))
        }
        Kind::TimestampNtz | Kind::TimestampLtz | Kind::TimestampTz => {
            let (seconds, nanos) = split_scaled(value, column.scale);
            timestamp(column.kind, seconds, nanos, None)
        }
        Kind::Real => float_to_json(value as f64),
        Kind::Boolean => Value::Bool(value != 0),
        _ if column.scale > 0 => decimal_to_json(&decimal_text(value, column.scale)),
        _ => match i64::try_from(value) {
            Ok(i) => integer_to_json(i),
            Err(_) => Value::String(value.to_string()),
        },
    }
}

pub(super) fn text_value(column: &Column, text: Option<&str>) -> Value {
    match text {
        None => Value::Null,
        Some(text) if column.kind == Kind::Semi => {
            serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
        }
        Some(text) => Value::String(text.to_string()),
    }
}

/// A timestamp of `kind` as ISO-8601 text; `zone` is Snowflake's offset
/// in minutes plus 1440.
pub(super) fn timestamp(kind: Kind, seconds: i64, nanos: u32, zone: Option<i64>) -> Value {
    let text = match kind {
        Kind::TimestampTz => {
            let offset_minutes = zone.map(|z| z - 1440).unwrap_or(0);
            let local = local_text(seconds + offset_minutes * 60, nanos);
            if offset_minutes == 0 {
                format!("{local}Z")
            } else {
                let sign = if offset_minutes < 0 { '-' } else { '+' };
                let minutes = offset_minutes.abs();
                format!("{local}{sign}{:02}:{:02}", minutes / 60, minutes % 60)
            }
        }
        Kind::TimestampLtz => format!("{}Z", local_text(seconds, nanos)),
        _ => local_text(seconds, nanos),
    };
    Value::String(text)
}

/// `YYYY-MM-DDTHH:MM:SS[.fffffffff]` for seconds since 1970.
fn local_text(seconds: i64, nanos: u32) -> String {
    let days = seconds.div_euclid(86_400);
    format!(
        "{}T{}",
        lore_core::time::format_date(days),
        time_of_day(seconds.rem_euclid(86_400), nanos)
    )
}

/// `HH:MM:SS[.fffffffff]` (trailing zeros trimmed).
fn time_of_day(seconds: i64, nanos: u32) -> String {
    let mut text = format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    );
    if nanos != 0 {
        let digits = format!("{nanos:09}");
        text.push('.');
        text.push_str(digits.trim_end_matches('0'));
    }
    text
}

/// A value counted in units of 10^-scale seconds, as seconds and
/// nanoseconds (the nanoseconds never negative).
pub(super) fn split_scaled(value: i128, scale: u32) -> (i64, u32) {
    let scale = scale.min(9);
    let unit = 10_i128.pow(scale);
    let seconds = value.div_euclid(unit);
    let fraction = value.rem_euclid(unit);
    (seconds as i64, (fraction * 10_i128.pow(9 - scale)) as u32)
}

/// `"1709214301.250000000"` (or `"-1.5"`) as seconds and nanoseconds.
fn seconds_and_nanos(text: &str) -> Option<(i64, u32)> {
    let negative = text.starts_with('-');
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let whole: i64 = whole.parse().ok()?;
    if fraction.len() > 9 || !fraction.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let nanos: u32 = format!("{fraction:0<9}").parse().ok()?;
    if negative && nanos > 0 {
        Some((whole - 1, 1_000_000_000 - nanos))
    } else {
        Some((whole, nanos))
    }
}

/// An unscaled integer and its scale as decimal text (`1250`, 2 → `12.50`).
pub(super) fn decimal_text(value: i128, scale: u32) -> String {
    if scale == 0 {
        return value.to_string();
    }
    let digits = value.unsigned_abs().to_string();
    let scale = scale as usize;
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (whole, fraction) = padded.split_at(padded.len() - scale);
    format!("{}{whole}.{fraction}", if value < 0 { "-" } else { "" })
}

fn hex_bytes(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn column(kind: &str, scale: i64) -> Column {
        Column::from_rowtype(&json!({"name": "C", "type": kind, "scale": scale, "precision": 38}))
    }

    #[test]
    fn json_rowset_values_become_lossless_json() {
        let cases = [
            (column("fixed", 0), json!("42"), json!(42)),
            (column("fixed", 2), json!("12.50"), json!(12.5)),
            (
                column("fixed", 0),
                json!("123456789012345678901234567890"),
                json!("123456789012345678901234567890"),
            ),
            (column("real", 0), json!("inf"), json!("Infinity")),
            (column("boolean", 0), json!("1"), json!(true)),
            (column("date", 0), json!("19782"), json!("2024-02-29")),
            (
                column("time", 9),
                json!("49501.250000000"),
                json!("13:45:01.25"),
            ),
            (
                column("timestamp_ntz", 9),
                json!("1709214301.250000000"),
                json!("2024-02-29T13:45:01.25"),
            ),
            (
                column("timestamp_ltz", 9),
                json!("1709214301.000000000"),
                json!("2024-02-29T13:45:01Z"),
            ),
            (
                column("timestamp_tz", 9),
                json!("1709207101.000000000 1560"),
                json!("2024-02-29T13:45:01+02:00"),
            ),
            (
                column("timestamp_ntz", 9),
                json!("-1.500000000"),
                json!("1969-12-31T23:59:58.5"),
            ),
            (
                column("binary", 0),
                json!("00FF"),
                json!({"$base64": "AP8="}),
            ),
            (
                column("variant", 0),
                json!("{\"a\": [1, 2]}"),
                json!({"a": [1, 2]}),
            ),
            (column("text", 0), json!("héllo"), json!("héllo")),
            (column("text", 0), Value::Null, Value::Null),
        ];
        for (column, cell, want) in cases {
            assert_eq!(json_cell(&column, &cell), want, "{column:?} {cell}");
        }
    }

    #[test]
    fn scaled_integers_and_decimals_keep_their_digits() {
        assert_eq!(decimal_text(1250, 2), "12.50");
        assert_eq!(decimal_text(-5, 3), "-0.005");
        assert_eq!(split_scaled(-1, 3), (-1, 999_000_000));
        assert_eq!(scaled_integer(&column("fixed", 2), 1250), json!(12.5));
        assert_eq!(
            scaled_integer(&column("timestamp_ntz", 3), 1_709_214_301_250),
            json!("2024-02-29T13:45:01.25")
        );
        assert_eq!(scaled_integer(&column("time", 0), 3_600), json!("01:00:00"));
    }
}
