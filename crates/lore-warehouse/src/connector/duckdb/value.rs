//! DuckDB values as JSON, without loss (the rules of
//! [`crate::connector::value`]):
//!
//! - `HUGEINT`, `UBIGINT` and `UHUGEINT` are numbers while exact, else
//!   strings; `DECIMAL` is a number only when a double holds it exactly.
//! - `DATE` is `YYYY-MM-DD`, `TIME` `HH:MM:SS[.ffffff]`, `TIMESTAMP`
//!   `YYYY-MM-DDTHH:MM:SS[.fffffffff]` (`Z` for `TIMESTAMP WITH TIME
//!   ZONE`, which DuckDB hands out in UTC), `INTERVAL` an ISO-8601
//!   duration.
//! - `LIST` and `ARRAY` are arrays, `STRUCT` an object, `MAP` an object keyed
//!   by the keys' text, `UNION` its member's value, `ENUM` and `UUID` text,
//!   `JSON` the JSON it holds, `BLOB` `{"$base64": …}`.

use duckdb::core::{LogicalTypeHandle, LogicalTypeId};
use duckdb::types::{TimeUnit, Value};
use lore_core::time::{format_date, format_time_of_day};
use serde_json::{Map, Value as Json};

use crate::connector::value::{
    blob_to_json, decimal_to_json, float_to_json, integer_to_json, interval_to_iso,
    unsupported_to_json,
};

/// What a result column needs for its values to read right.
#[derive(Debug, Clone)]
pub(super) struct ColumnKind {
    /// The type's name, e.g. `DECIMAL(12,2)`, `TIMESTAMP WITH TIME ZONE`.
    pub(super) name: String,
    /// Timestamps are instants in UTC (`TIMESTAMP WITH TIME ZONE`).
    utc: bool,
    /// Text holding JSON.
    json: bool,
}

impl ColumnKind {
    pub(super) fn of(logical: &LogicalTypeHandle) -> ColumnKind {
        let alias = logical.get_alias();
        let json = alias.as_deref() == Some("JSON");
        ColumnKind {
            name: alias.unwrap_or_else(|| type_name(logical)),
            utc: logical.id() == LogicalTypeId::TimestampTZ,
            json,
        }
    }
}

/// DuckDB's name of a type.
fn type_name(logical: &LogicalTypeHandle) -> String {
    use LogicalTypeId as T;
    let name = match logical.id() {
        T::Boolean => "BOOLEAN",
        T::Tinyint => "TINYINT",
        T::Smallint => "SMALLINT",
        T::Integer => "INTEGER",
        T::Bigint => "BIGINT",
        T::Hugeint => "HUGEINT",
        T::UTinyint => "UTINYINT",
        T::USmallint => "USMALLINT",
        T::UInteger => "UINTEGER",
        T::UBigint => "UBIGINT",
        T::UHugeint => "UHUGEINT",
        T::Float => "FLOAT",
        T::Double => "DOUBLE",
        T::Decimal => {
            return format!(
                "DECIMAL({},{})",
                logical.decimal_width(),
                logical.decimal_scale()
            );
        }
        T::Varchar => "VARCHAR",
        T::Blob => "BLOB",
        T::Date => "DATE",
        T::Time | T::TimeNs => "TIME",
        T::TimeTZ => "TIME WITH TIME ZONE",
        T::Timestamp => "TIMESTAMP",
        T::TimestampS => "TIMESTAMP_S",
        T::TimestampMs => "TIMESTAMP_MS",
        T::TimestampNs => "TIMESTAMP_NS",
        T::TimestampTZ => "TIMESTAMP WITH TIME ZONE",
        T::Interval => "INTERVAL",
        T::Uuid => "UUID",
        T::Enum => "ENUM",
        T::List => "LIST",
        T::Array => "ARRAY",
        T::Struct => "STRUCT",
        T::Map => "MAP",
        T::Union => "UNION",
        T::Bit => "BIT",
        T::Bignum => "BIGNUM",
        T::Geometry => "GEOMETRY",
        T::Variant => "VARIANT",
        T::SqlNull => "NULL",
        _ => "UNKNOWN",
    };
    name.to_string()
}

/// One value of a column of `kind`.
pub(super) fn to_json(value: Value, kind: &ColumnKind) -> Json {
    match value {
        Value::Text(text) if kind.json => serde_json::from_str(&text).unwrap_or(Json::String(text)),
        other => convert(other, kind.utc),
    }
}

fn convert(value: Value, utc: bool) -> Json {
    match value {
        Value::Null => Json::Null,
        Value::Boolean(b) => Json::Bool(b),
        Value::TinyInt(i) => Json::from(i),
        Value::SmallInt(i) => Json::from(i),
        Value::Int(i) => Json::from(i),
        Value::BigInt(i) => integer_to_json(i),
        Value::UTinyInt(i) => Json::from(i),
        Value::USmallInt(i) => Json::from(i),
        Value::UInt(i) => Json::from(i),
        Value::UBigInt(i) => wide_integer(i128::from(i)),
        Value::HugeInt(i) => wide_integer(i),
        Value::UHugeInt(i) => match i128::try_from(i) {
            Ok(i) => wide_integer(i),
            Err(_) => Json::String(i.to_string()),
        },
        // The float's own shortest decimal, not the double's expansion.
        Value::Float(f) => float_to_json(f.to_string().parse().unwrap_or(f64::from(f))),
        Value::Double(f) => float_to_json(f),
        Value::Decimal(d) => decimal_to_json(&decimal_text(d.value(), d.scale())),
        Value::Timestamp(unit, t) => Json::String(timestamp_text(unit, t, utc)),
        Value::Date32(days) => Json::String(format_date(i64::from(days))),
        Value::Time64(unit, t) => Json::String(time_text(unit, t)),
        Value::Interval {
            months,
            days,
            nanos,
        } => Json::String(interval_to_iso(months, days, nanos / 1000)),
        Value::Text(text) | Value::Enum(text) => Json::String(text),
        Value::Blob(bytes) | Value::Geometry(bytes) => blob_to_json(&bytes),
        Value::List(items) | Value::Array(items) => {
            Json::Array(items.into_iter().map(|v| convert(v, utc)).collect())
        }
        Value::Struct(fields) => Json::Object(
            fields
                .iter()
                .map(|(name, v)| (name.clone(), convert(v.clone(), utc)))
                .collect::<Map<_, _>>(),
        ),
        Value::Map(entries) => Json::Object(
            entries
                .iter()
                .map(|(k, v)| (key_text(k.clone(), utc), convert(v.clone(), utc)))
                .collect::<Map<_, _>>(),
        ),
        Value::Union(inner) => convert(*inner, utc),
        // Kinds of values newer than this code.
        _ => unsupported_to_json("DuckDB value"),
    }
}

/// An integer wider than 64 bits as a number when exact, else as text.
fn wide_integer(i: i128) -> Json {
    match i64::try_from(i) {
        Ok(i) => integer_to_json(i),
        Err(_) => Json::String(i.to_string()),
    }
}

/// A map key as an object key: text as it is, anything else as its JSON.
fn key_text(key: Value, utc: bool) -> String {
    match convert(key, utc) {
        Json::String(s) => s,
        other => other.to_string(),
    }
}

/// A scaled integer as decimal text: `1250`, scale 2 → `12.50`.
fn decimal_text(value: i128, scale: u8) -> String {
    let digits = value.unsigned_abs().to_string();
    let sign = if value < 0 { "-" } else { "" };
    let scale = usize::from(scale);
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (whole, fraction) = padded.split_at(padded.len() - scale);
    format!("{sign}{whole}.{fraction}")
}

/// Seconds and nanoseconds of a count of `unit`s.
fn split(unit: TimeUnit, t: i64) -> (i64, i64) {
    match unit {
        TimeUnit::Second => (t, 0),
        TimeUnit::Millisecond => (t.div_euclid(1_000), t.rem_euclid(1_000) * 1_000_000),
        TimeUnit::Microsecond => (t.div_euclid(1_000_000), t.rem_euclid(1_000_000) * 1_000),
        TimeUnit::Nanosecond => (t.div_euclid(1_000_000_000), t.rem_euclid(1_000_000_000)),
    }
}

/// `.fffffffff` with trailing zeros trimmed, or nothing.
fn fraction_text(nanos: i64) -> String {
    if nanos == 0 {
        return String::new();
    }
    format!(".{}", format!("{nanos:09}").trim_end_matches('0'))
}

fn timestamp_text(unit: TimeUnit, t: i64, utc: bool) -> String {
    // DuckDB's infinite timestamps.
    if t == i64::MAX {
        return "infinity".to_string();
    }
    if t == -i64::MAX {
        return "-infinity".to_string();
    }
    let (seconds, nanos) = split(unit, t);
    format!(
        "{}T{}{}{}",
        format_date(seconds.div_euclid(86_400)),
        format_time_of_day(seconds.rem_euclid(86_400) * 1_000_000),
        fraction_text(nanos),
        if utc { "Z" } else { "" }
    )
}

fn time_text(unit: TimeUnit, t: i64) -> String {
    let (seconds, nanos) = split(unit, t);
    format!(
        "{}{}",
        format_time_of_day(seconds * 1_000_000),
        fraction_text(nanos)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_keep_their_scale_as_text() {
        assert_eq!(decimal_text(1250, 2), "12.50");
        assert_eq!(decimal_text(-5, 3), "-0.005");
        assert_eq!(decimal_text(42, 0), "42");
    }

    #[test]
    fn timestamps_keep_their_precision_and_zone() {
        assert_eq!(
            timestamp_text(TimeUnit::Microsecond, 1_700_000_000_123_000, false),
            "2023-11-14T22:13:20.123"
        );
        assert_eq!(
            timestamp_text(TimeUnit::Nanosecond, -1, true),
            "1969-12-31T23:59:59.999999999Z"
        );
        assert_eq!(time_text(TimeUnit::Microsecond, 3_600_000_000), "01:00:00");
    }
}
