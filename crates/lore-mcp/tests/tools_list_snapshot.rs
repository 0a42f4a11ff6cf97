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
