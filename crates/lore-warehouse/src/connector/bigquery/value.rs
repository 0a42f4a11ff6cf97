//! BigQuery cells as JSON, without loss.
//!
//! The REST API sends every row as `{"f": [{"v": …}, …]}` with every scalar
//! as a string; the result's schema says what each string is:
//!
//! | BigQuery | JSON |
//! |---|---|
//! | `INT64` | a number, or a string beyond ±(2^53 − 1) (as every driver) |
//! | `FLOAT64` | a number; `"NaN"`, `"Infinity"`, `"-Infinity"` as strings |
//! | `NUMERIC`, `BIGNUMERIC` | the exact decimal string |
//! | `BOOL` | `true` / `false` |
//! | `TIMESTAMP` | ISO-8601 UTC text, `2025-01-05T10:00:00Z` (from int64 microseconds, or the older float seconds) |
//! | `DATE`, `DATETIME`, `TIME` | BigQuery's ISO text as sent |
//! | `BYTES` | `{"$base64": …}` |
//! | `JSON` | the JSON value itself |
//! | `ARRAY<…>` (`REPEATED`) | a JSON array |
//! | `STRUCT<…>` (`RECORD`) | a JSON object keyed by field name |
//! | anything else (`GEOGRAPHY`, `INTERVAL`, `RANGE`) | the text as sent |

use lore_core::time::format_timestamp_micros;
use serde_json::{Map, Value};

use super::rest::FieldSchema;
use crate::connector::value::{BLOB_MARKER, float_to_json, integer_to_json};

/// One row (`{"f": [...]}`) of a result with `fields`.
pub fn row_to_json(fields: &[FieldSchema], row: &Value) -> Vec<Value> {
    let cells = row.get("f").and_then(Value::as_array);
    fields
        .iter()
        .enumerate()
        .map(|(index, field)| {
            let cell = cells.and_then(|c| c.get(index)).and_then(|c| c.get("v"));
            field_to_json(field, cell.unwrap_or(&Value::Null))
        })
        .collect()
}

/// A cell's `v` as `field` says it is.
fn field_to_json(field: &FieldSchema, v: &Value) -> Value {
    if field.repeated() {
        let Value::Array(items) = v else {
            return Value::Array(Vec::new());
        };
        return Value::Array(
            items
                .iter()
                .map(|item| scalar_or_record(field, item.get("v").unwrap_or(&Value::Null)))
                .collect(),
        );
    }
    scalar_or_record(field, v)
}

fn scalar_or_record(field: &FieldSchema, v: &Value) -> Value {
    match v {
        Value::Null => Value::Null,
        Value::Object(record) if matches!(field.kind.as_str(), "RECORD" | "STRUCT") => {
            let cells = record.get("f").and_then(Value::as_array);
            let mut object = Map::new();
            for (index, sub) in field.fields.iter().enumerate() {
                let cell = cells
                    .and_then(|c| c.get(index))
                    .and_then(|c| c.get("v"))
                    .unwrap_or(&Value::Null);
                object.insert(sub.name.clone(), field_to_json(sub, cell));
            }
            Value::Object(object)
        }
        Value::String(text) => scalar(&field.kind, text),
        // The API sends strings; anything else is passed on as it came.
        other => other.clone(),
    }
}

fn scalar(kind: &str, text: &str) -> Value {
    match kind {
        "INTEGER" | "INT64" => match text.parse::<i64>() {
            Ok(i) => integer_to_json(i),
            Err(_) => Value::String(text.to_string()),
        },
        "FLOAT" | "FLOAT64" => match text.parse::<f64>() {
            Ok(f) => float_to_json(f),
            Err(_) => Value::String(text.to_string()),
        },
        "BOOLEAN" | "BOOL" => match text {
            "true" | "TRUE" => Value::Bool(true),
            "false" | "FALSE" => Value::Bool(false),
            _ => Value::String(text.to_string()),
        },
        "TIMESTAMP" => Value::String(timestamp_text(text)),
        "BYTES" => {
            let mut marker = Map::new();
            marker.insert(BLOB_MARKER.to_string(), Value::String(text.to_string()));
            Value::Object(marker)
        }
        "JSON" => serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string())),
        _ => Value::String(text.to_string()),
    }
}

/// A TIMESTAMP cell as ISO-8601 UTC: int64 microseconds
/// (`formatOptions.useInt64Timestamp`), or float seconds in the older
/// form (`1.7360712E9`).
pub fn timestamp_text(text: &str) -> String {
    let micros = match text.parse::<i64>() {
        Ok(micros) => Some(micros),
        Err(_) => text
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite())
            .map(|seconds| (seconds * 1_000_000.0).round() as i64),
    };
    match micros {
        Some(micros) => format!("{}Z", format_timestamp_micros(micros)),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(value: Value) -> FieldSchema {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn scalars_follow_the_schema() {
        let fields: Vec<FieldSchema> = [
            json!({"name": "i", "type": "INTEGER"}),
            json!({"name": "big", "type": "INT64"}),
            json!({"name": "f", "type": "FLOAT"}),
            json!({"name": "nan", "type": "FLOAT64"}),
            json!({"name": "n", "type": "NUMERIC"}),
            json!({"name": "b", "type": "BOOLEAN"}),
            json!({"name": "ts", "type": "TIMESTAMP"}),
            json!({"name": "d", "type": "DATE"}),
            json!({"name": "bytes", "type": "BYTES"}),
            json!({"name": "j", "type": "JSON"}),
            json!({"name": "missing", "type": "STRING"}),
        ]
        .into_iter()
        .map(field)
        .collect();
        let row = json!({"f": [
            {"v": "42"}, {"v": "9223372036854775807"}, {"v": "1.5"}, {"v": "NaN"},
            {"v": "123456789012345678901234567890.5"}, {"v": "true"},
            {"v": "1736071200000000"}, {"v": "2025-01-05"}, {"v": "AP8="},
            {"v": "{\"a\":[1,2]}"}, {"v": null}
        ]});
        assert_eq!(
            row_to_json(&fields, &row),
            vec![
                json!(42),
                json!("9223372036854775807"),
                json!(1.5),
                json!("NaN"),
                json!("123456789012345678901234567890.5"),
                json!(true),
                json!("2025-01-05T10:00:00Z"),
                json!("2025-01-05"),
                json!({"$base64": "AP8="}),
                json!({"a": [1, 2]}),
                Value::Null,
            ]
        );
    }

    #[test]
    fn float_second_timestamps_read_too() {
        assert_eq!(timestamp_text("1.7360712E9"), "2025-01-05T10:00:00Z");
        assert_eq!(timestamp_text("1736071200.5"), "2025-01-05T10:00:00.5Z");
    }

    #[test]
    fn repeated_fields_and_records_nest() {
        let fields = vec![
            field(json!({"name": "tags", "type": "STRING", "mode": "REPEATED"})),
            field(json!({"name": "address", "type": "RECORD", "fields": [
                {"name": "city", "type": "STRING"},
                {"name": "zips", "type": "INTEGER", "mode": "REPEATED"}
            ]})),
            field(json!({"name": "empty", "type": "INTEGER", "mode": "REPEATED"})),
        ];
        let row = json!({"f": [
            {"v": [{"v": "a"}, {"v": "b"}]},
            {"v": {"f": [{"v": "Oslo"}, {"v": [{"v": "150"}, {"v": "151"}]}]}},
            {"v": []}
        ]});
        assert_eq!(
            row_to_json(&fields, &row),
            vec![
                json!(["a", "b"]),
                json!({"city": "Oslo", "zips": [150, 151]}),
                json!([]),
            ]
        );
    }
}
