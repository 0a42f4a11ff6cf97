//! What agents read is checked by running it. Every tool call written in
//! the analytics skill and every `Example:` in a tool description is sent
//! to a fresh demo project through the real server and must succeed; every
//! argument named in the skill's shorthand must exist in the tool's input
//! schema; every tool a prompt tells the agent to call must exist. Changing
//! a tool's input shape without updating these texts fails here.
//!
//! The notation (also stated at the top of the skill):
//! - `tool({…JSON…})` in the skill: a complete call, sent as written;
//! - `tool({a, b})` in the skill: shorthand naming arguments;
//! - `Example: {…JSON…}` in a description: a complete call of that tool,
//!   optionally followed by `→ {illustrative result}`. Memory ids and
//!   transaction ids in illustrative results (`e-42`, `t-7`, `tx_id 18`)
//!   stand for the ones the call really returned, and later examples'
//!   arguments are read with them substituted.

mod common;

use std::collections::{BTreeMap, HashMap};

use common::{Client, call, demo_project, stdio_client};
use rmcp::model::{GetPromptRequestParams, Tool};
use serde_json::{Value, json};

const SKILL: &str = include_str!("../src/commands/setup/SKILL.md");

/// One `tool({…})` occurrence in a text.
#[derive(Debug)]
struct WrittenCall {
    tool: String,
    /// The text between the parentheses.
    arguments: String,
}

/// The end (exclusive) of the balanced `{…}` starting at `start`, JSON
/// strings respected.
fn balanced_object(text: &str, start: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Every `name({…})` in `text`.
fn written_calls(text: &str) -> Vec<WrittenCall> {
    let mut calls = Vec::new();
    let mut from = 0;
    while let Some(offset) = text[from..].find("({") {
        let open = from + offset;
        let name_start = text[..open]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        let tool = text[name_start..open].to_string();
        let end = balanced_object(text, open + 1)
            .unwrap_or_else(|| panic!("unbalanced braces after `{tool}(`"));
        assert_eq!(
            &text[end..end + 1],
            ")",
            "`{tool}(` is not closed right after its arguments"
        );
        calls.push(WrittenCall {
            tool,
            arguments: text[open + 1..end].to_string(),
        });
        from = end;
    }
    calls
}

fn properties(tool: &Tool) -> Vec<String> {
    tool.input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// Sends `arguments` to `tool` and returns the structured result, failing
/// with `what` when the server answers an error of any kind.
async fn must_succeed(client: &Client, tool: &str, arguments: Value, what: &str) -> Value {
    let name: &'static str = Box::leak(tool.to_string().into_boxed_str());
    let result = call(client, name, arguments.clone())
        .await
        .unwrap_or_else(|e| panic!("{what}: {tool}({arguments}) was refused: {e}"));
    assert_ne!(
        result.is_error,
        Some(true),
        "{what}: {tool}({arguments}) failed: {:?}",
        result.content
    );
    result.structured_content.unwrap_or(Value::Null)
}

async fn tools_of(client: &Client) -> BTreeMap<String, Tool> {
    client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| (t.name.to_string(), t))
        .collect()
}

#[tokio::test]
async fn every_call_in_the_analytics_skill_runs_on_the_demo() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    let tools = tools_of(&client).await;
    let calls = written_calls(SKILL);
    assert!(
        calls.len() >= 20,
        "the skill's calls were not found: {calls:?}"
    );
    let mut executed = 0;
    for written in calls {
        let tool = tools
            .get(&written.tool)
            .unwrap_or_else(|| panic!("the skill calls `{}`, which is not a tool", written.tool));
        match serde_json::from_str::<Value>(&written.arguments) {
            Ok(arguments) => {
                for key in arguments
                    .as_object()
                    .expect("arguments are an object")
                    .keys()
                {
                    assert!(
                        properties(tool).contains(key),
                        "the skill passes `{key}` to {}, which has no such argument",
                        written.tool
                    );
                }
                must_succeed(&client, &written.tool, arguments, "skill").await;
                executed += 1;
            }
            Err(_) => {
                let names = written.arguments.trim_matches(|c| c == '{' || c == '}');
                for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                    assert!(
                        properties(tool).iter().any(|p| p == name),
                        "the skill's `{}({})` names `{name}`, which {} does not take (it takes {:?})",
                        written.tool,
                        written.arguments,
                        written.tool,
                        properties(tool)
                    );
                }
            }
        }
    }
    assert!(executed >= 12, "only {executed} complete calls ran");
    client.cancel().await.unwrap();
}

/// The example of each description, with its illustrative result.
fn description_example(tool: &Tool) -> Option<(Value, Option<String>)> {
    let description = tool.description.as_deref()?;
    let start = description.find("Example: {")? + "Example: ".len();
    let end = balanced_object(description, start)?;
    let arguments = serde_json::from_str(&description[start..end])
        .unwrap_or_else(|e| panic!("{}'s example is not JSON: {e}", tool.name));
    let result = description[end..]
        .trim_start()
        .strip_prefix('→')
        .map(|r| r.trim().to_string());
    Some((arguments, result))
}

/// The first memory id (`e-…`, `t-…`) in a JSON value, depth first.
fn first_memory_id(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if (s.starts_with("e-") || s.starts_with("t-")) && s.len() > 2 => {
            Some(s.clone())
        }
        Value::Array(items) => items.iter().find_map(first_memory_id),
        Value::Object(map) => map.values().find_map(first_memory_id),
        _ => None,
    }
}

/// `arguments` with the illustrative ids and transaction ids replaced by
/// the real ones.
fn substitute(arguments: &Value, ids: &HashMap<String, String>, txs: &HashMap<i64, i64>) -> Value {
    match arguments {
        Value::String(s) => Value::String(ids.get(s).cloned().unwrap_or_else(|| s.clone())),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = match (k.as_str(), v.as_i64()) {
                        ("tx_id" | "as_of_tx_id", Some(tx)) => {
                            json!(txs.get(&tx).copied().unwrap_or(tx))
                        }
                        _ => substitute(v, ids, txs),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| substitute(v, ids, txs)).collect())
        }
        other => other.clone(),
    }
}

#[tokio::test]
async fn every_example_in_the_tool_descriptions_runs_on_the_demo() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    let tools = tools_of(&client).await;
    // The memory examples tell one story, in this order.
    let story = [
        "store",
        "update",
        "query",
        "history",
        "undo",
        "delete",
        "relate",
        "query_graph",
    ];
    let mut order: Vec<&String> = tools
        .keys()
        .filter(|n| !story.contains(&n.as_str()))
        .collect();
    order.extend(story.iter().filter_map(|n| tools.keys().find(|k| k == n)));
    assert_eq!(order.len(), tools.len());
    let (mut ids, mut txs) = (HashMap::new(), HashMap::new());
    let illustrative_tx = regex_free_number_after("\"tx_id\":");
    for name in order {
        let tool = &tools[name];
        let Some((arguments, illustrated)) = description_example(tool) else {
            assert!(
                tool.description
                    .as_deref()
                    .unwrap_or("")
                    .contains("Takes no arguments"),
                "{name}'s description has no Example"
            );
            must_succeed(&client, name, json!({}), "description").await;
            continue;
        };
        let arguments = substitute(&arguments, &ids, &txs);
        let result = must_succeed(&client, name, arguments, "description").await;
        if let Some(illustrated) = illustrated {
            if let (Some(shown), Some(real)) = (
                illustrated
                    .split("\"id\":\"")
                    .nth(1)
                    .and_then(|r| r.split('"').next()),
                first_memory_id(&result),
            ) && (shown.starts_with("e-") || shown.starts_with("t-"))
            {
                ids.entry(shown.to_string()).or_insert(real);
            }
            // A run id shown in memory_ingest's example is the real one
            // in memory_ingest_status's.
            if let (Some(shown), Some(real)) = (
                illustrated
                    .split("\"runId\":\"")
                    .nth(1)
                    .and_then(|r| r.split('"').next()),
                result.get("runId").and_then(Value::as_str),
            ) {
                ids.entry(shown.to_string()).or_insert(real.to_string());
            }
            if let (Some(shown), Some(real)) = (
                illustrative_tx(&illustrated),
                result.get("tx_id").and_then(Value::as_i64),
            ) {
                txs.entry(shown).or_insert(real);
            }
        }
    }
    client.cancel().await.unwrap();
}

/// A reader of the integer that follows `key` in a text.
fn regex_free_number_after(key: &'static str) -> impl Fn(&str) -> Option<i64> {
    move |text| {
        let rest = &text[text.find(key)? + key.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    }
}

#[tokio::test]
async fn every_tool_a_prompt_asks_for_exists() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    let tools = tools_of(&client).await;
    let prompts = client.list_all_prompts().await.unwrap();
    assert!(!prompts.is_empty());
    for prompt in prompts {
        let arguments: serde_json::Map<String, Value> = prompt
            .arguments
            .iter()
            .flatten()
            .map(|a| (a.name.clone(), json!("deployment")))
            .collect();
        let got = client
            .get_prompt(GetPromptRequestParams::new(prompt.name.clone()).with_arguments(arguments))
            .await
            .unwrap_or_else(|e| panic!("prompt {}: {e}", prompt.name));
        let text = serde_json::to_string(&got.messages).unwrap();
        let mut asked = 0;
        for piece in text.split("call `").skip(1) {
            let tool = piece.split('`').next().unwrap();
            assert!(
                tools.contains_key(tool),
                "prompt {} asks to call `{tool}`, which is not a tool",
                prompt.name
            );
            asked += 1;
        }
        assert!(asked > 0, "prompt {} names no tool to call", prompt.name);
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_argument_shapes_models_drift_into_are_accepted() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    let expected = must_succeed(
        &client,
        "sl_query",
        json!({"connectionId": "warehouse", "measures": ["support_tickets.open_tickets"]}),
        "canonical",
    )
    .await["rows"]
        .clone();
    for drifted in [
        json!({"connectionId": "warehouse", "query": {"measures": ["support_tickets.open_tickets"]}}),
        json!({"connection_id": "warehouse", "measures": "support_tickets.open_tickets"}),
        json!({"connection": "warehouse", "query": {"measures": "support_tickets.open_tickets", "orderBy": []}}),
    ] {
        let rows = must_succeed(&client, "sl_query", drifted, "drift").await["rows"].clone();
        assert_eq!(rows, expected);
    }
    let page = must_succeed(
        &client,
        "sl_read_source",
        json!({"connection_id": "warehouse", "source_name": "invoices"}),
        "drift",
    )
    .await;
    assert_eq!(page["sourceName"], "invoices");
    // A transaction of its own, whatever the server's start-up has
    // imported by now.
    must_succeed(
        &client,
        "store",
        json!({"topic": "drift", "content": "Models write connection_id."}),
        "canonical",
    )
    .await;
    let history = must_succeed(&client, "history", json!({"limit": 1}), "drift").await;
    let tx = history["items"][0]["tx_id"].as_i64().unwrap();
    must_succeed(&client, "history", json!({"sinceTxId": tx}), "drift").await;
    // Still wrong after normalisation: refused with the field named.
    let message = common::assert_invalid_arguments(
        &client,
        "sl_query",
        json!({"connectionId": "warehouse", "measures": {"name": 1}}),
    )
    .await;
    assert!(
        message.contains("at `measures`") && message.contains("expects"),
        "{message}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn argument_errors_are_in_band_and_name_the_field() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    let unknown = common::assert_invalid_arguments(
        &client,
        "sql_execution",
        json!({"connectionId": "warehouse", "sql": "SELECT 1", "colour": "red"}),
    )
    .await;
    assert!(
        unknown.contains("`colour`") && unknown.contains("maxRows"),
        "{unknown}"
    );
    let nul = common::assert_invalid_arguments(
        &client,
        "store",
        json!({"topic": "t", "content": "before\u{0}after"}),
    )
    .await;
    assert!(nul.contains("`content`") && nul.contains("NUL"), "{nul}");
    common::assert_invalid_arguments(
        &client,
        "wiki_write",
        json!({"key": "k", "summary": "s", "body": "a\u{0}b"}),
    )
    .await;
    // Every tool's schema says unknown arguments are refused, and what a
    // limit may be (the range the tool accepts, not any integer).
    for tool in client.list_all_tools().await.unwrap() {
        assert_eq!(
            tool.input_schema.get("additionalProperties"),
            Some(&json!(false)),
            "{}",
            tool.name
        );
        let limit = tool
            .input_schema
            .get("properties")
            .and_then(|p| p.get("limit"));
        if let Some(limit) = limit {
            let bound = |key: &str| limit.get(key).and_then(Value::as_u64);
            assert_eq!(bound("minimum"), Some(1), "{}: {limit}", tool.name);
            assert!(bound("maximum").is_some(), "{}: {limit}", tool.name);
        }
    }
    client.cancel().await.unwrap();
}

const ADMIN_SKILL: &str = include_str!("../src/commands/setup/ADMIN-SKILL.md");

/// The command lines of the ```sh blocks of a skill, in order.
fn sh_commands(text: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_block = !in_block && trimmed == "```sh";
            continue;
        }
        if in_block && !trimmed.is_empty() && !trimmed.starts_with('#') {
            commands.push(trimmed.to_string());
        }
    }
    commands
}

/// Every command of the admin skill, run in order with `sh` in a fresh
/// demo project (lore first on the PATH, a temporary home), must succeed:
/// a renamed command or flag, or an example that stopped working, fails
/// here.
#[test]
fn every_command_in_the_admin_skill_runs_on_the_demo() {
    let commands = sh_commands(ADMIN_SKILL);
    assert!(commands.len() >= 25, "{commands:?}");
    let (dir, root) = demo_project();
    // A free port for `lore mcp start`, so parallel tests do not meet.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = std::fs::read_to_string(root.join("lore.yaml")).unwrap();
    std::fs::write(
        root.join("lore.yaml"),
        config.replace("port: 7878", &format!("port: {port}")),
    )
    .unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_lore"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    for command in &commands {
        assert!(
            command.starts_with("lore "),
            "the admin skill's sh blocks hold lore commands only: {command}"
        );
        let output = std::process::Command::new("sh")
            .args(["-c", command])
            .current_dir(&root)
            .env("PATH", &path)
            .env("HOME", &home)
            .env_remove("LORE_PROJECT_DIR")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("CODEX_HOME")
            .env_remove("LORE_MCP_TOKEN")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "`{command}` failed:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    // What the examples did is there: the page, the memory entry, the skills.
    assert!(root.join("wiki/global/discounts.md").is_file());
    assert!(root.join("my-project/lore.yaml").is_file());
    assert!(root.join(".claude/skills/lore-admin/SKILL.md").is_file());
    // The server the skill started, it stopped.
    let status = common::lore_in(&root, &["mcp", "status", "--json"]);
    assert!(
        String::from_utf8_lossy(&status.stdout).contains("\"state\": \"stopped\""),
        "{}",
        String::from_utf8_lossy(&status.stdout)
    );
}
