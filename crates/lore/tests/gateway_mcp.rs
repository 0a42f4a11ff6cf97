//! The gateway toolset through the real MCP protocol: listed only where a
//! root is configured (or asked for), ingest triggered and inspected by an
//! agent, searches with filters, and refusals with stable codes.

mod common;

use common::*;
use serde_json::json;

fn code_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    assert!(
        lore()
            .arg("init")
            .arg(dir.path())
            .output()
            .unwrap()
            .status
            .success()
    );
    let files = [
        (
            "repo/billing/invoice.py",
            "class Invoice:\n    def total_with_tax(self):\n        return self.net * 1.2\n",
        ),
        (
            "repo/billing/tests/test_invoice.py",
            "from billing.invoice import Invoice\n\ndef test_total_with_tax():\n    assert Invoice().total_with_tax()\n",
        ),
        (
            "repo/docs/billing.md",
            "# Billing\n\n## Tax\nInvoices add tax at 20 percent.\n",
        ),
    ];
    for (path, text) in files {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    let config = dir.path().join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("{text}\ngateway:\n  roots:\n    - path: repo\n"),
    )
    .unwrap();
    dir
}

fn tool_names(tools: &[rmcp::model::Tool]) -> Vec<String> {
    tools.iter().map(|t| t.name.to_string()).collect()
}

#[tokio::test]
async fn an_agent_ingests_and_searches_a_repository() {
    let dir = code_project();
    let client = stdio_client(dir.path()).await;
    let names = tool_names(&client.list_all_tools().await.unwrap());
    for tool in ["km-search", "km-ingest-status", "km-ingest-trigger"] {
        assert!(names.contains(&tool.to_string()), "{names:?}");
    }
    let never = call(&client, "km-ingest-status", json!({})).await.unwrap();
    assert_eq!(error_of(&never)["code"], "not_found");

    let run = ok(&client, "km-ingest-trigger", json!({"profile": "agent"})).await;
    assert_eq!(run["success"], true);
    assert_eq!(run["artifact_counts"]["test"], 1, "{run}");
    let status = ok(&client, "km-ingest-status", json!({"profile": "agent"})).await;
    assert_eq!(status["run_id"], run["run_id"]);

    let found = ok(
        &client,
        "km-search",
        json!({"query": "total_with_tax", "limit": 5}),
    )
    .await;
    let first = &found["results"][0];
    assert_eq!(
        first["chunk"]["artifact_path"], "billing/invoice.py",
        "{found}"
    );
    assert_eq!(first["chunk"]["subsystem"], "billing");
    assert_eq!(found["metadata"]["index_run_id"], run["run_id"]);
    assert!(first["scoring"]["lexical"].as_f64().unwrap() > 0.0);
    // Compact by default: the matching lines, then km-read around them.
    assert!(first["chunk"].get("text").is_none(), "{first}");
    let snippet = &first["chunk"]["snippet"];
    assert!(
        snippet["text"].as_str().unwrap().contains("total_with_tax"),
        "{snippet}"
    );
    let read = ok(
        &client,
        "km-read",
        json!({"path": "billing/invoice.py", "start_line": snippet["start_line"]}),
    )
    .await;
    assert_eq!(read["root"], "repo", "{read}");
    assert!(read["text"].as_str().unwrap().contains("total_with_tax"));
    let outside = call(&client, "km-read", json!({"path": "../lore.yaml"}))
        .await
        .unwrap();
    assert_eq!(error_of(&outside)["code"], "forbidden", "{outside:?}");
    let whole = ok(
        &client,
        "km-search",
        json!({"query": "total_with_tax", "limit": 5, "detail": "full"}),
    )
    .await;
    assert!(
        whole["results"][0]["chunk"]["text"]
            .as_str()
            .unwrap()
            .contains("return self.net * 1.2")
    );
    let tests = ok(
        &client,
        "km-search",
        json!({"query": "total_with_tax", "filters": {"artifact_types": ["test"]}, "include_graph": true}),
    )
    .await;
    assert_eq!(tests["results"].as_array().unwrap().len(), 1, "{tests}");
    // The graph context of the test: the code it covers.
    assert_eq!(
        tests["results"][0]["graph_context"]["tests"][0], "Code:repo/billing/invoice.py",
        "{tests}"
    );

    // Refusals name the field and what to do.
    let limit = call(&client, "km-search", json!({"query": "tax", "limit": 30}))
        .await
        .unwrap();
    assert_eq!(error_of(&limit)["code"], "invalid_arguments");
    let unknown = call(
        &client,
        "km-search",
        json!({"query": "tax", "filters": {"colour": ["red"]}}),
    )
    .await
    .unwrap();
    assert_eq!(error_of(&unknown)["code"], "invalid_arguments");
    let symbols = ok(&client, "km-search", json!({"query": "tax", "filters": {"symbols": ["Invoice.total_with_tax"], "symbol_kinds": ["method"]}})).await;
    assert_eq!(symbols["metadata"]["result_count"], 1, "{symbols}");
    let chunk = &symbols["results"][0]["chunk"];
    assert_eq!(chunk["artifact_path"], "billing/invoice.py");
    assert!(
        chunk["symbols"].as_array().unwrap().iter().any(|s| s["id"]
            == "Symbol:repo/billing/invoice.py::Invoice.total_with_tax"
            && s["kind"] == "method"),
        "{chunk}"
    );
    let kind = call(
        &client,
        "km-search",
        json!({"query": "tax", "filters": {"symbol_kinds": ["widget"]}}),
    )
    .await
    .unwrap();
    assert_eq!(error_of(&kind)["code"], "invalid_arguments");
    // An unknown language is refused as an unknown kind is, not answered
    // with nothing.
    let language = call(
        &client,
        "km-search",
        json!({"query": "tax", "filters": {"symbol_languages": ["klingon"]}}),
    )
    .await
    .unwrap();
    assert_eq!(error_of(&language)["code"], "invalid_arguments");
    assert!(
        error_of(&language)["message"]
            .as_str()
            .unwrap()
            .contains("`klingon` is not a language"),
        "{language:?}"
    );
    let python = ok(
        &client,
        "km-search",
        json!({"query": "tax", "filters": {"symbol_languages": ["Python"]}}),
    )
    .await;
    assert!(python["metadata"]["result_count"].as_u64().unwrap() >= 1);

    // A later run in the same server: searches report it.
    let again = ok(&client, "km-ingest-trigger", json!({})).await;
    assert_ne!(again["run_id"], run["run_id"]);
    let found = ok(&client, "km-search", json!({"query": "total_with_tax"})).await;
    assert_eq!(found["metadata"]["index_run_id"], again["run_id"]);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_gateway_is_listed_only_where_it_can_work() {
    // The demo has no gateway root: no km- tools unless asked for.
    let (_dir, root) = demo_project();
    let client = stdio_client(&root).await;
    let names = tool_names(&client.list_all_tools().await.unwrap());
    assert!(!names.iter().any(|n| n.starts_with("km-")), "{names:?}");
    client.cancel().await.unwrap();

    let dir = code_project();
    let config = dir.path().join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replace("mcp:\n", "mcp:\n  toolsets: [gateway]\n"),
    )
    .unwrap();
    let client = stdio_client(dir.path()).await;
    let mut names = tool_names(&client.list_all_tools().await.unwrap());
    names.sort();
    assert_eq!(
        names,
        vec![
            "km-backup-trigger",
            "km-coverage-summary",
            "km-feedback-submit",
            "km-graph-node",
            "km-graph-references",
            "km-graph-search",
            "km-graph-subsystem",
            "km-graph-tests-of",
            "km-help",
            "km-ingest-status",
            "km-ingest-trigger",
            "km-lifecycle-report",
            "km-read",
            "km-recipe-run",
            "km-search",
            "km-storetext",
            "km-upload"
        ]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_code_project_without_a_connection_serves_the_gateway_alone() {
    let dir = code_project();
    let client = stdio_client(dir.path()).await;
    let names = tool_names(&client.list_all_tools().await.unwrap());
    assert!(names.iter().all(|n| n.starts_with("km-")), "{names:?}");
    assert!(names.contains(&"km-search".to_string()));
    client.cancel().await.unwrap();

    // With a connection as well, every toolset is served.
    let config = dir.path().join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replacen(
            "connections:\n",
            "connections:\n  warehouse:\n    driver: sqlite\n    path: data/w.db\n",
            1,
        ),
    )
    .unwrap();
    let client = stdio_client(dir.path()).await;
    let names = tool_names(&client.list_all_tools().await.unwrap());
    for tool in ["km-search", "store", "discover_data"] {
        assert!(names.contains(&tool.to_string()), "{tool}: {names:?}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_agent_walks_the_code_graph() {
    let dir = code_project();
    let client = stdio_client(dir.path()).await;
    // Before any ingest the graph tools say what to do.
    let early = call(
        &client,
        "km-graph-tests-of",
        json!({"target": "billing/invoice.py"}),
    )
    .await
    .unwrap();
    assert_eq!(error_of(&early)["code"], "not_found");
    assert!(
        error_of(&early)["message"]
            .as_str()
            .unwrap()
            .contains("ingest")
    );
    let run = ok(&client, "km-ingest-trigger", json!({})).await;
    assert!(run["relation_count"].as_u64().unwrap() > 0, "{run}");

    let tests = ok(
        &client,
        "km-graph-tests-of",
        json!({"target": "billing/invoice.py"}),
    )
    .await;
    assert_eq!(tests["direction"], "tests");
    assert_eq!(
        tests["results"][0]["id"], "TestCase:repo/billing/tests/test_invoice.py",
        "{tests}"
    );

    let node = ok(
        &client,
        "km-graph-node",
        json!({"node_id": "Symbol:repo/billing/invoice.py::Invoice.total_with_tax"}),
    )
    .await;
    assert_eq!(node["node"]["properties"]["kind"], "method");
    assert!(
        node["relationships"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["predicate"] == "CONTAINS" && r["direction"] == "incoming"),
        "{node}"
    );
    // Who calls the method: the test, through the class it imports.
    let references = ok(
        &client,
        "km-graph-references",
        json!({"symbol": "Invoice.total_with_tax"}),
    )
    .await;
    assert_eq!(
        references["definitions"][0]["start_line"], 2,
        "{references}"
    );
    assert_eq!(
        references["callers"][0]["node"],
        "Symbol:repo/billing/tests/test_invoice.py::test_total_with_tax",
        "{references}"
    );
    assert_eq!(references["callers"][0]["line"], 4);
    for (arguments, code) in [
        (
            json!({"symbol": "Invoice.total", "limit": 0}),
            "invalid_arguments",
        ),
        (json!({"symbol": "Invoice.totl"}), "not_found"),
    ] {
        let refused = call(&client, "km-graph-references", arguments.clone())
            .await
            .unwrap();
        assert_eq!(error_of(&refused)["code"], code, "{arguments}");
    }
    let malformed = call(&client, "km-graph-node", json!({"node_id": "invoice.py"}))
        .await
        .unwrap();
    assert_eq!(error_of(&malformed)["code"], "invalid_identifier");
    let unknown = call(
        &client,
        "km-graph-node",
        json!({"node_id": "Code:repo/billing/invoices.py"}),
    )
    .await
    .unwrap();
    assert_eq!(error_of(&unknown)["code"], "not_found");
    assert!(
        error_of(&unknown)["message"]
            .as_str()
            .unwrap()
            .contains("Code:repo/billing/invoice.py")
    );

    let subsystem = ok(&client, "km-graph-subsystem", json!({"name": "billing"})).await;
    assert_eq!(subsystem["total_artifacts"], 1, "{subsystem}");
    let found = ok(
        &client,
        "km-graph-search",
        json!({"term": "total_with_tax"}),
    )
    .await;
    assert_eq!(
        found["results"][0]["id"], "Symbol:repo/billing/invoice.py::Invoice.total_with_tax",
        "{found}"
    );

    let with_graph = ok(&client, "km-search", json!({"query": "total_with_tax", "include_graph": true, "filters": {"artifact_types": ["code"]}})).await;
    let context = &with_graph["results"][0]["graph_context"];
    assert_eq!(
        context["node"], "Code:repo/billing/invoice.py",
        "{with_graph}"
    );
    assert_eq!(
        context["tests"][0],
        "TestCase:repo/billing/tests/test_invoice.py"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_agent_stores_notes_uploads_files_and_reads_the_help() {
    let dir = code_project();
    let client = stdio_client(dir.path()).await;
    ok(&client, "km-ingest-trigger", json!({})).await;

    let note = json!({
        "title": "Tax rounding",
        "content": "Invoices round the tax half-up on every line.",
        "subsystem": "billing",
        "tags": ["billing-rules"],
        "metadata": {"source": "incident 42"}
    });
    let stored = ok(&client, "km-storetext", note.clone()).await;
    assert_eq!(stored["status"], "success", "{stored}");
    assert_eq!(stored["relative_path"], "docs/uploads/tax-rounding.md");
    assert_eq!(stored["ingest_run"]["success"], true, "{stored}");
    let text =
        std::fs::read_to_string(dir.path().join("repo/docs/uploads/tax-rounding.md")).unwrap();
    assert!(text.starts_with("---\ntitle: \"Tax rounding\"\n"), "{text}");
    // Found at once, by its tag and its subsystem.
    let found = ok(
        &client,
        "km-search",
        json!({"query": "round tax half-up", "filters": {"tags": ["billing-rules"], "subsystems": ["billing"]}}),
    )
    .await;
    assert_eq!(
        found["results"][0]["chunk"]["artifact_path"], "docs/uploads/tax-rounding.md",
        "{found}"
    );
    // The same note again would replace it: refused unless asked.
    let again = call(&client, "km-storetext", note).await.unwrap();
    assert_eq!(error_of(&again)["code"], "conflict");

    let notes = dir.path().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(
        notes.join("adr.md"),
        "# ADR 7\nWebhooks are signed with HMAC.\n",
    )
    .unwrap();
    let uploaded = ok(
        &client,
        "km-upload",
        json!({"source_path": "notes/adr.md", "destination": "docs/adr/"}),
    )
    .await;
    assert_eq!(uploaded["relative_path"], "docs/adr/adr.md", "{uploaded}");
    let found = ok(
        &client,
        "km-search",
        json!({"query": "webhooks signed HMAC"}),
    )
    .await;
    assert_eq!(
        found["results"][0]["chunk"]["artifact_path"],
        "docs/adr/adr.md"
    );
    for (arguments, code) in [
        (json!({"source_path": "/etc/passwd"}), "forbidden"),
        (
            json!({"source_path": "notes/adr.md", "destination": "../../x/"}),
            "forbidden",
        ),
        (json!({"source_path": "notes/none.md"}), "not_found"),
    ] {
        let refused = call(&client, "km-upload", arguments.clone()).await.unwrap();
        assert_eq!(error_of(&refused)["code"], code, "{arguments}");
    }

    // Help: one tool's arguments, every tool, the reference.
    let help = ok(&client, "km-help", json!({"tool": "km-upload"})).await;
    let usage = &help["tools"][0];
    assert_eq!(usage["name"], "km-upload");
    assert_eq!(usage["required"][0]["name"], "source_path", "{usage}");
    assert_eq!(usage["required"][0]["type"], "string");
    assert!(
        usage["optional"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["name"] == "overwrite" && a["type"] == "boolean"),
        "{usage}"
    );
    assert!(help.get("spec").is_none());
    let listed = client.list_all_tools().await.unwrap();
    let all = ok(&client, "km-help", json!({})).await;
    assert_eq!(all["tools"].as_array().unwrap().len(), listed.len());
    // A code project with no connection serves the gateway alone: help
    // explains what is served, nothing else.
    assert!(
        all["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["name"].as_str().unwrap().starts_with("km-")),
        "{all}"
    );
    let spec = ok(
        &client,
        "km-help",
        json!({"include_spec": true, "tool": "km-search"}),
    )
    .await;
    assert!(spec["spec"].as_str().unwrap().contains("## km-storetext"));
    let typo = call(&client, "km-help", json!({"tool": "km-serch"}))
        .await
        .unwrap();
    assert_eq!(error_of(&typo)["code"], "not_found");
    assert!(
        error_of(&typo)["message"]
            .as_str()
            .unwrap()
            .contains("km-search"),
        "{typo:?}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_agent_reads_coverage_and_the_lifecycle_report() {
    let dir = code_project();
    std::fs::write(dir.path().join("repo/logo.png"), b"\x89PNG\0\0\0binary").unwrap();
    let client = stdio_client(dir.path()).await;
    // Before any ingest: the lifecycle report says what to do; coverage
    // answers that nothing is indexed.
    let early = call(&client, "km-lifecycle-report", json!({}))
        .await
        .unwrap();
    assert_eq!(error_of(&early)["code"], "not_found");
    let empty = ok(&client, "km-coverage-summary", json!({})).await;
    assert_eq!(empty["summary"]["artifact_total"], 0);
    assert!(empty["freshness"]["last_run"].is_null());

    ok(&client, "km-ingest-trigger", json!({})).await;
    let coverage = ok(&client, "km-coverage-summary", json!({})).await;
    assert_eq!(coverage["summary"]["artifact_total"], 3, "{coverage}");
    assert_eq!(coverage["summary"]["artifact_breakdown"]["test"], 1);
    assert_eq!(coverage["skipped"][0]["path"], "logo.png");
    assert_eq!(coverage["skipped"][0]["reason"], "binary");
    assert_eq!(coverage["freshness"]["last_run"]["success"], true);

    let report = ok(
        &client,
        "km-lifecycle-report",
        json!({"stale_after_days": 30}),
    )
    .await;
    assert_eq!(report["summary"]["stale_after_days"], 30);
    // Not a git work tree: files are dated by their modification time,
    // and a document written just now is not stale.
    assert_eq!(report["summary"]["dated_by"]["repo"], "mtime", "{report}");
    assert_eq!(report["stale_docs"], json!([]));
    assert_eq!(report["missing_tests"], json!([]), "billing has its test");

    for (arguments, code) in [
        (json!({"stale_after_days": 0}), "invalid_arguments"),
        (json!({"stale_after_days": -3}), "invalid_arguments"),
        (json!({"days": 3}), "invalid_arguments"),
    ] {
        let refused = call(&client, "km-lifecycle-report", arguments.clone())
            .await
            .unwrap();
        assert_eq!(error_of(&refused)["code"], code, "{arguments}");
    }
    let refused = call(&client, "km-coverage-summary", json!({"root": "x"}))
        .await
        .unwrap();
    assert_eq!(error_of(&refused)["code"], "invalid_arguments");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_agent_votes_on_a_result_and_the_next_search_ranks_by_it() {
    let dir = code_project();
    let client = stdio_client(dir.path()).await;
    ok(&client, "km-ingest-trigger", json!({})).await;
    let query = "invoice tax total";
    let found = ok(&client, "km-search", json!({"query": query})).await;
    let request_id = found["metadata"]["request_id"]
        .as_str()
        .unwrap()
        .to_string();
    let results = found["results"].as_array().unwrap();
    assert!(results.len() >= 2, "{found}");
    let last = results.last().unwrap()["chunk"]["chunk_id"]
        .as_str()
        .unwrap()
        .to_string();

    let answer = ok(
        &client,
        "km-feedback-submit",
        json!({"request_id": request_id, "chunk_id": last, "vote": 1, "note": "this one", "context": {"task": "tax bug"}}),
    )
    .await;
    assert_eq!(answer["status"], "recorded");
    assert_eq!(answer["feedback"]["vote"], 1);
    assert!(
        answer["feedback"]["voter"]
            .as_str()
            .unwrap()
            .starts_with("mcp")
    );
    assert!(answer["feedback"]["created_at"].as_str().is_some());

    let again = ok(&client, "km-search", json!({"query": query})).await;
    let voted = again["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["chunk"]["chunk_id"] == last.as_str())
        .expect("the voted result");
    assert!(
        voted["scoring"]["signals"]["feedback"].as_f64().unwrap() > 1.0,
        "{voted}"
    );

    for (arguments, code) in [
        (
            json!({"request_id": "req-unknown", "chunk_id": last, "vote": 1}),
            "not_found",
        ),
        (
            json!({"request_id": request_id, "chunk_id": "nowhere.py::x", "vote": 1}),
            "not_found",
        ),
        (
            json!({"request_id": request_id, "chunk_id": last, "vote": 2}),
            "invalid_arguments",
        ),
        (
            json!({"request_id": request_id, "chunk_id": last, "vote": "up"}),
            "invalid_arguments",
        ),
        (
            json!({"request_id": request_id, "chunk_id": last}),
            "invalid_arguments",
        ),
    ] {
        let refused = call(&client, "km-feedback-submit", arguments.clone())
            .await
            .unwrap();
        assert_eq!(error_of(&refused)["code"], code, "{arguments}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_agent_takes_a_backup_outside_the_project() {
    let dir = code_project();
    let backups = tempfile::tempdir().unwrap();
    let client = stdio_client(dir.path()).await;
    ok(&client, "km-ingest-trigger", json!({})).await;
    let written = ok(
        &client,
        "km-backup-trigger",
        json!({"destination": backups.path().to_str().unwrap()}),
    )
    .await;
    let archive = written["archive"].as_str().unwrap();
    assert!(
        std::path::Path::new(archive).starts_with(backups.path()),
        "{written}"
    );
    assert!(std::path::Path::new(archive).is_file());
    let files: Vec<&str> = written["manifest"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(
        files.contains(&"store.db") && files.contains(&"gateway/index/meta.json"),
        "{files:?}"
    );
    // Into the repository it archives: refused, nothing written.
    let inside = dir.path().join("repo/backups");
    let refused = call(
        &client,
        "km-backup-trigger",
        json!({"destination": inside.to_str().unwrap()}),
    )
    .await
    .unwrap();
    assert_eq!(error_of(&refused)["code"], "forbidden");
    assert!(!inside.exists());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_agent_runs_the_shipped_recipes() {
    let dir = code_project();
    let backups = tempfile::tempdir().unwrap();
    let client = stdio_client(dir.path()).await;
    let names = tool_names(&client.list_all_tools().await.unwrap());
    assert!(names.contains(&"km-recipe-run".to_string()), "{names:?}");

    // daily-health: ingest, the run recorded, coverage, a search.
    let daily = ok(&client, "km-recipe-run", json!({"recipe": "daily-health"})).await;
    assert_eq!(daily["status"], "success", "{daily}");
    assert_eq!(daily["outputs"]["artifact_total"], 3, "{daily}");
    assert_eq!(daily["outputs"]["files_changed"], 3);
    let status = ok(&client, "km-ingest-status", json!({"profile": "daily"})).await;
    assert_eq!(daily["outputs"]["run_id"], status["run_id"]);
    let steps: Vec<&str> = daily["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(steps, ["success"; 4]);
    assert_eq!(daily["steps"][1]["kind"], "wait");
    assert_eq!(daily["steps"][1]["attempts"], 1);
    assert_eq!(daily["steps"][0]["params"], json!({"profile": "daily"}));

    // release-prep: its smoke search finds the words, the backup lands
    // where it was told.
    let release = ok(
        &client,
        "km-recipe-run",
        json!({"recipe": "release-prep", "vars": {
            "search_query": "invoice tax",
            "backup_destination": backups.path().to_str().unwrap()
        }}),
    )
    .await;
    assert_eq!(release["status"], "success", "{release}");
    let archive = release["outputs"]["backup_archive"].as_str().unwrap();
    assert!(std::path::Path::new(archive).starts_with(backups.path()));
    assert!(std::path::Path::new(archive).is_file());
    assert_eq!(release["outputs"]["smoke_search"][0], "billing/invoice.py");
    assert_eq!(release["outputs"]["coverage"]["artifact_total"], 3);
    assert_eq!(release["outputs"]["stale_docs"], json!([]));

    // stale-audit: fresh documents pass a limit of none stale.
    let stale = ok(
        &client,
        "km-recipe-run",
        json!({"recipe": "stale-audit", "vars": {"max_stale_docs": 0, "stale_after_days": 30}}),
    )
    .await;
    assert_eq!(stale["outputs"]["summary"]["stale_docs"], 0, "{stale}");
    assert_eq!(stale["outputs"]["summary"]["stale_after_days"], 30);

    // subsystem-freshness needs its subsystem.
    let fresh = ok(
        &client,
        "km-recipe-run",
        json!({"recipe": "subsystem-freshness", "vars": {"subsystem": "billing"}}),
    )
    .await;
    assert_eq!(
        fresh["outputs"]["subsystem"]["id"], "Subsystem:billing",
        "{fresh}"
    );
    assert_eq!(fresh["outputs"]["top_files"][0], "billing/invoice.py");
    let missing = call(
        &client,
        "km-recipe-run",
        json!({"recipe": "subsystem-freshness"}),
    )
    .await
    .unwrap();
    let error = error_of(&missing);
    assert_eq!(error["code"], "invalid_arguments");
    assert!(
        error["message"].as_str().unwrap().contains("subsystem"),
        "{error}"
    );

    // A dry run calls nothing.
    let runs_before = std::fs::read_to_string(dir.path().join(".lore/gateway/runs.jsonl"))
        .unwrap()
        .lines()
        .count();
    let planned = ok(
        &client,
        "km-recipe-run",
        json!({"recipe": "daily-health", "dry_run": true, "vars": {"profile": "nightly"}}),
    )
    .await;
    assert_eq!(planned["status"], "planned");
    assert_eq!(planned["steps"][0]["params"], json!({"profile": "nightly"}));
    let runs_after = std::fs::read_to_string(dir.path().join(".lore/gateway/runs.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(runs_before, runs_after, "a dry run ingested");

    let unknown = call(&client, "km-recipe-run", json!({"recipe": "daily-helth"}))
        .await
        .unwrap();
    let error = error_of(&unknown);
    assert_eq!(error["code"], "recipe_not_found");
    assert!(error["message"].as_str().unwrap().contains("daily-health"));
    let log = std::fs::read_to_string(dir.path().join(".lore/gateway/recipes.jsonl")).unwrap();
    assert_eq!(
        log.lines().count(),
        4,
        "four runs logged, the dry run not: {log}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_projects_own_recipes_fail_with_the_step_that_failed() {
    let dir = code_project();
    let recipes = dir.path().join("recipes");
    std::fs::create_dir_all(&recipes).unwrap();
    let own = [
        (
            "too-small.yaml",
            "summary: needs a bigger repository\nsteps:\n  - {id: ingest, tool: km-ingest-trigger}\n  - id: coverage\n    tool: km-coverage-summary\n    assert: [{path: result.summary.artifact_total, at_least: 100}]\n  - {id: backup, tool: km-backup-trigger}\n",
        ),
        (
            "bad-node.yaml",
            "steps:\n  - {id: node, tool: km-graph-node, params: {node_id: 'nonsense'}}\n",
        ),
        (
            "never.yaml",
            "steps:\n  - {id: ingest, tool: km-ingest-trigger}\n  - id: wait\n    wait: {tool: km-ingest-status, until: {path: profile, equals: never}, interval_seconds: 0.1, timeout_seconds: 0.5}\n",
        ),
        (
            "loop.yaml",
            "steps:\n  - {id: again, tool: km-recipe-run, params: {recipe: loop}}\n",
        ),
    ];
    for (file, text) in own {
        std::fs::write(recipes.join(file), text).unwrap();
    }
    let client = stdio_client(dir.path()).await;
    for (recipe, code, says) in [
        (
            "too-small",
            "assert_failed",
            "step `coverage` (km-coverage-summary): result.summary.artifact_total at_least 100 failed: `result.summary.artifact_total` is 3",
        ),
        (
            "bad-node",
            "tool_failed",
            "step `node`: km-graph-node failed with invalid_identifier",
        ),
        (
            "never",
            "timeout",
            "did not reach `profile equals \"never\"`",
        ),
        ("loop", "config_error", "a recipe cannot run recipes"),
    ] {
        let answer = call(&client, "km-recipe-run", json!({"recipe": recipe}))
            .await
            .unwrap();
        let error = error_of(&answer);
        assert_eq!(error["code"], code, "{recipe}: {error}");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(says), "{recipe}: {message}");
    }
    // The failed run stopped at its step: the backup never ran.
    let answer = call(&client, "km-recipe-run", json!({"recipe": "too-small"}))
        .await
        .unwrap();
    let message = error_of(&answer)["message"].as_str().unwrap().to_string();
    assert!(
        message.ends_with("(passed: ingest; not run: backup)"),
        "{message}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_recipe_whose_outputs_would_be_huge_stops_with_budget_exceeded() {
    let dir = code_project();
    let recipes = dir.path().join("recipes");
    std::fs::create_dir_all(&recipes).unwrap();
    std::fs::write(
        recipes.join("echo.yaml"),
        format!(
            "variables: {{q: x}}\nsteps:\n  - {{id: ingest, tool: km-ingest-trigger}}\noutputs:\n  echoed: '{}'\n",
            "${vars.q}".repeat(1000)
        ),
    )
    .unwrap();
    let client = stdio_client(dir.path()).await;
    let started = std::time::Instant::now();
    let answer = call(
        &client,
        "km-recipe-run",
        json!({"recipe": "echo", "vars": {"q": "q".repeat(1 << 20)}}),
    )
    .await
    .unwrap();
    let error = error_of(&answer);
    assert_eq!(error["code"], "budget_exceeded", "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("output `echoed`") && message.contains("limits.result_bytes"),
        "{message}"
    );
    let size = serde_json::to_string(&answer).unwrap().len();
    assert!(size < 64 * 1024, "{size} bytes");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    // A small value fills the same outputs in.
    let answer = ok(
        &client,
        "km-recipe-run",
        json!({"recipe": "echo", "vars": {"q": "ab"}}),
    )
    .await;
    assert_eq!(answer["outputs"]["echoed"], "ab".repeat(1000));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn at_the_readme_layout_the_gateway_serves_no_secret_and_writes_no_control_file() {
    // `lore demo`, then the project folder itself as the gateway root.
    let (_dir, root) = demo_project();
    let config = root.join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    let token = "ops-token-4f9d2c7a1e8b6305";
    let text = text.replace(
        "mcp:\n",
        &format!(
            "# db password: pw-9c1e5b2d8f40x\nmcp:\n  tokens:\n    - {{ name: ops, token: {token}, scope: admin }}\n"
        ),
    );
    std::fs::write(
        &config,
        format!("{text}gateway:\n  roots:\n    - path: .\n"),
    )
    .unwrap();
    let protected = ["lore.yaml", "data/warehouse.db"];
    let before: Vec<Vec<u8>> = protected
        .iter()
        .map(|p| std::fs::read(root.join(p)).unwrap())
        .collect();
    let client = stdio_client(&root).await;
    let run = ok(&client, "km-ingest-trigger", json!({})).await;
    assert!(
        run["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["path"] == "lore.yaml" && s["reason"] == "lore_file"),
        "{run}"
    );
    for secret in [token, "pw-9c1e5b2d8f40x"] {
        let found = ok(
            &client,
            "km-search",
            json!({"query": secret, "detail": "full"}),
        )
        .await;
        for result in found["results"].as_array().unwrap() {
            let chunk = &result["chunk"];
            assert_ne!(chunk["artifact_path"], "lore.yaml", "{found}");
            assert!(
                !chunk["text"].as_str().unwrap().contains(secret),
                "{secret} served: {chunk}"
            );
        }
    }
    let coverage = ok(&client, "km-coverage-summary", json!({})).await;
    assert!(
        coverage["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["path"] == "lore.yaml" && s["reason"] == "lore_file"),
        "{coverage}"
    );

    for (destination, names) in [
        ("lore.yaml", "lore.yaml"),
        ("data/warehouse.db", "warehouse"),
        ("wiki/x.md", "wiki_write"),
        ("wiki/global/x.md", "wiki_write"),
    ] {
        let refused = call(
            &client,
            "km-storetext",
            json!({"content": "connections: {}", "destination": destination, "overwrite": true}),
        )
        .await
        .unwrap();
        let error = error_of(&refused);
        assert_eq!(error["code"], "forbidden", "{destination}: {error}");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(names), "{destination}: {message}");
        assert!(!message.contains(root.to_str().unwrap()), "{message}");
    }
    let refused = call(
        &client,
        "km-upload",
        json!({"source_path": "lore.yaml", "destination": "docs/"}),
    )
    .await
    .unwrap();
    assert_eq!(error_of(&refused)["code"], "forbidden");
    for (path, bytes) in protected.iter().zip(before) {
        assert_eq!(std::fs::read(root.join(path)).unwrap(), bytes, "{path}");
    }
    assert!(!root.join("wiki/x.md").exists());

    // Paths outside every root are refused, as the CLI does.
    for asked in ["/etc/passwd", "../x"] {
        let refused = call(&client, "km-ingest-trigger", json!({"paths": [asked]}))
            .await
            .unwrap();
        assert_eq!(error_of(&refused)["code"], "forbidden", "{asked}");
    }
    // A destination below a file: a stable code, no machine path.
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(root.join("docs/target.md"), "# Target\n").unwrap();
    let refused = call(
        &client,
        "km-storetext",
        json!({"content": "x", "destination": "docs/target.md/sub.md"}),
    )
    .await
    .unwrap();
    let error = error_of(&refused);
    assert_eq!(error["code"], "invalid_request", "{error}");
    assert!(
        !error["message"]
            .as_str()
            .unwrap()
            .contains(root.to_str().unwrap()),
        "{error}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_running_server_follows_its_roots_without_anyone_running_ingest() {
    let dir = code_project();
    let config = dir.path().join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("{text}  follow:\n    debounce_ms: 50\n    min_interval_ms: 50\n"),
    )
    .unwrap();
    let client = stdio_client(dir.path()).await;
    ok(&client, "km-ingest-trigger", json!({})).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(8);
    let mut status = json!(null);
    while std::time::Instant::now() < deadline {
        status = ok(&client, "km-ingest-status", json!({})).await;
        if status["freshness"][0]["fresh"] == true {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let root = &status["freshness"][0];
    assert_eq!(root["root"], "repo", "{status}");
    assert_eq!(root["fresh"], true, "{status}");
    if cfg!(target_os = "linux") {
        assert_eq!(root["follow"], "inotify", "{status}");
    }

    std::fs::write(
        dir.path().join("repo/billing/refund.py"),
        "def refund_pelican():\n    return 1\n",
    )
    .unwrap();
    // Found, and the follower's run recorded (the index commits first).
    let (mut found, mut status) = (json!(null), json!(null));
    while std::time::Instant::now() < deadline {
        found = ok(&client, "km-search", json!({"query": "pelican"})).await;
        status = ok(&client, "km-ingest-status", json!({})).await;
        if found["results"][0]["chunk"]["artifact_path"] == "billing/refund.py"
            && status["profile"] == "follow"
            && status["freshness"][0]["fresh"] == true
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(
        found["results"][0]["chunk"]["artifact_path"], "billing/refund.py",
        "{found}"
    );
    assert_eq!(status["profile"], "follow", "{status}");
    let root = &status["freshness"][0];
    assert_eq!(root["fresh"], true, "{status}");
    assert_eq!(root["ok"], true, "{status}");
    assert!(root["changed_at"].is_string() && root["ingested_at"].is_string());
    client.cancel().await.unwrap();
}
