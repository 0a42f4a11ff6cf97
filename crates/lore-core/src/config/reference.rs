//! The `lore.yaml` reference page (`docs/reference/configuration.md`),
//! generated from the configuration's JSON Schema so the page cannot drift
//! from what Lore reads: every key, its type, default and description, one
//! section per table of keys, in the order a reader meets them.

use serde_json::{Map, Value};

/// The reference page as markdown.
pub fn config_reference_markdown() -> String {
    let schema = super::config_json_schema();
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut page = String::from(
        "# `lore.yaml` reference\n\n\
         Generated from the configuration's JSON Schema (`lore config schema`) by \
         `lore docs`; a test fails when this page and the schema differ. \
         [configuration.md](../configuration.md) explains the settings with examples.\n\n\
         Values written `secret` take a literal, `env:VAR` (an environment variable) \
         or `file:PATH` (the first line of a file, relative to the project; the whole \
         file for BigQuery's `credentials`). Unknown keys are warnings that suggest the \
         nearest known key; `lore config check` reports every problem.\n",
    );
    let mut queue = vec![Section {
        path: String::new(),
        schema: schema.clone(),
    }];
    while !queue.is_empty() {
        let section = queue.remove(0);
        let nested = write_section(&mut page, &section, &defs);
        for (at, child) in nested.into_iter().enumerate() {
            queue.insert(at, child);
        }
    }
    page
}

/// One table of keys: where it sits in `lore.yaml` and its schema.
struct Section {
    path: String,
    schema: Value,
}

/// Writes one section and returns the tables nested in it, in key order.
fn write_section(page: &mut String, section: &Section, defs: &Map<String, Value>) -> Vec<Section> {
    let schema = resolve(&section.schema, defs);
    let title = if section.path.is_empty() {
        "Top level".to_string()
    } else {
        format!("`{}`", section.path)
    };
    page.push_str(&format!("\n## {title}\n\n"));
    if let Some(text) = description(&schema).filter(|_| !section.path.is_empty()) {
        page.push_str(&text);
        page.push_str("\n\n");
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|keys| keys.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut nested = Vec::new();
    page.push_str("| key | type | default | description |\n|---|---|---|---|\n");
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for (key, property) in &properties {
        let path = join(&section.path, key);
        let kind = describe_type(property, defs, &path, &mut nested);
        let default = if required.contains(&key.as_str()) {
            "required".to_string()
        } else {
            default_text(property)
        };
        let text = description(property).unwrap_or_default();
        page.push_str(&format!(
            "| `{key}` | {kind} | {default} | {} |\n",
            cell(&text)
        ));
    }
    nested
}

/// The property's type in words; tables nested under it are queued.
fn describe_type(
    property: &Value,
    defs: &Map<String, Value>,
    path: &str,
    nested: &mut Vec<Section>,
) -> String {
    if let Some(variants) = property.get("anyOf").and_then(Value::as_array) {
        let kinds: Vec<String> = variants
            .iter()
            .filter(|variant| variant.get("type") != Some(&Value::from("null")))
            .map(|variant| describe_type(variant, defs, path, nested))
            .collect();
        return kinds.join(" or ");
    }
    if let Some(name) = reference_name(property) {
        let target = resolve(property, defs);
        if target.get("properties").is_some() {
            nested.push(Section {
                path: path.to_string(),
                schema: target,
            });
            return format!("table ([below](#{}))", heading_anchor(path));
        }
        if name == "Secret" {
            return "secret".to_string();
        }
        return describe_type(&target, defs, path, nested);
    }
    if let Some(choices) = property.get("oneOf").and_then(Value::as_array) {
        let names: Vec<String> = choices
            .iter()
            .filter_map(|choice| choice.get("const").and_then(Value::as_str))
            .map(|name| format!("`{name}`"))
            .collect();
        if !names.is_empty() {
            return format!("one of {}", names.join(", "));
        }
    }
    if let Some(values) = property.get("enum").and_then(Value::as_array) {
        let names: Vec<String> = values.iter().map(|value| format!("`{value}`")).collect();
        return format!("one of {}", names.join(", "));
    }
    match main_type(property).as_deref() {
        Some("object") => match property.get("additionalProperties") {
            Some(entry) if entry.is_object() => {
                let entry_path = format!("{path}.<name>");
                let kind = describe_type(entry, defs, &entry_path, nested);
                format!("map of name → {kind}")
            }
            _ => "table".to_string(),
        },
        Some("array") => {
            let items = property.get("items").cloned().unwrap_or(Value::Null);
            let item_path = format!("{path}[]");
            format!(
                "list of {}",
                describe_type(&items, defs, &item_path, nested)
            )
        }
        Some("integer") => integer_range(property),
        Some(other) => other.to_string(),
        None => "any".to_string(),
    }
}

/// `integer`, with its bounds when the schema gives a useful one.
fn integer_range(property: &Value) -> String {
    let minimum = property.get("minimum").and_then(Value::as_i64);
    let maximum = property.get("maximum").and_then(Value::as_i64);
    match (minimum, maximum) {
        (Some(low), Some(high)) if low != 0 || high < i64::from(u32::MAX) => {
            format!("integer ({low}–{high})")
        }
        (Some(low), None) if low > 0 => format!("integer (≥ {low})"),
        _ => "integer".to_string(),
    }
}

/// The schema's type, leaving out `null` (optional keys say so by
/// having a default or none).
fn main_type(schema: &Value) -> Option<String> {
    match schema.get("type")? {
        Value::String(kind) => Some(kind.clone()),
        Value::Array(kinds) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|kind| *kind != "null")
            .map(str::to_string),
        _ => None,
    }
}

/// The `$defs` entry a `$ref` names.
fn reference_name(schema: &Value) -> Option<&str> {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix("#/$defs/"))
}

/// The schema a `$ref` points at, or the schema itself.
fn resolve(schema: &Value, defs: &Map<String, Value>) -> Value {
    match reference_name(schema).and_then(|name| defs.get(name)) {
        Some(target) => target.clone(),
        None => schema.clone(),
    }
}

/// A key's default as the YAML a user would write, when it is short;
/// tables list their own defaults key by key.
fn default_text(property: &Value) -> String {
    match property.get("default") {
        None | Some(Value::Null) => "—".to_string(),
        Some(Value::Object(_)) => "see its keys".to_string(),
        Some(Value::Array(items)) if items.is_empty() => "`[]`".to_string(),
        Some(Value::Array(items)) if items.len() > 3 => format!("{} entries", items.len()),
        Some(value) => format!("`{}`", value.to_string().replace('|', "\\|")),
    }
}

/// The description's text on one line.
fn description(schema: &Value) -> Option<String> {
    let text = schema.get("description")?.as_str()?;
    Some(text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Text that fits in a table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// The anchor GitHub gives a heading: lower case, spaces as dashes,
/// punctuation other than `-` and `_` dropped (`` `connections.<name>` ``
/// is `connectionsname`).
pub fn heading_anchor(path: &str) -> String {
    path.to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_top_level_key_and_nested_table_has_a_row_or_section() {
        let page = config_reference_markdown();
        for key in ["connections", "mcp", "limits", "store", "gateway", "search"] {
            assert!(page.contains(&format!("| `{key}` |")), "no row for {key}");
        }
        assert!(page.contains("## `connections.<name>`"), "{page}");
        assert!(page.contains("## `connections.<name>.scan`"), "{page}");
        assert!(page.contains("## `mcp`"), "{page}");
        assert!(page.contains("one of `sqlite`, `postgres`"), "{page}");
    }

    #[test]
    fn required_keys_and_defaults_are_shown() {
        let page = config_reference_markdown();
        let port = page
            .lines()
            .find(|line| line.starts_with("| `port` |"))
            .expect("mcp.port row");
        assert!(port.contains("`7878`"), "{port}");
        let driver = page
            .lines()
            .find(|line| line.starts_with("| `driver` |"))
            .expect("driver row");
        assert!(driver.contains("required"), "{driver}");
    }

    #[test]
    fn nested_tables_link_to_their_own_section() {
        let page = config_reference_markdown();
        let link = format!("(#{})", heading_anchor("connections.<name>.scan"));
        assert!(page.contains(&link), "{link} missing");
        assert_eq!(
            heading_anchor("`connections.<name>.scan`"),
            "connectionsnamescan"
        );
    }
}
