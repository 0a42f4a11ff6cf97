//! The `lore` command as a user runs it: project setup, configuration
//! errors, and `lore sql`.

mod common;

use std::path::Path;

use common::{demo_project, lore, lore_in};

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn project_with(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lore.yaml"), config).unwrap();
    dir
}

#[test]
fn version_and_help_are_available() {
    let output = lore().arg("--version").output().unwrap();
    assert!(stdout(&output).contains(env!("CARGO_PKG_VERSION")));
    let help = lore().args(["sql", "--help"]).output().unwrap();
    assert!(stdout(&help).contains("--max-rows"), "{}", stdout(&help));
}

#[test]
fn init_creates_the_layout_and_keeps_it_on_rerun() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    let output = lore().arg("init").arg(&root).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    for path in [
        "lore.yaml",
        "wiki/global",
        "semantic-layer",
        "raw-sources",
        ".lore/.gitignore",
    ] {
        assert!(root.join(path).exists(), "{path}");
    }
    let again = lore().arg("init").arg(&root).output().unwrap();
    assert!(
        stdout(&again).contains("kept     lore.yaml"),
        "{}",
        stdout(&again)
    );
    let check = lore_in(&root, &["config", "check"]);
    assert!(check.status.success(), "{}", stderr(&check));
}

#[test]
fn a_missing_project_says_how_to_create_one() {
    let dir = tempfile::tempdir().unwrap();
    let output = lore_in(dir.path(), &["sql", "-c", "w", "SELECT 1"]);
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(
        message.contains("no lore.yaml found") && message.contains("lore init"),
        "{message}"
    );
    assert!(message.contains("[config_error]"), "{message}");
}

#[test]
fn malformed_yaml_points_at_the_line() {
    let dir = project_with("connections:\n  w: { driver: sqlite, path: [oops\n");
    let output = lore_in(dir.path(), &["config", "check"]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("line 2"), "{}", stderr(&output));
}

#[test]
fn an_unknown_driver_lists_the_known_ones() {
    let dir = project_with("connections:\n  w: { driver: oracle, url: x }\n");
    let message = stderr(&lore_in(dir.path(), &["config", "check"]));
    assert!(
        message.contains("oracle") && message.contains("postgres"),
        "{message}"
    );
}

#[test]
fn a_missing_env_var_is_named() {
    let dir = project_with(
        "connections:\n  pg: { driver: postgres, url: env:LORE_TEST_NEVER_SET_URL }\n",
    );
    let check = lore_in(dir.path(), &["config", "check"]);
    assert!(!check.status.success());
    assert!(
        stderr(&check).contains("LORE_TEST_NEVER_SET_URL"),
        "{}",
        stderr(&check)
    );
    let query = lore_in(dir.path(), &["sql", "-c", "pg", "SELECT 1"]);
    assert!(
        stderr(&query).contains("LORE_TEST_NEVER_SET_URL"),
        "{}",
        stderr(&query)
    );
}

#[test]
fn unknown_keys_warn_but_do_not_stop() {
    let dir = project_with("connections: {}\nsearhc: {}\n");
    let output = lore_in(dir.path(), &["config", "check"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("warning") && stderr(&output).contains("`searhc`"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn config_schema_is_json_schema() {
    let output = lore().args(["config", "schema"]).output().unwrap();
    let schema: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(schema["properties"]["connections"].is_object(), "{schema}");
}

#[test]
fn sql_queries_the_demo_in_every_format() {
    let (_dir, root) = demo_project();
    let table = lore_in(
        &root,
        &[
            "sql",
            "-c",
            "warehouse",
            "SELECT code, monthly_price_cents FROM plans ORDER BY id LIMIT 2",
        ],
    );
    assert!(table.status.success(), "{}", stderr(&table));
    assert_eq!(
        stdout(&table),
        "code    | monthly_price_cents\n--------+--------------------\nstarter | 4900\ngrowth  | 19900\n(2 rows)\n"
    );
    let csv = lore_in(
        &root,
        &[
            "sql",
            "-c",
            "warehouse",
            "--format",
            "csv",
            "--max-rows",
            "1",
            "SELECT code FROM plans ORDER BY id",
        ],
    );
    assert_eq!(stdout(&csv), "code\r\nstarter\r\n");
    assert!(stderr(&csv).contains("truncated"), "{}", stderr(&csv));
    let json = lore_in(
        &root,
        &[
            "sql",
            "-c",
            "warehouse",
            "--format",
            "json",
            "SELECT 1 AS one",
        ],
    );
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["rows"], serde_json::json!([[1]]));
    assert_eq!(value["truncated"], false);
}

#[test]
fn the_project_is_found_from_a_subdirectory_and_from_the_environment() {
    let (_dir, root) = demo_project();
    let nested = root.join("wiki/global");
    let from_subdir = lore()
        .current_dir(&nested)
        .args(["sql", "-c", "warehouse", "SELECT 7"])
        .output()
        .unwrap();
    assert!(
        stdout(&from_subdir).contains('7'),
        "{}",
        stderr(&from_subdir)
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let from_env = lore()
        .current_dir(elsewhere.path())
        .env("LORE_PROJECT_DIR", &root)
        .args(["sql", "-c", "warehouse", "SELECT 8"])
        .output()
        .unwrap();
    assert!(stdout(&from_env).contains('8'), "{}", stderr(&from_env));
}

#[test]
fn writes_are_refused_and_nothing_changes() {
    let (_dir, root) = demo_project();
    let count = |root: &Path| {
        stdout(&lore_in(
            root,
            &[
                "sql",
                "-c",
                "warehouse",
                "--format",
                "csv",
                "SELECT count(*) FROM accounts",
            ],
        ))
    };
    let before = count(&root);
    for write in [
        "DELETE FROM accounts",
        "SELECT 1; DROP TABLE accounts",
        "ATTACH DATABASE 'x.db' AS x",
    ] {
        let output = lore_in(&root, &["sql", "-c", "warehouse", write]);
        assert!(!output.status.success(), "{write}");
        assert!(
            stderr(&output).contains("[read_only_violation]"),
            "{write}: {}",
            stderr(&output)
        );
    }
    assert_eq!(count(&root), before);
}

#[test]
fn a_slow_query_is_interrupted_at_the_configured_timeout() {
    let (_dir, root) = demo_project();
    let db = root.join("data/warehouse.db");
    let dir = project_with(&format!(
        "connections:\n  w: {{ driver: sqlite, path: {}, statement_timeout_ms: 150 }}\n",
        db.display()
    ));
    let endless =
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";
    let output = lore_in(dir.path(), &["sql", "-c", "w", endless]);
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(
        message.contains("[timeout]") && message.contains("150 ms"),
        "{message}"
    );
}

#[test]
fn scan_writes_a_snapshot_and_reports_what_changed() {
    let (_dir, root) = demo_project();
    // lore demo already scanned once; a second scan compares with it.
    let output = lore_in(&root, &["scan"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("Scanned warehouse (sqlite)"), "{text}");
    assert!(text.contains("9 tables"), "{text}");
    assert!(
        text.contains("0 tables added, 0 changed, 0 removed"),
        "{text}"
    );
    assert!(text.contains("12 declared"), "{text}");
    // Without a terminal, progress is plain lines on stderr.
    assert!(
        stderr(&output).contains("scan warehouse: profiling (9)"),
        "{}",
        stderr(&output)
    );

    let json = lore_in(
        &root,
        &["scan", "warehouse", "--json", "--no-relationships"],
    );
    assert!(json.status.success(), "{}", stderr(&json));
    let reports: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let report = &reports[0];
    assert_eq!(report["connectionId"], "warehouse");
    assert_eq!(report["relationships"]["inferredEnabled"], false);
    let snapshot = root.join(report["snapshotPath"].as_str().unwrap());
    for file in [
        "connection.json",
        "profile.json",
        "relationships.json",
        "scan-report.json",
        "tables/accounts.json",
    ] {
        assert!(snapshot.join(file).is_file(), "{file} missing");
    }

    let unknown = lore_in(&root, &["scan", "nope"]);
    assert!(!unknown.status.success());
    assert!(
        stderr(&unknown).contains("[not_found]"),
        "{}",
        stderr(&unknown)
    );
}

#[test]
fn entity_and_dictionary_answer_like_the_tools() {
    let (_dir, root) = demo_project();
    let entity = lore_in(
        &root,
        &["entity", "accounts", "--columns", "segment,deleted_at"],
    );
    assert!(entity.status.success(), "{}", stderr(&entity));
    let text = stdout(&entity);
    assert!(text.starts_with("accounts (table, ~1200 rows)"), "{text}");
    assert!(text.contains("soft delete"), "{text}");
    assert!(text.contains("| SMB, Mid-Market, Enterprise |"), "{text}");
    assert!(
        !text.contains("employee_count"),
        "only the asked columns: {text}"
    );

    let typo = lore_in(&root, &["entity", "acounts"]);
    assert!(!typo.status.success());
    let message = stderr(&typo);
    assert!(
        message.contains("[table_not_found]") && message.contains("candidates: accounts"),
        "{message}"
    );

    let json = lore_in(&root, &["entity", "main.plans", "--json"]);
    let results: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(results[0]["tableRef"]["name"], "plans");

    let dictionary = lore_in(&root, &["dictionary", "past due", "Zanzibar"]);
    assert!(dictionary.status.success(), "{}", stderr(&dictionary));
    let text = stdout(&dictionary);
    assert!(
        text.contains("PastDue") && text.contains("past_due"),
        "{text}"
    );
    assert!(text.contains("\"Zanzibar\": 0 matching values"), "{text}");
    assert!(text.contains("it may still exist"), "{text}");
}

#[test]
fn connections_are_listed_with_their_scan_and_tested() {
    let (_dir, root) = demo_project();
    let list = lore_in(&root, &["connection", "list"]);
    assert!(list.status.success(), "{}", stderr(&list));
    assert!(
        stdout(&list).contains("warehouse | sqlite | 2"),
        "{}",
        stdout(&list)
    );
    let test = lore_in(&root, &["connection", "test"]);
    assert!(test.status.success(), "{}", stderr(&test));
    assert!(
        stdout(&test).contains("ok    warehouse: SQLite"),
        "{}",
        stdout(&test)
    );
    assert!(
        stdout(&test).contains("sessions are read-only"),
        "{}",
        stdout(&test)
    );

    // An unreachable server fails the test, naming the host but not the password.
    let dir = project_with(
        "connections:\n  pg: { driver: postgres, url: \"postgres://u:hunter2@127.0.0.1:9/db\" }\n",
    );
    let failed = lore_in(dir.path(), &["connection", "test"]);
    assert!(!failed.status.success());
    let text = stdout(&failed);
    assert!(
        text.contains("FAIL  pg") && text.contains("127.0.0.1:9"),
        "{text}"
    );
    assert!(text.contains("[upstream_error]"), "{text}");
    assert!(
        !text.contains("hunter2") && !stderr(&failed).contains("hunter2"),
        "{text}"
    );
    let never = lore_in(dir.path(), &["connection", "list"]);
    assert!(
        stdout(&never).contains("never (run `lore scan pg`)"),
        "{}",
        stdout(&never)
    );
}

#[cfg(unix)]
#[test]
fn ctrl_c_during_a_scan_leaves_no_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("wide.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mut ddl = String::from("BEGIN;");
    for t in 0..3000 {
        ddl.push_str(&format!(
            "CREATE TABLE t{t} (id INTEGER PRIMARY KEY, status TEXT, amount INTEGER, note TEXT);\
             INSERT INTO t{t} VALUES (1, 'open', 5, 'a'), (2, 'closed', 7, 'b');"
        ));
    }
    ddl.push_str("COMMIT;");
    conn.execute_batch(&ddl).unwrap();
    std::fs::write(
        dir.path().join("lore.yaml"),
        format!(
            "connections:\n  w: {{ driver: sqlite, path: {} }}\n",
            db.display()
        ),
    )
    .unwrap();
    let mut child = lore()
        .arg("--project-dir")
        .arg(dir.path())
        .args(["scan", "w"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Read the progress lines until profiling is under way, then interrupt.
    use std::io::{BufRead, Read};
    let mut progress = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("profiling") {
        let mut line = String::new();
        assert!(
            progress.read_line(&mut line).unwrap() > 0,
            "the scan ended before profiling: {seen}"
        );
        seen.push_str(&line);
    }
    let interrupted = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    progress.read_to_string(&mut seen).unwrap();
    let status = child.wait().unwrap();
    let output = std::process::Output {
        status,
        stdout: Vec::new(),
        stderr: seen.into_bytes(),
    };
    assert!(
        !output.status.success(),
        "the scan finished before the signal; make the fixture larger"
    );
    assert!(
        stderr(&output).contains("interrupted; no snapshot was written"),
        "{}",
        stderr(&output)
    );
    let snapshots = dir.path().join("raw-sources/w/live-database");
    let leftovers = std::fs::read_dir(&snapshots)
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(leftovers, 0, "no snapshot and no unfinished folder");
}

#[test]
fn the_semantic_layer_is_usable_from_the_terminal() {
    let (_dir, root) = demo_project();
    let validate = lore_in(&root, &["sl", "validate"]);
    assert!(validate.status.success(), "{}", stderr(&validate));
    assert!(
        stdout(&validate).starts_with("ok: 9 sources"),
        "{}",
        stdout(&validate)
    );

    let list = lore_in(&root, &["sl", "list"]);
    assert!(stdout(&list).contains("mrr, arr"), "{}", stdout(&list));
    let read = lore_in(&root, &["sl", "read", "invoices"]);
    assert!(stdout(&read).contains("name: revenue"), "{}", stdout(&read));

    let query = lore_in(
        &root,
        &[
            "sl",
            "query",
            "-m",
            "invoices.revenue",
            "-d",
            "accounts.segment",
            "-d",
            "invoices.issued_at:year",
            "-s",
            "invoices.usd",
            "--format",
            "json",
        ],
    );
    assert!(query.status.success(), "{}", stderr(&query));
    let out: serde_json::Value = serde_json::from_slice(&query.stdout).unwrap();
    assert_eq!(
        out["headers"],
        serde_json::json!([
            "accounts.segment",
            "invoices.issued_at.year",
            "invoices.revenue"
        ])
    );
    assert_eq!(out["rowCount"], 6, "3 segments × 2 years: {out}");
    let oracle = lore_in(
        &root,
        &[
            "sql",
            "-c",
            "warehouse",
            "--format",
            "json",
            "SELECT SUM(total_cents) / 100.0 AS r FROM invoices WHERE status = 'paid' AND currency = 'USD'",
        ],
    );
    let oracle: serde_json::Value = serde_json::from_slice(&oracle.stdout).unwrap();
    let total: f64 = out["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[2].as_f64().unwrap())
        .sum();
    let expected = oracle["rows"][0][0].as_f64().unwrap();
    assert!((total - expected).abs() < 0.01, "{total} vs {expected}");

    let sql = lore_in(
        &root,
        &["sl", "query", "-m", "subscriptions.arr", "--format", "sql"],
    );
    assert!(stdout(&sql).starts_with("WITH"), "{}", stdout(&sql));

    // A broken edit is reported with file, source and field; nothing runs.
    std::fs::write(
        root.join("semantic-layer/warehouse/plans.yaml"),
        "name: plans\ntable: plans\ngrain: [id]\ncolumns:\n  - { name: tier, type: string }\n",
    )
    .unwrap();
    let broken = lore_in(&root, &["sl", "validate"]);
    assert!(!broken.status.success());
    let message = stderr(&broken);
    assert!(
        message.contains("plans.yaml: source `plans`, grain: grain column `id`")
            && message.contains("[config_error]"),
        "{message}"
    );
}

#[test]
fn a_generated_model_is_queryable_and_regeneration_keeps_edits() {
    let (_dir, root) = demo_project();
    let dir = root.join("semantic-layer/warehouse");
    std::fs::remove_dir_all(&dir).unwrap();
    let generated = lore_in(&root, &["sl", "generate", "-c", "warehouse"]);
    assert!(generated.status.success(), "{}", stderr(&generated));
    assert!(
        stdout(&generated).contains("9 sources"),
        "{}",
        stdout(&generated)
    );
    let invoices = std::fs::read_to_string(dir.join("invoices.yaml")).unwrap();
    assert!(invoices.contains("grain:\n- id"), "{invoices}");
    assert!(invoices.contains("account_id = accounts.id"), "{invoices}");

    let query = lore_in(
        &root,
        &[
            "sl",
            "query",
            "-m",
            "invoices.count",
            "-d",
            "accounts.segment",
            "--format",
            "json",
        ],
    );
    assert!(query.status.success(), "{}", stderr(&query));
    let out: serde_json::Value = serde_json::from_slice(&query.stdout).unwrap();
    let total: f64 = out["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[1].as_f64().unwrap())
        .sum();
    assert_eq!(total, 7944.0, "every invoice counted once: {out}");

    std::fs::write(dir.join("plans.yaml"), "name: plans\ntable: plans\ngrain: [id]\ncolumns:\n  - { name: id, type: number }\n# mine\n").unwrap();
    let again = lore_in(&root, &["sl", "generate", "-c", "warehouse"]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stdout(&again).contains("kept"), "{}", stdout(&again));
    assert!(
        std::fs::read_to_string(dir.join("plans.yaml"))
            .unwrap()
            .contains("# mine")
    );
}

/// The model's files are kept in the store: `sl generate` is one
/// transaction that one `memory undo` takes back, and a hand edit becomes a
/// version whose history `lore memory history` shows.
#[test]
fn a_generated_model_is_one_undoable_transaction_and_edits_have_history() {
    let (_dir, root) = demo_project();
    let dir = root.join("semantic-layer/warehouse");
    for file in ["plans.yaml", "users.yaml"] {
        std::fs::remove_file(dir.join(file)).unwrap();
    }
    let generated = lore_in(&root, &["sl", "generate", "-c", "warehouse", "--json"]);
    assert!(generated.status.success(), "{}", stderr(&generated));
    let report: serde_json::Value = serde_json::from_slice(&generated.stdout).unwrap();
    assert_eq!(
        report["written"],
        serde_json::json!([
            "semantic-layer/warehouse/plans.yaml",
            "semantic-layer/warehouse/users.yaml"
        ])
    );
    let tx = report["tx_id"].as_i64().expect("a transaction").to_string();
    assert!(dir.join("plans.yaml").is_file());

    let undo = lore_in(&root, &["memory", "undo", "--tx-id", &tx]);
    assert!(undo.status.success(), "{}", stderr(&undo));
    assert!(
        !dir.join("plans.yaml").exists(),
        "undo takes the files back"
    );
    assert!(!dir.join("users.yaml").exists());
    assert!(dir.join("invoices.yaml").is_file(), "kept files stay");

    // A hand edit is recorded by the next sync, with the old text in history.
    let before = std::fs::read_to_string(dir.join("invoices.yaml")).unwrap();
    std::fs::write(dir.join("invoices.yaml"), format!("{before}# reviewed\n")).unwrap();
    let sync = lore_in(&root, &["sl", "sync"]);
    assert!(sync.status.success(), "{}", stderr(&sync));
    assert!(
        stdout(&sync).contains("recorded      semantic-layer/warehouse/invoices.yaml"),
        "{}",
        stdout(&sync)
    );
    let history = lore_in(&root, &["memory", "history", "--limit", "1"]);
    let history: serde_json::Value = serde_json::from_slice(&history.stdout).unwrap();
    let summary = history["items"][0]["summary"].as_str().unwrap();
    assert!(
        summary.contains("semantic-layer/warehouse/invoices.yaml"),
        "{summary}"
    );
}

/// A command piped into a reader that stops early ends quietly, as Unix
/// tools do.
#[cfg(unix)]
#[test]
fn output_piped_into_head_ends_quietly() {
    let (_dir, root) = demo_project();
    let script = format!(
        "'{}' --project-dir '{}' sql -c warehouse 'SELECT * FROM invoice_lines' --max-rows 5000 | head -n 1",
        env!("CARGO_BIN_EXE_lore"),
        root.display()
    );
    let output = std::process::Command::new("sh")
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(output.status.success());
    let err = stderr(&output);
    assert!(
        !err.contains("panicked") && !err.contains("Broken pipe"),
        "{err}"
    );
}

/// `lore mcp status` (and `logs`) only print: a reader that closes its
/// end first ends them quietly too, not with a panic.
#[cfg(unix)]
#[test]
fn server_status_piped_into_a_closed_reader_ends_quietly() {
    let (_dir, root) = demo_project();
    for command in ["mcp status", "mcp status --json", "mcp logs"] {
        for _ in 0..5 {
            let script = format!(
                "'{}' --project-dir '{}' {command} | true",
                env!("CARGO_BIN_EXE_lore"),
                root.display()
            );
            let output = std::process::Command::new("sh")
                .args(["-c", &script])
                .output()
                .unwrap();
            let err = stderr(&output);
            assert!(
                !err.contains("panicked") && !err.contains("Broken pipe"),
                "{command}: {err}"
            );
        }
    }
}

#[test]
fn an_empty_search_says_what_it_searched() {
    let (_dir, root) = demo_project();
    let out = lore_in(&root, &["search", "xyzzyqwerty"]);
    assert!(out.status.success());
    let text = stderr(&out);
    assert!(
        text.contains("Nothing matches \"xyzzyqwerty\"")
            && text.contains("raw schema")
            && text.contains("wiki")
            && text.contains("connections: warehouse"),
        "{text}"
    );
    // The demo's schema is small: its tables are listed, every one scored
    // far below a match.
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(score) = line
            .split_whitespace()
            .next()
            .and_then(|s| s.parse::<f64>().ok())
        {
            assert!(score <= 0.05, "{line}");
        }
    }
}

/// One spelling per concept: `-c` names a connection in every command,
/// and read commands print JSON with `--json`.
#[test]
fn connections_are_named_with_c_and_read_commands_print_json() {
    let (_dir, root) = demo_project();
    let run = |args: &[&str]| {
        let output = lore_in(&root, args);
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let json = |args: &[&str]| -> serde_json::Value {
        let text = run(args);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}\n{text}"))
    };
    let tested = json(&["connection", "test", "-c", "warehouse", "--json"]);
    assert_eq!(tested.as_array().map(Vec::len), Some(1), "{tested}");
    let scanned = json(&["scan", "-c", "warehouse", "--no-profile", "--json"]);
    assert_eq!(scanned.as_array().map(Vec::len), Some(1), "{scanned}");
    let listed = json(&["sl", "list", "-c", "warehouse", "--json"]);
    assert!(
        listed["sources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["source"] == "invoices"
                && s["measures"].as_array().is_some_and(|m| !m.is_empty())),
        "{listed}"
    );
    let read = json(&["sl", "read", "-c", "warehouse", "invoices", "--json"]);
    assert_eq!(read["source"]["name"], "invoices", "{read}");
    let valid = json(&["sl", "validate", "-c", "warehouse", "--json"]);
    assert_eq!(valid["ok"], true, "{valid}");
    let rows = json(&["sql", "-c", "warehouse", "--json", "SELECT 1 AS one"]);
    assert_eq!(rows["rows"][0][0], 1, "{rows}");
    let revenue = json(&[
        "sl",
        "query",
        "-c",
        "warehouse",
        "-m",
        "invoices.revenue",
        "--json",
    ]);
    assert!(
        revenue["rows"].as_array().is_some_and(|r| r.len() == 1),
        "{revenue}"
    );
    let config = json(&["config", "check", "--json"]);
    assert_eq!(config["valid"], true, "{config}");
    assert_eq!(config["connections"][0]["id"], "warehouse", "{config}");
}
