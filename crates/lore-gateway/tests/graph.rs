//! The code graph over a small repository in four languages: symbols,
//! resolved imports, tests linked to the code they cover, documents to
//! what they mention, subsystems from a catalog; kept right as files change
//! and read back through the explore functions.

mod graph_support;

use std::collections::BTreeSet;

use lore_core::ErrorCode;
use lore_core::config::{GatewayConfig, GatewayRoot};
use lore_gateway::graph::GraphLedger;
use lore_gateway::graph::explore::{GraphView, Relationships};
use lore_gateway::ingest::project_files::ProjectFiles;
use lore_gateway::ingest::subsystem::Catalog;
use lore_gateway::ingest::{IngestRequest, Root, ingest, resolve_roots};
use lore_store::{KnowledgeStore, SqliteStore, TripleQuery};

struct Repo {
    dir: tempfile::TempDir,
    config: GatewayConfig,
    roots: Vec<Root>,
    store: SqliteStore,
}

impl Repo {
    fn new(files: &[(&str, &str)]) -> Repo {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("repo")).unwrap();
        let config = GatewayConfig {
            roots: vec![GatewayRoot {
                path: "repo".into(),
                name: Some("app".into()),
            }],
            ..Default::default()
        };
        let roots = resolve_roots(dir.path(), &config);
        let store = SqliteStore::open(&dir.path().join("store.db"), Default::default()).unwrap();
        let repo = Repo {
            dir,
            config,
            roots,
            store,
        };
        for (path, text) in files {
            repo.write(path, text);
        }
        repo
    }

    fn write(&self, path: &str, text: &str) {
        let file = self.dir.path().join("repo").join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }

    fn ingest(&self) -> lore_gateway::IngestRun {
        let run = ingest(
            &ProjectFiles::at(self.dir.path()),
            &self.dir.path().join(".lore/gateway"),
            &self.config,
            &self.roots,
            &IngestRequest::default(),
            Some(&self.store),
            &mut |_, _| {},
        )
        .unwrap();
        assert!(run.success, "{:?}", run.error);
        run
    }

    fn view(&self) -> GraphView {
        let ledger = GraphLedger::load(&self.dir.path().join(".lore/gateway/graph/app.json"));
        let catalog = Catalog::load(self.dir.path(), &self.dir.path().join("repo")).unwrap();
        GraphView::new(vec![("app".into(), ledger.into(), catalog)])
    }

    /// Every live edge as `subject PREDICATE object`.
    fn edges(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut cursor = None;
        loop {
            let page = self
                .store
                .list_triples(&TripleQuery {
                    limit: Some(200),
                    cursor: cursor.clone(),
                    ..Default::default()
                })
                .unwrap();
            for t in page.items {
                out.insert(format!("{} {} {}", t.subject, t.predicate, t.object));
            }
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => return out,
            }
        }
    }
}

fn files() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "shop/billing/invoice.py",
            "from .tax import rate\n\nclass Invoice:\n    def total_with_tax(self):\n        return self.net * rate()\n",
        ),
        ("shop/billing/tax.py", "def rate():\n    return 1.2\n"),
        ("shop/billing/__init__.py", ""),
        (
            "tests/test_invoice.py",
            "from shop.billing.invoice import Invoice\n\ndef test_total():\n    assert Invoice().total_with_tax()\n",
        ),
        (
            "web/src/client.ts",
            "import { retry } from './retry.js';\nexport class Client {\n  send() { return retry(); }\n}\n",
        ),
        (
            "web/src/retry.ts",
            "export function retry() { return 1; }\n",
        ),
        (
            "web/src/client.test.ts",
            "import { Client } from './client';\ntest('sends', () => new Client().send());\n",
        ),
        (
            "server/handler.go",
            "package server\n\nimport \"example.com/app/server/store\"\n\nfunc Handle() { store.Get() }\n",
        ),
        ("server/store/store.go", "package store\n\nfunc Get() {}\n"),
        (
            "server/handler_test.go",
            "package server\n\nfunc TestHandle(t *T) { Handle() }\n",
        ),
        (
            "core/src/lib.rs",
            "pub mod feed;\nuse crate::feed::{Feed, poll};\npub fn run() { poll(); }\n",
        ),
        ("core/src/feed.rs", "pub struct Feed;\npub fn poll() {}\n"),
        (
            "docs/billing.md",
            "# Billing\n\nSee `Invoice.total_with_tax` in shop/billing/invoice.py and [retry](../web/src/retry.ts).\n",
        ),
        (
            ".metadata/subsystems.json",
            r#"{"Billing": {"description": "Invoices and tax", "paths": ["shop/billing/**"], "depends_on": ["Web"]}, "Web": {"paths": ["web/**"], "depends_on": ["Core"]}, "Core": {"paths": ["core/**"]}}"#,
        ),
    ]
}

#[test]
fn the_graph_links_symbols_imports_tests_docs_and_subsystems() {
    let repo = Repo::new(&files());
    let run = repo.ingest();
    assert!(run.graph_tx_id.is_some());
    let edges = repo.edges();
    for expected in [
        "Code:app/shop/billing/invoice.py BELONGS_TO Subsystem:Billing",
        "Subsystem:Billing DEPENDS_ON Subsystem:Web",
        "Code:app/shop/billing/invoice.py DECLARES_SYMBOL Symbol:app/shop/billing/invoice.py::Invoice.total_with_tax",
        "Symbol:app/shop/billing/invoice.py::Invoice CONTAINS Symbol:app/shop/billing/invoice.py::Invoice.total_with_tax",
        // Python: relative and absolute imports.
        "Code:app/shop/billing/invoice.py IMPORTS Code:app/shop/billing/tax.py",
        "TestCase:app/tests/test_invoice.py IMPORTS Code:app/shop/billing/invoice.py",
        "TestCase:app/tests/test_invoice.py VALIDATES Code:app/shop/billing/invoice.py",
        "TestCase:app/tests/test_invoice.py EXERCISES Symbol:app/shop/billing/invoice.py::Invoice",
        // TypeScript: `./retry.js` is retry.ts; a test named after its file.
        "Code:app/web/src/client.ts IMPORTS Code:app/web/src/retry.ts",
        "TestCase:app/web/src/client.test.ts VALIDATES Code:app/web/src/client.ts",
        "TestCase:app/web/src/client.test.ts EXERCISES Symbol:app/web/src/client.ts::Client",
        // Go: the package folder an import path ends with; x_test.go → x.go.
        "Code:app/server/handler.go IMPORTS Code:app/server/store/store.go",
        "TestCase:app/server/handler_test.go VALIDATES Code:app/server/handler.go",
        // Rust: crate paths to module files.
        "Code:app/core/src/lib.rs IMPORTS Code:app/core/src/feed.rs",
        // Documents: a path, a relative link, a qualified name.
        "DesignDoc:app/docs/billing.md DESCRIBES Code:app/shop/billing/invoice.py",
        "DesignDoc:app/docs/billing.md DESCRIBES Code:app/web/src/retry.ts",
        "DesignDoc:app/docs/billing.md DESCRIBES Symbol:app/shop/billing/invoice.py::Invoice.total_with_tax",
    ] {
        assert!(edges.contains(expected), "missing {expected}\n{edges:#?}");
    }
    // Nothing points outside what exists.
    assert!(
        !edges
            .iter()
            .any(|e| e.contains("IMPORTS Code:app/example.com"))
    );
}

#[test]
fn the_graph_follows_changes_and_deletions() {
    let repo = Repo::new(&files());
    repo.ingest();
    let before = repo.store.head().unwrap();
    // Nothing changed: no transaction.
    let again = repo.ingest();
    assert_eq!(again.graph_tx_id, None);
    assert_eq!(repo.store.head().unwrap(), before);

    // The test stops importing the invoice; tax.py is deleted.
    repo.write(
        "tests/test_invoice.py",
        "def test_nothing():\n    assert True\n",
    );
    std::fs::remove_file(repo.dir.path().join("repo/shop/billing/tax.py")).unwrap();
    let run = repo.ingest();
    let tx = run.graph_tx_id.expect("the graph changed");
    let edges = repo.edges();
    assert!(!edges.iter().any(|e| e.contains("tax.py")), "{edges:#?}");
    // It no longer imports the invoice (named after it, it still tests it).
    assert!(
        !edges.contains(
            "TestCase:app/tests/test_invoice.py IMPORTS Code:app/shop/billing/invoice.py"
        )
    );
    assert!(
        !edges
            .iter()
            .any(|e| e.starts_with("TestCase:app/tests/test_invoice.py EXERCISES"))
    );
    assert!(
        edges.contains(
            "TestCase:app/tests/test_invoice.py VALIDATES Code:app/shop/billing/invoice.py"
        )
    );
    assert!(edges.contains(
        "TestCase:app/tests/test_invoice.py DECLARES_SYMBOL Symbol:app/tests/test_invoice.py::test_nothing"
    ));

    // A file added later resolves an import written before it existed.
    repo.write("shop/billing/tax.py", "def rate():\n    return 1.1\n");
    repo.ingest();
    assert!(
        repo.edges()
            .contains("Code:app/shop/billing/invoice.py IMPORTS Code:app/shop/billing/tax.py")
    );

    // The run's graph change is one transaction: undo brings it back.
    let history = repo
        .store
        .history(&lore_store::HistoryQuery {
            id: None,
            ..Default::default()
        })
        .unwrap();
    assert!(
        history.items.iter().any(|h| h.transaction.tx_id == tx
            && h.transaction.summary.starts_with("gateway ingest of app"))
    );
}

#[test]
fn nodes_subsystems_search_and_tests_of_read_the_graph() {
    let repo = Repo::new(&files());
    repo.ingest();
    let view = repo.view();

    let node = view
        .node(
            &repo.store,
            "Code:app/shop/billing/invoice.py",
            Relationships::All,
            None,
            &[],
        )
        .unwrap();
    assert_eq!(node.node.label, "Code");
    assert_eq!(node.node.properties["subsystem"], "Billing");
    assert_eq!(node.node.properties["language"], "python");
    assert!(node.relationships.iter().any(|r| r.direction == "incoming"
        && r.predicate == "VALIDATES"
        && r.node == "TestCase:app/tests/test_invoice.py"));
    let outgoing = view
        .node(
            &repo.store,
            "Code:app/shop/billing/invoice.py",
            Relationships::Outgoing,
            Some(1),
            &[],
        )
        .unwrap();
    assert_eq!(outgoing.relationships.len(), 1);
    assert!(outgoing.truncated);

    let symbol = view
        .node(
            &repo.store,
            "Symbol:app/shop/billing/invoice.py::Invoice.total_with_tax",
            Relationships::None,
            None,
            &[],
        )
        .unwrap();
    assert_eq!(symbol.node.properties["kind"], "method");
    assert_eq!(symbol.node.properties["start_line"], 4);

    // Malformed and unknown ids: distinct codes, close candidates named.
    let bad = view
        .node(
            &repo.store,
            "shop/billing/invoice.py",
            Relationships::All,
            None,
            &[],
        )
        .unwrap_err();
    assert_eq!(bad.code, ErrorCode::InvalidIdentifier);
    let missing = view
        .node(
            &repo.store,
            "Code:app/shop/billing/invoices.py",
            Relationships::All,
            None,
            &[],
        )
        .unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound);
    assert!(
        missing.message.contains("Code:app/shop/billing/invoice.py"),
        "{}",
        missing.message
    );

    let billing = view
        .subsystem(&repo.store, "Billing", Some(2), Some(&[]), None, None)
        .unwrap();
    assert_eq!(
        billing.subsystem.properties["description"],
        "Invoices and tax"
    );
    let related: Vec<(&str, usize)> = billing
        .related
        .iter()
        .map(|r| (r.id.as_str(), r.hops))
        .collect();
    assert_eq!(related, vec![("Subsystem:Web", 1), ("Subsystem:Core", 2)]);
    assert_eq!(
        billing.related[1].path,
        vec!["Subsystem:Billing", "Subsystem:Web", "Subsystem:Core"]
    );
    assert_eq!(billing.total_artifacts, 3);
    let paged = view
        .subsystem(&repo.store, "Billing", Some(1), Some(&[]), None, Some(2))
        .unwrap();
    assert_eq!(paged.artifacts.len(), 2);
    let rest = view
        .subsystem(
            &repo.store,
            "Billing",
            Some(1),
            Some(&[]),
            paged.next_cursor.as_deref(),
            Some(2),
        )
        .unwrap();
    assert_eq!(rest.artifacts.len(), 1);
    assert!(rest.next_cursor.is_none());
    let deep = view
        .subsystem(&repo.store, "Billing", Some(6), None, None, None)
        .unwrap_err();
    assert_eq!(deep.code, ErrorCode::InvalidArguments);

    let found = view.search("invoice", None, &[]).unwrap();
    let ids: Vec<&str> = found.results.iter().map(|h| h.id.as_str()).collect();
    assert!(
        ids[..3].contains(&"Code:app/shop/billing/invoice.py"),
        "{ids:?}"
    );
    assert!(
        ids.contains(&"Symbol:app/shop/billing/invoice.py::Invoice"),
        "{ids:?}"
    );

    let tests = view
        .tests_of(&repo.store, "shop/billing/invoice.py", &[])
        .unwrap();
    assert_eq!(tests.direction, "tests");
    assert_eq!(tests.results[0].id, "TestCase:app/tests/test_invoice.py");
    assert!(tests.results[0].symbols.contains(&"Invoice".to_string()));
    let of_method = view
        .tests_of(
            &repo.store,
            "Symbol:app/shop/billing/invoice.py::Invoice.total_with_tax",
            &[],
        )
        .unwrap();
    assert_eq!(
        of_method.results[0].id,
        "TestCase:app/tests/test_invoice.py"
    );
    let covers = view
        .tests_of(&repo.store, "web/src/client.test.ts", &[])
        .unwrap();
    assert_eq!(covers.direction, "covers");
    assert_eq!(covers.results[0].id, "Code:app/web/src/client.ts");
    let go = view
        .tests_of(&repo.store, "Code:app/server/handler.go", &[])
        .unwrap();
    assert_eq!(go.results[0].path, "server/handler_test.go");
}

#[test]
fn packages_re_exporting_names_lead_to_their_module_and_cycles_end() {
    let repo = Repo::new(&[
        (
            "pkg/__init__.py",
            "from .core import Engine\nfrom other import Loop\n",
        ),
        ("pkg/core.py", "class Engine:\n    pass\n"),
        ("other/__init__.py", "from pkg import Loop\n"),
        (
            "tests/test_engine.py",
            "from pkg import Engine, Loop\n\ndef test_it():\n    Engine()\n",
        ),
    ]);
    repo.ingest();
    let edges = repo.edges();
    assert!(
        edges
            .contains("TestCase:app/tests/test_engine.py EXERCISES Symbol:app/pkg/core.py::Engine"),
        "{edges:#?}"
    );
    assert!(edges.contains("TestCase:app/tests/test_engine.py VALIDATES Code:app/pkg/core.py"));
    // The package is imported too.
    assert!(edges.contains("TestCase:app/tests/test_engine.py IMPORTS Code:app/pkg/__init__.py"));
}

#[test]
fn index_files_re_exporting_names_lead_to_the_file_defining_them() {
    let repo = Repo::new(&[
        (
            "src/parser.ts",
            "export function parse(text: string) { return text; }\nexport function tokenize(text: string) { return [text]; }\nexport class Parser {}\n",
        ),
        ("src/ast.ts", "export interface Node { kind: string }\n"),
        ("src/grammar.ts", "export function rules() { return []; }\n"),
        (
            "src/util/strings.ts",
            "export function slugify(s: string) { return s; }\n",
        ),
        ("src/util/index.ts", "export * from './strings';\n"),
        (
            "src/index.ts",
            "export { parse } from './parser';\nexport { tokenize as lex } from './parser.js';\nexport * from './ast';\nexport * from './parser';\nexport * from './util';\nexport * as grammar from './grammar';\nexport function version() { return 1; }\n",
        ),
        (
            "test/parse.test.ts",
            "import { parse, lex, Parser, Node, slugify, grammar, version } from '../src';\ntest('parses', () => expect(parse('x')).toBe('x'));\n",
        ),
        ("lib/helper.js", "export function helper() { return 1; }\n"),
        ("lib/index.js", "export { helper } from './helper.js';\n"),
        (
            "test/helper.test.js",
            "import { helper } from '../lib/index.js';\ntest('helps', () => helper());\n",
        ),
    ]);
    repo.ingest();
    let edges = repo.edges();
    let test = "TestCase:app/test/parse.test.ts";
    for expected in [
        // Named, and renamed: the symbol as its file names it.
        format!("{test} VALIDATES Code:app/src/parser.ts"),
        format!("{test} IMPORTS Code:app/src/parser.ts"),
        format!("{test} EXERCISES Symbol:app/src/parser.ts::parse"),
        format!("{test} EXERCISES Symbol:app/src/parser.ts::tokenize"),
        // `export *`: the module that defines the name.
        format!("{test} EXERCISES Symbol:app/src/parser.ts::Parser"),
        format!("{test} EXERCISES Symbol:app/src/ast.ts::Node"),
        // Through a nested barrel.
        format!("{test} VALIDATES Code:app/src/util/strings.ts"),
        format!("{test} EXERCISES Symbol:app/src/util/strings.ts::slugify"),
        // `export * as grammar`: the whole module.
        format!("{test} VALIDATES Code:app/src/grammar.ts"),
        // The barrel is imported too, and defines what it defines.
        format!("{test} IMPORTS Code:app/src/index.ts"),
        format!("{test} VALIDATES Code:app/src/index.ts"),
        format!("{test} EXERCISES Symbol:app/src/index.ts::version"),
        "Code:app/src/index.ts IMPORTS Code:app/src/util/index.ts".to_string(),
        // JavaScript barrels too.
        "TestCase:app/test/helper.test.js VALIDATES Code:app/lib/helper.js".to_string(),
        "TestCase:app/test/helper.test.js EXERCISES Symbol:app/lib/helper.js::helper".to_string(),
    ] {
        assert!(edges.contains(&expected), "missing {expected}\n{edges:#?}");
    }
    // A name leads only to the file defining it.
    let exercised: Vec<&String> = edges
        .iter()
        .filter(|e| e.starts_with(&format!("{test} EXERCISES")))
        .collect();
    assert_eq!(exercised.len(), 6, "{exercised:#?}");
    assert!(!edges.contains(&format!("{test} VALIDATES Code:app/src/util/index.ts")));
}

#[test]
fn barrels_re_exporting_each_other_end() {
    let repo = Repo::new(&[
        (
            "src/a/index.ts",
            "export * from '../b';\nexport { loop } from '../b';\nexport function fromA() {}\n",
        ),
        (
            "src/b/index.ts",
            "export * from '../a';\nexport { loop } from '../a';\nexport { helper } from './helper';\n",
        ),
        ("src/b/helper.ts", "export function helper() {}\n"),
        (
            "test/cycle.test.ts",
            "import { helper, fromA, loop, missing } from '../src/a';\ntest('ends', () => helper());\n",
        ),
    ]);
    repo.ingest();
    let edges = repo.edges();
    let test = "TestCase:app/test/cycle.test.ts";
    for expected in [
        // Found through the cycle: `export *` of b, then b's named one.
        format!("{test} EXERCISES Symbol:app/src/b/helper.ts::helper"),
        format!("{test} VALIDATES Code:app/src/b/helper.ts"),
        format!("{test} EXERCISES Symbol:app/src/a/index.ts::fromA"),
        format!("{test} VALIDATES Code:app/src/a/index.ts"),
    ] {
        assert!(edges.contains(&expected), "missing {expected}\n{edges:#?}");
    }
    // Names nothing defines lead to no symbol.
    let exercised = edges
        .iter()
        .filter(|e| e.starts_with(&format!("{test} EXERCISES")))
        .count();
    assert_eq!(exercised, 2, "{edges:#?}");
}

#[test]
fn facts_kept_by_an_older_version_are_read_again() {
    let repo = Repo::new(&[
        ("src/parser.ts", "export function parse() {}\n"),
        ("src/index.ts", "export { parse } from './parser';\n"),
        ("test/parse.test.ts", "import { parse } from '../src';\n"),
    ]);
    // Settled files are trusted by their size and time, not read again.
    for path in ["src/parser.ts", "src/index.ts", "test/parse.test.ts"] {
        let file = std::fs::File::options()
            .write(true)
            .open(repo.dir.path().join("repo").join(path))
            .unwrap();
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        file.set_modified(hour_ago).unwrap();
    }
    repo.ingest();
    let exercises = "TestCase:app/test/parse.test.ts EXERCISES Symbol:app/src/parser.ts::parse";
    assert!(repo.edges().contains(exercises));
    // The ledger as a version before re-exports listed their names.
    let path = repo.dir.path().join(".lore/gateway/graph/app.json");
    let mut ledger: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    ledger.as_object_mut().unwrap().remove("facts_version");
    let import = &mut ledger["files"]["src/index.ts"]["imports"][0];
    import.as_object_mut().unwrap().remove("names");
    std::fs::write(&path, serde_json::to_vec(&ledger).unwrap()).unwrap();
    repo.ingest();
    assert!(repo.edges().contains(exercises));
}

#[test]
fn code_that_a_matching_test_validates_ranks_above_code_that_matches_alike() {
    let (_dir, gateway) = graph_support::project(&[
        (
            "billing/invoice.py",
            "class Invoice:\n    def total(self):\n        return sum(self.lines)\n",
        ),
        (
            "billing/ledger.py",
            "class Ledger:\n    def total(self):\n        return sum(self.rows)\n",
        ),
        (
            "tests/test_invoice.py",
            "from billing.invoice import Invoice\n\n\ndef test_discounted_total_rounds_half_up():\n    # a discounted total is rounded half up\n    assert Invoice().total() == 3\n",
        ),
    ]);
    let request = lore_gateway::SearchRequest {
        query: "the discounted total is rounded down".into(),
        ..Default::default()
    };
    let found = gateway.search(&request).unwrap();
    let scoring_of = |path: &str| {
        found
            .results
            .iter()
            .find(|r| r.chunk.artifact_path == path)
            .unwrap_or_else(|| panic!("{path} not found"))
            .scoring
            .clone()
    };
    let invoice = scoring_of("billing/invoice.py");
    let ledger = scoring_of("billing/ledger.py");
    // Both match "total" alike; the test that matches the issue best
    // validates the invoice.
    assert_eq!(invoice.lexical, ledger.lexical);
    let boost = invoice.signals["graph_neighbour"];
    assert!(boost > 1.0 && boost <= 1.25, "{boost}");
    assert!(!ledger.signals.contains_key("graph_neighbour"));
    assert!(invoice.adjusted > ledger.adjusted);

    // The graph is read once and kept until a ledger changes.
    let first = gateway.graph_view().unwrap();
    assert!(std::sync::Arc::ptr_eq(
        &first,
        &gateway.graph_view().unwrap()
    ));
}

#[test]
fn a_python_test_is_linked_to_the_private_module_it_is_named_after() {
    let repo = Repo::new(&[
        ("client/__init__.py", "from ._config import Timeout\n"),
        ("client/_config.py", "class Timeout:\n    pass\n"),
        (
            "tests/test_config.py",
            "import client\n\ndef test_timeout():\n    assert client.Timeout()\n",
        ),
    ]);
    repo.ingest();
    let edges = repo.edges();
    assert!(
        edges.contains("TestCase:app/tests/test_config.py VALIDATES Code:app/client/_config.py"),
        "{edges:#?}"
    );
}

#[test]
fn a_go_module_s_own_packages_resolve_by_its_go_mod_path_the_root_package_too() {
    let repo = Repo::new(&[
        ("go.mod", "module github.com/acme/cobra\n\ngo 1.21\n"),
        ("command.go", "package cobra\n\nfunc Execute() {}\n"),
        ("args.go", "package cobra\n\nfunc ExactArgs() {}\n"),
        (
            "doc/man_docs.go",
            "package doc\n\nimport (\n\t\"github.com/acme/cobra\"\n\t\"github.com/acme/cobra/internal/flags\"\n)\n\nfunc Gen() { cobra.Execute(); flags.Parse() }\n",
        ),
        (
            "internal/flags/parse.go",
            "package flags\n\nfunc Parse() {}\n",
        ),
        // Another module's `flags` package is not this module's.
        (
            "vendorish/flags/other.go",
            "package flags\n\nfunc Other() {}\n",
        ),
    ]);
    repo.ingest();
    let edges = repo.edges();
    for target in ["command.go", "args.go", "internal/flags/parse.go"] {
        let edge = format!("Code:app/doc/man_docs.go IMPORTS Code:app/{target}");
        assert!(edges.contains(&edge), "{edge} missing from {edges:#?}");
    }
    assert!(!edges.contains("Code:app/doc/man_docs.go IMPORTS Code:app/vendorish/flags/other.go"));
}

#[test]
fn a_package_importing_itself_by_name_and_tsconfig_aliases_resolve() {
    let repo = Repo::new(&[
        (
            "package.json",
            "{\"name\": \"zustand\", \"main\": \"./index.js\"}\n",
        ),
        (
            "tsconfig.json",
            "{\n  // aliases\n  \"compilerOptions\": {\n    \"baseUrl\": \".\",\n    \"paths\": { \"@lib/*\": [\"src/lib/*\"], },\n  },\n}\n",
        ),
        (
            "src/vanilla.ts",
            "export function createStore() { return {}; }\n",
        ),
        ("src/index.ts", "export { createStore } from './vanilla';\n"),
        (
            "src/lib/strings.ts",
            "export function slugify(s: string) { return s; }\n",
        ),
        (
            "src/app.ts",
            "import { slugify } from '@lib/strings';\nexport const x = slugify('a');\n",
        ),
        (
            "tests/vanilla.test.ts",
            "import { createStore } from 'zustand/vanilla';\nimport { createStore as c } from 'zustand';\ntest('x', () => createStore());\n",
        ),
    ]);
    repo.ingest();
    let edges = repo.edges();
    for edge in [
        "TestCase:app/tests/vanilla.test.ts VALIDATES Code:app/src/vanilla.ts",
        "TestCase:app/tests/vanilla.test.ts EXERCISES Symbol:app/src/vanilla.ts::createStore",
        "TestCase:app/tests/vanilla.test.ts IMPORTS Code:app/src/index.ts",
        "Code:app/src/app.ts IMPORTS Code:app/src/lib/strings.ts",
    ] {
        assert!(edges.contains(edge), "{edge} missing from {edges:#?}");
    }
}

#[test]
fn rust_crates_resolve_by_their_manifest_name_and_binary_roots_outside_src() {
    let repo = Repo::new(&[
        (
            "Cargo.toml",
            "[package]\nname = \"ripgrep\"\n\n[[bin]]\nname = \"rg\"\npath = \"crates/core/main.rs\"\n\n[workspace]\nmembers = [\"crates/searcher\"]\n",
        ),
        (
            "crates/core/main.rs",
            "mod flags;\nmod search;\nfn main() {}\n",
        ),
        ("crates/core/flags/mod.rs", "pub mod defs;\n"),
        ("crates/core/flags/defs.rs", "pub struct Flag;\n"),
        (
            "crates/core/search.rs",
            "use crate::flags::defs::Flag;\nuse grep_searcher::Searcher;\n\npub fn run(_: Flag, _: Searcher) {}\n",
        ),
        (
            "crates/searcher/Cargo.toml",
            "[package]\nname = \"grep-searcher\"\nversion = \"0.1.0\"\n",
        ),
        ("crates/searcher/src/lib.rs", "pub struct Searcher;\n"),
    ]);
    repo.ingest();
    let edges = repo.edges();
    for edge in [
        "Code:app/crates/core/search.rs IMPORTS Code:app/crates/core/flags/defs.rs",
        "Code:app/crates/core/search.rs IMPORTS Code:app/crates/searcher/src/lib.rs",
    ] {
        assert!(edges.contains(edge), "{edge} missing from {edges:#?}");
    }
}
