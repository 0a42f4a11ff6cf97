//! Arguments as callers send them, checked against the input's schema
//! before anything runs. Every front end that takes a tool's arguments as
//! JSON (the MCP adapter, recipe steps, the CLI's recipe runs) prepares
//! them here, so the same spellings are accepted and the same mistakes
//! are refused with the same words:
//!
//! - the argument shapes models commonly drift into (a wrapper object,
//!   the other case convention, one value for a list) are reshaped to the
//!   schema's first ([`normalize`]);
//! - an unknown argument, a NUL byte or a value that does not decode is
//!   refused as `invalid_arguments`, naming the field and what it expects
//!   (its schema description).

mod repair;

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::error::{ErrorCode, ErrorReport};

pub use repair::normalize;

/// A JSON object: a tool's arguments, or a schema.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// `I`'s input schema (JSON Schema 2020-12, as MCP publishes them), built
/// once per type.
pub fn schema_of<I: JsonSchema + 'static>() -> Arc<JsonObject> {
    static CACHE: OnceLock<Mutex<HashMap<TypeId, Arc<JsonObject>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    Arc::clone(cache.entry(TypeId::of::<I>()).or_insert_with(|| {
        let schema = schemars::generate::SchemaSettings::draft2020_12()
            .into_generator()
            .into_root_schema_for::<I>();
        match schema.to_value() {
            serde_json::Value::Object(object) => Arc::new(object),
            _ => Arc::new(JsonObject::new()),
        }
    }))
}

/// `arguments` for `tool` as its input type: the drift rules, then
/// refusing unknown arguments, NUL bytes and undecodable values, each as
/// `invalid_arguments` naming the field. `schema` is the input's schema.
pub fn prepare<I: DeserializeOwned>(
    tool: &str,
    schema: &JsonObject,
    mut arguments: JsonObject,
) -> Result<I, ErrorReport> {
    let refuse = |message: String| {
        ErrorReport::new(ErrorCode::InvalidArguments, format!("{tool}: {message}"))
    };
    normalize(schema, &mut arguments);
    if let Some(message) = unknown_argument(schema, &arguments) {
        return Err(refuse(message));
    }
    if let Some(message) = nul_byte(&arguments) {
        return Err(refuse(message));
    }
    decode::<I>(&arguments).map_err(|e| refuse(decoding_error::<I>(schema, &arguments, &e)))
}

/// An argument the schema does not name (after drift normalisation),
/// with the names it does.
fn unknown_argument(schema: &JsonObject, arguments: &JsonObject) -> Option<String> {
    let properties = schema.get("properties")?.as_object()?;
    let unknown = arguments.keys().find(|k| !properties.contains_key(*k))?;
    let mut known: Vec<&str> = properties.keys().map(String::as_str).collect();
    known.sort_unstable();
    Some(if known.is_empty() {
        format!("unknown argument `{unknown}`: this tool takes no arguments (send {{}})")
    } else {
        format!(
            "unknown argument `{unknown}`: this tool takes {}",
            known.join(", ")
        )
    })
}

/// A text argument holding a NUL byte (nothing Lore stores or queries may
/// contain one), named by its path.
fn nul_byte(arguments: &JsonObject) -> Option<String> {
    fn find(value: &serde_json::Value, path: String) -> Option<String> {
        match value {
            serde_json::Value::String(s) if s.contains('\0') => Some(path),
            serde_json::Value::Array(items) => items
                .iter()
                .enumerate()
                .find_map(|(i, v)| find(v, format!("{path}[{i}]"))),
            serde_json::Value::Object(map) => {
                map.iter().find_map(|(k, v)| find(v, format!("{path}.{k}")))
            }
            _ => None,
        }
    }
    arguments
        .iter()
        .find_map(|(k, v)| find(v, k.clone()))
        .map(|path| format!("`{path}` contains a NUL byte (\\u0000), which no text Lore keeps or queries may hold; remove it"))
}

fn decode<I: DeserializeOwned>(
    arguments: &JsonObject,
) -> Result<I, serde_path_to_error::Error<serde_json::Error>> {
    serde_path_to_error::deserialize(serde_json::Value::Object(arguments.clone()))
}

/// What is wrong with the arguments, where, and what the argument expects
/// (its schema description).
fn decoding_error<I: DeserializeOwned>(
    schema: &JsonObject,
    arguments: &JsonObject,
    error: &serde_path_to_error::Error<serde_json::Error>,
) -> String {
    let mut path = error.path().to_string();
    let mut field = error.path().iter().find_map(|segment| match segment {
        serde_path_to_error::Segment::Map { key } => Some(key.clone()),
        _ => None,
    });
    // Flattened inputs lose the path: the argument at fault is the one
    // whose absence changes the outcome.
    if field.is_none() {
        let original = error.inner().to_string();
        field = arguments
            .keys()
            .find(|key| {
                let mut without = arguments.clone();
                without.remove(*key);
                match decode::<I>(&without) {
                    Ok(_) => true,
                    Err(e) => e.inner().to_string() != original,
                }
            })
            .cloned();
        if let Some(key) = &field {
            path = key.clone();
        }
    }
    let field = field.as_deref();
    let expected = field
        .and_then(|f| {
            schema
                .get("properties")?
                .get(f)?
                .get("description")?
                .as_str()
        })
        .map(|d| format!("; `{}` expects: {d}", field.unwrap_or_default()))
        .unwrap_or_default();
    if path == "." {
        format!("invalid arguments: {}", error.inner())
    } else {
        format!("invalid arguments at `{path}`: {}{expected}", error.inner())
    }
}
