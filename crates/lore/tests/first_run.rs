//! A newcomer's first run with their own database, through the real
//! binary: the starter lore.yaml with an example uncommented,
//! `lore connection add`, `lore config check`'s messages, the default
//! connection, unreachable servers, and a long scan's heartbeat.
//!
//! The PostgreSQL test needs `LORE_TEST_POSTGRES_URL` and is skipped with
//! a notice without it.

mod common;

use std::path::Path;
use std::process::Output;

use common::{demo_project, empty_project, lore, lore_in};

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn config_of(root: &Path) -> String {
    std::fs::read_to_string(root.join("lore.yaml")).unwrap()
}

/// The starter config with the example `name` uncommented the way a user
/// does it: delete the `#` of its lines, keep the spaces.
fn uncommented(config: &str, name: &str) -> String {
    let mut inside = false;
    let mut out = String::new();
    for line in config.lines() {
        if line.starts_with("#  ") && !line.starts_with("#   ") {
            inside = line == format!("#  {name}:");
        } else if !line.starts_with("#    ") {
            inside = false;
        }
        out.push_str(if inside { &line[1..] } else { line });
        out.push('\n');
    }
    out
}

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[test]
fn the_starter_config_loads_with_either_example_uncommented() {
    for example in ["warehouse", "analytics"] {
        let (_dir, root) = empty_project();
        let text = uncommented(&config_of(&root), example);
        assert!(text.contains(&format!("\n  {example}:\n")), "{text}");
        std::fs::write(root.join("lore.yaml"), &text).unwrap();
        let check = lore()
            .env("ANALYTICS_DATABASE_URL", "postgres://u@db.example:5432/x")
            .arg("--project-dir")
            .arg(&root)
            .args(["config", "check"])
            .output()
            .unwrap();
        assert!(check.status.success(), "{example}: {}", stderr(&check));
        assert!(
            stdout(&check).contains(&format!("connection {example}:")),
            "{}",
            stdout(&check)
        );
    }
}

#[test]
fn connection_add_writes_the_entry_keeps_the_comments_and_says_what_next() {
    let (_dir, root) = empty_project();
    rusqlite::Connection::open(root.join("shop.db"))
        .unwrap()
        .execute_batch("CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL);")
        .unwrap();
    let before = config_of(&root);
    let add = lore_in(
        &root,
        &[
            "connection",
            "add",
            "shop",
            "--driver",
            "sqlite",
            "--path",
            "shop.db",
        ],
    );
    assert!(add.status.success(), "{}", stderr(&add));
    let said = stdout(&add);
    assert!(said.contains("ok    shop: SQLite"), "{said}");
    assert!(said.contains("Next: lore scan shop"), "{said}");
    let after = config_of(&root);
    for line in before.lines().filter(|l| l.starts_with('#')) {
        assert!(after.contains(line), "comment lost: {line}\n{after}");
    }
    let list = lore_in(&root, &["connection", "list", "--json"]);
    let listed: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(listed[0]["id"], "shop", "{listed}");
    assert_eq!(listed[0]["driver"], "sqlite", "{listed}");

    let again = lore_in(
        &root,
        &[
            "connection",
            "add",
            "shop",
            "--driver",
            "sqlite",
            "--path",
            "other.db",
        ],
    );
    assert!(!again.status.success());
    assert!(stderr(&again).contains("--force"), "{}", stderr(&again));
    assert_eq!(config_of(&root), after, "a refused add changes nothing");
    let forced = lore_in(
        &root,
        &[
            "connection",
            "add",
            "shop",
            "--driver",
            "sqlite",
            "--path",
            "shop.db",
            "--force",
            "--description",
            "Shop orders",
        ],
    );
    assert!(forced.status.success(), "{}", stderr(&forced));
    let replaced = config_of(&root);
    assert_eq!(replaced.matches("  shop:").count(), 1, "{replaced}");
    assert!(replaced.contains("Shop orders"), "{replaced}");
}

#[test]
fn connection_add_checks_its_flags_and_writes_nothing_when_the_test_fails() {
    let (_dir, root) = empty_project();
    let before = config_of(&root);
    let unknown = lore_in(
        &root,
        &["connection", "add", "w", "--driver", "oracle", "--url", "x"],
    );
    assert!(
        stderr(&unknown).contains("known drivers: sqlite, postgres, mysql"),
        "{}",
        stderr(&unknown)
    );
    let bad_name = lore_in(
        &root,
        &[
            "connection",
            "add",
            "a b",
            "--driver",
            "postgres",
            "--url",
            "x",
        ],
    );
    assert!(
        stderr(&bad_name).contains("letters, digits"),
        "{}",
        stderr(&bad_name)
    );
    let no_path = lore_in(
        &root,
        &["connection", "add", "w", "--driver", "sqlite", "--url", "x"],
    );
    assert!(stderr(&no_path).contains("--path"), "{}", stderr(&no_path));

    let url = format!("postgres://lore@127.0.0.1:{}/shop", closed_port());
    let failed = lore_in(
        &root,
        &[
            "connection",
            "add",
            "pg",
            "--driver",
            "postgres",
            "--url",
            &url,
        ],
    );
    assert!(!failed.status.success());
    assert!(stderr(&failed).contains("--no-test"), "{}", stderr(&failed));
    assert_eq!(config_of(&root), before, "a failed test writes nothing");

    let untested = lore_in(
        &root,
        &[
            "connection",
            "add",
            "pg",
            "--driver",
            "postgres",
            "--url",
            "${SHOP_URL}",
            "--no-test",
        ],
    );
    assert!(untested.status.success(), "{}", stderr(&untested));
    assert!(
        config_of(&root).contains("url: \"env:SHOP_URL\""),
        "{}",
        config_of(&root)
    );
    let help = lore()
        .args(["connection", "add", "--help"])
        .output()
        .unwrap();
    assert!(stdout(&help).contains("env:VAR"), "{}", stdout(&help));
}

#[test]
fn connection_add_tests_a_postgres_server() {
    let Ok(url) = std::env::var("LORE_TEST_POSTGRES_URL") else {
        assert!(
            std::env::var("LORE_REQUIRE_SERVERS").as_deref() != Ok("1"),
            "LORE_REQUIRE_SERVERS=1 but LORE_TEST_POSTGRES_URL is not set"
        );
        eprintln!("skipped: set LORE_TEST_POSTGRES_URL to add a PostgreSQL connection");
        return;
    };
    let (_dir, root) = empty_project();
    let add = lore_in(
        &root,
        &[
            "connection",
            "add",
            "pg",
            "--driver",
            "postgres",
            "--url",
            &url,
        ],
    );
    assert!(add.status.success(), "{}", stderr(&add));
    assert!(
        stdout(&add).contains("ok    pg: PostgreSQL"),
        "{}",
        stdout(&add)
    );
    assert!(
        stdout(&add).contains("sessions are read-only"),
        "{}",
        stdout(&add)
    );
    assert!(
        stdout(&add).contains("Next: lore scan pg"),
        "{}",
        stdout(&add)
    );
    let query = lore_in(&root, &["sql", "SELECT 1 AS one"]);
    assert!(query.status.success(), "{}", stderr(&query));
}

#[test]
fn config_check_suggests_the_key_a_typo_meant_and_names_a_wrong_value() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("lore.yaml"),
        "conections:\n  w: {driver: sqlite, path: w.db}\nconnections:\n  a:\n    driver: sqlite\n    path: a.db\n    statment_timeout_ms: 5\n",
    )
    .unwrap();
    let check = lore_in(dir.path(), &["config", "check"]);
    let message = stderr(&check);
    assert!(
        message.contains("unknown key `conections` is ignored (did you mean `connections`?)"),
        "{message}"
    );
    assert!(
        message.contains("did you mean `statement_timeout_ms`?"),
        "{message}"
    );

    std::fs::write(
        dir.path().join("lore.yaml"),
        "connections:\n  analytics:\n    driver: postgres\n    url: env:X\n    statement_timeout_ms: fast\n",
    )
    .unwrap();
    let check = lore_in(dir.path(), &["config", "check"]);
    assert!(!check.status.success());
    let message = stderr(&check);
    assert!(
        message.contains(
            "connections.analytics.statement_timeout_ms: expected an integer, got \"fast\""
        ),
        "{message}"
    );
    assert_eq!(message.matches("line").count(), 1, "{message}");
}

#[test]
fn the_only_connection_is_the_default_and_several_are_listed() {
    let (_dir, root) = demo_project();
    let query = lore_in(&root, &["sql", "SELECT 1 AS one"]);
    assert!(query.status.success(), "{}", stderr(&query));
    assert!(stdout(&query).contains("one"), "{}", stdout(&query));
    let add = lore_in(
        &root,
        &[
            "connection",
            "add",
            "copy",
            "--driver",
            "sqlite",
            "--path",
            "data/warehouse.db",
        ],
    );
    assert!(add.status.success(), "{}", stderr(&add));
    for args in [&["sql", "SELECT 1"][..], &["entity", "plans"][..]] {
        let output = lore_in(&root, args);
        assert!(!output.status.success(), "{args:?}");
        assert!(
            stderr(&output).contains("2 connections (copy, warehouse)"),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    let unknown = lore_in(&root, &["dictionary", "x", "-c", "nope"]);
    assert!(
        stderr(&unknown).contains("configured connections: copy, warehouse"),
        "{}",
        stderr(&unknown)
    );
}

#[test]
fn an_unknown_host_reads_differently_from_a_refused_port() {
    let port = closed_port();
    for scheme in ["postgres", "mysql"] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("lore.yaml"),
            format!(
                "connections:\n  dns: {{driver: {scheme}, url: \"{scheme}://u@no-such-host.invalid:5432/x\"}}\n  port: {{driver: {scheme}, url: \"{scheme}://u@127.0.0.1:{port}/x\"}}\n"
            ),
        )
        .unwrap();
        let test = lore_in(dir.path(), &["connection", "test"]);
        assert!(!test.status.success());
        let lines = stdout(&test);
        let dns = lines
            .lines()
            .find(|l| l.contains(" dns:"))
            .unwrap_or_default();
        let refused = lines
            .lines()
            .find(|l| l.contains(" port:"))
            .unwrap_or_default();
        assert!(
            dns.contains("could not resolve host no-such-host.invalid"),
            "{lines}"
        );
        assert!(!dns.contains("refused"), "{lines}");
        assert!(
            refused.contains(&format!("connection refused at 127.0.0.1:{port}")),
            "{lines}"
        );
        assert!(!refused.contains("resolve"), "{lines}");
    }
}

#[test]
fn a_long_scan_outside_a_terminal_prints_a_heartbeat() {
    let (_dir, root) = empty_project();
    let db = rusqlite::Connection::open(root.join("big.db")).unwrap();
    let mut ddl = String::from("BEGIN;");
    for i in 0..3000 {
        ddl.push_str(&format!(
            "CREATE TABLE t{i} (id INTEGER PRIMARY KEY, name TEXT);"
        ));
    }
    ddl.push_str("COMMIT;");
    db.execute_batch(&ddl).unwrap();
    let add = lore_in(
        &root,
        &[
            "connection",
            "add",
            "big",
            "--driver",
            "sqlite",
            "--path",
            "big.db",
        ],
    );
    assert!(add.status.success(), "{}", stderr(&add));
    let scan = lore()
        .env("LORE_PROGRESS_INTERVAL_MS", "100")
        .arg("--project-dir")
        .arg(&root)
        .args(["scan", "--no-relationships"])
        .output()
        .unwrap();
    assert!(scan.status.success(), "{}", stderr(&scan));
    let progress = stderr(&scan);
    let beats: Vec<&str> = progress
        .lines()
        .filter(|l| l.starts_with("scan big: profiling ") && l.contains("/3000 tables ("))
        .collect();
    assert!(!beats.is_empty(), "{progress}");
}
