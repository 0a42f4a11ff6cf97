//! Messages for mistakes in `lore.yaml` that say which key is concerned
//! and how to fix it: an unknown key gets the closest known key at the
//! same place in the schema ("did you mean `connections`?"), a value of
//! the wrong type gets its key path and the value as written
//! (`connections.analytics.statement_timeout_ms: expected an integer,
//! got "fast"`), and the location appears once.

use std::path::Path;

use serde_json::Value;
use serde_saphyr::MessageFormatter;

use super::ConfigError;

/// The warning for a key the schema does not know, as `serde_ignored`
/// spells its path (`connections.w.pth`, `mcp.tokens.0.nme`).
pub(super) fn unknown_key_warning(key: &str, schema: &Value, path: &Path) -> String {
    let segments: Vec<&str> = key.split('.').collect();
    let (leaf, parents) = segments.split_last().unwrap_or((&key, &[]));
    let hint = known_keys_at(schema, parents)
        .and_then(|known| closest_key(leaf, &known).map(|best| format!("did you mean `{best}`?")))
        .unwrap_or_else(|| "check its spelling; `lore config schema` lists every key".to_string());
    format!(
        "{}: unknown key `{key}` is ignored ({hint})",
        path.display()
    )
}

/// The keys the schema allows in the mapping at `parents` (map keys of
/// free-form maps, such as connection ids, step into their values).
fn known_keys_at(schema: &Value, parents: &[&str]) -> Option<Vec<String>> {
    let mut node = object_node(schema, schema)?;
    for segment in parents {
        let next = node
            .get("properties")
            .and_then(|p| p.get(*segment))
            .or_else(|| node.get("additionalProperties").filter(|v| v.is_object()))
            .or_else(|| {
                segment
                    .parse::<usize>()
                    .ok()
                    .and_then(|_| node.get("items"))
            })?;
        node = object_node(schema, next)?;
    }
    let properties = node.get("properties")?.as_object()?;
    Some(properties.keys().cloned().collect())
}

/// `node` with `$ref`s followed and optional wrappers (`anyOf` with
/// `null`) unwrapped, down to the schema that describes its contents.
fn object_node<'a>(root: &'a Value, node: &'a Value) -> Option<&'a Value> {
    let mut node = node;
    for _ in 0..8 {
        if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
            let name = reference.strip_prefix("#/$defs/")?;
            node = root.get("$defs")?.get(name)?;
            continue;
        }
        let Some(choices) = ["anyOf", "oneOf", "allOf"]
            .iter()
            .find_map(|k| node.get(*k).and_then(Value::as_array))
        else {
            return Some(node);
        };
        node = choices
            .iter()
            .find(|c| c.get("type").and_then(Value::as_str) != Some("null"))?;
    }
    Some(node)
}

/// The known key a misspelling most likely meant: the nearest by edit
/// distance, if at most about a third of its letters differ.
fn closest_key<'a>(wrong: &str, known: &'a [String]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (strsim::osa_distance(wrong, k), k.as_str()))
        .filter(|(distance, k)| *distance <= (k.len().max(wrong.len()) / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, k)| k)
}

/// A parse failure as the user should read it: the key path for type
/// errors, the value as written, a hint for indentation mistakes, and the
/// location only in the surrounding message.
pub(super) fn parse_error(
    error: &serde_saphyr::Error,
    key_path: &str,
    text: &str,
    path: &Path,
) -> ConfigError {
    let (line, column) = error
        .location()
        .map(|l| (l.line(), l.column()))
        .unwrap_or((0, 0));
    let inner = error.without_snippet();
    let bare = serde_saphyr::DefaultMessageFormatter.format_message(inner);
    let bare = bare.lines().next().unwrap_or_default().trim();
    let keyed = !key_path.is_empty() && key_path != "." && key_path != "?";
    let message = match inner {
        serde_saphyr::Error::InvalidScalar { ty, .. } => {
            let expected = describe_type(ty);
            match value_at(text, line, column) {
                Some(value) if keyed => format!("{key_path}: expected {expected}, got {value:?}"),
                Some(value) => format!("expected {expected}, got {value:?}"),
                None => format!("{key_path}: expected {expected}"),
            }
        }
        serde_saphyr::Error::Message { .. }
        | serde_saphyr::Error::Unexpected { .. }
        | serde_saphyr::Error::NullIntoString { .. }
        | serde_saphyr::Error::InvalidBooleanStrict { .. }
            if keyed =>
        {
            format!("{key_path}: {bare}")
        }
        _ if bare.contains("did not find expected key") || bare.contains("mapping values") => {
            format!(
                "{bare} (check this line's indentation against the lines above it: keys of one mapping line up, and an uncommented example keeps its leading spaces)"
            )
        }
        _ => bare.to_string(),
    };
    ConfigError::Parse {
        path: path.to_path_buf(),
        line,
        column,
        message,
    }
}

/// What a Rust scalar type is called in a message to a user.
fn describe_type(ty: &str) -> String {
    match ty {
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64" | "i128"
        | "isize" => "an integer".to_string(),
        "f32" | "f64" => "a number".to_string(),
        "bool" => "true or false".to_string(),
        other => format!("a {other}"),
    }
}

/// The scalar written at 1-based `line` and `column`, without quotes or a
/// trailing comment.
fn value_at(text: &str, line: u64, column: u64) -> Option<String> {
    let line_text = text
        .lines()
        .nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
    let rest: String = line_text
        .chars()
        .skip(usize::try_from(column).ok()?.saturating_sub(1))
        .collect();
    let rest = match rest.find(" #") {
        Some(at) => &rest[..at],
        None => rest.as_str(),
    };
    let value = rest.trim().trim_end_matches([',', '}', ']']).trim();
    let value = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
        .unwrap_or(value);
    Some(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelled_key_gets_the_nearest_known_key_at_its_place() {
        let schema = super::super::config_json_schema();
        let at = |key: &str| unknown_key_warning(key, &schema, Path::new("lore.yaml"));
        assert!(at("conections").contains("did you mean `connections`?"));
        assert!(at("connections.pg.statment_timeout_ms").contains("`statement_timeout_ms`"));
        assert!(at("connections.pg.scan.sampel_rows").contains("did you mean"));
        assert!(at("mcp.tokens.0.nme").contains("did you mean `name`?"));
        assert!(at("zzzzzz").contains("lore config schema"));
    }

    #[test]
    fn a_value_of_the_wrong_type_names_its_key_path_and_the_value_once() {
        let text = "connections:\n  analytics:\n    driver: postgres\n    url: x\n    statement_timeout_ms: fast\n";
        let message = super::super::parse_config(text, Path::new("lore.yaml"))
            .unwrap_err()
            .to_string();
        assert!(
            message.contains(
                "connections.analytics.statement_timeout_ms: expected an integer, got \"fast\""
            ),
            "{message}"
        );
        assert_eq!(message.matches("line").count(), 1, "{message}");
        assert!(message.contains("(line 5, column 27)"), "{message}");
    }

    #[test]
    fn a_broken_indentation_says_to_check_the_indentation() {
        let text = "connections:\n  w:\n    driver: sqlite\n   path: x.db\n";
        let message = super::super::parse_config(text, Path::new("lore.yaml"))
            .unwrap_err()
            .to_string();
        assert!(message.contains("indentation"), "{message}");
    }

    #[test]
    fn the_value_at_a_location_is_read_without_quotes_or_comments() {
        let text = "a:\n  b: fast   # why\n  c: \"slow\"\n";
        assert_eq!(value_at(text, 2, 6).as_deref(), Some("fast"));
        assert_eq!(value_at(text, 3, 6).as_deref(), Some("slow"));
        assert_eq!(value_at(text, 9, 1), None);
    }
}
