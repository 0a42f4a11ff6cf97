//! PostgreSQL values (binary wire format) as JSON, without loss.
//!
//! Dates and times become ISO-8601 text (`timestamptz` in UTC with `Z`),
//! `numeric` follows the exact-decimal rule of [`decimal_to_json`], `json`
//! and `jsonb` become JSON, arrays become JSON arrays, enums and domains
//! decode as their label or base type. Types Lore cannot decode are named
//! rather than guessed.

use std::error::Error;

use postgres_protocol::types as wire;
use serde_json::Value;
use tokio_postgres::types::{FromSql, Kind, Type};

use crate::connector::value::{
    blob_to_json, decimal_to_json, float_to_json, integer_to_json, interval_to_iso,
    unsupported_to_json,
};
use lore_core::time::{MICROS_PER_DAY, format_date, format_time_of_day, format_timestamp_micros};

type DecodeError = Box<dyn Error + Sync + Send>;

/// Days from 1970-01-01 to PostgreSQL's epoch, 2000-01-01.
const PG_EPOCH_DAYS: i64 = 10_957;

/// One decoded column value.
pub(super) struct PgValue(pub(super) Value);

impl<'a> FromSql<'a> for PgValue {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Self, DecodeError> {
        decode(ty, raw).map(PgValue)
    }

    fn from_sql_null(_ty: &Type) -> Result<Self, DecodeError> {
        Ok(PgValue(Value::Null))
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }
}

fn decode(ty: &Type, raw: &[u8]) -> Result<Value, DecodeError> {
    match ty.kind() {
        Kind::Enum(_) => Ok(Value::String(wire::text_from_sql(raw)?.to_string())),
        Kind::Domain(base) => decode(base, raw),
        Kind::Array(element) => decode_array(element, raw),
        Kind::Simple => decode_simple(ty, raw),
        _ => Ok(unsupported_to_json(ty.name())),
    }
}

fn decode_simple(ty: &Type, raw: &[u8]) -> Result<Value, DecodeError> {
    let value = match *ty {
        Type::BOOL => Value::Bool(wire::bool_from_sql(raw)?),
        Type::INT2 => integer_to_json(wire::int2_from_sql(raw)?.into()),
        Type::INT4 => integer_to_json(wire::int4_from_sql(raw)?.into()),
        Type::INT8 => integer_to_json(wire::int8_from_sql(raw)?),
        Type::OID => integer_to_json(wire::oid_from_sql(raw)?.into()),
        Type::FLOAT4 => float_to_json(shortest_f32(wire::float4_from_sql(raw)?)),
        Type::FLOAT8 => float_to_json(wire::float8_from_sql(raw)?),
        Type::NUMERIC => decimal_to_json(&numeric_text(raw)?),
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN | Type::XML => {
            Value::String(wire::text_from_sql(raw)?.to_string())
        }
        Type::CHAR => Value::String(char::from(wire::char_from_sql(raw)? as u8).to_string()),
        Type::JSON => serde_json::from_slice(raw)?,
        Type::JSONB => match raw.split_first() {
            Some((1, json)) => serde_json::from_slice(json)?,
            _ => return Err("unsupported jsonb format version".into()),
        },
        Type::BYTEA => blob_to_json(wire::bytea_from_sql(raw)),
        Type::UUID => Value::String(format_uuid(wire::uuid_from_sql(raw)?)),
        Type::DATE => Value::String(date_text(wire::date_from_sql(raw)?)),
        Type::TIMESTAMP => Value::String(timestamp_text(wire::timestamp_from_sql(raw)?, "")),
        Type::TIMESTAMPTZ => Value::String(timestamp_text(wire::timestamp_from_sql(raw)?, "Z")),
        Type::TIME => Value::String(format_time_of_day(wire::time_from_sql(raw)?)),
        Type::TIMETZ => Value::String(timetz_text(raw)?),
        Type::INTERVAL => Value::String(interval_text(raw)?),
        Type::INET | Type::CIDR => {
            let inet = wire::inet_from_sql(raw)?;
            let full = if inet.addr().is_ipv4() { 32 } else { 128 };
            if inet.netmask() == full && *ty == Type::INET {
                Value::String(inet.addr().to_string())
            } else {
                Value::String(format!("{}/{}", inet.addr(), inet.netmask()))
            }
        }
        Type::MONEY => {
            let cents = wire::int8_from_sql(raw)?;
            decimal_to_json(&format!(
                "{}{}.{:02}",
                if cents < 0 { "-" } else { "" },
                (cents / 100).unsigned_abs(),
                (cents % 100).unsigned_abs()
            ))
        }
        // Extension types sent as text (citext and friends) read as text;
        // binary formats Lore does not know are named, not guessed.
        _ => match std::str::from_utf8(raw) {
            Ok(text)
                if !text
                    .chars()
                    .any(|c| c.is_control() && c != '\n' && c != '\t') =>
            {
                Value::String(text.to_string())
            }
            _ => unsupported_to_json(ty.name()),
        },
    };
    Ok(value)
}

fn decode_array(element: &Type, raw: &[u8]) -> Result<Value, DecodeError> {
    use fallible_iterator::FallibleIterator;
    use postgres_protocol::types::ArrayDimension;
    let array = wire::array_from_sql(raw)?;
    let dimensions: Vec<ArrayDimension> = array.dimensions().collect()?;
    let mut flat = Vec::new();
    let mut values = array.values();
    while let Some(item) = values.next()? {
        flat.push(match item {
            Some(bytes) => decode(element, bytes)?,
            None => Value::Null,
        });
    }
    // Rebuild nesting from the innermost dimension outwards.
    let mut nested = flat;
    for dimension in dimensions.iter().skip(1).rev() {
        let width = dimension.len.max(1) as usize;
        nested = nested
            .chunks(width)
            .map(|chunk| Value::Array(chunk.to_vec()))
            .collect();
    }
    Ok(Value::Array(nested))
}

/// The shortest decimal that reads back as the same `f32`, as an `f64`
/// (so `1.1f32` is `1.1`, not `1.100000023841858`).
fn shortest_f32(value: f32) -> f64 {
    value.to_string().parse().unwrap_or(f64::from(value))
}

/// `numeric` in binary: digit count, weight, sign and display scale, then
/// base-10000 digits.
fn numeric_text(raw: &[u8]) -> Result<String, DecodeError> {
    let word = |i: usize| -> Result<i16, DecodeError> {
        raw.get(i * 2..i * 2 + 2)
            .map(|b| i16::from_be_bytes([b[0], b[1]]))
            .ok_or_else(|| "truncated numeric".into())
    };
    let ndigits = word(0)?.max(0) as usize;
    let weight = i64::from(word(1)?);
    let sign = word(2)? as u16;
    let dscale = word(3)?.max(0) as usize;
    match sign {
        0xC000 => return Ok("NaN".into()),
        0xD000 => return Ok("Infinity".into()),
        0xF000 => return Ok("-Infinity".into()),
        _ => {}
    }
    let digit = |index: i64| -> Result<i16, DecodeError> {
        if index >= 0 && (index as usize) < ndigits {
            word(4 + index as usize)
        } else {
            Ok(0)
        }
    };
    let mut text = String::new();
    if sign == 0x4000 {
        text.push('-');
    }
    if weight < 0 {
        text.push('0');
    } else {
        for index in 0..=weight {
            let d = digit(index)?;
            if index == 0 {
                text.push_str(&d.to_string());
            } else {
                text.push_str(&format!("{d:04}"));
            }
        }
    }
    if dscale > 0 {
        let mut fraction = String::new();
        let groups = dscale.div_ceil(4) as i64;
        for k in 1..=groups {
            fraction.push_str(&format!("{:04}", digit(weight + k)?));
        }
        fraction.truncate(dscale);
        text.push('.');
        text.push_str(&fraction);
    }
    Ok(text)
}

fn date_text(days: i32) -> String {
    match days {
        i32::MAX => "infinity".into(),
        i32::MIN => "-infinity".into(),
        _ => format_date(i64::from(days) + PG_EPOCH_DAYS),
    }
}

fn timestamp_text(micros: i64, zone: &str) -> String {
    match micros {
        i64::MAX => "infinity".into(),
        i64::MIN => "-infinity".into(),
        _ => format!(
            "{}{zone}",
            format_timestamp_micros(micros + PG_EPOCH_DAYS * MICROS_PER_DAY)
        ),
    }
}

/// `timetz`: microseconds into the day, then the zone in seconds west of UTC.
fn timetz_text(raw: &[u8]) -> Result<String, DecodeError> {
    if raw.len() != 12 {
        return Err("invalid timetz".into());
    }
    let micros = i64::from_be_bytes(raw[0..8].try_into()?);
    let west = i32::from_be_bytes(raw[8..12].try_into()?);
    let east = -west;
    let sign = if east < 0 { '-' } else { '+' };
    let east = east.unsigned_abs();
    Ok(format!(
        "{}{sign}{:02}:{:02}",
        format_time_of_day(micros),
        east / 3600,
        east / 60 % 60
    ))
}

/// `interval` as an ISO-8601 duration: months, days and microseconds are
/// kept apart, as PostgreSQL keeps them.
fn interval_text(raw: &[u8]) -> Result<String, DecodeError> {
    if raw.len() != 16 {
        return Err("invalid interval".into());
    }
    let micros = i64::from_be_bytes(raw[0..8].try_into()?);
    let days = i32::from_be_bytes(raw[8..12].try_into()?);
    let months = i32::from_be_bytes(raw[12..16].try_into()?);
    Ok(interval_to_iso(months, days, micros))
}

fn format_uuid(bytes: [u8; 16]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric(ndigits: i16, weight: i16, sign: u16, dscale: i16, digits: &[i16]) -> Vec<u8> {
        let mut raw = Vec::new();
        for word in [ndigits, weight, sign as i16, dscale]
            .into_iter()
            .chain(digits.iter().copied())
        {
            raw.extend_from_slice(&word.to_be_bytes());
        }
        raw
    }

    #[test]
    fn numerics_decode_to_their_exact_decimal_text() {
        // 12345.678 = [1, 2345, 6780] with weight 1, scale 3.
        assert_eq!(
            numeric_text(&numeric(3, 1, 0, 3, &[1, 2345, 6780])).unwrap(),
            "12345.678"
        );
        // -0.0005 = [5] at weight -1 (0.0005), scale 4.
        assert_eq!(
            numeric_text(&numeric(1, -1, 0x4000, 4, &[5])).unwrap(),
            "-0.0005"
        );
        // 0.00001 = [1000] at weight -2, scale 5.
        assert_eq!(
            numeric_text(&numeric(1, -2, 0, 5, &[1000])).unwrap(),
            "0.00001"
        );
        // 10000 = [1] at weight 1, scale 0: trailing groups are zeros.
        assert_eq!(numeric_text(&numeric(1, 1, 0, 0, &[1])).unwrap(), "10000");
        assert_eq!(numeric_text(&numeric(0, 0, 0xC000, 0, &[])).unwrap(), "NaN");
    }

    #[test]
    fn dates_and_times_are_iso_text() {
        assert_eq!(date_text(0), "2000-01-01");
        assert_eq!(timestamp_text(1_500_000, "Z"), "2000-01-01T00:00:01.5Z");
        assert_eq!(date_text(i32::MAX), "infinity");
        let mut timetz = 3_600_000_000i64.to_be_bytes().to_vec();
        timetz.extend_from_slice(&(-7200i32).to_be_bytes());
        assert_eq!(timetz_text(&timetz).unwrap(), "01:00:00+02:00");
    }

    #[test]
    fn intervals_are_iso_durations() {
        let mut raw = 5_400_500_000i64.to_be_bytes().to_vec();
        raw.extend_from_slice(&3i32.to_be_bytes());
        raw.extend_from_slice(&14i32.to_be_bytes());
        assert_eq!(interval_text(&raw).unwrap(), "P1Y2M3DT1H30M0.5S");
        assert_eq!(interval_text(&[0; 16]).unwrap(), "PT0S");
    }

    #[test]
    fn floats_read_as_their_shortest_form() {
        assert_eq!(shortest_f32(1.1), 1.1);
        assert_eq!(
            format_uuid([0xab; 16]),
            "abababab-abab-abab-abab-abababababab"
        );
    }
}
