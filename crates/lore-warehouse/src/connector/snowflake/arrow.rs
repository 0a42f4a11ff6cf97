//! Arrow results: Snowflake's `rowsetBase64` and Arrow chunks are IPC
//! streams whose columns carry Snowflake's encodings (see [`super::values`]).

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use serde_json::Value;

use super::values::{
    Column, Kind, decimal_text, scaled_integer, split_scaled, text_value, timestamp,
};
use super::wire::WireError;
use crate::connector::value::{blob_to_json, decimal_to_json, float_to_json, unsupported_to_json};

/// The record batches of an Arrow IPC stream.
///
/// The stream is read message by message rather than with arrow's
/// `StreamReader`, so that every field can be taken as nullable: servers
/// declare the parts of a timestamp struct non-nullable yet send nulls in
/// them for a NULL timestamp (fakesnow does), which arrow's validation
/// would refuse. Every other check stays.
pub(super) fn batches(bytes: &[u8]) -> Result<Vec<arrow_array::RecordBatch>, WireError> {
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

/// One value of an Arrow column.
pub(super) fn cell(column: &Column, array: &ArrayRef, row: usize) -> Value {
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
