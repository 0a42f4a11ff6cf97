//! `mcp.toolsets` in `lore.yaml` chooses what a server offers: a client of
//! a memory-only server sees the memory tools, resources and prompts and
//! none of the analytics tools (whose definitions it no longer pays for on
//! every request), and the reverse.

mod common;

use std::path::Path;

use common::*;
use serde_json::json;

fn serve_only(root: &Path, toolsets: &str) {
    let config = root.join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replace("mcp:\n", &format!("mcp:\n  toolsets: {toolsets}\n")),
    )
    .unwrap();
}

fn names(tools: &[rmcp::model::Tool]) -> Vec<String> {
    let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    names
}

#[tokio::test]
async fn a_memory_only_server_offers_the_memory_toolset_alone() {
    let (_dir, root) = demo_project();
    serve_only(&root, "[memory]");
    let client = stdio_client(&root).await;
    let tools = names(&client.list_all_tools().await.unwrap());
    assert_eq!(
        tools,
        vec![
            "delete",
            "history",
            "query",
            "query_graph",
            "relate",
            "store",
            "undo",
            "update"
        ]
    );
    let info = client.peer_info().unwrap();
    assert!(info.capabilities.resources.is_some());
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(!instructions.contains("discover_data"), "{instructions}");
    // The memory toolset works; an analytics tool is not there.
    ok(
        &client,
        "store",
        json!({"topic": "ops", "content": "Deploys on Tuesdays."}),
    )
    .await;
    assert!(
        call(
            &client,
            "sql_execution",
            json!({"connectionId": "warehouse", "sql": "SELECT 1"})
        )
        .await
        .is_err()
    );
    assert_eq!(client.list_all_prompts().await.unwrap().len(), 3);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_analytics_only_server_has_no_memory_tools_resources_or_prompts() {
    let (_dir, root) = demo_project();
    serve_only(&root, "[analytics]");
    let client = stdio_client(&root).await;
    let tools = names(&client.list_all_tools().await.unwrap());
    assert!(tools.contains(&"sql_execution".to_string()), "{tools:?}");
    assert!(!tools.contains(&"store".to_string()), "{tools:?}");
    // memory_ingest belongs to the analytics surface (spec 000).
    assert!(tools.contains(&"memory_ingest".to_string()), "{tools:?}");
    assert_eq!(tools.len(), 12, "{tools:?}");
    let info = client.peer_info().unwrap();
    assert!(info.capabilities.resources.is_none());
    assert!(info.capabilities.prompts.is_none());
    // Wiki writes still keep their files (the store and its mirror are
    // there; only the memory tools are not served).
    let written = ok(
        &client,
        "wiki_write",
        json!({"key": "toolsets", "summary": "Which toolsets this server serves", "body": "# Toolsets\nanalytics only", "expectedVersion": 0}),
    )
    .await;
    assert_eq!(written["changed"], true);
    assert!(root.join("wiki/global/toolsets.md").is_file());
    client.cancel().await.unwrap();
}

#[test]
fn an_empty_or_unknown_toolset_list_is_a_config_error_naming_the_choices() {
    let (_dir, root) = demo_project();
    serve_only(&root, "[]");
    let check = lore_in(&root, &["config", "check"]);
    assert!(!check.status.success());
    assert!(
        String::from_utf8_lossy(&check.stderr).contains("mcp.toolsets"),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let (_dir, root) = demo_project();
    serve_only(&root, "[analytic]");
    let check = lore_in(&root, &["config", "check"]);
    assert!(!check.status.success());
    let err = String::from_utf8_lossy(&check.stderr);
    assert!(err.contains("analytics") && err.contains("memory"), "{err}");
}

/// `--toolsets` on the mcp commands overrides `lore.yaml`, and a wrong
/// name stops the server before it serves anything.
#[tokio::test]
async fn the_toolsets_flag_overrides_lore_yaml() {
    use rmcp::ServiceExt;
    let (_dir, root) = demo_project();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_lore"));
    command
        .arg("--project-dir")
        .arg(&root)
        .args(["mcp", "stdio", "--toolsets", "memory"]);
    let transport = rmcp::transport::TokioChildProcess::new(command).unwrap();
    let client = ().serve(transport).await.unwrap();
    let tools = names(&client.list_all_tools().await.unwrap());
    assert_eq!(tools.len(), 8, "{tools:?}");
    assert!(tools.contains(&"undo".to_string()));
    client.cancel().await.unwrap();

    let wrong = lore_in(&root, &["mcp", "stdio", "--toolsets", "analytics,gatway"]);
    assert!(!wrong.status.success());
    let err = String::from_utf8_lossy(&wrong.stderr);
    assert!(err.contains("`gatway`") && err.contains("gateway"), "{err}");
}
