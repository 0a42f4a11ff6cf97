//! Several repositories in one project: two roots that hold the same
//! paths (`shared/util.go`, `README.md`) stay apart in every id the
//! gateway answers (graph nodes, chunk ids, the feedback keyed on them,
//! coverage rows); a bare path is taken when one root holds it and
//! refused with the candidates when both do; the `roots` filter keeps to
//! some roots without changing a score; and a project ingested before ids
//! named their root moves to the new ids on its next ingest, its votes
//! kept.

use std::sync::Arc;

use lore_core::ErrorCode;
use lore_core::project::Project;
use lore_gateway::Gateway;
use lore_gateway::graph::explore::Relationships;
use lore_gateway::ingest::IngestRequest;
use lore_gateway::search::{SearchFilters, SearchRequest, SearchResponse};
use lore_store::feed::StoreHandle;
use lore_store::{KnowledgeStore, NewFeedback, NewTriple, SearchRecord, SqliteStore, TripleQuery};

const COBRA_UTIL: &str = "package shared\n\n// JoinWords joins command words with a space.\nfunc JoinWords(a, b string) string {\n\treturn a + \" \" + b\n}\n";
const VIPER_UTIL: &str = "package shared\n\n// ReadConfigValue reads a config value by its key.\nfunc ReadConfigValue(key string) string {\n\treturn key\n}\n";

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    /// Two roots, `cobra` and `viper`, both holding `shared/util.go` and
    /// `README.md`; `cmd/root.go` only in `cobra`. Ingested.
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("lore.yaml"),
            "gateway:\n  roots:\n    - path: cobra\n      name: cobra\n    - path: viper\n      name: viper\n",
        )
        .unwrap();
        let fixture = Fixture { dir };
        fixture.write("cobra/shared/util.go", COBRA_UTIL);
        fixture.write(
            "cobra/README.md",
            "# Cobra\n\nCommands for the command line; words are joined in shared/util.go.\n",
        );
        fixture.write(
            "cobra/cmd/root.go",
            "package cmd\n\n// Execute runs the root command.\nfunc Execute() error {\n\treturn nil\n}\n",
        );
        fixture.write("viper/shared/util.go", VIPER_UTIL);
        fixture.write(
            "viper/README.md",
            "# Viper\n\nConfiguration files; values are read in shared/util.go.\n",
        );
        fixture.ingest();
        fixture
    }

    fn write(&self, path: &str, text: &str) {
        let file = self.dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }

    /// A gateway as a new process would open it.
    fn gateway(&self) -> Gateway {
        let project = Project::load(self.dir.path()).unwrap();
        Gateway::for_project(&project)
            .with_store(Arc::new(StoreHandle::sqlite(project.store_path())))
    }

    fn ingest(&self) -> lore_gateway::IngestRun {
        let run = self
            .gateway()
            .ingest(&IngestRequest::default(), &mut |_, _| {})
            .unwrap();
        assert!(run.success, "{:?}", run.error);
        run
    }

    fn store(&self) -> SqliteStore {
        SqliteStore::open(&self.dir.path().join(".lore/store.db"), Default::default()).unwrap()
    }
}

fn search(gateway: &Gateway, query: &str, roots: &[&str]) -> SearchResponse {
    gateway
        .search(&SearchRequest {
            query: query.into(),
            limit: Some(10),
            filters: SearchFilters {
                roots: roots.iter().map(|r| r.to_string()).collect(),
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap()
}

fn roots(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

/// The objects of a node's outgoing `predicate` relations.
fn outgoing(gateway: &Gateway, id: &str, predicate: &str) -> Vec<String> {
    let answer = gateway
        .node(id, Relationships::Outgoing, Some(200), &[])
        .unwrap();
    assert_eq!(answer.node.id, id);
    answer
        .relationships
        .into_iter()
        .filter(|r| r.predicate == predicate)
        .map(|r| r.node)
        .collect()
}

#[test]
fn the_same_path_in_two_roots_is_two_nodes_each_with_its_own_symbols() {
    let fixture = Fixture::new();
    let gateway = fixture.gateway();
    assert_eq!(
        outgoing(&gateway, "Code:cobra/shared/util.go", "DECLARES_SYMBOL"),
        ["Symbol:cobra/shared/util.go::JoinWords"]
    );
    assert_eq!(
        outgoing(&gateway, "Code:viper/shared/util.go", "DECLARES_SYMBOL"),
        ["Symbol:viper/shared/util.go::ReadConfigValue"]
    );
    for root in ["cobra", "viper"] {
        let id = format!("DesignDoc:{root}/README.md");
        let node = gateway
            .node(&id, Relationships::None, None, &[])
            .unwrap()
            .node;
        assert_eq!(node.properties["root"], root);
        assert_eq!(node.properties["path"], "README.md");
        // Each README describes its own root's file.
        assert_eq!(
            outgoing(&gateway, &id, "DESCRIBES"),
            [format!("Code:{root}/shared/util.go")]
        );
    }
    let symbol = gateway
        .node(
            "Symbol:viper/shared/util.go::ReadConfigValue",
            Relationships::None,
            None,
            &[],
        )
        .unwrap();
    assert_eq!(symbol.node.properties["root"], "viper");
}

#[test]
fn a_bare_path_is_taken_from_the_one_root_holding_it_and_refused_when_two_do() {
    let fixture = Fixture::new();
    let gateway = fixture.gateway();
    // One root holds it: its root is filled in.
    let unique = gateway
        .node("Code:cmd/root.go", Relationships::None, None, &[])
        .unwrap();
    assert_eq!(unique.node.id, "Code:cobra/cmd/root.go");
    assert_eq!(
        gateway.tests_of("cmd/root.go", &[]).unwrap().target,
        "Code:cobra/cmd/root.go"
    );
    // Two roots hold it: refused, naming both.
    for error in [
        gateway
            .node("Code:shared/util.go", Relationships::All, None, &[])
            .unwrap_err(),
        gateway.tests_of("shared/util.go", &[]).unwrap_err(),
        gateway
            .references("shared/util.go::JoinWords", &[], None)
            .unwrap_err(),
    ] {
        assert_eq!(error.code, ErrorCode::InvalidRequest, "{}", error.message);
        assert!(
            error.message.contains("cobra/shared/util.go")
                && error.message.contains("viper/shared/util.go"),
            "{}",
            error.message
        );
    }
    // Keeping to one root takes it from there.
    let kept = gateway
        .node(
            "Code:shared/util.go",
            Relationships::None,
            None,
            &roots(&["viper"]),
        )
        .unwrap();
    assert_eq!(kept.node.id, "Code:viper/shared/util.go");
    let definitions = gateway
        .references("shared/util.go::JoinWords", &roots(&["cobra"]), None)
        .unwrap()
        .definitions;
    assert_eq!(definitions.len(), 1);
    assert_eq!(definitions[0].id, "Symbol:cobra/shared/util.go::JoinWords");
    // A document asked for under another label: the candidates, and the
    // node found, carry the label the file has.
    let error = gateway
        .node("Code:README.md", Relationships::None, None, &[])
        .unwrap_err();
    assert!(
        error.message.contains("DesignDoc:cobra/README.md")
            && error.message.contains("DesignDoc:viper/README.md"),
        "{}",
        error.message
    );
    let readme = gateway
        .node(
            "Code:README.md",
            Relationships::None,
            None,
            &roots(&["viper"]),
        )
        .unwrap();
    assert_eq!(readme.node.id, "DesignDoc:viper/README.md");
}

#[test]
fn chunk_ids_name_their_root_and_the_roots_filter_keeps_scores() {
    let fixture = Fixture::new();
    let gateway = fixture.gateway();
    let both = search(&gateway, "shared util package", &[]);
    let util: Vec<&str> = both
        .results
        .iter()
        .filter(|r| r.chunk.artifact_path == "shared/util.go")
        .map(|r| r.chunk.chunk_id.as_str())
        .collect();
    assert_eq!(util.len(), 2, "{util:?}");
    assert_ne!(util[0], util[1]);
    for result in &both.results {
        let chunk = &result.chunk;
        assert!(
            chunk.chunk_id.starts_with(&format!("{}/", chunk.root)),
            "{} in {}",
            chunk.chunk_id,
            chunk.root
        );
        for symbol in &chunk.symbols {
            assert!(symbol.id.starts_with(&format!("Symbol:{}/", chunk.root)));
        }
    }

    let viper = search(&gateway, "shared util package", &["viper"]);
    assert!(!viper.results.is_empty());
    assert!(viper.results.iter().all(|r| r.chunk.root == "viper"));
    // Membership only: each kept result scores as it did unfiltered.
    for kept in &viper.results {
        let unfiltered = both
            .results
            .iter()
            .find(|r| r.chunk.chunk_id == kept.chunk.chunk_id)
            .expect("the result is among the unfiltered ones");
        assert!(
            (unfiltered.score - kept.score).abs() < 1e-6,
            "{} scores {} filtered, {} not",
            kept.chunk.chunk_id,
            kept.score,
            unfiltered.score
        );
    }

    let unknown = gateway
        .search(&SearchRequest {
            query: "util".into(),
            filters: SearchFilters {
                roots: roots(&["sphinx"]),
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(unknown.code, ErrorCode::InvalidArguments);
    assert!(
        unknown.message.contains("sphinx") && unknown.message.contains("cobra, viper"),
        "{}",
        unknown.message
    );
}

#[test]
fn a_vote_on_one_roots_file_leaves_the_other_roots_alone() {
    let fixture = Fixture::new();
    let gateway = fixture.gateway();
    let query = "shared util package";
    let found = search(&gateway, query, &[]);
    let voted = found
        .results
        .iter()
        .find(|r| r.chunk.root == "viper" && r.chunk.artifact_path == "shared/util.go")
        .expect("viper's util.go is found");
    gateway
        .submit_feedback(NewFeedback {
            request_id: found.metadata.request_id.clone(),
            chunk_id: voted.chunk.chunk_id.clone(),
            vote: 1,
            note: None,
            context: None,
            voter: "alice".into(),
        })
        .unwrap();
    let after = search(&fixture.gateway(), query, &[]);
    for result in &after.results {
        let signal = result.scoring.signals.get("feedback");
        if result.chunk.chunk_id == voted.chunk.chunk_id {
            assert!(signal.is_some_and(|f| *f > 1.0), "{signal:?}");
        } else {
            assert!(
                signal.is_none(),
                "{} got the vote on {}",
                result.chunk.chunk_id,
                voted.chunk.chunk_id
            );
        }
    }
}

#[test]
fn graph_search_tests_of_and_coverage_name_their_root_and_keep_to_the_roots_asked() {
    let fixture = Fixture::new();
    let gateway = fixture.gateway();
    let every = gateway.graph_search("util", Some(50), &[]).unwrap();
    let found: Vec<&str> = every.results.iter().map(|h| h.id.as_str()).collect();
    assert!(found.contains(&"Code:cobra/shared/util.go"), "{found:?}");
    assert!(found.contains(&"Code:viper/shared/util.go"), "{found:?}");
    let cobra = gateway
        .graph_search("util", Some(50), &roots(&["cobra"]))
        .unwrap();
    assert!(!cobra.results.is_empty());
    for hit in &cobra.results {
        assert_eq!(hit.root.as_deref(), Some("cobra"), "{}", hit.id);
    }
    let refused = gateway
        .graph_search("util", None, &roots(&["nope"]))
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidArguments);
    assert!(
        refused.message.contains("cobra, viper"),
        "{}",
        refused.message
    );

    let coverage = gateway.coverage().unwrap();
    let rows: Vec<&str> = coverage
        .artifacts
        .iter()
        .map(|row| row.root.as_str())
        .collect();
    assert!(
        rows.contains(&"cobra") && rows.contains(&"viper"),
        "{rows:?}"
    );
    let code_in = |root: &str| -> u64 {
        coverage
            .artifacts
            .iter()
            .filter(|row| row.root == root)
            .map(|row| row.artifact_breakdown.get("code").copied().unwrap_or(0))
            .sum()
    };
    assert_eq!((code_in("cobra"), code_in("viper")), (2, 1));
}

/// The edge key the graph ledger keeps (its parts joined by U+001F).
fn edge_key(subject: &str, predicate: &str, object: &str) -> String {
    format!("{subject}\u{1f}{predicate}\u{1f}{object}")
}

#[test]
fn a_project_of_bare_ids_moves_to_rooted_ids_on_its_next_ingest_and_keeps_its_votes() {
    let fixture = Fixture::new();
    let query = "execute the root command";
    let found = search(&fixture.gateway(), query, &[]);
    let execute = found
        .results
        .iter()
        .find(|r| r.chunk.artifact_path == "cmd/root.go")
        .expect("cmd/root.go is found")
        .chunk
        .chunk_id
        .clone();
    let bare = execute.strip_prefix("cobra/").expect("a rooted chunk id");

    // Make it a project of the previous format: an index of format 4,
    // graph facts of version 3 with an edge under bare ids in the store,
    // and a vote on a bare chunk id.
    let state = fixture.dir.path().join(".lore/gateway");
    std::fs::write(state.join("index/FORMAT"), "lore-gateway-4").unwrap();
    let store = fixture.store();
    let old = (
        "Code:cmd/root.go",
        "DECLARES_SYMBOL",
        "Symbol:cmd/root.go::Execute",
    );
    store
        .relate_many(
            "gateway",
            "an ingest of the previous format",
            vec![NewTriple {
                subject: old.0.into(),
                predicate: old.1.into(),
                object: old.2.into(),
                confidence: None,
                properties: None,
            }],
            Vec::new(),
        )
        .unwrap();
    let ledger_path = state.join("graph/cobra.json");
    let mut ledger: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&ledger_path).unwrap()).unwrap();
    ledger["facts_version"] = 3.into();
    ledger["written"][edge_key(old.0, old.1, old.2)] = serde_json::Value::Null;
    std::fs::write(&ledger_path, serde_json::to_vec(&ledger).unwrap()).unwrap();
    store
        .record_search(&SearchRecord {
            request_id: "req-old".into(),
            query: query.into(),
            chunk_ids: vec![bare.to_string()],
            created_at: lore_core::time::UtcMillis::now().to_iso(),
        })
        .unwrap();
    store
        .submit_feedback(NewFeedback {
            request_id: "req-old".into(),
            chunk_id: bare.to_string(),
            vote: 1,
            note: None,
            context: None,
            voter: "alice".into(),
        })
        .unwrap();

    // The next ingest reads every file again and replaces the old edges.
    let run = fixture.ingest();
    assert_eq!(run.files_changed, 5, "every file is read again");
    let stale = store
        .list_triples(&TripleQuery {
            subject: Some(old.0.into()),
            ..Default::default()
        })
        .unwrap();
    assert!(stale.items.is_empty(), "{:?}", stale.items);
    assert_eq!(
        outgoing(
            &fixture.gateway(),
            "Code:cobra/cmd/root.go",
            "DECLARES_SYMBOL"
        ),
        ["Symbol:cobra/cmd/root.go::Execute"]
    );
    // The vote on the bare id counts for the chunk of the one root
    // holding its file.
    let after = search(&fixture.gateway(), query, &[]);
    let voted = after
        .results
        .iter()
        .find(|r| r.chunk.chunk_id == execute)
        .expect("the voted chunk is found");
    assert!(
        voted
            .scoring
            .signals
            .get("feedback")
            .is_some_and(|f| *f > 1.0),
        "{:?}",
        voted.scoring.signals
    );
}

#[test]
fn an_old_vote_whose_path_starts_with_its_roots_name_is_mapped_to_that_root() {
    // A root named `src` holding `src/app.py`: the key an older index gave
    // its chunk, `src/app.py::…`, reads like root `src`, file `app.py`,
    // which the root does not hold.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("lore.yaml"),
        "gateway:\n  roots:\n    - path: src\n      name: src\n",
    )
    .unwrap();
    let file = dir.path().join("src/src/app.py");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(
        &file,
        "def settle_invoice_payment(invoice):\n    return invoice.settle()\n",
    )
    .unwrap();
    let project = Project::load(dir.path()).unwrap();
    let open = || {
        Gateway::for_project(&project)
            .with_store(Arc::new(StoreHandle::sqlite(project.store_path())))
    };
    let run = open()
        .ingest(&IngestRequest::default(), &mut |_, _| {})
        .unwrap();
    assert!(run.success, "{:?}", run.error);
    let query = "settle the invoice payment";
    let found = search(&open(), query, &[]);
    let chunk = found.results[0].chunk.chunk_id.clone();
    let bare = chunk.strip_prefix("src/").expect("a rooted chunk id");
    assert!(bare.starts_with("src/app.py::"), "{bare}");

    let store = SqliteStore::open(&dir.path().join(".lore/store.db"), Default::default()).unwrap();
    store
        .record_search(&SearchRecord {
            request_id: "req-old".into(),
            query: query.into(),
            chunk_ids: vec![bare.to_string()],
            created_at: lore_core::time::UtcMillis::now().to_iso(),
        })
        .unwrap();
    store
        .submit_feedback(NewFeedback {
            request_id: "req-old".into(),
            chunk_id: bare.to_string(),
            vote: 1,
            note: None,
            context: None,
            voter: "alice".into(),
        })
        .unwrap();
    let after = search(&open(), query, &[]);
    let voted = &after.results[0];
    assert_eq!(voted.chunk.chunk_id, chunk);
    assert!(
        voted
            .scoring
            .signals
            .get("feedback")
            .is_some_and(|f| *f > 1.0),
        "{:?}",
        voted.scoring.signals
    );
}

#[test]
fn a_run_over_one_roots_file_reports_every_root_and_leaves_the_others_graphs_alone() {
    let fixture = Fixture::new();
    let full = fixture.ingest();
    let graph = |root: &str| {
        fixture
            .dir
            .path()
            .join(format!(".lore/gateway/graph/{root}.json"))
    };
    let viper_before = std::fs::metadata(graph("viper"))
        .unwrap()
        .modified()
        .unwrap();
    // viper gains a subsystem catalog its next full run will classify
    // with: a run over cobra's files leaves viper's index as it is.
    fixture.write(
        "viper/.metadata/subsystems.json",
        r#"{"Config": {"paths": ["shared/**"]}}"#,
    );
    // A function added to cobra's root.go, ingested by path.
    fixture.write(
        "cobra/cmd/root.go",
        "package cmd\n\n// Execute runs the root command.\nfunc Execute() error {\n\treturn nil\n}\n\n// Version names the release.\nfunc Version() string {\n\treturn \"1\"\n}\n",
    );
    let run = fixture
        .gateway()
        .ingest(
            &IngestRequest {
                paths: vec![
                    fixture
                        .dir
                        .path()
                        .join("cobra/cmd/root.go")
                        .display()
                        .to_string(),
                ],
                ..Default::default()
            },
            &mut |_, _| {},
        )
        .unwrap();
    assert!(run.success, "{:?}", run.error);
    assert_eq!(run.files_changed, 1, "{run:?}");
    // The run reports the whole project as the full run did: every root's
    // files by type, the graph's relations (one more: cobra's new
    // function) and each root's commit.
    assert_eq!(run.artifact_counts, full.artifact_counts, "{run:?}");
    assert_eq!(run.relation_count, full.relation_count + 1, "{run:?}");
    assert_eq!(run.roots, roots(&["cobra", "viper"]));
    // viper's graph was neither read into the run nor written again.
    assert_eq!(
        std::fs::metadata(graph("viper"))
            .unwrap()
            .modified()
            .unwrap(),
        viper_before
    );
    let version = fixture
        .gateway()
        .node(
            "Symbol:cobra/cmd/root.go::Version",
            Relationships::None,
            None,
            &[],
        )
        .unwrap();
    assert_eq!(version.node.id, "Symbol:cobra/cmd/root.go::Version");
    let found = search(&fixture.gateway(), "ReadConfigValue", &["viper"]);
    assert!(
        found
            .results
            .iter()
            .any(|r| r.chunk.artifact_path == "shared/util.go"),
        "viper's chunks were dropped: {:?}",
        found.results
    );
}
