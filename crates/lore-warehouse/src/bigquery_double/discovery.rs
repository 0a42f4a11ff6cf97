//! Checks JSON bodies and query parameters against Google's discovery
//! document for BigQuery v2 (`tests/data/bigquery/bigquery.v2.json`,
//! from the `google-api-python-client` package): every field must be a
//! property of its schema, with the schema's type (int64 and uint64 as
//! decimal strings, int32 and uint32 as JSON integers).

use serde_json::Value;

/// The discovery document, as shipped in `google-api-python-client`.
pub const DOCUMENT: &str = include_str!("../../tests/data/bigquery/bigquery.v2.json");

/// The parsed discovery document.
pub struct Discovery {
    doc: Value,
}

impl Discovery {
    /// Parses [`DOCUMENT`].
    pub fn load() -> Discovery {
        Discovery {
            doc: serde_json::from_str(DOCUMENT).unwrap_or(Value::Null),
        }
    }

    /// The document's `revision`.
    pub fn revision(&self) -> &str {
        self.doc["revision"].as_str().unwrap_or("")
    }

    /// A method by resource and name (`jobs`, `query`).
    pub fn method(&self, resource: &str, method: &str) -> Option<&Value> {
        self.doc["resources"][resource]["methods"].get(method)
    }

    /// Problems of `value` as an instance of schema `name`, each naming its
    /// JSON path.
    pub fn check(&self, name: &str, value: &Value) -> Vec<String> {
        let mut problems = Vec::new();
        let schema = serde_json::json!({"$ref": name});
        self.check_value(&schema, value, name, &mut problems);
        problems
    }

    /// Problems of the query parameters of a call to `resource.method`.
    pub fn check_parameters(
        &self,
        resource: &str,
        method: &str,
        parameters: &[(String, String)],
    ) -> Vec<String> {
        let Some(m) = self.method(resource, method) else {
            return vec![format!(
                "{resource}.{method} is not in the discovery document"
            )];
        };
        let mut problems = Vec::new();
        for (key, value) in parameters {
            let Some(p) = m["parameters"].get(key.as_str()) else {
                problems.push(format!("{resource}.{method}: unknown parameter {key}"));
                continue;
            };
            if p["location"] != "query" {
                problems.push(format!(
                    "{resource}.{method}: {key} is not a query parameter"
                ));
            }
            let ok = match p["type"].as_str() {
                Some("integer") => value.parse::<i64>().is_ok(),
                Some("boolean") => value == "true" || value == "false",
                Some("string") => {
                    p["format"].as_str() != Some("int64") || value.parse::<i64>().is_ok()
                }
                _ => true,
            };
            if !ok {
                problems.push(format!(
                    "{resource}.{method}: {key}={value} is not a {}",
                    p["type"]
                ));
            }
        }
        problems
    }

    fn resolve<'a>(&'a self, schema: &'a Value) -> &'a Value {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(name) => &self.doc["schemas"][name],
            None => schema,
        }
    }

    fn check_value(&self, schema: &Value, value: &Value, path: &str, out: &mut Vec<String>) {
        let schema = self.resolve(schema);
        if schema.is_null() {
            out.push(format!("{path}: no such schema"));
            return;
        }
        if value.is_null() {
            return;
        }
        let kind = schema["type"].as_str().unwrap_or("object");
        let format = schema["format"].as_str();
        let ok = match (kind, value) {
            ("any", _) => true,
            ("string", Value::String(s)) => match format {
                Some("int64") => s.parse::<i64>().is_ok(),
                Some("uint64") => s.parse::<u64>().is_ok(),
                Some("double") => s.parse::<f64>().is_ok(),
                _ => true,
            },
            ("integer", Value::Number(n)) => n.is_i64() || n.is_u64(),
            ("number", Value::Number(_)) => true,
            ("boolean", Value::Bool(_)) => true,
            ("array", Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    self.check_value(&schema["items"], item, &format!("{path}[{i}]"), out);
                }
                true
            }
            ("object", Value::Object(map)) => {
                for (key, field) in map {
                    let child = format!("{path}.{key}");
                    match schema["properties"].get(key) {
                        Some(property) => self.check_value(property, field, &child, out),
                        None => match schema.get("additionalProperties") {
                            Some(extra) => self.check_value(extra, field, &child, out),
                            None => out.push(format!("{child}: not in the schema")),
                        },
                    }
                }
                true
            }
            _ => false,
        };
        if !ok {
            out.push(format!(
                "{path}: {value} is not a {kind}{}",
                format.map(|f| format!(" ({f})")).unwrap_or_default()
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_types_are_checked() {
        let d = Discovery::load();
        assert!(d.revision().len() >= 8);
        assert!(
            d.check(
                "QueryRequest",
                &serde_json::json!({"query": "SELECT 1", "dryRun": true, "maximumBytesBilled": "10"})
            )
            .is_empty()
        );
        let problems = d.check(
            "QueryRequest",
            &serde_json::json!({"qery": "x", "maximumBytesBilled": 10, "timeoutMs": "5"}),
        );
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(
            d.check_parameters(
                "jobs",
                "getQueryResults",
                &[
                    ("pageToken".into(), "x".into()),
                    ("maxResults".into(), "y".into())
                ]
            )
            .len()
                == 1
        );
    }
}
