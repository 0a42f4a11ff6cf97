//! The `tools/list` contract, snapshotted: any change to a tool's name,
//! schema, description or annotations shows up as a diff of
//! `snapshots/tools_list.json`. After an intended change, regenerate with
//! `UPDATE_SNAPSHOTS=1 cargo test -p lore-mcp --test tools_list_snapshot`.

use lore_core::project::Project;
use lore_mcp::LoreServer;

const SNAPSHOT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/snapshots/tools_list.json"
);

fn server() -> LoreServer {
    let project = Project {
        root: std::env::temp_dir(),
        config: Default::default(),
        warnings: Vec::new(),
    };
    LoreServer::for_project(&project)
}

#[test]
fn tools_list_matches_the_snapshot() {
    let actual = serde_json::to_string_pretty(&server().tools()).unwrap() + "\n";
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(SNAPSHOT, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(SNAPSHOT)
        .expect("snapshot missing: run with UPDATE_SNAPSHOTS=1 to create it");
    assert!(
        actual == expected,
        "tools/list changed. If intended, regenerate with UPDATE_SNAPSHOTS=1.\n--- actual ---\n{actual}"
    );
}

#[test]
fn every_tool_carries_the_polish_kit() {
    for tool in server().tools() {
        let name = tool.name.clone();
        let annotations = tool
            .annotations
            .clone()
            .unwrap_or_else(|| panic!("{name}: no annotations"));
        assert!(
            tool.title.is_some() && annotations.title.is_some(),
            "{name}: no title"
        );
        assert_eq!(annotations.open_world_hint, Some(false), "{name}");
        let output = tool
            .output_schema
            .clone()
            .unwrap_or_else(|| panic!("{name}: no outputSchema"));
        assert_eq!(
            output.get("type").and_then(|t| t.as_str()),
            Some("object"),
            "{name}: output must be an object"
        );
        assert_eq!(
            tool.input_schema.get("type").and_then(|t| t.as_str()),
            Some("object"),
            "{name}"
        );
        let description = tool.description.clone().unwrap_or_default();
        assert!(
            description.contains("Example"),
            "{name}: description needs an example"
        );
        // Every input field is described for the model.
        let properties = tool
            .input_schema
            .get("properties")
            .and_then(|p| p.as_object())
            .cloned()
            .unwrap_or_default();
        for (field, schema) in properties {
            assert!(
                schema.get("description").is_some(),
                "{name}.{field} has no description"
            );
        }
    }
}

#[test]
fn annotations_say_honestly_what_each_tool_may_change() {
    // (name, readOnly, destructive): only the memory toolset and
    // wiki_write write, and only delete and undo can remove what is there
    // (a replaced page stays in history).
    let writers = [
        ("wiki_write", false),
        ("memory_ingest", false),
        ("store", false),
        ("update", false),
        ("relate", false),
        ("delete", true),
        ("undo", true),
    ];
    for tool in server().tools() {
        let annotations = tool.annotations.clone().unwrap();
        match writers.iter().find(|(name, _)| *name == tool.name) {
            Some((_, destructive)) => {
                assert_eq!(annotations.read_only_hint, Some(false), "{}", tool.name);
                assert_eq!(
                    annotations.destructive_hint,
                    Some(*destructive),
                    "{}",
                    tool.name
                );
            }
            None => {
                assert_eq!(annotations.read_only_hint, Some(true), "{}", tool.name);
                assert_eq!(
                    annotations.destructive_hint, None,
                    "{}: destructive is implied false for read-only tools",
                    tool.name
                );
            }
        }
    }
}

/// Every `format` in every schema, with where it is.
fn formats(value: &serde_json::Value, at: &str, found: &mut Vec<(String, String)>) {
    match value {
        serde_json::Value::Object(object) => {
            for (key, child) in object {
                match (key.as_str(), child) {
                    ("format", serde_json::Value::String(format)) => {
                        found.push((at.to_string(), format.clone()))
                    }
                    _ => formats(child, &format!("{at}/{key}"), found),
                }
            }
        }
        serde_json::Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                formats(item, &format!("{at}/{i}"), found);
            }
        }
        _ => {}
    }
}

#[test]
fn schemas_use_only_formats_that_validators_know() {
    // JSON Schema's own formats and OpenAPI's numeric ones: what Ajv (in
    // Claude Code and the MCP Inspector) knows without a warning.
    const KNOWN: &[&str] = &[
        "date-time",
        "date",
        "time",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uri",
        "uri-reference",
        "uuid",
        "regex",
        "int32",
        "int64",
        "float",
        "double",
    ];
    let tools = serde_json::to_value(server().tools()).unwrap();
    let mut found = Vec::new();
    formats(&tools, "", &mut found);
    let unknown: Vec<_> = found
        .iter()
        .filter(|(_, format)| !KNOWN.contains(&format.as_str()))
        .collect();
    assert!(unknown.is_empty(), "unknown formats: {unknown:?}");
    // The unsigned fields keep their lower bound.
    let connection_list = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "connection_list")
        .unwrap();
    let timeout = &connection_list["outputSchema"]["$defs"]["ConnectionSummary"]["properties"]["statementTimeoutMs"];
    assert_eq!(timeout["minimum"], 0, "{timeout}");
    assert_eq!(timeout["type"], "integer", "{timeout}");
}
