//! A small JSON Schema checker for what Lore's tool schemas use (`type`,
//! `properties`, `required`, `additionalProperties`, `items`, `$ref` into
//! `$defs`, `anyOf`/`oneOf`/`allOf`, `enum`, `const`, `minimum`): enough
//! to prove every `structuredContent` a test sees matches the tool's
//! `outputSchema`, without a validator crate.

use serde_json::Value;

/// Where `value` breaks `schema` (`root` holds the `$defs`), or `None`.
pub fn violation(root: &Value, schema: &Value, value: &Value, at: &str) -> Option<String> {
    let schema = schema.as_object()?;
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let name = reference.trim_start_matches("#/$defs/");
        let target = &root["$defs"][name];
        if target.is_null() {
            return Some(format!("{at}: unresolved {reference}"));
        }
        if let Some(v) = violation(root, target, value, at) {
            return Some(v);
        }
    }
    if let Some(types) = schema.get("type") {
        let allowed: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !allowed.iter().any(|t| is_type(value, t)) {
            return Some(format!("{at}: {value} is not of type {types}"));
        }
    }
    if let Some(Value::Array(options)) = schema.get("enum")
        && !options.contains(value)
    {
        return Some(format!("{at}: {value} is not one of {options:?}"));
    }
    if let Some(constant) = schema.get("const")
        && constant != value
    {
        return Some(format!("{at}: {value} is not {constant}"));
    }
    if let (Some(min), Some(n)) = (
        schema.get("minimum").and_then(Value::as_f64),
        value.as_f64(),
    ) && n < min
    {
        return Some(format!("{at}: {n} is below {min}"));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = schema.get(key)
            && options
                .iter()
                .all(|o| violation(root, o, value, at).is_some())
        {
            return Some(format!("{at}: {value} matches none of {key}"));
        }
    }
    if let Some(Value::Array(all)) = schema.get("allOf") {
        for part in all {
            if let Some(v) = violation(root, part, value, at) {
                return Some(v);
            }
        }
    }
    if let Value::Object(object) = value {
        return object_violation(root, schema, object, at);
    }
    if let (Value::Array(items), Some(item_schema)) = (value, schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            if let Some(v) = violation(root, item_schema, item, &format!("{at}/{i}")) {
                return Some(v);
            }
        }
    }
    None
}

fn object_violation(
    root: &Value,
    schema: &serde_json::Map<String, Value>,
    object: &serde_json::Map<String, Value>,
    at: &str,
) -> Option<String> {
    let properties = schema.get("properties").and_then(Value::as_object);
    for name in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !object.contains_key(name) {
            return Some(format!("{at}: required `{name}` is missing"));
        }
    }
    for (name, field) in object {
        let path = format!("{at}/{name}");
        match (
            properties.and_then(|p| p.get(name)),
            schema.get("additionalProperties"),
        ) {
            (Some(field_schema), _) => {
                if let Some(v) = violation(root, field_schema, field, &path) {
                    return Some(v);
                }
            }
            (None, Some(Value::Bool(false))) => {
                return Some(format!("{path}: not allowed by the schema"));
            }
            (None, Some(extra)) => {
                if let Some(v) = violation(root, extra, field, &path) {
                    return Some(v);
                }
            }
            (None, None) => {}
        }
    }
    None
}

fn is_type(value: &Value, name: &str) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => true,
    }
}

#[test]
fn the_checker_finds_what_a_schema_refuses() {
    let schema = serde_json::json!({
        "$defs": {"Row": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}, "required": ["n"]}},
        "type": "object",
        "properties": {"rows": {"type": "array", "items": {"$ref": "#/$defs/Row"}},
                       "kind": {"enum": ["a", "b"]},
                       "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
        "required": ["rows"],
        "additionalProperties": false
    });
    let check = |v: Value| violation(&schema, &schema, &v, "");
    assert_eq!(
        check(serde_json::json!({"rows": [{"n": 1}], "kind": "a", "note": null})),
        None
    );
    for wrong in [
        serde_json::json!({}),
        serde_json::json!({"rows": [{"n": -1}]}),
        serde_json::json!({"rows": [{"n": 1.5}]}),
        serde_json::json!({"rows": [{}]}),
        serde_json::json!({"rows": [], "kind": "c"}),
        serde_json::json!({"rows": [], "note": 3}),
        serde_json::json!({"rows": [], "extra": 1}),
    ] {
        assert!(check(wrong.clone()).is_some(), "{wrong}");
    }
}
