//! The `roots` argument of the gateway's search and graph tools, over
//! MCP in process: two roots holding the same path answer apart, each
//! tool keeps to the roots asked for, and a root the project does not
//! have is refused naming the roots it has.

use lore_core::project::Project;
use lore_mcp::LoreServer;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

/// A project with roots `alpha` and `beta`, both holding `shared/util.py`
/// (each defining `join_words`, called by its own `app.py`) and a test
/// of it; a client of its server.
async fn two_roots() -> (tempfile::TempDir, Client) {
    let dir = tempfile::tempdir().unwrap();
    for (root, word) in [("alpha", "comma"), ("beta", "space")] {
        for (path, text) in [
            (
                "shared/util.py".to_string(),
                format!("def join_words(a, b):\n    \"\"\"Join with a {word}.\"\"\"\n    return a + b\n"),
            ),
            (
                "app.py".to_string(),
                "from shared.util import join_words\n\n\ndef main():\n    return join_words('a', 'b')\n"
                    .to_string(),
            ),
            (
                "tests/test_util.py".to_string(),
                "from shared.util import join_words\n\n\ndef test_join():\n    assert join_words('a', 'b')\n"
                    .to_string(),
            ),
        ] {
            let file = dir.path().join(root).join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
    }
    std::fs::write(
        dir.path().join("lore.yaml"),
        "gateway:\n  roots:\n    - path: alpha\n      name: alpha\n    - path: beta\n      name: beta\n",
    )
    .unwrap();
    let project = Project::load(dir.path()).unwrap();
    let server = LoreServer::for_project(&project);
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await.unwrap();
    let run = ok(&client, "km-ingest-trigger", json!({})).await;
    assert_eq!(run["success"], true, "{run}");
    (dir, client)
}

/// The tool's answer, or the error report it answered with.
async fn call(client: &Client, tool: &str, arguments: Value) -> Result<Value, Value> {
    let result = client
        .call_tool(
            CallToolRequestParams::new(tool.to_string())
                .with_arguments(arguments.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    let text = &result.content[0].as_text().unwrap().text;
    let value: Value = serde_json::from_str(text).unwrap();
    if result.is_error == Some(true) {
        Err(value)
    } else {
        Ok(result.structured_content.unwrap_or(value))
    }
}

async fn ok(client: &Client, tool: &str, arguments: Value) -> Value {
    call(client, tool, arguments.clone())
        .await
        .unwrap_or_else(|e| panic!("{tool} {arguments}: {e}"))
}

/// The `root` of each item of `list` (an array of objects).
fn roots_of(list: &Value) -> Vec<String> {
    let mut roots: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["root"].as_str().unwrap().to_string())
        .collect();
    roots.dedup();
    roots
}

#[tokio::test]
async fn search_and_graph_tools_keep_to_the_roots_asked_for() {
    let (_dir, client) = two_roots().await;

    let chunks = |answer: &Value| -> Value {
        answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["chunk"].clone())
            .collect()
    };
    let both = ok(&client, "km-search", json!({"query": "join_words"})).await;
    let mut found = roots_of(&chunks(&both));
    found.sort();
    found.dedup();
    assert_eq!(found, ["alpha", "beta"], "{both}");
    let beta = ok(
        &client,
        "km-search",
        json!({"query": "join_words", "filters": {"roots": ["beta"]}}),
    )
    .await;
    assert_eq!(roots_of(&chunks(&beta)), ["beta"], "{beta}");

    // A bare path both roots hold is refused without `roots`, taken with.
    let bare = call(
        &client,
        "km-graph-node",
        json!({"node_id": "Code:shared/util.py"}),
    )
    .await
    .unwrap_err();
    assert!(
        bare["message"].as_str().unwrap().contains("alpha"),
        "{bare}"
    );
    let node = ok(
        &client,
        "km-graph-node",
        json!({"node_id": "Code:shared/util.py", "roots": ["beta"]}),
    )
    .await;
    assert_eq!(node["node"]["id"], "Code:beta/shared/util.py", "{node}");

    let symbols = ok(
        &client,
        "km-graph-search",
        json!({"term": "join_words", "roots": ["alpha"]}),
    )
    .await;
    let ids: Vec<&str> = symbols["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(!ids.is_empty(), "{symbols}");
    assert!(ids.iter().all(|id| !id.contains("beta/")), "{ids:?}");

    let tests = ok(
        &client,
        "km-graph-tests-of",
        json!({"target": "shared/util.py", "roots": ["alpha"]}),
    )
    .await;
    assert_eq!(tests["target"], "Code:alpha/shared/util.py", "{tests}");
    assert_eq!(roots_of(&tests["results"]), ["alpha"], "{tests}");

    let references = ok(
        &client,
        "km-graph-references",
        json!({"symbol": "join_words", "roots": ["beta"]}),
    )
    .await;
    assert_eq!(
        roots_of(&references["definitions"]),
        ["beta"],
        "{references}"
    );
    assert_eq!(roots_of(&references["callers"]), ["beta"], "{references}");
    let everywhere = ok(
        &client,
        "km-graph-references",
        json!({"symbol": "join_words"}),
    )
    .await;
    assert_eq!(everywhere["total_definitions"], 2, "{everywhere}");

    // A root the project does not have, in every tool that takes roots.
    for (tool, arguments) in [
        (
            "km-search",
            json!({"query": "join_words", "filters": {"roots": ["gamma"]}}),
        ),
        (
            "km-graph-node",
            json!({"node_id": "Code:shared/util.py", "roots": ["gamma"]}),
        ),
        (
            "km-graph-search",
            json!({"term": "join_words", "roots": ["gamma"]}),
        ),
        (
            "km-graph-tests-of",
            json!({"target": "shared/util.py", "roots": ["gamma"]}),
        ),
        (
            "km-graph-references",
            json!({"symbol": "join_words", "roots": ["gamma"]}),
        ),
    ] {
        let refused = call(&client, tool, arguments).await.unwrap_err();
        let message = refused["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("`gamma` is not a gateway root") && message.contains("alpha, beta"),
            "{tool}: {refused}"
        );
    }
}
