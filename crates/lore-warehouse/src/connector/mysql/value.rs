//! MySQL values (binary protocol) as JSON, without loss.
//!
//! `DECIMAL` follows the exact-decimal rule, `JSON` becomes JSON, `BIT`
//! becomes an integer, binary strings become `{"$base64": …}`, dates and
//! times become ISO-8601 text (sessions run in UTC).

use mysql_async::consts::{ColumnFlags, ColumnType};
use mysql_async::{Column, Value as MyValue};
use serde_json::Value;

use crate::connector::value::{
    MAX_SAFE_INTEGER, blob_to_json, decimal_to_json, float_to_json, integer_to_json,
};

/// The character set number MySQL gives binary strings.
const BINARY_CHARSET: u16 = 63;

/// Converts one value of `column`.
pub(super) fn to_json(value: MyValue, column: &Column) -> Value {
    let kind = column.column_type();
    match value {
        MyValue::NULL => Value::Null,
        MyValue::Int(i) => integer_to_json(i),
        MyValue::UInt(u) if u <= MAX_SAFE_INTEGER as u64 => Value::Number(u.into()),
        MyValue::UInt(u) => Value::String(u.to_string()),
        MyValue::Float(f) => float_to_json(f.to_string().parse().unwrap_or(f64::from(f))),
        MyValue::Double(d) => float_to_json(d),
        MyValue::Date(y, m, d, h, mi, s, us) => {
            let date = format!("{y:04}-{m:02}-{d:02}");
            if kind == ColumnType::MYSQL_TYPE_DATE || kind == ColumnType::MYSQL_TYPE_NEWDATE {
                Value::String(date)
            } else {
                Value::String(format!("{date}T{}", clock(u32::from(h), mi, s, us)))
            }
        }
        MyValue::Time(negative, days, h, m, s, us) => Value::String(format!(
            "{}{}",
            if negative { "-" } else { "" },
            clock(days * 24 + u32::from(h), m, s, us)
        )),
        MyValue::Bytes(bytes) => bytes_to_json(bytes, column),
    }
}

fn clock(hours: u32, minutes: u8, seconds: u8, micros: u32) -> String {
    let mut text = format!("{hours:02}:{minutes:02}:{seconds:02}");
    if micros != 0 {
        let digits = format!("{micros:06}");
        text.push('.');
        text.push_str(digits.trim_end_matches('0'));
    }
    text
}

fn bytes_to_json(bytes: Vec<u8>, column: &Column) -> Value {
    match column.column_type() {
        ColumnType::MYSQL_TYPE_DECIMAL | ColumnType::MYSQL_TYPE_NEWDECIMAL => {
            match std::str::from_utf8(&bytes) {
                Ok(text) => decimal_to_json(text),
                Err(_) => blob_to_json(&bytes),
            }
        }
        ColumnType::MYSQL_TYPE_JSON => serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned())),
        ColumnType::MYSQL_TYPE_BIT => {
            if bytes.len() <= 8 {
                let mut value: u64 = 0;
                for b in &bytes {
                    value = (value << 8) | u64::from(*b);
                }
                if value <= MAX_SAFE_INTEGER as u64 {
                    Value::Number(value.into())
                } else {
                    Value::String(value.to_string())
                }
            } else {
                blob_to_json(&bytes)
            }
        }
        _ if column.character_set() == BINARY_CHARSET && !is_numeric(column) => {
            blob_to_json(&bytes)
        }
        _ => match String::from_utf8(bytes) {
            Ok(text) if is_numeric(column) => decimal_to_json(&text),
            Ok(text) => Value::String(text),
            Err(e) => blob_to_json(e.as_bytes()),
        },
    }
}

fn is_numeric(column: &Column) -> bool {
    column.column_type().is_numeric_type()
        || matches!(
            column.column_type(),
            ColumnType::MYSQL_TYPE_DECIMAL | ColumnType::MYSQL_TYPE_NEWDECIMAL
        )
}

/// A readable type name for `headerTypes`, e.g. `bigint unsigned`.
pub(super) fn type_name(column: &Column) -> String {
    let binary = column.character_set() == BINARY_CHARSET;
    let base = match column.column_type() {
        ColumnType::MYSQL_TYPE_TINY => "tinyint",
        ColumnType::MYSQL_TYPE_SHORT => "smallint",
        ColumnType::MYSQL_TYPE_INT24 => "mediumint",
        ColumnType::MYSQL_TYPE_LONG => "int",
        ColumnType::MYSQL_TYPE_LONGLONG => "bigint",
        ColumnType::MYSQL_TYPE_FLOAT => "float",
        ColumnType::MYSQL_TYPE_DOUBLE => "double",
        ColumnType::MYSQL_TYPE_DECIMAL | ColumnType::MYSQL_TYPE_NEWDECIMAL => "decimal",
        ColumnType::MYSQL_TYPE_DATE | ColumnType::MYSQL_TYPE_NEWDATE => "date",
        ColumnType::MYSQL_TYPE_TIME | ColumnType::MYSQL_TYPE_TIME2 => "time",
        ColumnType::MYSQL_TYPE_DATETIME | ColumnType::MYSQL_TYPE_DATETIME2 => "datetime",
        ColumnType::MYSQL_TYPE_TIMESTAMP | ColumnType::MYSQL_TYPE_TIMESTAMP2 => "timestamp",
        ColumnType::MYSQL_TYPE_YEAR => "year",
        ColumnType::MYSQL_TYPE_BIT => "bit",
        ColumnType::MYSQL_TYPE_JSON => "json",
        ColumnType::MYSQL_TYPE_ENUM => "enum",
        ColumnType::MYSQL_TYPE_SET => "set",
        ColumnType::MYSQL_TYPE_GEOMETRY => "geometry",
        ColumnType::MYSQL_TYPE_NULL => "null",
        ColumnType::MYSQL_TYPE_TINY_BLOB
        | ColumnType::MYSQL_TYPE_MEDIUM_BLOB
        | ColumnType::MYSQL_TYPE_LONG_BLOB
        | ColumnType::MYSQL_TYPE_BLOB => {
            if binary {
                "blob"
            } else {
                "text"
            }
        }
        ColumnType::MYSQL_TYPE_VARCHAR | ColumnType::MYSQL_TYPE_VAR_STRING => {
            if binary {
                "varbinary"
            } else {
                "varchar"
            }
        }
        ColumnType::MYSQL_TYPE_STRING => {
            if binary {
                "binary"
            } else {
                "char"
            }
        }
        _ => "unknown",
    };
    if column.flags().contains(ColumnFlags::UNSIGNED_FLAG) && column.column_type().is_numeric_type()
    {
        format!("{base} unsigned")
    } else {
        base.to_string()
    }
}
