//! A Snowflake result as rows of lossless JSON.
//!
//! The answer describes its columns (`rowtype`) and carries the first part
//! of the rows inline — as JSON (`rowset`, every value a string or null)
//! or as an Arrow IPC stream (`rowsetBase64`), whichever the server chose —
//! and, for large results, `chunks`: URLs of further parts in the same
//! format, downloaded one at a time and only while rows are still wanted
//! (the row cap and the byte budget stop the reading).
//!
//! Values follow Snowflake's wire encodings: `FIXED` numbers as scaled
//! integers (or decimal text), `DATE` as days since 1970, `TIME` and
//! timestamps as seconds since midnight / 1970 (scaled integers, or
//! `{epoch, fraction[, timezone]}` structs in Arrow, `"secs.nanos[ tz]"`
//! in JSON, `timezone` being the offset in minutes plus 1440), `BINARY` as
//! hex text in JSON. They become what every Lore connector answers:
//! exact numbers or decimal strings, ISO-8601 text (`TIMESTAMP_LTZ` in UTC
//! with `Z`, `TIMESTAMP_TZ` with its own offset), JSON for `VARIANT`,
//! `OBJECT` and `ARRAY`, `{"$base64"}` for binary.

use std::time::{Duration, Instant};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use base64::Engine;
use serde_json::Value;

use super::wire::{Endpoint, WireError};
use crate::connector::value::{
    blob_to_json, decimal_to_json, float_to_json, integer_to_json, unsupported_to_json,
};
use crate::connector::{Fetched, ResultBudget, RowLimit};

/// How a column's values are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
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
    name: String,
    kind: Kind,
    scale: u32,
    type_name: String,
}

impl Column {
    fn from_rowtype(entry: &Value) -> Column {
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

/// A finished query's answer, ready to read.
pub(crate) struct ResultSet {
    columns: Vec<Column>,
    arrow: bool,
    first: Value,
    chunks: Vec<String>,
    chunk_headers: Vec<(String, String)>,
}

impl ResultSet {
    /// The result in a query answer's `data`.
    pub(crate) fn from_data(data: &Value) -> Result<ResultSet, WireError> {
        let rowtype = data
            .get("rowtype")
            .and_then(Value::as_array)
            .ok_or_else(|| WireError::Protocol("the answer has no rowtype".into()))?;
        let format = data
            .get("queryResultFormat")
            .and_then(Value::as_str)
            .unwrap_or("json")
            .to_ascii_lowercase();
        let arrow = format == "arrow";
        let first = if arrow {
            data.get("rowsetBase64").cloned().unwrap_or(Value::Null)
        } else {
            data.get("rowset").cloned().unwrap_or(Value::Null)
        };
        let chunks = data
            .get("chunks")
            .and_then(Value::as_array)
            .map(|chunks| {
                chunks
                    .iter()
                    .filter_map(|c| c.get("url").and_then(Value::as_str).map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let chunk_headers = match (data.get("chunkHeaders"), data.get("qrmk")) {
            (Some(Value::Object(headers)), _) => headers
                .iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                .collect(),
            (_, Some(Value::String(qrmk))) => vec![
                (
                    "x-amz-server-side-encryption-customer-algorithm".to_string(),
                    "AES256".to_string(),
                ),
                (
                    "x-amz-server-side-encryption-customer-key".to_string(),
                    qrmk.clone(),
                ),
            ],
            _ => Vec::new(),
        };
        Ok(ResultSet {
            columns: rowtype.iter().map(Column::from_rowtype).collect(),
            arrow,
            first,
            chunks,
            chunk_headers,
        })
    }

    /// Reads rows until `limit` (one row more than its cap, or the byte
    /// budget), downloading chunks as needed before `deadline`.
    pub(crate) fn read(
        self,
        endpoint: &Endpoint,
        limit: RowLimit,
        deadline: Instant,
    ) -> Result<Fetched, WireError> {
        let mut reader = Reader {
            columns: &self.columns,
            rows: Vec::new(),
            budget: ResultBudget::new(limit),
            wanted: limit.rows.saturating_add(1),
            stopped: false,
        };
        if self.arrow {
            if let Some(encoded) = self.first.as_str().filter(|s| !s.is_empty()) {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(encoded)
                    .map_err(|_| WireError::Protocol("rowsetBase64 is not base64".into()))?;
                reader.arrow(&bytes)?;
            }
        } else if let Some(rows) = self.first.as_array() {
            reader.json(rows);
        }
        for url in &self.chunks {
            if reader.full() {
                break;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(WireError::Unreachable(
                    "the result's chunks could not be read within the statement timeout".into(),
                ));
            }
            let bytes =
                endpoint.chunk(url, &self.chunk_headers, left.max(Duration::from_secs(1)))?;
            if self.arrow {
                reader.arrow(&bytes)?;
            } else {
                // A JSON chunk is the rows without the enclosing brackets.
                let mut wrapped = Vec::with_capacity(bytes.len() + 2);
                wrapped.push(b'[');
                wrapped.extend_from_slice(&bytes);
                wrapped.push(b']');
                let rows: Vec<Value> = serde_json::from_slice(&wrapped).map_err(|e| {
                    WireError::Protocol(format!("a JSON result chunk does not parse: {e}"))
                })?;
                reader.json(&rows);
            }
        }
        let stopped = reader.stopped;
        let cut_at_bytes = reader.budget.cut_at(stopped);
        Ok(Fetched {
            headers: self.columns.iter().map(|c| c.name.clone()).collect(),
            header_types: Some(self.columns.iter().map(|c| c.type_name.clone()).collect()),
            rows: reader.rows,
            cut_at_bytes,
        })
    }
}

/// Collects rows up to the cap and the budget.
struct Reader<'a> {
    columns: &'a [Column],
    rows: Vec<Vec<Value>>,
    budget: ResultBudget,
    wanted: usize,
    stopped: bool,
}

impl Reader<'_> {
    fn full(&self) -> bool {
        self.stopped || self.rows.len() >= self.wanted
    }

    /// Takes one row; `false` once no more are wanted.
    fn push(&mut self, mut row: Vec<Value>) -> bool {
        if self.full() {
            return false;
        }
        if !self.budget.admit(&mut row) {
            self.stopped = true;
            return false;
        }
        self.rows.push(row);
        !self.full()
    }

    fn json(&mut self, rows: &[Value]) {
        for row in rows {
            let cells = row.as_array().map(Vec::as_slice).unwrap_or_default();
            let values = self
                .columns
                .iter()
                .enumerate()
                .map(|(i, column)| json_cell(column, cells.get(i).unwrap_or(&Value::Null)))
                .collect();
            if !self.push(values) {
                return;
            }
        }
    }

    fn arrow(&mut self, bytes: &[u8]) -> Result<(), WireError> {
        for batch in arrow_batches(bytes)? {
            let arrays = batch.columns();
            for row in 0..batch.num_rows() {
                let values = self
                    .columns
                    .iter()
                    .enumerate()
                    .map(|(i, column)| match arrays.get(i) {
                        Some(array) => arrow_cell(column, array, row),
                        None => Value::Null,
                    })
                    .collect();
                if !self.push(values) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

/// The record batches of an Arrow IPC stream.
///
/// The stream is read message by message rather than with arrow's
/// `StreamReader`, so that every field can be taken as nullable: servers
/// declare the parts of a timestamp struct non-nullable yet send nulls in
/// them for a NULL timestamp (fakesnow does), which arrow's validation
/// would refuse. Every other check stays.
fn arrow_batches(bytes: &[u8]) -> Result<Vec<arrow_array::RecordBatch>, WireError> {
    use arrow_ipc::MessageHeader;
    let invalid =
        |what: String| WireError::Protocol(format!("an Arrow result does not decode: {what}"));
    let mut schema: Option<arrow_schema::SchemaRef> = None;
    let mut dictionaries = std::collections::HashMap::new();
    let mut batches = Vec::new();
    let mut at = 0;
    let read_i32 = |at: usize| -> Option<i32> {
        bytes
            .get(at..at + 4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    while let Some(mut length) = read_i32(at) {
        at += 4;
        // A continuation marker precedes the length since Arrow 0.15.
        if length == -1 {
            length = read_i32(at).ok_or_else(|| invalid("a message is cut short".into()))?;
            at += 4;
        }
        if length <= 0 {
            break;
        }
        let metadata = bytes
            .get(at..at + length as usize)
            .ok_or_else(|| invalid("a message is cut short".into()))?;
        at += length as usize;
        let message = arrow_ipc::root_as_message(metadata).map_err(|e| invalid(e.to_string()))?;
        let body_length =
            usize::try_from(message.bodyLength()).map_err(|e| invalid(e.to_string()))?;
        let body = bytes
            .get(at..at + body_length)
            .ok_or_else(|| invalid("a message body is cut short".into()))?;
        at += body_length;
        match message.header_type() {
            MessageHeader::Schema => {
                let fields = message
                    .header_as_schema()
                    .ok_or_else(|| invalid("the schema message is empty".into()))
                    .and_then(|fb| {
                        arrow_ipc::convert::try_fb_to_schema(fb).map_err(|e| invalid(e.to_string()))
                    })?;
                let nullable: Vec<arrow_schema::Field> =
                    fields.fields().iter().map(|f| all_nullable(f)).collect();
                schema = Some(std::sync::Arc::new(arrow_schema::Schema::new(nullable)));
            }
            MessageHeader::RecordBatch => {
                let (Some(schema), Some(batch)) = (&schema, message.header_as_record_batch())
                else {
                    return Err(invalid("a record batch comes before its schema".into()));
                };
                batches.push(
                    arrow_ipc::reader::read_record_batch(
                        &arrow_buffer::Buffer::from(body.to_vec()),
                        batch,
                        std::sync::Arc::clone(schema),
                        &dictionaries,
                        None,
                        &message.version(),
                    )
                    .map_err(|e| invalid(e.to_string()))?,
                );
            }
            MessageHeader::DictionaryBatch => {
                let (Some(schema), Some(batch)) = (&schema, message.header_as_dictionary_batch())
                else {
                    return Err(invalid("a dictionary comes before its schema".into()));
                };
                arrow_ipc::reader::read_dictionary(
                    &arrow_buffer::Buffer::from(body.to_vec()),
                    batch,
                    schema,
                    &mut dictionaries,
                    &message.version(),
                )
                .map_err(|e| invalid(e.to_string()))?;
            }
            other => return Err(invalid(format!("unexpected message {other:?}"))),
        }
    }
    Ok(batches)
}

/// `field`, and every field inside it, nullable.
fn all_nullable(field: &arrow_schema::Field) -> arrow_schema::Field {
    let data_type = match field.data_type() {
        DataType::Struct(children) => DataType::Struct(
            children
                .iter()
                .map(|child| std::sync::Arc::new(all_nullable(child)))
                .collect(),
        ),
        other => other.clone(),
    };
    field.clone().with_data_type(data_type).with_nullable(true)
}

/// One value of a JSON rowset (a string or null).
fn json_cell(column: &Column, cell: &Value) -> Value {
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

/// One value of an Arrow column.
fn arrow_cell(column: &Column, array: &ArrayRef, row: usize) -> Value {
    if array.is_null(row) {
        return Value::Null;
    }
    let data_type = array.data_type();
    if let Some(integer) = arrow_integer(array.as_ref(), row) {
        return scaled_integer(column, integer);
    }
    match data_type {
        DataType::Decimal128(_, scale) => array
            .as_primitive_opt::<Decimal128Type>()
            .map(|a| {
                let scale = u32::try_from(*scale).unwrap_or(0);
                let text = decimal_text(a.value(row), scale);
                match column.kind {
                    Kind::Fixed => decimal_to_json(&text),
                    _ => Value::String(text),
                }
            })
            .unwrap_or(Value::Null),
        DataType::Float64 => array
            .as_primitive_opt::<Float64Type>()
            .map(|a| float_to_json(a.value(row)))
            .unwrap_or(Value::Null),
        DataType::Float32 => array
            .as_primitive_opt::<Float32Type>()
            .map(|a| float_to_json(f64::from(a.value(row))))
            .unwrap_or(Value::Null),
        DataType::Boolean => array
            .as_boolean_opt()
            .map(|a| Value::Bool(a.value(row)))
            .unwrap_or(Value::Null),
        DataType::Utf8 => text_value(column, array.as_string_opt::<i32>().map(|a| a.value(row))),
        DataType::LargeUtf8 => {
            text_value(column, array.as_string_opt::<i64>().map(|a| a.value(row)))
        }
        DataType::Utf8View => text_value(column, array.as_string_view_opt().map(|a| a.value(row))),
        DataType::Binary => array
            .as_binary_opt::<i32>()
            .map(|a| blob_to_json(a.value(row)))
            .unwrap_or(Value::Null),
        DataType::LargeBinary => array
            .as_binary_opt::<i64>()
            .map(|a| blob_to_json(a.value(row)))
            .unwrap_or(Value::Null),
        DataType::FixedSizeBinary(_) => array
            .as_fixed_size_binary_opt()
            .map(|a| blob_to_json(a.value(row)))
            .unwrap_or(Value::Null),
        DataType::Date32 => array
            .as_primitive_opt::<Date32Type>()
            .map(|a| Value::String(lore_core::time::format_date(i64::from(a.value(row)))))
            .unwrap_or(Value::Null),
        DataType::Struct(_) => struct_timestamp(column, array.as_ref(), row),
        DataType::Null => Value::Null,
        other => unsupported_to_json(&format!("{} ({other})", column.type_name)),
    }
}

/// The value of an integer Arrow array, whatever its width.
fn arrow_integer(array: &dyn Array, row: usize) -> Option<i128> {
    macro_rules! read {
        ($($t:ty),*) => {
            $(if let Some(a) = array.as_primitive_opt::<$t>() {
                return Some(i128::from(a.value(row)));
            })*
        };
    }
    match array.data_type() {
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => {
            read!(Int8Type, Int16Type, Int32Type, Int64Type);
            None
        }
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => {
            read!(UInt8Type, UInt16Type, UInt32Type, UInt64Type);
            None
        }
        _ => None,
    }
}

/// A scaled integer as what its column holds.
fn scaled_integer(column: &Column, value: i128) -> Value {
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

fn text_value(column: &Column, text: Option<&str>) -> Value {
    match text {
        None => Value::Null,
        Some(text) if column.kind == Kind::Semi => {
            serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
        }
        Some(text) => Value::String(text.to_string()),
    }
}

/// `{epoch, fraction[, timezone]}` (or `{epoch, timezone}` with a scaled
/// epoch) as a timestamp.
fn struct_timestamp(column: &Column, array: &dyn Array, row: usize) -> Value {
    let Some(fields) = array.as_struct_opt() else {
        return Value::Null;
    };
    let field = |name: &str| {
        fields
            .column_by_name(name)
            .and_then(|a| arrow_integer(a.as_ref(), row))
    };
    // A NULL timestamp may come as a struct whose parts are null.
    if fields
        .column_by_name("epoch")
        .is_some_and(|epoch| epoch.is_null(row))
    {
        return Value::Null;
    }
    let Some(epoch) = field("epoch") else {
        return unsupported_to_json(&column.type_name);
    };
    let (seconds, nanos) = match field("fraction") {
        Some(fraction) => (epoch as i64, fraction.clamp(0, 999_999_999) as u32),
        None => split_scaled(epoch, column.scale),
    };
    timestamp(
        column.kind,
        seconds,
        nanos,
        field("timezone").map(|z| z as i64),
    )
}

/// A timestamp of `kind` as ISO-8601 text; `zone` is Snowflake's offset
/// in minutes plus 1440.
fn timestamp(kind: Kind, seconds: i64, nanos: u32, zone: Option<i64>) -> Value {
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
fn split_scaled(value: i128, scale: u32) -> (i64, u32) {
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
fn decimal_text(value: i128, scale: u32) -> String {
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
