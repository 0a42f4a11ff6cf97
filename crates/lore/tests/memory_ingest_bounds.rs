//! `memory_ingest` under hostile or heavy notes, through the real binary:
//! a block that would exhaust the run's stack (long flat SQL chains, deep
//! nesting in every format the run reads) is skipped naming the limit
//! while the server stays up and the rest of the note is filed; a run
//! files at most `limits.ingest_pages` pages and `limits.ingest_items`
//! notes and model items and says what it left out; concurrent notes
//! defining one term all land.

mod common;

use std::sync::Arc;

use common::*;
use serde_json::{Value, json};

/// `term` repeated `terms` times, joined by `op`.
fn chain(term: &str, op: &str, terms: usize) -> String {
    vec![term; terms].join(op)
}

/// Polls a run until it is done.
async fn finished(client: &Client, run_id: &str) -> Value {
    for _ in 0..1200 {
        let status = ok(client, "memory_ingest_status", json!({"runId": run_id})).await;
        if status["done"] == true {
            return status;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("run {run_id} did not finish");
}

/// Starts an ingest and waits for its end.
async fn ingest(client: &Client, arguments: Value) -> Value {
    let started = ok(client, "memory_ingest", arguments).await;
    finished(client, started["runId"].as_str().unwrap()).await
}

fn wiki_ids(status: &Value) -> Vec<String> {
    status["captured"]["wiki"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

/// A note holding `block` (a fenced block, or markdown) in its first
/// section and ordinary knowledge in its second, named after `name`.
fn note(name: &str, block: &str) -> String {
    format!(
        "# Crash {name}\n\nHow the {name} case came up.\n\n{block}\n\n## Kept after {name}\n\n**Gadget {name}** is the part that is filed anyway.\n\nNote: the {name} note is stored anyway.\n"
    )
}

/// Each note that used to abort the process, with the limit it must be
/// skipped by. Every SQL shape the issue lists, the model formats' deep
/// nesting and their long expressions, and a few more shapes.
fn crash_notes() -> Vec<(&'static str, String, &'static str)> {
    let fenced = |lang: &str, text: String| format!("```{lang}\n{text}\n```");
    let sql_depth = "limits.sql_depth";
    let nesting = "nesting depth limit";
    let measure = |expr: &str| {
        fenced(
            "yaml",
            format!(
                "semantic_models:\n  - name: deep_invoices\n    model: ref('invoices')\n    entities:\n      - {{name: invoice, type: primary, expr: id}}\n    measures:\n      - name: deep_total\n        agg: sum\n        expr: \"{expr}\""
            ),
        )
    };
    vec![
        (
            "where-or",
            fenced(
                "sql",
                format!(
                    "SELECT COUNT(*) AS n FROM invoices WHERE {}",
                    chain("id=1", " OR ", 40_000)
                ),
            ),
            sql_depth,
        ),
        (
            "sum-plus",
            fenced(
                "sql",
                format!("SELECT SUM({}) FROM invoices", chain("a", "+", 50_000)),
            ),
            sql_depth,
        ),
        (
            "max-concat",
            fenced(
                "sql",
                format!("SELECT MAX({}) FROM invoices", chain("name", "||", 50_000)),
            ),
            sql_depth,
        ),
        (
            "parentheses",
            fenced(
                "sql",
                format!(
                    "SELECT SUM({}a{}) FROM invoices",
                    "(".repeat(50_000),
                    ")".repeat(50_000)
                ),
            ),
            sql_depth,
        ),
        (
            "unlabelled-sql",
            fenced("", format!("select {}", chain("1", "+", 100_000))),
            sql_depth,
        ),
        (
            "metricflow-expr",
            measure(&chain("total_cents", "+", 50_000)),
            sql_depth,
        ),
        (
            "lookml-sql",
            fenced(
                "lookml",
                format!(
                    "view: deep_view {{\n  sql_table_name: invoices ;;\n  dimension: id {{ primary_key: yes sql: ${{TABLE}}.id ;; }}\n  measure: deep {{ type: sum sql: {} ;; }}\n}}",
                    chain("${TABLE}.total_cents", "+", 40_000)
                ),
            ),
            sql_depth,
        ),
        (
            "cube-sql",
            fenced(
                "yaml",
                format!(
                    "cubes:\n  - name: deep_cube\n    sql_table: invoices\n    measures:\n      - name: deep\n        type: sum\n        sql: \"{}\"",
                    chain("total_cents", "||", 50_000)
                ),
            ),
            sql_depth,
        ),
        (
            "cube-js-objects",
            fenced(
                "js",
                format!(
                    "cube(`deep_js`, {}1{})",
                    "{a:".repeat(20_000),
                    "}".repeat(20_000)
                ),
            ),
            nesting,
        ),
        (
            "cube-js-arrows",
            fenced(
                "js",
                format!("cube(`arrows`, {{sql: {}1}})", "x => ".repeat(50_000)),
            ),
            nesting,
        ),
        (
            "lookml-blocks",
            fenced(
                "lookml",
                format!(
                    "view: deep_blocks {{\n{}{}}}",
                    "dimension: d {\n".repeat(20_000),
                    "}\n".repeat(20_000)
                ),
            ),
            nesting,
        ),
        (
            "yaml-flow",
            fenced(
                "yaml",
                format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)),
            ),
            nesting,
        ),
        (
            "yaml-indented",
            fenced(
                "yaml",
                (0..1_300)
                    .map(|i| format!("{}k:\n", " ".repeat(i)))
                    .collect(),
            ),
            nesting,
        ),
    ]
}

/// Markdown shapes that stress the note's own parser: filed, not skipped.
fn deep_markdown() -> Vec<(&'static str, String)> {
    vec![
        ("quotes", format!("{} deep quote", ">".repeat(100_000))),
        ("lists", format!("{}item", "- ".repeat(100_000))),
        (
            "links",
            format!("{}x{}", "[".repeat(100_000), "]".repeat(100_000)),
        ),
        ("emphasis", "*a ".repeat(100_000)),
        (
            "long-json",
            format!("```json\n[{}]\n```", chain("{\"a\": 1}", ",", 80_000)),
        ),
    ]
}

fn skipped_with(status: &Value, limit: &str) -> bool {
    status["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["reason"].as_str().unwrap().contains(limit))
}

#[tokio::test]
async fn notes_that_used_to_abort_the_server_are_filed_without_the_block_past_a_limit() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    for (name, block, limit) in crash_notes() {
        let run = ingest(
            &client,
            json!({"content": note(name, &block), "connectionId": "warehouse"}),
        )
        .await;
        assert_eq!(run["status"], "done", "{name}: {run}");
        assert!(
            skipped_with(&run, limit),
            "{name}: no skipped item names `{limit}`: {}",
            run["skipped"]
        );
        let wiki = wiki_ids(&run);
        let kept = format!("kept-after-{name}");
        let term = format!("glossary/gadget-{name}");
        assert!(
            wiki.contains(&kept) && wiki.contains(&term),
            "{name}: {wiki:?}"
        );
        assert_eq!(
            run["captured"]["memory"].as_array().unwrap().len(),
            1,
            "{name}: {run}"
        );
        // The block stays in the page; nothing of it reached the model.
        assert!(
            root.join(format!("wiki/global/crash-{name}.md")).is_file(),
            "{name}"
        );
        assert!(
            run["captured"]["sl"].as_array().unwrap().is_empty(),
            "{name}: {run}"
        );
    }
    for (name, markdown) in deep_markdown() {
        let run = ingest(&client, json!({"content": note(name, &markdown)})).await;
        assert_eq!(run["status"], "done", "{name}: {run}");
        assert!(
            wiki_ids(&run).contains(&format!("kept-after-{name}")),
            "{name}: {run}"
        );
    }
    // The same server still answers, and an ordinary measure still lands.
    let run = ingest(
        &client,
        json!({"content": "## Ticket count\n\n```sql\nSELECT COUNT(*) AS ticket_total FROM support_tickets\n```\n", "connectionId": "warehouse"}),
    )
    .await;
    assert_eq!(
        run["captured"]["sl"][0]["id"], "support_tickets.yaml#ticket_total",
        "{run}"
    );
    ok(&client, "connection_list", json!({})).await;
    client.cancel().await.unwrap();
}

#[test]
fn lore_memory_ingest_skips_a_block_past_a_limit_and_exits_zero() {
    let (_dir, root) = demo_project();
    for (name, block, limit) in crash_notes()
        .into_iter()
        .filter(|(name, _, _)| ["where-or", "lookml-blocks"].contains(name))
    {
        let file = root.join(format!("{name}.md"));
        std::fs::write(&file, note(name, &block)).unwrap();
        let out = lore_in(
            &root,
            &[
                "memory",
                "ingest",
                file.to_str().unwrap(),
                "--connection",
                "warehouse",
                "--json",
            ],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {stderr}");
        let status: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(status["status"], "done", "{name}: {status}");
        assert!(skipped_with(&status, limit), "{name}: {status}");
        assert!(
            root.join(format!("wiki/global/kept-after-{name}.md"))
                .is_file()
        );
    }
}

/// Appends `limits:` settings to the project's `lore.yaml`.
fn set_limits(root: &std::path::Path, settings: &str) {
    let config = root.join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}\nlimits:\n{settings}")).unwrap();
}

fn pages_on_disk(root: &std::path::Path) -> usize {
    std::fs::read_dir(root.join("wiki/global")).unwrap().count()
}

#[tokio::test]
async fn a_note_of_fifty_thousand_headings_files_the_first_pages_and_says_the_rest_were_left_out() {
    let (_dir, root) = demo_project();
    let before = pages_on_disk(&root);
    let client = stdio_client(&root).await;
    let headings: String = (0..50_000).map(|i| format!("# H{i}\n")).collect();
    let run = ingest(&client, json!({"content": headings})).await;
    assert_eq!(run["status"], "done", "{run}");
    let wiki = wiki_ids(&run);
    assert_eq!(wiki.len(), 200, "the default limits.ingest_pages");
    assert_eq!((wiki[0].as_str(), wiki[199].as_str()), ("h0", "h199"));
    assert_eq!(pages_on_disk(&root), before + 200);
    let skipped = run["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0]["section"], "H200");
    assert_eq!(
        skipped[0]["reason"],
        "49800 sections from here on were not filed: limits.ingest_pages in lore.yaml allows 200 per memory_ingest run; split the note, or raise limits.ingest_pages"
    );
    client.cancel().await.unwrap();
}

#[test]
fn notes_measures_and_model_files_are_bounded_by_ingest_items() {
    let (_dir, root) = demo_project();
    set_limits(&root, "  ingest_pages: 3\n  ingest_items: 4\n");
    let ingest_file = |name: &str, text: &str| -> Value {
        let file = root.join(name);
        std::fs::write(&file, text).unwrap();
        let out = lore_in(
            &root,
            &[
                "memory",
                "ingest",
                file.to_str().unwrap(),
                "--connection",
                "warehouse",
                "--json",
            ],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // Three notes leave one item: the first query becomes a measure, the
    // other two are not read.
    let queries: String = (0..3)
        .map(|i| format!("Note: fact {i} of the tickets.\n\n```sql\nSELECT COUNT(*) AS tickets_{i} FROM support_tickets\n```\n\n"))
        .collect();
    let run = ingest_file("queries.md", &format!("## Ticket counts\n\n{queries}"));
    // The section's three notes are one memory entry; each counts.
    assert_eq!(
        run["captured"]["memory"],
        json!([{"id": "Ticket counts: note", "what": "note", "action": "stored"}]),
        "{run}"
    );
    assert_eq!(
        run["captured"]["sl"],
        json!([{"id": "support_tickets.yaml#tickets_0", "what": "measure", "action": "created"}])
    );
    let skipped = run["skipped"].as_array().unwrap();
    assert!(
        skipped.iter().any(|s| s["what"] == "block"
            && s["reason"].as_str().unwrap().starts_with(
                "2 blocks from here on were not filed: limits.ingest_items in lore.yaml allows 4"
            )),
        "{skipped:?}"
    );
    // A pasted model whose measures do not fit is skipped naming the
    // setting; a page limit of 3 leaves out the fourth section.
    let model = "## Payments model\n\n```yaml\nsemantic_models:\n  - name: payment_facts\n    model: ref('payments')\n    entities:\n      - {name: payment, type: primary, expr: id}\n    measures:\n      - {name: a, agg: sum, expr: amount_cents}\n      - {name: b, agg: sum, expr: amount_cents}\n      - {name: c, agg: sum, expr: amount_cents}\n      - {name: d, agg: sum, expr: amount_cents}\n```\n\n## Two\n\nText.\n\n## Three\n\nText.\n\n## Four\n\nText.\n";
    let run = ingest_file("model.md", model);
    assert!(
        run["captured"]["sl"].as_array().unwrap().is_empty(),
        "{run}"
    );
    let skipped = run["skipped"].to_string();
    assert!(
        skipped.contains("source payment_facts (5 items: the source and its measures) was not filed: limits.ingest_items"),
        "{skipped}"
    );
    assert!(
        skipped.contains("1 section from here on was not filed: limits.ingest_pages"),
        "{skipped}"
    );
    assert!(
        !root
            .join("semantic-layer/warehouse/payment_facts.yaml")
            .exists()
    );
    assert!(!root.join("wiki/global/four.md").exists());
    assert!(root.join("wiki/global/three.md").exists());
}

#[tokio::test]
async fn concurrent_notes_defining_one_term_all_land() {
    let (_dir, root) = demo_project();
    // Other processes write too: `lore memory ingest` runs beside the
    // server.
    let cli_runs: Vec<std::process::Child> = (100..108)
        .map(|i| {
            let file = root.join(format!("batch-{i}.md"));
            std::fs::write(&file, batch_note(i)).unwrap();
            lore()
                .arg("--project-dir")
                .arg(&root)
                .args(["memory", "ingest", file.to_str().unwrap(), "--json"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let client = Arc::new(stdio_client(&root).await);
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..40 {
        let client = Arc::clone(&client);
        calls.spawn(async move {
            let started = ok(&client, "memory_ingest", json!({"content": batch_note(i)})).await;
            started["runId"].as_str().unwrap().to_string()
        });
    }
    let run_ids = calls.join_all().await;
    for run_id in &run_ids {
        let run = finished(&client, run_id).await;
        assert_eq!(run["status"], "done", "{run}");
    }
    for child in cli_runs {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let glossary = std::fs::read_to_string(root.join("wiki/global/glossary/widget.md")).unwrap();
    let page = std::fs::read_to_string(root.join("wiki/global/widget-batches.md")).unwrap();
    for i in (0..40).chain(100..108) {
        assert!(
            glossary.contains(&format!("the widget of batch {i}.")),
            "batch {i}: {glossary}"
        );
        assert!(
            page.contains(&format!("Batch {i} shipped on time.")),
            "batch {i}: {page}"
        );
    }
    Arc::try_unwrap(client)
        .ok()
        .unwrap()
        .cancel()
        .await
        .unwrap();
}

/// A note defining the shared term `Widget` its own way, under a shared
/// heading.
fn batch_note(i: usize) -> String {
    format!(
        "## Widget batches\n\n**Widget** is the widget of batch {i}.\n\nBatch {i} shipped on time.\n"
    )
}
