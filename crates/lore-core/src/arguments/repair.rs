//! Argument shapes models commonly produce instead of the schema's, turned
//! into the schema's before strict decoding. Each rule is driven by the
//! tool's own input schema, so it applies to every tool alike and never
//! touches an argument the schema names:
//!
//! 1. **Wrappers.** An object under a name the schema does not have, whose
//!    keys are all (after rule 2) properties of the schema, is unwrapped:
//!    `{"connectionId": "w", "query": {"measures": […]}}` for `sl_query`,
//!    `{"arguments": {…}}`, `{"params": {…}}`. Keys given at the top level win.
//! 2. **Spellings.** A key the schema does not have is renamed to the
//!    property it spells in the other case convention (`connection_id` →
//!    `connectionId`, `txId` → `tx_id`, `orderBy` → `order_by`), and
//!    `connection` to the connection id property.
//! 3. **One value for a list.** A value that is not an array, given where
//!    the schema asks for an array, becomes a list of that one value
//!    (`"measures": "invoices.revenue"`).
//!
//! What is still wrong after these rules is refused by the decoder with the
//! field and the expected shape.

use serde_json::Value;

use super::JsonObject;

/// Applies the rules above to `arguments` for a tool whose input schema is
/// `schema`.
pub fn normalize(schema: &JsonObject, arguments: &mut JsonObject) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    rename_keys(properties, arguments);
    unwrap_wrappers(properties, arguments);
    wrap_single_values(properties, arguments);
}

fn rename_keys(properties: &JsonObject, arguments: &mut JsonObject) {
    let foreign: Vec<String> = arguments
        .keys()
        .filter(|k| !properties.contains_key(*k))
        .cloned()
        .collect();
    for key in foreign {
        let target = [snake_to_camel(&key), camel_to_snake(&key)]
            .into_iter()
            .chain(
                (key == "connection")
                    .then(|| ["connectionId".to_string(), "connection_id".to_string()])
                    .into_iter()
                    .flatten(),
            )
            .find(|candidate| {
                properties.contains_key(candidate) && !arguments.contains_key(candidate)
            });
        if let Some(target) = target
            && let Some(value) = arguments.remove(&key)
        {
            arguments.insert(target, value);
        }
    }
}

fn unwrap_wrappers(properties: &JsonObject, arguments: &mut JsonObject) {
    let wrappers: Vec<String> = arguments
        .iter()
        .filter(|(key, value)| {
            !properties.contains_key(*key)
                && value.as_object().is_some_and(|inner| {
                    !inner.is_empty() && {
                        let mut inner = inner.clone();
                        rename_keys(properties, &mut inner);
                        inner.keys().all(|k| properties.contains_key(k))
                    }
                })
        })
        .map(|(key, _)| key.clone())
        .collect();
    for key in wrappers {
        if let Some(Value::Object(mut inner)) = arguments.remove(&key) {
            rename_keys(properties, &mut inner);
            for (k, v) in inner {
                arguments.entry(k).or_insert(v);
            }
        }
    }
}

fn wrap_single_values(properties: &JsonObject, arguments: &mut JsonObject) {
    for (key, value) in arguments.iter_mut() {
        let wants_array =
            properties
                .get(key)
                .and_then(|p| p.get("type"))
                .is_some_and(|t| match t {
                    Value::String(t) => t == "array",
                    Value::Array(types) => types.iter().any(|t| t == "array"),
                    _ => false,
                });
        if wants_array && !value.is_array() && !value.is_null() {
            *value = Value::Array(vec![value.take()]);
        }
    }
}

fn snake_to_camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn camel_to_snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_uppercase() {
            out.push('_');
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema(properties: Value) -> JsonObject {
        json!({"type": "object", "properties": properties})
            .as_object()
            .cloned()
            .unwrap()
    }

    fn normalized(schema: &JsonObject, arguments: Value) -> Value {
        let mut arguments = arguments.as_object().cloned().unwrap();
        normalize(schema, &mut arguments);
        Value::Object(arguments)
    }

    #[test]
    fn a_query_wrapper_and_snake_case_names_reach_the_schema() {
        let sl = schema(json!({
            "connectionId": {"type": ["string", "null"]},
            "measures": {"type": "array"},
            "dimensions": {"type": "array"},
            "order_by": {"type": "array"},
        }));
        assert_eq!(
            normalized(
                &sl,
                json!({"connection_id": "warehouse", "query": {"measures": ["invoices.revenue"], "orderBy": ["x"]}})
            ),
            json!({"connectionId": "warehouse", "measures": ["invoices.revenue"], "order_by": ["x"]})
        );
        assert_eq!(
            normalized(
                &sl,
                json!({"connection": "warehouse", "measures": "invoices.revenue"})
            ),
            json!({"connectionId": "warehouse", "measures": ["invoices.revenue"]})
        );
    }

    #[test]
    fn what_the_schema_names_is_never_touched() {
        let discover =
            schema(json!({"query": {"type": "string"}, "kinds": {"type": ["array", "null"]}}));
        let args = json!({"query": "revenue", "kinds": null});
        assert_eq!(normalized(&discover, args.clone()), args);
        // A wrapper with a key the schema lacks is not a wrapper: left for
        // the decoder to refuse by name.
        let args = json!({"query": "x", "options": {"verbose": true}});
        assert_eq!(normalized(&discover, args.clone()), args);
        // A top-level value wins over a wrapped one.
        let memory = schema(json!({"tx_id": {"type": "integer"}, "force": {"type": "boolean"}}));
        assert_eq!(
            normalized(
                &memory,
                json!({"txId": 3, "arguments": {"tx_id": 4, "force": true}})
            ),
            json!({"tx_id": 3, "force": true})
        );
    }
}
