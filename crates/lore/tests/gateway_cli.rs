//! `lore gateway` as a new user runs it in a code repository with no
//! database at all: init, ingest `.` (which becomes a root), search,
//! status, a targeted re-ingest, and clear refusals.

mod common;

use common::{lore, lore_in};

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (".gitignore", "dist/\n"),
        (
            "README.md",
            "# Shop\n\n## Checkout\nThe basket becomes an order at checkout.\n",
        ),
        (
            "shop/basket.py",
            "class Basket:\n    def checkout(self):\n        return Order(self.items)\n",
        ),
        (
            "shop/orders.py",
            "class Order:\n    def __init__(self, items):\n        self.items = items\n",
        ),
        (
            "tests/test_basket.py",
            "from shop.basket import Basket\n\ndef test_checkout():\n    assert Basket().checkout()\n",
        ),
        ("dist/bundle.py", "class Basket: pass\n"),
    ];
    for (path, text) in files {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    dir
}

/// [`repository`] after `lore init`.
fn initialised_repository() -> tempfile::TempDir {
    let repo = repository();
    let init = lore().arg("init").arg(repo.path()).output().unwrap();
    assert!(init.status.success(), "{}", stderr(&init));
    repo
}

/// `lore gateway ingest .` in `root`, which must succeed.
fn ingest_here(root: &std::path::Path) {
    let ingest = lore()
        .current_dir(root)
        .args(["gateway", "ingest", "."])
        .output()
        .unwrap();
    assert!(ingest.status.success(), "{}", stderr(&ingest));
}

#[test]
fn a_code_repository_without_a_database_is_ingested_and_searched() {
    let repo = repository();
    let root = repo.path();
    let init = lore().arg("init").arg(root).output().unwrap();
    assert!(init.status.success(), "{}", stderr(&init));

    let ingest = lore()
        .current_dir(root)
        .args(["gateway", "ingest", ".", "--json"])
        .output()
        .unwrap();
    assert!(ingest.status.success(), "{}", stderr(&ingest));
    assert!(
        stderr(&ingest).contains("added gateway root"),
        "{}",
        stderr(&ingest)
    );
    let run: serde_json::Value = serde_json::from_slice(&ingest.stdout).unwrap();
    assert_eq!(run["success"], true);
    assert_eq!(run["artifact_counts"]["code"], 2, "{run}");
    assert_eq!(run["artifact_counts"]["test"], 1, "{run}");
    let config = std::fs::read_to_string(root.join("lore.yaml")).unwrap();
    assert!(
        config.contains("gateway:\n  roots:\n    - path: \".\""),
        "{config}"
    );
    let check = lore_in(root, &["config", "check"]);
    assert!(check.status.success(), "{}", stderr(&check));

    let found = lore_in(root, &["gateway", "search", "basket", "checkout", "--json"]);
    assert!(found.status.success(), "{}", stderr(&found));
    let found: serde_json::Value = serde_json::from_slice(&found.stdout).unwrap();
    let paths: Vec<&str> = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["chunk"]["artifact_path"].as_str().unwrap())
        .collect();
    let mut top: Vec<&str> = paths.iter().take(2).copied().collect();
    top.sort();
    assert_eq!(
        top,
        vec!["shop/basket.py", "tests/test_basket.py"],
        "{found}"
    );
    assert!(!paths.contains(&"dist/bundle.py"), "ignored: {paths:?}");
    let tests_only = lore_in(
        root,
        &["gateway", "search", "checkout", "--type", "test", "--json"],
    );
    let tests_only: serde_json::Value = serde_json::from_slice(&tests_only.stdout).unwrap();
    assert_eq!(tests_only["results"].as_array().unwrap().len(), 1);
    // `--graph` answers what km-search's include_graph does: the code
    // file's tests beside it.
    let with_graph = lore_in(
        root,
        &[
            "gateway", "search", "checkout", "--type", "code", "--graph", "--json",
        ],
    );
    assert!(with_graph.status.success(), "{}", stderr(&with_graph));
    let with_graph: serde_json::Value = serde_json::from_slice(&with_graph.stdout).unwrap();
    let context = &with_graph["results"][0]["graph_context"];
    // The root is named after the project's folder.
    let root_name = with_graph["results"][0]["chunk"]["root"].as_str().unwrap();
    assert_eq!(
        context["node"],
        format!("Code:{root_name}/shop/basket.py"),
        "{with_graph}"
    );
    assert_eq!(
        context["tests"][0],
        format!("TestCase:{root_name}/tests/test_basket.py"),
        "{with_graph}"
    );

    // A changed file alone; the root is not added twice.
    std::fs::write(
        root.join("shop/orders.py"),
        "class Order:\n    def refund(self):\n        pass\n",
    )
    .unwrap();
    let one = lore()
        .current_dir(root)
        .args(["gateway", "ingest", "shop/orders.py", "--json"])
        .output()
        .unwrap();
    assert!(one.status.success(), "{}", stderr(&one));
    let one: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    assert_eq!(
        (one["files_seen"].as_u64(), one["files_changed"].as_u64()),
        (Some(1), Some(1))
    );
    let again = lore()
        .current_dir(root)
        .args(["gateway", "ingest", "."])
        .output()
        .unwrap();
    assert!(again.status.success());
    assert_eq!(
        std::fs::read_to_string(root.join("lore.yaml"))
            .unwrap()
            .matches("- path:")
            .count(),
        1
    );
    let status = lore_in(root, &["gateway", "status"]);
    assert!(
        stdout(&status).starts_with("ingested"),
        "{}",
        stdout(&status)
    );
}

#[test]
fn bad_input_gets_a_clear_refusal() {
    let repo = initialised_repository();
    let root = repo.path();
    // No root yet.
    let none = lore_in(root, &["gateway", "ingest"]);
    assert!(!none.status.success());
    assert!(
        stderr(&none).contains("lore gateway ingest PATH"),
        "{}",
        stderr(&none)
    );
    let never = lore_in(root, &["gateway", "status"]);
    assert!(stderr(&never).contains("[not_found]"), "{}", stderr(&never));
    // A file outside every root.
    assert!(
        lore()
            .current_dir(root)
            .args(["gateway", "ingest", "shop"])
            .output()
            .unwrap()
            .status
            .success()
    );
    let outside = lore()
        .current_dir(root)
        .args(["gateway", "ingest", "README.md"])
        .output()
        .unwrap();
    assert!(!outside.status.success());
    assert!(
        stderr(&outside).contains("[forbidden]"),
        "{}",
        stderr(&outside)
    );
    // Limits and filters.
    let limit = lore_in(root, &["gateway", "search", "x", "--limit", "30"]);
    assert!(
        stderr(&limit).contains("[invalid_arguments]"),
        "{}",
        stderr(&limit)
    );
    let kind = lore_in(root, &["gateway", "search", "x", "--type", "binary"]);
    assert!(
        stderr(&kind).contains("code, test, doc, config, other"),
        "{}",
        stderr(&kind)
    );
    // A broken catalog stops the run and says where.
    std::fs::write(
        root.join("subsystems.yaml"),
        "Shop:\n  depends_on: [Nope]\n",
    )
    .unwrap();
    let broken = lore_in(root, &["gateway", "ingest"]);
    assert!(!broken.status.success());
    assert!(
        stdout(&broken).contains("Nope") || stderr(&broken).contains("Nope"),
        "{}{}",
        stdout(&broken),
        stderr(&broken)
    );
}

#[test]
fn symbols_are_listed_filtered_and_linked_to_the_editor() {
    let repo = initialised_repository();
    let root = repo.path();
    ingest_here(root);
    let config = std::fs::read_to_string(root.join("lore.yaml")).unwrap();
    std::fs::write(
        root.join("lore.yaml"),
        config.replace(
            "gateway:\n",
            "gateway:\n  editor_uri_template: \"vscode://file/{path}:{line}\"\n",
        ),
    )
    .unwrap();

    let found = lore_in(
        root,
        &[
            "gateway",
            "search",
            "checkout",
            "--symbol",
            "Basket.checkout",
            "--json",
        ],
    );
    assert!(found.status.success(), "{}", stderr(&found));
    let found: serde_json::Value = serde_json::from_slice(&found.stdout).unwrap();
    let results = found["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{found}");
    let method = results[0]["chunk"]["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["qualified_name"] == "Basket.checkout")
        .unwrap();
    assert_eq!(method["kind"], "method");
    let uri = method["editor_uri"].as_str().unwrap();
    assert!(uri.starts_with("vscode://file/"), "{uri}");
    assert!(uri.ends_with("shop/basket.py:2"), "{uri}");

    // Text output names the definitions under each result.
    let text = lore_in(root, &["gateway", "search", "order", "--kind", "class"]);
    assert!(text.status.success(), "{}", stderr(&text));
    assert!(stdout(&text).contains("class Order"), "{}", stdout(&text));

    // A bad kind or template is refused, saying what is allowed.
    let kind = lore_in(root, &["gateway", "search", "order", "--kind", "widget"]);
    assert!(!kind.status.success());
    assert!(
        stderr(&kind).contains("class, function, method"),
        "{}",
        stderr(&kind)
    );
    std::fs::write(
        root.join("lore.yaml"),
        config.replace(
            "gateway:\n",
            "gateway:\n  editor_uri_template: \"x://{file}\"\n",
        ),
    )
    .unwrap();
    let bad = lore_in(root, &["gateway", "search", "order"]);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("{relative_path}"), "{}", stderr(&bad));
}

#[test]
fn notes_and_files_are_added_to_the_repository_from_the_terminal() {
    let repo = initialised_repository();
    let root = repo.path();
    ingest_here(root);

    // Text from standard input, with front matter from the flags.
    let mut child = lore()
        .current_dir(root)
        .args([
            "gateway",
            "store-text",
            "--title",
            "Checkout rules",
            "--tag",
            "rules,checkout",
            "--meta",
            "owner=payments",
            "--json",
        ])
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
        .write_all(b"An empty basket never reaches checkout.\n")
        .unwrap();
    let stored = child.wait_with_output().unwrap();
    assert!(stored.status.success(), "{}", stderr(&stored));
    let answer: serde_json::Value = serde_json::from_slice(&stored.stdout).unwrap();
    assert_eq!(answer["relative_path"], "docs/uploads/checkout-rules.md");
    let text = std::fs::read_to_string(root.join("docs/uploads/checkout-rules.md")).unwrap();
    assert_eq!(
        text,
        "---\ntitle: \"Checkout rules\"\ntags: [\"rules\",\"checkout\"]\nmetadata: {\"owner\":\"payments\"}\n---\n\nAn empty basket never reaches checkout.\n"
    );
    let found = lore()
        .current_dir(root)
        .args(["gateway", "search", "empty basket", "--tag", "rules"])
        .output()
        .unwrap();
    assert!(
        stdout(&found).contains("docs/uploads/checkout-rules.md"),
        "{}",
        stdout(&found)
    );

    // A file next to the terminal, copied in; a second copy is refused,
    // then replaced on request with the old text kept.
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::write(
        root.join("notes/ops.md"),
        "# Ops\nRestart the worker nightly.\n",
    )
    .unwrap();
    let upload = |extra: &[&str]| {
        let mut args = vec!["gateway", "upload", "ops.md", "--destination", "docs/"];
        args.extend_from_slice(extra);
        lore()
            .current_dir(root.join("notes"))
            .args(args)
            .output()
            .unwrap()
    };
    let first = upload(&[]);
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(
        stdout(&first).contains("wrote docs/ops.md"),
        "{}",
        stdout(&first)
    );
    let second = upload(&[]);
    assert!(!second.status.success());
    assert!(
        stderr(&second).contains("[conflict]"),
        "{}",
        stderr(&second)
    );
    let third = upload(&["--overwrite"]);
    assert!(third.status.success(), "{}", stderr(&third));
    assert!(
        stdout(&third).contains("the old text is kept at"),
        "{}",
        stdout(&third)
    );

    let outside = lore()
        .current_dir(root)
        .args(["gateway", "upload", "/etc/passwd"])
        .output()
        .unwrap();
    assert!(
        stderr(&outside).contains("[forbidden]"),
        "{}",
        stderr(&outside)
    );
}

#[test]
fn coverage_and_lifecycle_are_read_from_the_terminal() {
    let repo = initialised_repository();
    let root = repo.path();
    // Before any ingest the lifecycle report says what to run.
    let early = lore_in(root, &["gateway", "lifecycle"]);
    assert!(!early.status.success());
    assert!(
        stderr(&early).contains("lore gateway ingest"),
        "{}",
        stderr(&early)
    );
    ingest_here(root);
    std::fs::remove_file(root.join("shop/orders.py")).unwrap();
    assert!(lore_in(root, &["gateway", "ingest"]).status.success());

    let coverage = lore_in(root, &["gateway", "coverage"]);
    assert!(coverage.status.success(), "{}", stderr(&coverage));
    let text = stdout(&coverage);
    assert!(text.contains("1 code") && text.contains("1 test"), "{text}");
    assert!(text.contains("shop/orders.py (code)"), "{text}");
    let json = lore_in(root, &["gateway", "coverage", "--json"]);
    let coverage: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(coverage["removed_total"], 1, "{coverage}");

    let lifecycle = lore_in(root, &["gateway", "lifecycle", "--stale-after-days", "30"]);
    assert!(lifecycle.status.success(), "{}", stderr(&lifecycle));
    assert!(
        stdout(&lifecycle).contains("threshold 30 days"),
        "{}",
        stdout(&lifecycle)
    );
    let zero = lore_in(root, &["gateway", "lifecycle", "--stale-after-days", "0"]);
    assert!(!zero.status.success());
    assert!(stderr(&zero).contains("at least 1"), "{}", stderr(&zero));
}

#[test]
fn a_search_result_is_voted_on_from_the_terminal() {
    let repo = initialised_repository();
    let root = repo.path();
    ingest_here(root);
    let text = lore_in(root, &["gateway", "search", "basket checkout"]);
    assert!(
        stderr(&text).contains("lore gateway feedback req-"),
        "{}",
        stderr(&text)
    );
    let found = lore_in(root, &["gateway", "search", "basket checkout", "--json"]);
    let found: serde_json::Value = serde_json::from_slice(&found.stdout).unwrap();
    let request = found["metadata"]["request_id"].as_str().unwrap();
    let chunk = found["results"][0]["chunk"]["chunk_id"].as_str().unwrap();
    let down = lore_in(
        root,
        &[
            "gateway", "feedback", request, chunk, "--vote", "-1", "--note", "not it",
        ],
    );
    assert!(down.status.success(), "{}", stderr(&down));
    assert!(
        stdout(&down).contains("recorded vote -1"),
        "{}",
        stdout(&down)
    );
    let again = lore_in(root, &["gateway", "search", "basket checkout", "--json"]);
    let again: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    let voted = again["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["chunk"]["chunk_id"] == chunk)
        .expect("still found");
    assert!(voted["scoring"]["signals"]["feedback"].as_f64().unwrap() < 1.0);
    let unknown = lore_in(
        root,
        &["gateway", "feedback", "req-x", chunk, "--vote", "1"],
    );
    assert!(!unknown.status.success());
    assert!(
        stderr(&unknown).contains("no recorded search"),
        "{}",
        stderr(&unknown)
    );
}

#[test]
fn a_backup_is_created_listed_and_restored_from_the_terminal() {
    let repo = repository();
    let root = repo.path();
    let backups = tempfile::tempdir().unwrap();
    let dest = backups.path().to_str().unwrap();
    assert!(
        lore()
            .arg("init")
            .arg(root)
            .output()
            .unwrap()
            .status
            .success()
    );
    ingest_here(root);
    let created = lore_in(root, &["backup", "create", "--dest", dest, "--json"]);
    assert!(created.status.success(), "{}", stderr(&created));
    let created: serde_json::Value = serde_json::from_slice(&created.stdout).unwrap();
    let archive = created["archive"].as_str().unwrap().to_string();
    let listed = lore_in(root, &["backup", "list", "--dest", dest]);
    assert!(stdout(&listed).contains(&archive), "{}", stdout(&listed));

    // Restoring over the project's own data needs --force.
    let refused = lore_in(root, &["backup", "restore", &archive]);
    assert!(!refused.status.success());
    assert!(stderr(&refused).contains("--force"), "{}", stderr(&refused));
    let restored = lore_in(root, &["backup", "restore", &archive, "--force"]);
    assert!(restored.status.success(), "{}", stderr(&restored));
    assert!(
        stdout(&restored).contains("kept in"),
        "{}",
        stdout(&restored)
    );
    let found = lore_in(root, &["gateway", "search", "basket checkout", "--json"]);
    let found: serde_json::Value = serde_json::from_slice(&found.stdout).unwrap();
    assert_eq!(
        found["results"][0]["chunk"]["artifact_path"],
        "shop/basket.py"
    );

    // A truncated copy is refused as damaged.
    let bytes = std::fs::read(&archive).unwrap();
    let broken = backups.path().join("broken.zip");
    std::fs::write(&broken, &bytes[..bytes.len() - 200]).unwrap();
    let damaged = lore_in(
        root,
        &["backup", "restore", broken.to_str().unwrap(), "--force"],
    );
    assert!(!damaged.status.success());
    assert!(stderr(&damaged).contains("damaged"), "{}", stderr(&damaged));
}

/// Stops the background server even when an assertion fails.
struct StopOnDrop<'a>(&'a std::path::Path);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        let _ = lore_in(self.0, &["mcp", "stop"]);
    }
}

#[test]
fn a_restore_is_refused_while_a_server_serves_the_project() {
    let repo = initialised_repository();
    let root = repo.path();
    ingest_here(root);
    let backups = tempfile::tempdir().unwrap();
    let dest = backups.path().to_str().unwrap();
    let created = lore_in(root, &["backup", "create", "--dest", dest, "--json"]);
    assert!(created.status.success(), "{}", stderr(&created));
    let created: serde_json::Value = serde_json::from_slice(&created.stdout).unwrap();
    let archive = created["archive"].as_str().unwrap().to_string();
    let store = root.join(".lore/store.db");
    let before = std::fs::metadata(&store).unwrap().modified().unwrap();

    // A foreground `lore mcp serve` (no record, the lock alone).
    let server = common::spawn_http_server({
        let mut command = lore();
        command
            .arg("--project-dir")
            .arg(root)
            .args(["mcp", "serve", "--port", "0"]);
        command
    });
    let refused = lore_in(root, &["backup", "restore", &archive, "--force"]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("lore mcp stop") && stderr(&refused).contains("[conflict]"),
        "{}",
        stderr(&refused)
    );
    drop(server);

    // A background `lore mcp start`.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string();
    let _stop = StopOnDrop(root);
    let started = lore_in(root, &["mcp", "start", "--port", &port]);
    assert!(started.status.success(), "{}", stderr(&started));
    let refused = lore_in(root, &["backup", "restore", &archive, "--force"]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("lore mcp stop") && stderr(&refused).contains("[conflict]"),
        "{}",
        stderr(&refused)
    );
    assert!(
        !root.join(".lore/replaced").exists(),
        "nothing was replaced"
    );
    assert_eq!(
        std::fs::metadata(&store).unwrap().modified().unwrap(),
        before,
        "the store the server holds is the same file"
    );

    // Once stopped, the restore goes through.
    let stopped = lore_in(root, &["mcp", "stop"]);
    assert!(stopped.status.success(), "{}", stderr(&stopped));
    let restored = lore_in(root, &["backup", "restore", &archive, "--force"]);
    assert!(restored.status.success(), "{}", stderr(&restored));
}

#[test]
fn recipes_are_listed_shown_and_run_from_the_terminal() {
    let repo = initialised_repository();
    let root = repo.path();
    ingest_here(root);
    std::fs::create_dir_all(root.join("recipes")).unwrap();
    std::fs::write(
        root.join("recipes/checkout-check.yaml"),
        "summary: The checkout code is indexed and found.\nvariables:\n  words: {default: basket checkout, description: what to search}\n  min: 1\nsteps:\n  - id: find\n    tool: km-search\n    params: {query: '${vars.words}', limit: 5}\n    assert: [{path: result.results, at_least: '${vars.min}'}]\n    capture: [{name: files, path: 'result.results[*].chunk.artifact_path'}]\noutputs:\n  files: ${captures.files}\n",
    )
    .unwrap();

    let list = lore_in(root, &["gateway", "recipe", "list"]);
    assert!(list.status.success(), "{}", stderr(&list));
    let text = stdout(&list);
    for name in [
        "checkout-check  (recipes/checkout-check.yaml)",
        "daily-health  (built-in)",
        "subsystem-freshness  (built-in)",
        "--var words  (default \"basket checkout\"): what to search",
        "--var subsystem  (required)",
    ] {
        assert!(text.contains(name), "{name} not in:\n{text}");
    }
    let shown = lore_in(root, &["gateway", "recipe", "show", "stale-audit"]);
    assert!(stdout(&shown).contains("tool: km-lifecycle-report"));

    let run = lore_in(
        root,
        &["gateway", "recipe", "run", "checkout-check", "--json"],
    );
    assert!(run.status.success(), "{}", stderr(&run));
    let answer: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(answer["status"], "success");
    assert_eq!(answer["outputs"]["files"][0], "shop/basket.py", "{answer}");
    assert_eq!(answer["source"]["path"], "recipes/checkout-check.yaml");

    // A variable given as JSON keeps its type: 50 results are not there.
    let failed = lore_in(
        root,
        &[
            "gateway",
            "recipe",
            "run",
            "checkout-check",
            "--var",
            "min=50",
        ],
    );
    assert!(!failed.status.success());
    assert!(
        stdout(&failed).contains("FAILED find"),
        "{}",
        stdout(&failed)
    );
    let err = stderr(&failed);
    assert!(
        err.contains("[assert_failed]") && err.contains("expected at least 50"),
        "{err}"
    );

    let listed = lore_in(root, &["gateway", "recipe", "list", "--json"]);
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let own = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "checkout-check")
        .unwrap();
    assert_eq!(own["last_run"]["status"], "failed");
    assert_eq!(own["last_run"]["failed_step"], "find");
    assert!(
        own["last_run"]["actor"]
            .as_str()
            .unwrap()
            .starts_with("cli")
    );

    // Steps' arguments are prepared as an agent's are: the other case
    // convention and a wrapper object are accepted, an unknown argument
    // is refused naming what the tool takes.
    std::fs::write(
        root.join("recipes/spellings.yaml"),
        "summary: Arguments as models spell them.\nsteps:\n  - id: stale\n    tool: km-lifecycle-report\n    params: {staleAfterDays: 1}\n  - id: find\n    tool: km-search\n    params: {arguments: {query: basket, limit: 1}}\n    assert: [{path: result.results, at_least: 1}]\n",
    )
    .unwrap();
    let run = lore_in(root, &["gateway", "recipe", "run", "spellings", "--json"]);
    assert!(run.status.success(), "{}", stderr(&run));
    std::fs::write(
        root.join("recipes/unknown-argument.yaml"),
        "summary: A step with an argument km-search does not take.\nsteps:\n  - id: find\n    tool: km-search\n    params: {query: basket, top_k: 3}\n",
    )
    .unwrap();
    let refused = lore_in(root, &["gateway", "recipe", "run", "unknown-argument"]);
    assert!(!refused.status.success());
    let err = stderr(&refused);
    assert!(
        err.contains("unknown argument `top_k`") && err.contains("include_graph, limit"),
        "{err}"
    );

    for (args, code) in [
        (
            vec!["gateway", "recipe", "run", "no-such"],
            "[recipe_not_found]",
        ),
        (
            vec![
                "gateway",
                "recipe",
                "run",
                "checkout-check",
                "--var",
                "nope=1",
            ],
            "[invalid_arguments]",
        ),
        (
            vec!["gateway", "recipe", "run", "checkout-check", "--var", "min"],
            "[invalid_arguments]",
        ),
    ] {
        let refused = lore_in(root, &args);
        assert!(!refused.status.success());
        assert!(
            stderr(&refused).contains(code),
            "{args:?}: {}",
            stderr(&refused)
        );
    }
}

#[test]
fn a_neighbouring_repository_stays_relative_and_a_dry_run_writes_nothing() {
    // A project folder and a repository beside it, as the README's
    // `lore gateway ingest ../other` has it.
    let parent = tempfile::tempdir().unwrap();
    let project = parent.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let init = lore().arg("init").arg(&project).output().unwrap();
    assert!(init.status.success(), "{}", stderr(&init));
    let other = parent.path().join("other");
    std::fs::create_dir_all(other.join("pkg")).unwrap();
    std::fs::write(other.join("pkg/app.py"), "def run():\n    return 1\n").unwrap();
    let config = || std::fs::read_to_string(project.join("lore.yaml")).unwrap();
    let before = config();

    let dry = lore()
        .current_dir(&project)
        .args(["gateway", "ingest", "../other", "--dry-run"])
        .output()
        .unwrap();
    assert!(dry.status.success(), "{}", stderr(&dry));
    assert!(
        stdout(&dry).starts_with("dry run of other"),
        "{}",
        stdout(&dry)
    );
    assert!(stdout(&dry).contains("would read 1 new or changed files"));
    assert!(!stdout(&dry).contains("ingested"), "{}", stdout(&dry));
    assert!(stderr(&dry).contains("would add gateway root `other` (../other)"));
    assert_eq!(config(), before, "a dry run leaves lore.yaml as it was");
    assert!(!project.join(".lore/gateway/graph").exists());

    let real = lore()
        .current_dir(&project)
        .args(["gateway", "ingest", "../other"])
        .output()
        .unwrap();
    assert!(real.status.success(), "{}", stderr(&real));
    assert!(config().contains("path: \"../other\""), "{}", config());
    assert!(!config().contains(parent.path().to_str().unwrap()));
    assert!(
        stdout(&real).starts_with("ingested other"),
        "{}",
        stdout(&real)
    );
}

#[test]
fn status_in_a_code_project_shows_the_gateway_and_names_its_next_command() {
    let repo = initialised_repository();
    let root = repo.path();
    std::fs::write(
        root.join("lore.yaml"),
        std::fs::read_to_string(root.join("lore.yaml")).unwrap()
            + "\ngateway:\n  roots:\n    - path: .\n      name: shop\n",
    )
    .unwrap();
    let status = |args: &[&str]| lore().current_dir(root).args(args).output().unwrap();
    let before = status(&["status", "--json"]);
    let value: serde_json::Value = serde_json::from_slice(&before.stdout).unwrap();
    let check = |value: &serde_json::Value, name: &str| {
        value["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} check in {value}"))
    };
    // No database is not a problem here; the gateway's next step is.
    assert_eq!(check(&value, "connection")["status"], "ok", "{value}");
    let gateway = check(&value, "gateway");
    assert!(
        gateway["detail"]
            .as_str()
            .unwrap()
            .contains("never ingested")
    );
    assert_eq!(gateway["next"], "lore gateway ingest");
    let text = stdout(&status(&["status"]));
    assert!(!text.contains("lore connection add"), "{text}");
    // Nor is the discovery index (tables, wiki) a step to take here.
    assert!(!text.contains("lore reindex"), "{text}");
    assert!(text.contains("Next: lore gateway ingest"), "{text}");

    let ingest = status(&["gateway", "ingest"]);
    assert!(ingest.status.success(), "{}", stderr(&ingest));
    let after: serde_json::Value =
        serde_json::from_slice(&status(&["status", "--json"]).stdout).unwrap();
    let gateway = check(&after, "gateway");
    assert_eq!(gateway["status"], "ok", "{gateway}");
    let detail = gateway["detail"].as_str().unwrap();
    assert!(
        detail.contains("1 root(s): shop") && detail.contains("chunks"),
        "{detail}"
    );
}

#[test]
fn a_root_given_relative_stays_relative_and_colliding_paths_are_told_apart() {
    // The project under the temporary folder, the other repository under
    // the target folder: they share only the file system's root, and a
    // path given relative is still written relative.
    let project = tempfile::tempdir().unwrap();
    let init = lore().arg("init").arg(project.path()).output().unwrap();
    assert!(init.status.success(), "{}", stderr(&init));
    let elsewhere = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    for (root, function) in [("one", "JoinWords"), ("two", "ReadValue")] {
        let file = elsewhere.path().join(root).join("shared/util.go");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(
            file,
            format!("package shared\n\nfunc {function}() string {{\n\treturn \"\"\n}}\n"),
        )
        .unwrap();
    }
    let base = project.path().canonicalize().unwrap();
    let one = elsewhere.path().join("one").canonicalize().unwrap();
    let relative = format!(
        "{}{}",
        "../".repeat(base.components().count() - 1),
        one.strip_prefix("/").unwrap().display()
    );
    let added = lore()
        .current_dir(project.path())
        .args(["gateway", "ingest", &relative])
        .output()
        .unwrap();
    assert!(added.status.success(), "{}", stderr(&added));
    let two = elsewhere.path().join("two").canonicalize().unwrap();
    let added = lore()
        .current_dir(project.path())
        .args(["gateway", "ingest", two.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(added.status.success(), "{}", stderr(&added));
    let config = std::fs::read_to_string(project.path().join("lore.yaml")).unwrap();
    assert!(
        config.contains(&format!("path: \"{relative}\"")),
        "{config}"
    );
    assert!(
        config.contains(&format!("path: \"{}\"", two.display())),
        "{config}"
    );

    // The same path in both roots: a bare one names both candidates.
    let ambiguous = lore_in(project.path(), &["gateway", "node", "Code:shared/util.go"]);
    assert!(!ambiguous.status.success());
    let said = stderr(&ambiguous);
    assert!(said.contains("[invalid_request]"), "{said}");
    assert!(
        said.contains("Code:one/shared/util.go") && said.contains("Code:two/shared/util.go"),
        "{said}"
    );
    let kept = lore_in(
        project.path(),
        &[
            "gateway",
            "node",
            "Code:shared/util.go",
            "--root",
            "two",
            "--json",
        ],
    );
    assert!(kept.status.success(), "{}", stderr(&kept));
    let answer: serde_json::Value = serde_json::from_slice(&kept.stdout).unwrap();
    assert_eq!(answer["node"]["id"], "Code:two/shared/util.go");
    let found = lore_in(
        project.path(),
        &["gateway", "search", "ReadValue", "--root", "two", "--json"],
    );
    assert!(found.status.success(), "{}", stderr(&found));
    let found: serde_json::Value = serde_json::from_slice(&found.stdout).unwrap();
    let results = found["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for result in results {
        assert_eq!(result["chunk"]["root"], "two");
        assert!(
            result["chunk"]["chunk_id"]
                .as_str()
                .unwrap()
                .starts_with("two/shared/util.go::")
        );
    }
    // Printed for a person, a path carries its root too.
    let printed = lore_in(project.path(), &["gateway", "search", "ReadValue"]);
    assert!(printed.status.success(), "{}", stderr(&printed));
    let printed = String::from_utf8_lossy(&printed.stdout);
    assert!(printed.contains("two/shared/util.go:1-"), "{printed}");
}
