//! Every server sharing one PostgreSQL store answers alike for a root
//! only one of them ingested: one without the root, and one listing it
//! (with a copy of its files) that never ingested it, answer the graph
//! tools, `km-read`, a search kept to the root and coverage as the
//! server that ingested it does, and follow its edits.
//!
//! Needs `LORE_TEST_POSTGRES_URL` (each test makes a database of its own
//! and drops it); skipped with a notice when unset, required when
//! `LORE_REQUIRE_SERVERS=1`.

mod team_support;

use std::path::Path;
use std::sync::Arc;

use tempfile::TempDir;

use lore_gateway::{Gateway, SearchRequest};
use team_support::{Database, gateway, ingest, server_project, write};

/// The shop's files: code importing code, a test of it, a document
/// naming it.
fn shop_files(dir: &Path) {
    write(
        dir,
        "repo/billing/tax.py",
        "def tax_rate():\n    return 2\n",
    );
    write(
        dir,
        "repo/billing/invoice.py",
        "from billing.tax import tax_rate\n\n\ndef total_quokka(amount):\n    return amount * tax_rate()\n",
    );
    write(
        dir,
        "repo/tests/test_invoice.py",
        "from billing.invoice import total_quokka\n\n\ndef test_total():\n    assert total_quokka(1) == 2\n",
    );
    write(
        dir,
        "repo/docs/guide.md",
        "# Guide\n\nThe platypus ledger: `billing/invoice.py` totals.\n",
    );
}

/// What a server answers about the shop (the same JSON on every server
/// sharing the store).
fn shop_answers(gateway: &Gateway) -> Vec<(&'static str, Result<serde_json::Value, String>)> {
    use lore_gateway::graph::explore::Relationships;
    use lore_gateway::read::ReadRequest;
    let json = |r: Result<serde_json::Value, lore_core::ErrorReport>| {
        r.map_err(|e| format!("{}: {}", e.code.as_str(), e.message))
    };
    fn value<T: serde::Serialize>(v: &T) -> serde_json::Value {
        serde_json::to_value(v).unwrap()
    }
    let app = ["shop".to_string()];
    vec![
        (
            "node",
            json(
                gateway
                    .node(
                        "Code:shop/billing/invoice.py",
                        Relationships::All,
                        None,
                        &[],
                    )
                    .map(|a| value(&a)),
            ),
        ),
        (
            "node of a bare path, roots filter",
            json(
                gateway
                    .node(
                        "Code:billing/invoice.py",
                        Relationships::Incoming,
                        None,
                        &app,
                    )
                    .map(|a| value(&a)),
            ),
        ),
        (
            "symbol",
            json(
                gateway
                    .node(
                        "Symbol:shop/billing/invoice.py::total_quokka",
                        Relationships::All,
                        None,
                        &[],
                    )
                    .map(|a| value(&a)),
            ),
        ),
        (
            "tests of",
            json(
                gateway
                    .tests_of("Code:shop/billing/invoice.py", &app)
                    .map(|a| value(&a)),
            ),
        ),
        (
            "references",
            json(
                gateway
                    .references("total_quokka", &app, None)
                    .map(|a| value(&a)),
            ),
        ),
        (
            "subsystem",
            json(
                gateway
                    .subsystem("billing", None, true, None, None, &app)
                    .map(|a| value(&a)),
            ),
        ),
        (
            "graph search",
            json(
                gateway
                    .graph_search("quokka", None, &app)
                    .map(|a| value(&a)),
            ),
        ),
        (
            "read",
            json(
                gateway
                    .read(&ReadRequest {
                        path: "billing/invoice.py".into(),
                        root: Some("shop".into()),
                        start_line: Some(4),
                        end_line: Some(5),
                    })
                    .map(|a| value(&a)),
            ),
        ),
        (
            "read of a bare path",
            json(
                gateway
                    .read(&ReadRequest {
                        path: "docs/guide.md".into(),
                        ..Default::default()
                    })
                    .map(|a| value(&a)),
            ),
        ),
        (
            "search in the root",
            json(
                gateway
                    .search(&SearchRequest {
                        query: "total_quokka tax_rate".into(),
                        limit: Some(5),
                        filters: lore_gateway::SearchFilters {
                            roots: app.to_vec(),
                            ..Default::default()
                        },
                        ..Default::default()
                    })
                    .map(|r| {
                        serde_json::json!(
                            r.results
                                .iter()
                                .map(|r| format!("{}/{}", r.chunk.root, r.chunk.artifact_path))
                                .collect::<Vec<_>>()
                        )
                    }),
            ),
        ),
    ]
}

/// Three servers on `db`, none ingested yet: A and C list the shop, each
/// with a copy of its files; B has a root of its own (notes) and none of
/// the shop. The folders come first, in the order A, B, C.
fn three_servers(db: &Database) -> ([TempDir; 3], Arc<Gateway>, Arc<Gateway>, Arc<Gateway>) {
    let a_dir = server_project(&db.url, "shop");
    shop_files(a_dir.path());
    let b_dir = server_project(&db.url, "notes");
    write(
        b_dir.path(),
        "repo/todo.md",
        "# Todo\n\nWater the plants.\n",
    );
    let c_dir = server_project(&db.url, "shop");
    shop_files(c_dir.path());
    let (a, b, c) = (
        gateway(a_dir.path()),
        gateway(b_dir.path()),
        gateway(c_dir.path()),
    );
    ([a_dir, b_dir, c_dir], a, b, c)
}

#[test]
fn every_server_answers_the_same_for_a_root_only_one_of_them_ingested() {
    let Some(db) = Database::create("graph") else {
        return;
    };
    // A ingests the shop; B serves another root and has none of the
    // shop's files; C lists the shop among its roots (with a copy of its
    // files) but never ingested it.
    let ([a_dir, _b_dir, c_dir], a, b, c) = three_servers(&db);
    ingest(&b);
    ingest(&a);
    b.catch_up().unwrap();
    c.catch_up().unwrap();

    let expected = shop_answers(&a);
    let found = |what: &str| expected.iter().find(|(w, _)| *w == what).unwrap().1.clone();
    let text = |what: &str| found(what).map(|v| v.to_string()).unwrap_or_else(|e| e);
    // What A answers is what the shop holds: its imports, test, document,
    // callers and lines.
    assert!(
        text("node").contains(
            "\"node\":\"TestCase:shop/tests/test_invoice.py\",\"predicate\":\"VALIDATES\""
        ),
        "{}",
        text("node")
    );
    assert!(
        text("node").contains("\"node\":\"Code:shop/billing/tax.py\",\"predicate\":\"IMPORTS\""),
        "{}",
        text("node")
    );
    assert!(
        text("tests of").contains("\"symbols\":[\"total_quokka\"]"),
        "{}",
        text("tests of")
    );
    assert!(
        text("references").contains("Symbol:shop/tests/test_invoice.py::test_total"),
        "{}",
        text("references")
    );
    assert!(
        text("references").contains("Symbol:shop/billing/tax.py::tax_rate"),
        "{}",
        text("references")
    );
    assert!(
        text("subsystem").contains("Code:shop/billing/tax.py"),
        "{}",
        text("subsystem")
    );
    assert!(
        text("graph search").contains("Symbol:shop/billing/invoice.py::total_quokka"),
        "{}",
        text("graph search")
    );
    assert_eq!(
        found("read").unwrap()["text"],
        "def total_quokka(amount):\n    return amount * tax_rate()\n"
    );
    assert!(
        text("read of a bare path").contains("platypus"),
        "{}",
        text("read of a bare path")
    );
    assert!(
        text("search in the root").contains("shop/billing/invoice.py"),
        "{}",
        text("search in the root")
    );

    // C says where its answers for the shop come from, and its follower
    // of the roots leaves its copy alone (the root is not its own yet).
    let fresh = c.freshness();
    let note = fresh[0].note.as_deref().unwrap_or_default();
    assert!(note.contains("ingested by another server only"), "{note}");
    assert!(!lore_gateway::ingest::was_ingested(
        &c_dir.path().join(".lore/gateway"),
        "shop"
    ));

    // B and C answer each alike; everything that differs is listed.
    let mut differ = Vec::new();
    for (server, gateway) in [("B", &b), ("C", &c)] {
        for ((what, mine), (_, theirs)) in shop_answers(gateway).iter().zip(&expected) {
            if mine != theirs {
                differ.push(format!("{server} answers {what}: {mine:?}"));
            }
        }
        if let Err(e) = gateway.check_roots(&["shop".to_string()]) {
            differ.push(format!("{server} refuses the root: {}", e.message));
        }
        // Coverage counts the shop's files as the server that ingested it.
        let coverage = serde_json::to_value(gateway.coverage().unwrap()).unwrap();
        let counted = coverage["artifacts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["root"] == "shop");
        if !counted {
            differ.push(format!("{server}'s coverage has no shop: {coverage}"));
        }
        // The lifecycle report reads the shop's graph, dated by the times
        // its files had where they were read.
        match gateway.lifecycle(&Default::default()) {
            Ok(report)
                if report.summary.dated_by.get("shop").map(String::as_str) == Some("mtime") => {}
            other => differ.push(format!(
                "{server}'s lifecycle report lacks the shop: {other:?}"
            )),
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));

    // A edits the code: the graph follows on B (the callee is renamed).
    write(
        a_dir.path(),
        "repo/billing/invoice.py",
        "from billing.tax import tax_rate\n\n\ndef total_quokka(amount):\n    return amount + tax_rate()\n\n\ndef refund_wombat():\n    return total_quokka(0)\n",
    );
    ingest(&a);
    b.catch_up().unwrap();
    let callers = b.references("total_quokka", &[], None).unwrap().callers;
    assert!(
        callers
            .iter()
            .any(|c| c.node == "Symbol:shop/billing/invoice.py::refund_wombat"),
        "{callers:?}"
    );
    let read = b
        .read(&lore_gateway::read::ReadRequest {
            path: "billing/invoice.py".into(),
            root: Some("shop".into()),
            start_line: Some(8),
            end_line: None,
        })
        .unwrap();
    assert_eq!(
        read.text,
        "def refund_wombat():\n    return total_quokka(0)\n"
    );
}

#[test]
fn a_servers_own_first_ingest_of_a_followed_root_reads_its_copy_and_wins() {
    let Some(db) = Database::create("owncopy") else {
        return;
    };
    // A ingests the shop; C lists it too, with a copy lacking the guide;
    // B follows both without a copy.
    let ([_a_dir, _b_dir, c_dir], a, b, c) = three_servers(&db);
    std::fs::remove_file(c_dir.path().join("repo/docs/guide.md")).unwrap();
    ingest(&b);
    ingest(&a);
    c.catch_up().unwrap();
    b.catch_up().unwrap();
    let guide = lore_gateway::read::ReadRequest {
        path: "docs/guide.md".into(),
        root: Some("shop".into()),
        ..Default::default()
    };
    // Until C ingests, it serves A's guide although its copy lacks it.
    assert!(c.read(&guide).unwrap().text.contains("platypus"));

    // C's first ingest reads every file of its copy: the guide it lacks
    // is closed for every server.
    let run = ingest(&c);
    assert_eq!(run.files_seen, 3, "{run:?}");
    b.catch_up().unwrap();
    for (server, gateway) in [("B", &b), ("C", &c)] {
        let found = gateway
            .search(&SearchRequest {
                query: "platypus ledger".into(),
                limit: Some(5),
                ..Default::default()
            })
            .unwrap();
        assert!(found.results.is_empty(), "{server}: {:?}", found.results);
        let node = gateway
            .node(
                "DesignDoc:shop/docs/guide.md",
                lore_gateway::graph::explore::Relationships::All,
                None,
                &[],
            )
            .unwrap_err();
        assert_eq!(node.code.as_str(), "not_found", "{server}: {node:?}");
        let read = gateway.read(&guide).unwrap_err();
        assert_eq!(read.code.as_str(), "not_found", "{server}: {read:?}");
    }
    // The rest of the shop is C's now, and answered alike.
    let tests = b.tests_of("Code:shop/billing/invoice.py", &[]).unwrap();
    assert_eq!(tests.results[0].id, "TestCase:shop/tests/test_invoice.py");
    assert_eq!(
        b.read(&lore_gateway::read::ReadRequest {
            path: "billing/tax.py".into(),
            ..Default::default()
        })
        .unwrap()
        .text,
        "def tax_rate():\n    return 2\n"
    );
}

#[test]
fn a_record_of_an_older_server_is_searchable_and_the_next_full_ingest_republishes_its_facts() {
    let Some(db) = Database::create("oldrecord") else {
        return;
    };
    let a_dir = server_project(&db.url, "shop");
    shop_files(a_dir.path());
    let b_dir = server_project(&db.url, "notes");
    write(
        b_dir.path(),
        "repo/todo.md",
        "# Todo\n\nWater the plants.\n",
    );
    let (a, b) = (gateway(a_dir.path()), gateway(b_dir.path()));
    ingest(&b);
    ingest(&a);
    b.catch_up().unwrap();
    // What B knows the file is (its type, language, subsystem): nothing
    // for a file out of its graph, though the store's relations name it.
    let tax = || {
        b.node(
            "Code:shop/billing/tax.py",
            lore_gateway::graph::explore::Relationships::None,
            None,
            &[],
        )
        .unwrap()
        .node
        .properties
        .get("artifact_type")
        .cloned()
    };
    assert_eq!(tax(), Some("code".into()));

    // A server of the previous release publishes the file: chunks only.
    let project = lore_core::project::Project::load(a_dir.path()).unwrap();
    let store = lore_store::feed::StoreHandle::for_project(&project)
        .open()
        .unwrap();
    let old = r#"{"format":1,"artifact_type":"code","language":"python","modified_ms":5,"chunks":[{"key":"billing/tax.py::tax_rate","start_line":1,"end_line":2,"text":"def tax_rate_wallaby():\n    return 3\n"}]}"#;
    store
        .publish_files(
            "old-host:/srv/lore",
            &[lore_store::SharedFile {
                root: "shop".into(),
                path: "billing/tax.py".into(),
                hash: "old".into(),
                chunks: Some(old.into()),
            }],
        )
        .unwrap();
    let caught = b.catch_up().unwrap();
    assert!(
        caught
            .warnings
            .iter()
            .any(|w| w.contains("billing/tax.py") && w.contains("no code-graph facts")),
        "{caught:?}"
    );
    // Searchable, but out of B's graph, and not readable there.
    let found = b
        .search(&SearchRequest {
            query: "tax_rate_wallaby".into(),
            limit: Some(5),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(found.results[0].chunk.artifact_path, "billing/tax.py");
    assert_eq!(tax(), None);
    let read = b
        .read(&lore_gateway::read::ReadRequest {
            path: "billing/tax.py".into(),
            root: Some("shop".into()),
            ..Default::default()
        })
        .unwrap_err();
    assert!(read.message.contains("older server"), "{}", read.message);

    // A's ingest of its unchanged files publishes nothing; a ledger from
    // before records carried facts makes its next full ingest publish
    // every file again, and B's graph has the file back.
    ingest(&a);
    b.catch_up().unwrap();
    assert_eq!(tax(), None);
    let ledger = a_dir.path().join(".lore/gateway/ledger/shop.json");
    let mut books: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&ledger).unwrap()).unwrap();
    books["shared_records"] = 0.into();
    std::fs::write(&ledger, serde_json::to_vec(&books).unwrap()).unwrap();
    ingest(&a);
    b.catch_up().unwrap();
    assert_eq!(tax(), Some("code".into()));
    assert_eq!(
        b.read(&lore_gateway::read::ReadRequest {
            path: "billing/tax.py".into(),
            root: Some("shop".into()),
            ..Default::default()
        })
        .unwrap()
        .text,
        "def tax_rate():\n    return 2\n"
    );
}

#[test]
fn a_server_answering_a_root_from_the_store_reports_it_and_keeps_it_through_an_upload() {
    let Some(db) = Database::create("storestatus") else {
        return;
    };
    // A ingests the shop; C lists it (with a copy) but never ingested it;
    // B has a root of its own and none of the shop.
    let ([a_dir, _b_dir, c_dir], a, b, c) = three_servers(&db);
    ingest(&b);
    ingest(&a);
    let status = |g: &Gateway| {
        let answer = lore_gateway::recipe::calls::ingest_status(
            g,
            lore_gateway::recipe::calls::KmIngestStatusInput { profile: None },
        )
        .map_err(|e| format!("{}: {}", e.code.as_str(), e.message))?;
        Ok::<_, String>(serde_json::to_value(answer).unwrap())
    };
    let shop = |answer: &serde_json::Value| {
        answer["freshness"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["root"] == "shop")
            .cloned()
            .unwrap_or_default()
    };
    let a_origin = a_dir.path().display().to_string();
    let a_canonical = a_dir.path().canonicalize().unwrap().display().to_string();

    // C, once it applied the log, reports the shop: answered from the
    // store, as A ingested it, with nothing left to apply.
    c.catch_up().unwrap();
    let answer = status(&c).unwrap();
    assert!(answer.get("run_id").is_none(), "C ran no ingest: {answer}");
    let root = shop(&answer);
    assert_eq!(root["follow"], "store", "{answer}");
    assert_eq!(root["fresh"], true, "{answer}");
    let by = root["ingested_by"].as_str().unwrap_or_default();
    assert!(
        by.contains(&a_origin) || by.contains(&a_canonical),
        "{answer}"
    );
    assert!(
        root["note"]
            .as_str()
            .unwrap()
            .contains("ingested by another server only"),
        "{answer}"
    );
    // B lists its own root and the shop it has from the store.
    b.catch_up().unwrap();
    let answer = status(&b).unwrap();
    assert_eq!(answer["freshness"][0]["root"], "notes", "{answer}");
    assert_eq!(shop(&answer)["follow"], "store", "{answer}");
    assert_eq!(shop(&answer)["fresh"], true, "{answer}");

    // A ingests a change B has not applied yet: the shop is not fresh on
    // B, one version behind, until B applies it.
    write(
        a_dir.path(),
        "repo/billing/tax.py",
        "def tax_rate():\n    return 3\n",
    );
    ingest(&a);
    let root = shop(&status(&b).unwrap());
    assert_eq!(
        (root["fresh"].clone(), root["pending"].clone()),
        (false.into(), 1.into())
    );
    b.catch_up().unwrap();
    assert_eq!(shop(&status(&b).unwrap())["fresh"], true);

    // C uploads a file into the shop: the upload is searchable on every
    // server, and the shop's other files stay on C.
    let source = c_dir.path().join("echidna.md");
    std::fs::write(&source, "# Echidna\n\nThe echidna feeding rota.\n").unwrap();
    c.upload(&lore_gateway::UploadRequest {
        source_path: source.display().to_string(),
        destination: Some("docs/".into()),
        root: Some("shop".into()),
        ingest: Some(true),
        ..Default::default()
    })
    .unwrap();
    b.catch_up().unwrap();
    for (server, gateway) in [("B", &b), ("C", &c)] {
        for (query, path) in [
            ("echidna feeding rota", "shop/docs/echidna.md"),
            ("total_quokka", "shop/billing/invoice.py"),
        ] {
            let found: Vec<String> = gateway
                .search(&SearchRequest {
                    query: query.into(),
                    limit: Some(5),
                    ..Default::default()
                })
                .unwrap()
                .results
                .iter()
                .map(|r| format!("{}/{}", r.chunk.root, r.chunk.artifact_path))
                .collect();
            assert!(
                found.contains(&path.to_string()),
                "{server} {query}: {found:?}"
            );
        }
    }
    // The shop is still answered from the store on C (its own copy is
    // read by its first full ingest).
    assert_eq!(shop(&status(&c).unwrap())["follow"], "store");
    assert!(
        c.references("total_quokka", &[], None)
            .unwrap()
            .callers
            .iter()
            .any(|r| r.node == "Symbol:shop/tests/test_invoice.py::test_total")
    );
}
