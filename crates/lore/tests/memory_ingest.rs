//! `memory_ingest` and `memory_ingest_status` through the real MCP
//! protocol on the demo project: a note becomes wiki pages, glossary
//! pages, memory notes and a semantic-layer measure in one transaction;
//! the same note twice changes nothing; a contradiction is kept and
//! warned about; `undo {run_id}` takes the whole run back, files
//! included; bad input and dead runs get clear answers.

mod common;

use common::*;
use serde_json::{Value, json};

const HANDBOOK: &str = r#"---
source: Finance team handbook
---
# Finance handbook

How Northwind's finance team counts money.

## Churn

**Churned account** is an account whose last subscription ended without renewal.

Gotcha: `support_tickets.priority` uses 1 for urgent, not 5.

## Open tickets

The support team watches open tickets every morning.

```sql
SELECT COUNT(*) AS open_ticket_count FROM support_tickets WHERE status = 'open'
```

```sql
SELECT SUM(amount_cents) AS gross FROM invoices
```

## Glossary

| Term | Definition |
|------|------------|
| Expansion revenue | Added MRR from upgrades of existing accounts |
"#;

/// Starts an ingest and polls it until it is done.
async fn ingest(client: &Client, arguments: Value) -> Value {
    let started = ok(client, "memory_ingest", arguments).await;
    let run_id = started["runId"].as_str().unwrap().to_string();
    for _ in 0..200 {
        let status = ok(client, "memory_ingest_status", json!({"runId": run_id})).await;
        if status["done"] == true {
            return status;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("run {run_id} did not finish");
}

fn ids(status: &Value, lane: &str) -> Vec<(String, String)> {
    status["captured"][lane]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["action"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_note_is_remembered_found_undone_and_never_duplicated() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(names.contains(&"memory_ingest".to_string()));
    assert!(names.contains(&"memory_ingest_status".to_string()));

    let first = ingest(
        &client,
        json!({"content": HANDBOOK, "connectionId": "warehouse"}),
    )
    .await;
    assert_eq!(first["status"], "done", "{first}");
    let wiki = ids(&first, "wiki");
    for (page, action) in [
        ("glossary/churned-account", "created"),
        ("glossary/expansion-revenue", "created"),
        ("finance-handbook", "created"),
        ("open-tickets", "created"),
        // The demo has pages on churn and a glossary: they are added to,
        // not duplicated.
        ("churn", "updated"),
        ("glossary", "updated"),
    ] {
        assert!(
            wiki.contains(&(page.to_string(), action.to_string())),
            "{page}: {wiki:?}"
        );
    }
    assert_eq!(
        ids(&first, "sl"),
        [(
            "support_tickets.yaml#open_ticket_count".to_string(),
            "created".to_string()
        )]
    );
    assert_eq!(ids(&first, "memory")[0].0, "Churn: gotcha");
    let xrefs = first["captured"]["xrefs"].as_array().unwrap();
    assert!(
        xrefs.contains(&json!({"table": "support_tickets", "column": "priority"})),
        "{xrefs:?}"
    );
    // The query over a column the model lacks is not a measure, and says why.
    let skipped = first["skipped"].as_array().unwrap();
    assert!(
        skipped
            .iter()
            .any(|s| s["what"] == "sql" && s["reason"].as_str().unwrap().contains("amount_cents")),
        "{skipped:?}"
    );
    let tx = first["txId"].as_i64().unwrap();

    // Found by the tools an agent asks next.
    let page = ok(
        &client,
        "wiki_read",
        json!({"key": "glossary/churned-account"}),
    )
    .await;
    assert_eq!(page["found"], true, "{page}");
    let found = ok(
        &client,
        "discover_data",
        json!({"query": "what is a churned account"}),
    )
    .await;
    let first_ref = &found["refs"][0];
    assert_eq!(first_ref["id"], "glossary/churned-account", "{found}");
    let measure = ok(
        &client,
        "sl_query",
        json!({"connectionId": "warehouse", "measures": ["support_tickets.open_ticket_count"]}),
    )
    .await;
    assert_eq!(measure["rowCount"], 1, "{measure}");

    // The same note again changes nothing.
    let again = ingest(
        &client,
        json!({"content": HANDBOOK, "connectionId": "warehouse"}),
    )
    .await;
    assert_eq!(again["status"], "done");
    assert!(again["txId"].is_null(), "{again}");
    for lane in ["wiki", "sl", "memory"] {
        assert!(
            ids(&again, lane)
                .iter()
                .all(|(_, action)| action == "unchanged"),
            "{lane}: {again}"
        );
    }

    // Undo by run id takes back every page, note and model file.
    let undone = ok(&client, "undo", json!({"run_id": first["runId"]})).await;
    assert_eq!(undone["undone_tx_id"], tx);
    // The server's file mirrors follow the undo.
    let model_path = root.join("semantic-layer/warehouse/support_tickets.yaml");
    let settled = || {
        !root
            .join("wiki/global/glossary/churned-account.md")
            .exists()
            && !std::fs::read_to_string(&model_path)
                .unwrap()
                .contains("open_ticket_count")
    };
    for _ in 0..100 {
        if settled() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(settled(), "the page and the measure are gone from disk");
    let gone = ok(
        &client,
        "wiki_read",
        json!({"key": "glossary/churned-account"}),
    )
    .await;
    assert_eq!(gone["found"], false);

    // A different definition later: both kept, and the run says so.
    ingest(&client, json!({"content": HANDBOOK})).await;
    let other = ingest(
        &client,
        json!({"content": "**Churned account** is an account with no login for 90 days.\n"}),
    )
    .await;
    let warnings = other["warnings"].as_array().unwrap();
    assert!(
        warnings[0]
            .as_str()
            .unwrap()
            .contains("`Churned account` is defined differently"),
        "{other}"
    );
    let page = ok(
        &client,
        "wiki_read",
        json!({"key": "glossary/churned-account"}),
    )
    .await;
    let body = page["page"]["body"].as_str().unwrap();
    assert!(
        body.contains("without renewal") && body.contains("no login for 90 days"),
        "{body}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn bad_input_and_dead_runs_get_clear_answers() {
    let (_dir, root) = demo_project();
    let config = root.join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}\nlimits:\n  ingest_bytes: 4096\n")).unwrap();
    let client = stdio_client(&root).await;
    for (arguments, code, says) in [
        (json!({"content": "   "}), "invalid_arguments", "empty"),
        (json!({"content": "a\u{0}b"}), "invalid_arguments", "NUL"),
        (
            json!({"content": "# x", "connectionId": "nowhere"}),
            "invalid_arguments",
            "unknown connectionId `nowhere`; the connections are warehouse",
        ),
        (
            json!({"content": "x".repeat(4097)}),
            "invalid_arguments",
            "at most 4096 are ingested at once (limits.ingest_bytes)",
        ),
    ] {
        let refused = call(&client, "memory_ingest", arguments).await.unwrap();
        let error = error_of(&refused);
        assert_eq!(error["code"], code);
        assert!(error["message"].as_str().unwrap().contains(says), "{error}");
    }
    let unknown = call(
        &client,
        "memory_ingest_status",
        json!({"runId": "run-nope"}),
    )
    .await
    .unwrap();
    assert_eq!(error_of(&unknown)["code"], "not_found");

    // A run whose process died mid-way is reported interrupted, not running.
    {
        let store = lore_store::SqliteStore::open(
            &root.join(".lore/store.db"),
            lore_store::Durability::Process,
        )
        .unwrap();
        use lore_store::KnowledgeStore;
        store
            .save_ingest_run(&lore_store::IngestRunRecord {
                run_id: "run-dead".into(),
                status: "running".into(),
                stage: "writing".into(),
                connection_id: None,
                content_hash: "h".into(),
                actor: "mcp".into(),
                pid: u32::MAX - 1,
                started_at: "2026-01-01T00:00:00.000Z".into(),
                heartbeat_at: "2026-01-01T00:00:00.000Z".into(),
                finished_at: None,
                tx_id: None,
                report: json!({}),
            })
            .unwrap();
    }
    let dead = ok(
        &client,
        "memory_ingest_status",
        json!({"runId": "run-dead"}),
    )
    .await;
    assert_eq!(dead["status"], "error");
    assert_eq!(dead["done"], true);
    assert_eq!(dead["error"]["code"], "interrupted", "{dead}");
    let nothing = call(&client, "undo", json!({"run_id": "run-dead"}))
        .await
        .unwrap();
    assert_eq!(error_of(&nothing)["code"], "invalid_request");

    // A file that cannot be written fails the run and leaves nothing.
    std::fs::create_dir_all(root.join("wiki/global/churn-notes.md")).unwrap();
    let failed = ingest(
        &client,
        json!({"content": "# Churn notes\n\n**Lapsed account** is an account that stopped paying.\n"}),
    )
    .await;
    assert_eq!(failed["status"], "error", "{failed}");
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("taken back")
    );
    let page = ok(
        &client,
        "wiki_read",
        json!({"key": "glossary/lapsed-account"}),
    )
    .await;
    assert_eq!(page["found"], false);
    assert!(!root.join("wiki/global/glossary/lapsed-account.md").exists());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_terminal_captures_what_the_tool_captures() {
    // The same note through `lore memory ingest` and through MCP, each on
    // a fresh demo, captures the same.
    let (_a, by_cli) = demo_project();
    let note = by_cli.join("handbook.md");
    std::fs::write(&note, HANDBOOK).unwrap();
    let output = lore_in(
        &by_cli,
        &[
            "memory",
            "ingest",
            note.to_str().unwrap(),
            "--connection",
            "warehouse",
            "--json",
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let from_cli: Value = serde_json::from_slice(&output.stdout).unwrap();

    let (_b, by_mcp) = demo_project();
    let client = stdio_client(&by_mcp).await;
    let from_mcp = ingest(
        &client,
        json!({"content": HANDBOOK, "connectionId": "warehouse"}),
    )
    .await;
    client.cancel().await.unwrap();
    for field in ["status", "captured", "skipped", "warnings"] {
        let (cli, mcp) = (&from_cli[field], &from_mcp[field]);
        let cli = cli.to_string().replace(by_cli.to_str().unwrap(), "ROOT");
        let mcp = mcp.to_string().replace(by_mcp.to_str().unwrap(), "ROOT");
        assert_eq!(cli, mcp, "{field}");
    }
    assert!(
        by_cli
            .join("wiki/global/glossary/churned-account.md")
            .is_file()
    );

    // From stdin, then its status, then undo by run id.
    let mut child = lore()
        .arg("--project-dir")
        .arg(&by_cli)
        .args(["memory", "ingest", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            b"## Dunning\n\n**Dunning** is the sequence of reminders sent for an unpaid invoice.\n",
        )
        .unwrap();
    let done = child.wait_with_output().unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let printed = String::from_utf8_lossy(&done.stdout).to_string();
    assert!(
        printed.contains("created   glossary/dunning (definition)"),
        "{printed}"
    );
    let run_id = printed
        .split_whitespace()
        .nth(1)
        .unwrap()
        .trim_end_matches(':')
        .to_string();
    let status = lore_in(&by_cli, &["memory", "ingest-status", &run_id]);
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["status"], "done");
    let undo = lore_in(&by_cli, &["memory", "undo", "--run", &run_id]);
    assert!(
        undo.status.success(),
        "{}",
        String::from_utf8_lossy(&undo.stderr)
    );
    assert!(!by_cli.join("wiki/global/glossary/dunning.md").exists());
    let refused = lore_in(&by_cli, &["memory", "ingest", "missing.md"]);
    assert!(!refused.status.success());
    let binary = by_cli.join("logo.png");
    std::fs::write(&binary, b"\x89PNG\x00\x00binary").unwrap();
    let refused = lore_in(&by_cli, &["memory", "ingest", binary.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&refused.stderr).contains("[invalid_arguments]"));
}

/// A handbook's definitions, and a question about each that an analyst
/// would ask, with the page that answers it.
const QUESTIONS: [(&str, &str); 14] = [
    ("what is a logo", "glossary/logo"),
    ("which accounts are dormant", "glossary/dormant-account"),
    ("how are bookings defined", "glossary/bookings"),
    (
        "what does deferred revenue mean",
        "glossary/deferred-revenue",
    ),
    (
        "how do we compute net dollar retention",
        "glossary/net-dollar-retention",
    ),
    ("what is a seat", "glossary/seat"),
    ("what counts as a downgrade", "glossary/downgrade"),
    (
        "how long is the grace period after a failed payment",
        "glossary/grace-period",
    ),
    (
        "first response time definition",
        "glossary/first-response-time",
    ),
    ("when is a ticket an escalation", "glossary/escalation"),
    ("weekly active users", "glossary/weekly-active-user"),
    ("feature adoption rate", "glossary/feature-adoption"),
    (
        "contract value signed but not yet invoiced",
        "glossary/bookings",
    ),
    ("past due subscriptions in MRR", "subscriptions"),
];

#[tokio::test]
async fn discover_data_finds_every_definition_of_an_ingested_handbook() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    let handbook = include_str!("fixtures/handbook.md");
    let run = ingest(
        &client,
        json!({"content": handbook, "connectionId": "warehouse"}),
    )
    .await;
    assert_eq!(run["status"], "done", "{run}");
    let glossary = ids(&run, "wiki")
        .into_iter()
        .filter(|(id, _)| id.starts_with("glossary/"))
        .count();
    assert_eq!(glossary, 12, "{run}");
    let mut misses = Vec::new();
    for (question, page) in QUESTIONS {
        let found = ok(
            &client,
            "discover_data",
            json!({"query": question, "connectionId": "warehouse", "limit": 5}),
        )
        .await;
        let refs: Vec<&str> = found["refs"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["id"].as_str())
            .collect();
        if !refs.contains(&page) {
            misses.push(format!("{question}: {page} not in {refs:?}"));
        }
    }
    assert!(misses.is_empty(), "{misses:#?}");
    client.cancel().await.unwrap();
}

/// The demo with `llm:` pointing at `url`.
fn with_llm(root: &std::path::Path, url: &str, protocol: &str, fallback: bool) {
    let config = root.join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!(
            "{text}\nllm:\n  provider: {protocol}\n  url: {url}\n  model: test-model\n  api_key: sk-test-secret\n  timeout_ms: 5000\n  fallback: {fallback}\n"
        ),
    )
    .unwrap();
}

fn openai_calls(calls: Value) -> String {
    let calls: Vec<Value> = calls
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, c)| {
            json!({"id": format!("call_{i}"), "type": "function", "function": {
                "name": c["name"], "arguments": c["arguments"].to_string()
            }})
        })
        .collect();
    json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": calls}, "finish_reason": "tool_calls"}]}).to_string()
}

const REFUNDS: &str = "# Refunds\n\nRefunds are issued within 30 days. A chargeback is a refund the card issuer forces.\n\nVoided invoices count as refunded: SELECT COUNT(*) FROM invoices WHERE status = 'void'.\n";

#[tokio::test]
async fn with_an_llm_the_note_is_filed_through_the_same_checks() {
    let (_dir, root) = demo_project();
    let (url, requests) = chat_double(vec![
        (
            200,
            openai_calls(json!([
                {"name": "write_page", "arguments": {"title": "Refund window", "summary": "Refunds are issued within 30 days", "body": "Refunds are issued within 30 days of payment."}},
                {"name": "define_term", "arguments": {"term": "Chargeback", "definition": "a refund the card issuer forces"}},
                {"name": "remember", "arguments": {"about": "Refund window", "label": "gotcha", "text": "Voided invoices count as refunded."}},
                {"name": "propose_measure", "arguments": {"name": "refunded_invoices", "sql": "SELECT COUNT(*) FROM invoices WHERE status = 'void'"}},
                {"name": "write_page", "arguments": {"title": "Empty", "summary": "", "body": "x"}}
            ])),
        ),
        (
            200,
            openai_calls(json!([{"name": "finish", "arguments": {"summary": "filed"}}])),
        ),
    ]);
    with_llm(&root, &url, "openai", true);
    let client = stdio_client(&root).await;
    let run = ingest(
        &client,
        json!({"content": REFUNDS, "connectionId": "warehouse"}),
    )
    .await;
    client.cancel().await.unwrap();
    assert_eq!(run["status"], "done", "{run}");
    let wiki = ids(&run, "wiki");
    assert!(
        wiki.contains(&("refund-window".into(), "created".into())),
        "{wiki:?}"
    );
    assert!(
        wiki.contains(&("glossary/chargeback".into(), "created".into())),
        "{wiki:?}"
    );
    assert_eq!(
        ids(&run, "sl"),
        [(
            "invoices.yaml#refunded_invoices".to_string(),
            "created".to_string()
        )]
    );
    assert_eq!(ids(&run, "memory")[0].0, "Refund window: gotcha");
    let warnings = run["warnings"].to_string();
    assert!(
        warnings.contains("write_page call was refused: `summary`"),
        "{warnings}"
    );
    let model =
        std::fs::read_to_string(root.join("semantic-layer/warehouse/invoices.yaml")).unwrap();
    assert!(model.contains("name: refunded_invoices"), "{model}");
    // The second request carried each call's answer back, in OpenAI's shape.
    let requests = requests.lock().unwrap();
    assert_eq!(requests.len(), 2);
    let second: Value = serde_json::from_str(&requests[1]).unwrap();
    let results: Vec<&Value> = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(results.len(), 5);
    assert!(
        results[4]["content"]
            .as_str()
            .unwrap()
            .starts_with("refused")
    );
    assert_eq!(second["model"], "test-model");
    assert!(
        !requests[0].contains("sk-test-secret"),
        "the key travels as a header only"
    );
}

#[tokio::test]
async fn an_anthropic_model_is_spoken_to_in_its_own_protocol() {
    let (_dir, root) = demo_project();
    let first = json!({"type": "message", "role": "assistant", "content": [
        {"type": "text", "text": "Filing the definition."},
        {"type": "tool_use", "id": "toolu_1", "name": "define_term", "input": {"term": "Chargeback", "definition": "Chargeback: a refund the card issuer forces."}}
    ], "stop_reason": "tool_use"});
    let last = json!({"type": "message", "role": "assistant", "content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn"});
    let (url, requests) = chat_double(vec![(200, first.to_string()), (200, last.to_string())]);
    with_llm(&root, &url, "anthropic", true);
    let client = stdio_client(&root).await;
    let run = ingest(&client, json!({"content": REFUNDS})).await;
    client.cancel().await.unwrap();
    assert_eq!(run["status"], "done", "{run}");
    assert_eq!(
        ids(&run, "wiki"),
        [("glossary/chargeback".to_string(), "created".to_string())]
    );
    let second: Value = serde_json::from_str(&requests.lock().unwrap()[1]).unwrap();
    assert_eq!(second["messages"][2]["content"][0]["type"], "tool_result");
    assert_eq!(
        second["messages"][2]["content"][0]["tool_use_id"],
        "toolu_1"
    );
}

#[tokio::test]
async fn a_failing_llm_falls_back_or_fails_the_run_but_is_never_silent() {
    // 500 three times (the retries), then a malformed answer.
    for (answers, needle) in [
        (
            vec![(500, r#"{"error":{"message":"overloaded"}}"#.to_string()); 3],
            "HTTP 500: overloaded",
        ),
        (
            vec![(429, r#"{"error":{"message":"rate limited"}}"#.to_string()); 3],
            "HTTP 429",
        ),
        (vec![(200, "{not json".to_string())], "malformed answer"),
    ] {
        let (_dir, root) = demo_project();
        let (url, _) = chat_double(answers);
        with_llm(&root, &url, "openai", true);
        let client = stdio_client(&root).await;
        let run = ingest(&client, json!({"content": REFUNDS})).await;
        client.cancel().await.unwrap();
        assert_eq!(run["status"], "done", "{run}");
        let warnings = run["warnings"].to_string();
        assert!(
            warnings.contains(
                "the LLM triage failed, so the note was filed by the deterministic triage"
            ) && warnings.contains(needle),
            "{needle}: {warnings}"
        );
        // Filed anyway, by the deterministic triage (the demo's refunds page).
        assert!(
            ids(&run, "wiki").iter().any(|(id, _)| id == "refunds"),
            "{run}"
        );
    }
    // Without fallback the run fails, says why, and writes nothing.
    let (_dir, root) = demo_project();
    let (url, _) = chat_double(vec![
        (
            500,
            r#"{"error":{"message":"overloaded"}}"#.to_string()
        );
        3
    ]);
    with_llm(&root, &url, "openai", false);
    let client = stdio_client(&root).await;
    let run = ingest(
        &client,
        json!({"content": "# Dunning\n\n**Dunning** is the reminder sequence.\n"}),
    )
    .await;
    client.cancel().await.unwrap();
    assert_eq!(run["status"], "error", "{run}");
    assert_eq!(run["error"]["code"], "upstream_error");
    assert!(
        run["error"]["message"]
            .as_str()
            .unwrap()
            .contains("HTTP 500: overloaded")
    );
    assert!(run["txId"].is_null());
    assert!(!root.join("wiki/global/glossary/dunning.md").exists());
}

#[tokio::test]
async fn metricflow_pasted_into_a_note_is_imported_like_lore_sl_import() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    let note = "## Ticket metrics\n\nHow support counts its tickets.\n\n```yaml\nsemantic_models:\n  - name: ticket_facts\n    model: ref('support_tickets')\n    entities:\n      - {name: ticket, type: primary, expr: id}\n    dimensions:\n      - {name: status, type: categorical}\n      - {name: opened_at, type: time, type_params: {time_granularity: day}}\n    measures:\n      - {name: ticket_count, expr: 1, agg: sum}\nmetrics:\n  - name: open_tickets\n    type: simple\n    type_params: {measure: ticket_count}\n    filter: \"{{ Dimension('ticket__status') }} = 'open'\"\n  - name: tickets_7d\n    type: cumulative\n    type_params: {measure: ticket_count, window: 7 days}\n  - name: reopened_share\n    type: conversion\n    type_params: {conversion_type_params: {entity: ticket, base_measure: ticket_count, conversion_measure: ticket_count}}\n```\n";
    let run = ingest(
        &client,
        json!({"content": note, "connectionId": "warehouse"}),
    )
    .await;
    assert_eq!(run["status"], "done", "{run}");
    assert_eq!(
        ids(&run, "sl"),
        [("ticket_facts.yaml".to_string(), "created".to_string())]
    );
    let skipped = run["skipped"].to_string();
    assert!(!skipped.contains("reopened_share"), "{skipped}");
    assert!(!skipped.contains("tickets_7d"), "{skipped}");
    // The conversion metric matches each ticket to itself (its entity is
    // the ticket): every ticket with a day converts.
    let share = ok(
        &client,
        "sl_query",
        json!({"connectionId": "warehouse", "measures": ["ticket_facts.reopened_share"]}),
    )
    .await;
    let dated = ok(
        &client,
        "sql_execution",
        json!({"connectionId": "warehouse", "sql": "SELECT COUNT(date(opened_at)) * 1.0 / COUNT(*) FROM support_tickets"}),
    )
    .await;
    assert_eq!(share["rows"][0][0], dated["rows"][0][0], "{share}");
    // The cumulative metric runs over the model's only time dimension.
    let weekly = ok(
        &client,
        "sl_query",
        json!({"connectionId": "warehouse", "measures": ["ticket_facts.tickets_7d"],
               "dimensions": [{"field": "ticket_facts.opened_at", "granularity": "month"}]}),
    )
    .await;
    assert!(!weekly["rows"].as_array().unwrap().is_empty(), "{weekly}");
    let measured = ok(
        &client,
        "sl_query",
        json!({"connectionId": "warehouse", "measures": ["ticket_facts.open_tickets"]}),
    )
    .await;
    let direct = ok(
        &client,
        "sql_execution",
        json!({"connectionId": "warehouse", "sql": "SELECT COUNT(*) FROM support_tickets WHERE status = 'open'"}),
    )
    .await;
    assert_eq!(measured["rows"][0][0], direct["rows"][0][0], "{measured}");
    // Without a connection the block stays in the page, and says why.
    let global = ingest(
        &client,
        json!({"content": note.replace("Ticket metrics", "Ticket metrics again")}),
    )
    .await;
    assert!(
        global["skipped"]
            .to_string()
            .contains("MetricFlow definitions need connectionId")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn lookml_and_cube_pasted_into_a_note_are_imported_like_lore_sl_import() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    let note = r#"# Support and payments in Looker and Cube

## Ticket load

Support's Looker view of its tickets.

```lookml
view: ticket_load {
  sql_table_name: support_tickets ;;
  dimension: id { primary_key: yes type: number sql: ${TABLE}.id ;; }
  dimension: status { type: string sql: ${TABLE}.status ;; }
  dimension_group: opened { type: time timeframes: [date, month] sql: ${TABLE}.opened_at ;; }
  measure: tickets { type: count }
  measure: open_tickets { type: count filters: [status: "open"] }
}
explore: ticket_load {}
```

## Payment facts

Finance's Cube model of payments.

```yaml
cubes:
  - name: payment_facts
    sql_table: payments
    dimensions:
      - {name: id, sql: id, type: number, primary_key: true}
      - {name: method, sql: method, type: string}
    measures:
      - name: collected_cents
        sql: amount_cents
        type: sum
        filters:
          - sql: "{CUBE}.status = 'succeeded'"
```

## Invoice facts

The same team's JavaScript cube.

```js
cube(`invoice_facts`, {
  sql_table: `invoices`,
  dimensions: {
    id: { sql: `id`, type: `number`, primary_key: true },
    currency: { sql: `${CUBE}.currency`, type: `string` },
  },
  measures: {
    paidInvoices: { type: `count`, filters: [{ sql: `${CUBE}.status = 'paid'` }] },
  },
});
```
"#;
    let run = ingest(
        &client,
        json!({"content": note, "connectionId": "warehouse"}),
    )
    .await;
    assert_eq!(run["status"], "done", "{run}");
    let mut sl = ids(&run, "sl");
    sl.sort();
    assert_eq!(
        sl,
        [
            ("invoice_facts.yaml".to_string(), "created".to_string()),
            ("payment_facts.yaml".to_string(), "created".to_string()),
            ("ticket_load.yaml".to_string(), "created".to_string()),
        ],
        "{run}"
    );
    // Each imported measure answers what the SQL it stands for answers.
    for (measure, sql) in [
        (
            "ticket_load.open_tickets",
            "SELECT COUNT(*) FROM support_tickets WHERE status = 'open'",
        ),
        (
            "ticket_load.tickets",
            "SELECT COUNT(*) FROM support_tickets",
        ),
        (
            "payment_facts.collected_cents",
            "SELECT SUM(amount_cents) FROM payments WHERE status = 'succeeded'",
        ),
        (
            "invoice_facts.paidInvoices",
            "SELECT COUNT(*) FROM invoices WHERE status = 'paid'",
        ),
    ] {
        let measured = ok(
            &client,
            "sl_query",
            json!({"connectionId": "warehouse", "measures": [measure]}),
        )
        .await;
        let direct = ok(
            &client,
            "sql_execution",
            json!({"connectionId": "warehouse", "sql": sql}),
        )
        .await;
        assert_eq!(
            measured["rows"][0][0], direct["rows"][0][0],
            "{measure}: {measured}"
        );
    }
    // By a dimension of the pasted Cube model, too.
    let by_method = ok(
        &client,
        "sl_query",
        json!({"connectionId": "warehouse", "measures": ["payment_facts.collected_cents"],
               "dimensions": ["payment_facts.method"], "orderBy": [{"field": "payment_facts.method"}]}),
    )
    .await;
    let direct = ok(
        &client,
        "sql_execution",
        json!({"connectionId": "warehouse", "sql": "SELECT method, SUM(amount_cents) FROM payments WHERE status = 'succeeded' GROUP BY method ORDER BY method"}),
    )
    .await;
    assert_eq!(by_method["rows"], direct["rows"], "{by_method}");

    // Broken LookML is skipped with where and what, and the note's page is
    // still written; nothing of the block reaches the model.
    let broken = ingest(
        &client,
        json!({"content": "## Churn view\n\nHow churn is counted.\n\n```lookml\nview: churn {\n  sql_table_name: subscriptions ;;\n  measure: churned { type: count \n```\n", "connectionId": "warehouse"}),
    )
    .await;
    assert_eq!(broken["status"], "done", "{broken}");
    assert!(ids(&broken, "sl").is_empty(), "{broken}");
    let skipped = broken["skipped"].to_string();
    assert!(
        skipped.contains("the LookML block") && skipped.contains("line"),
        "{skipped}"
    );
    assert!(!root.join("semantic-layer/warehouse/churn.yaml").exists());
    assert!(!ids(&broken, "wiki").is_empty(), "{broken}");

    // Pasted again, the sources exist: they are left to lore sl import.
    let again = ingest(
        &client,
        json!({"content": note.replace("# Support and payments", "# Support and payments again"), "connectionId": "warehouse"}),
    )
    .await;
    assert!(ids(&again, "sl").is_empty(), "{again}");
    assert!(
        again["skipped"]
            .to_string()
            .contains("update it with lore sl import --from lookml"),
        "{again}"
    );

    // Without a connection the blocks stay in the page, and say why.
    let global = ingest(
        &client,
        json!({"content": note.replace("# Support and payments", "# Support and payments, globally")}),
    )
    .await;
    let skipped = global["skipped"].to_string();
    assert!(
        skipped.contains("LookML definitions need connectionId")
            && skipped.contains("Cube definitions need connectionId"),
        "{skipped}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_handbook_s_header_is_no_glossary_and_every_sql_block_is_accounted_for() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    let handbook = include_str!("fixtures/revenue_handbook.md");
    // With the connection: both metrics become measures of invoices.
    let run = ingest(
        &client,
        json!({"content": handbook, "connectionId": "warehouse"}),
    )
    .await;
    assert_eq!(run["status"], "done", "{run}");
    assert_eq!(
        ids(&run, "sl"),
        [
            (
                "invoices.yaml#paid_revenue".to_string(),
                "created".to_string()
            ),
            (
                "invoices.yaml#average_invoice_value".to_string(),
                "created".to_string()
            )
        ],
        "{run}"
    );
    let definitions: Vec<String> = ids(&run, "wiki")
        .into_iter()
        .map(|(id, _)| id)
        .filter(|id| id.starts_with("glossary/"))
        .collect();
    assert_eq!(definitions, ["glossary/paid-invoice"], "{run}");
    let answer = ok(
        &client,
        "sl_query",
        json!({"connectionId": "warehouse", "measures": ["invoices.average_invoice_value", "invoices.paid_revenue"]}),
    )
    .await;
    assert!(answer["rows"][0][0].as_f64().unwrap() > 0.0, "{answer}");

    // Without one: each SQL block is listed in skipped with its reason.
    let run = ingest(
        &client,
        json!({"content": handbook.replace("# Revenue metrics", "# Revenue metrics, draft")}),
    )
    .await;
    let skipped: Vec<(&str, &str)> = run["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["section"].as_str().unwrap(), s["what"].as_str().unwrap()))
        .collect();
    assert_eq!(
        skipped,
        [("Paid revenue", "sql"), ("Average invoice value", "sql")],
        "{run}"
    );
    assert!(
        run["skipped"][1]["reason"]
            .as_str()
            .unwrap()
            .contains("connectionId")
    );
    client.cancel().await.unwrap();
}
