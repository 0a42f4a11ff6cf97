//! The wiki end to end on the demo project: pages in the knowledge store,
//! mirrored to `wiki/`, found by `wiki_search` and `discover_data` the
//! moment they change (on disk or through a tool), read with suggestions,
//! written with version checks, undone, and kept in step by `lore wiki`.

mod common;

use std::path::Path;

use common::*;
use serde_json::{Value, json};

fn top(found: &Value, n: usize) -> Vec<String> {
    found["refs"]
        .as_array()
        .unwrap()
        .iter()
        .take(n)
        .map(|r| {
            format!(
                "{}:{}",
                r["kind"].as_str().unwrap(),
                r["id"].as_str().unwrap()
            )
        })
        .collect()
}

fn page_file(root: &Path, key: &str) -> std::path::PathBuf {
    root.join("wiki/global").join(format!("{key}.md"))
}

#[tokio::test]
async fn the_analysts_questions_bring_the_page_the_measure_and_the_column_to_the_top() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    for (question, expected) in [
        (
            "how is revenue defined?",
            &["wiki:revenue", "sl_measure:invoices.revenue"][..],
        ),
        (
            "which table has support tickets by account?",
            &["wiki:support-tickets", "table:support_tickets"][..],
        ),
        (
            "where is the plan name?",
            &["wiki:plans", "column:plans.name"][..],
        ),
    ] {
        let found = ok(&client, "discover_data", json!({"query": question})).await;
        let best = top(&found, 3);
        for want in expected {
            assert!(best.contains(&want.to_string()), "{question}: {best:?}");
        }
        let wiki = found["refs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["kind"] == "wiki")
            .unwrap();
        // Provenance: the front matter summary, a body snippet, no connection.
        assert!(wiki["summary"].as_str().is_some_and(|s| !s.is_empty()));
        assert!(wiki["snippet"].as_str().unwrap().chars().count() <= 200);
        assert!(wiki.get("connectionId").is_none());
    }
    // Scoped to tables and columns of one connection: no wiki pages.
    let scoped = ok(
        &client,
        "discover_data",
        json!({"query": "revenue", "connectionId": "warehouse", "kinds": ["table", "column"]}),
    )
    .await;
    assert!(top(&scoped, 50).iter().all(|r| !r.starts_with("wiki:")));

    // Pages marked `usage_mode: always` are what retrieve_context reads first.
    let mut arguments = serde_json::Map::new();
    arguments.insert("task".into(), json!("Revenue by plan last quarter"));
    let prompt = client
        .get_prompt(
            rmcp::model::GetPromptRequestParams::new("retrieve_context").with_arguments(arguments),
        )
        .await
        .unwrap();
    let text = serde_json::to_string(&prompt.messages).unwrap();
    assert!(
        text.contains("`glossary`: Glossary of Northwind Cloud"),
        "{text}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_page_edited_on_disk_a_moment_ago_is_already_found_and_versioned() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    let before = ok(&client, "wiki_read", json!({"key": "refunds"})).await;
    assert_eq!(before["found"], true);
    assert_eq!(before["page"]["version"], 1);

    let file = page_file(&root, "refunds");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace(
            "# Refunds and collected cash",
            "# Refunds and collected cash\n\nCard chargebacks arrive as refunds with method card.",
        ),
    )
    .unwrap();
    let found = ok(&client, "wiki_search", json!({"query": "chargebacks"})).await;
    let hit = &found["results"][0];
    assert_eq!(hit["key"], "refunds", "{found}");
    assert_eq!(hit["path"], "wiki/global/refunds.md");
    assert_eq!(hit["scope"], "global");
    assert_eq!(hit["score"], 1.0);
    assert!(
        hit["matchReasons"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r == "body: chargebacks"),
        "{hit}"
    );
    assert_eq!(hit["lanes"][0]["lane"], "lexical");
    let discovered = ok(&client, "discover_data", json!({"query": "chargebacks"})).await;
    assert_eq!(top(&discovered, 1), ["wiki:refunds"]);

    // The edit is a new version, written by "disk", with history.
    let after = ok(&client, "wiki_read", json!({"key": "refunds"})).await;
    assert_eq!(after["page"]["version"], 2);
    let entry = after["page"]["entryId"].as_str().unwrap().to_string();
    let history = ok(&client, "history", json!({"id": entry})).await;
    let items = history["items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{history}");
    // As of the first version's transaction, the page reads as before.
    let old = ok(
        &client,
        "wiki_read",
        json!({"key": "refunds", "asOfTxId": before["page"]["txId"]}),
    )
    .await;
    assert!(
        !old["page"]["body"]
            .as_str()
            .unwrap()
            .contains("chargebacks")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn wiki_read_suggests_close_keys_and_wiki_write_checks_versions_and_mirrors() {
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;

    // Not found is an answer, with the closest key.
    let missing = ok(&client, "wiki_read", json!({"key": "revenu"})).await;
    assert_eq!(missing["found"], false);
    assert_eq!(missing["suggestions"][0], "revenue");
    assert!(
        missing["message"]
            .as_str()
            .unwrap()
            .contains("did you mean `revenue`")
    );
    let odd = ok(&client, "wiki_read", json!({"key": "Soft Deletes"})).await;
    assert_eq!(odd["found"], false);
    assert_eq!(odd["suggestions"][0], "soft-deletes", "{odd}");
    // A key made of the page's words finds it too.
    let guessed = ok(&client, "wiki_read", json!({"key": "csat"})).await;
    assert_eq!(guessed["found"], false);
    assert!(
        guessed["suggestions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "support-tickets"),
        "{guessed}"
    );

    // A new page: stored, mirrored with front matter, its broken link reported.
    let written = ok(
        &client,
        "wiki_write",
        json!({
            "key": "metrics/nrr",
            "summary": "Net revenue retention: MRR kept from a cohort after a year",
            "body": "# NRR\n\nStart from [[mrr]] of a cohort; see [[expansion]].",
            "tags": ["metrics", "Finance"],
            "expectedVersion": 0
        }),
    )
    .await;
    assert_eq!(written["version"], 1);
    assert_eq!(written["changed"], true);
    assert_eq!(written["path"], "wiki/global/metrics/nrr.md");
    assert_eq!(written["brokenLinks"], json!(["expansion"]));
    let file = root.join("wiki/global/metrics/nrr.md");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.starts_with("---\nsummary: \"Net revenue retention"),
        "{text}"
    );
    assert!(text.contains("tags: [\"metrics\", \"Finance\"]"), "{text}");
    let found = ok(
        &client,
        "wiki_search",
        json!({"query": "net revenue retention"}),
    )
    .await;
    assert_eq!(found["results"][0]["key"], "metrics/nrr");

    // A stale version is a conflict and changes nothing.
    let stale = call(
        &client,
        "wiki_write",
        json!({"key": "metrics/nrr", "summary": "x", "body": "y", "expectedVersion": 0}),
    )
    .await
    .unwrap();
    assert_eq!(error_of(&stale)["code"], "conflict");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    // The same content again writes nothing.
    let same = ok(
        &client,
        "wiki_write",
        json!({
            "key": "metrics/nrr",
            "summary": "Net revenue retention: MRR kept from a cohort after a year",
            "body": "# NRR\n\nStart from [[mrr]] of a cohort; see [[expansion]].",
            "tags": ["metrics", "Finance"],
        }),
    )
    .await;
    assert_eq!(same["changed"], false);
    // Bad input: a clear error, nothing written.
    let bad = call(
        &client,
        "wiki_write",
        json!({"key": "Bad Key", "summary": "s", "body": "b"}),
    )
    .await
    .unwrap();
    let error = error_of(&bad);
    assert_eq!(error["code"], "invalid_arguments");
    assert!(
        error["message"].as_str().unwrap().contains("bad-key"),
        "{error}"
    );
    let empty = call(
        &client,
        "wiki_write",
        json!({"key": "x", "summary": "  ", "body": "b"}),
    )
    .await
    .unwrap();
    assert_eq!(error_of(&empty)["code"], "invalid_arguments");
    assert!(!page_file(&root, "x").exists());

    // Undoing the creation (a memory tool) removes the page and its file.
    let undone = ok(&client, "undo", json!({"tx_id": written["txId"]})).await;
    assert!(undone["tx_id"].as_i64().unwrap() > written["txId"].as_i64().unwrap());
    let gone = ok(&client, "wiki_read", json!({"key": "metrics/nrr"})).await;
    assert_eq!(gone["found"], false);
    assert!(!file.exists(), "the mirror follows the undo");
    assert!(
        !root.join("wiki/global/metrics").exists(),
        "empty folder removed"
    );
    client.cancel().await.unwrap();
}

#[test]
fn lore_wiki_writes_reads_and_syncs_edits_deletions_and_bad_files() {
    let (_dir, root) = demo_project();
    let run = |args: &[&str]| {
        let out = lore_in(&root, args);
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, out, err) = run(&["wiki", "sync"]);
    assert!(ok, "{err}");
    assert!(out.contains("14 pages in step"), "{out}");
    assert!(
        out.contains("imported      wiki/global/revenue.md"),
        "{out}"
    );
    let (ok, out, _) = run(&["wiki", "sync"]);
    assert!(
        ok && !out.contains("imported"),
        "a second sync has nothing to do: {out}"
    );

    let (ok, out, err) = run(&[
        "wiki",
        "write",
        "deploy-freeze",
        "--summary",
        "No schema changes on Fridays",
        "--body",
        "# Freeze\nSee [[nowhere]].",
        "--tag",
        "ops",
    ]);
    assert!(ok, "{err}");
    let written: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(written["brokenLinks"], json!(["nowhere"]));
    assert!(page_file(&root, "deploy-freeze").is_file());
    let (ok, out, _) = run(&["wiki", "read", "deploy-freeze"]);
    assert!(
        ok && out.contains("No schema changes on Fridays") && out.contains("# Freeze"),
        "{out}"
    );
    let (ok, _, err) = run(&["wiki", "read", "deploy-freez"]);
    assert!(
        !ok && err.contains("did you mean `deploy-freeze`") && err.contains("[not_found]"),
        "{err}"
    );

    // A file with broken front matter is reported and left alone.
    let broken = page_file(&root, "broken");
    std::fs::write(&broken, "---\ntags: [unclosed\n---\nbody\n").unwrap();
    // A new file without front matter is imported with a warning.
    std::fs::write(page_file(&root, "bare"), "Just a note about [[revenue]].\n").unwrap();
    // A deleted file deletes its page (history keeps it).
    std::fs::remove_file(page_file(&root, "deploy-freeze")).unwrap();
    let (ok, out, err) = run(&["wiki", "sync"]);
    assert!(ok, "{err}");
    assert!(out.contains("imported      wiki/global/bare.md"), "{out}");
    assert!(
        out.contains("deleted page  wiki/global/deploy-freeze.md"),
        "{out}"
    );
    assert!(
        err.contains("wiki/global/broken.md: not imported: front matter"),
        "{err}"
    );
    assert!(err.contains("bare.md: has no `summary`"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&broken).unwrap(),
        "---\ntags: [unclosed\n---\nbody\n",
        "an unimportable file is never overwritten"
    );
    let (ok, _, _) = run(&["wiki", "read", "deploy-freeze"]);
    assert!(!ok, "the page is deleted");
    let (ok, out, _) = run(&["wiki", "list"]);
    assert!(
        ok && out.contains("bare") && !out.contains("deploy-freeze"),
        "{out}"
    );

    // `lore memory undo` of the deletion brings the page and its file back.
    let (_, history, _) = run(&["memory", "history", "--limit", "5"]);
    let history: Value = serde_json::from_str(&history).unwrap();
    let items = history["items"].as_array().unwrap();
    let deletion = items
        .iter()
        .find(|i| i["kind"] == "delete")
        .unwrap_or_else(|| panic!("{history}"));
    let tx = deletion["tx_id"].to_string();
    let (ok, _, err) = run(&["memory", "undo", "--tx-id", &tx]);
    assert!(ok, "{err}");
    assert!(
        page_file(&root, "deploy-freeze").is_file(),
        "the file is back"
    );

    // Search sees all of it; the index is rebuilt when deleted.
    let (ok, out, _) = run(&["wiki", "search", "fridays"]);
    assert!(ok && out.contains("deploy-freeze"), "{out}");
    std::fs::remove_dir_all(root.join(".lore/index")).unwrap();
    let (ok, out, err) = run(&["wiki", "search", "schema", "changes", "fridays"]);
    assert!(ok, "{err}");
    assert!(
        out.lines().next().unwrap().contains("deploy-freeze"),
        "{out}"
    );
}
