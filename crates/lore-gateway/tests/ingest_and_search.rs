//! Ingest and search over a small repository made on the spot: what is
//! skipped and why, incremental re-ingest (changed and deleted files lose
//! their old chunks), filters applied before ranking, and stack traces
//! that lead to their file.

use lore_core::config::{GatewayConfig, GatewayRoot};
use lore_gateway::index::GatewayIndex;
use lore_gateway::ingest::project_files::ProjectFiles;
use lore_gateway::ingest::walk::SkipReason;
use lore_gateway::ingest::{IngestRequest, Root, ingest, last_run, resolve_roots};
use lore_gateway::search::{SearchFilters, SearchRequest, search};

struct Repo {
    dir: tempfile::TempDir,
    config: GatewayConfig,
    roots: Vec<Root>,
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
            max_file_bytes: 64 * 1024,
            ..Default::default()
        };
        let roots = resolve_roots(dir.path(), &config);
        let repo = Repo { dir, config, roots };
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

    fn state(&self) -> std::path::PathBuf {
        self.dir.path().join(".lore/gateway")
    }

    fn ingest(&self, request: IngestRequest) -> lore_gateway::IngestRun {
        let run = ingest(
            &ProjectFiles::at(self.dir.path()),
            &self.state(),
            &self.config,
            &self.roots,
            &request,
            None,
            &mut |_, _| {},
        )
        .unwrap();
        assert!(run.success, "{:?}", run.error);
        run
    }

    fn search(&self, query: &str, filters: SearchFilters) -> Vec<(String, String)> {
        let index = GatewayIndex::open(&self.state().join("index")).unwrap();
        let found = search(
            &index,
            &SearchRequest {
                query: query.into(),
                limit: Some(25),
                filters,
                ..Default::default()
            },
            None,
        )
        .unwrap();
        found
            .results
            .into_iter()
            .map(|r| (r.chunk.artifact_path, r.chunk.artifact_type))
            .collect()
    }
}

fn paths(found: &[(String, String)]) -> Vec<&str> {
    found.iter().map(|(p, _)| p.as_str()).collect()
}

#[test]
fn skipped_files_are_reported_and_ignored_files_never_read() {
    let repo = Repo::new(&[
        (".gitignore", "build/\n*.log\n"),
        (
            "src/billing/invoice.py",
            "def total_with_tax(invoice):\n    return invoice.net * 1.2\n",
        ),
        ("build/generated.py", "def total_with_tax(): pass\n"),
        ("debug.log", "total_with_tax failed\n"),
        ("docs/billing.md", "# Billing\nInvoices carry tax.\n"),
    ]);
    std::fs::write(
        repo.dir.path().join("repo/logo.png"),
        [0x89, b'P', b'N', b'G', 0, 0, 1],
    )
    .unwrap();
    repo.write("data/huge.json", &"x".repeat(70 * 1024));
    #[cfg(unix)]
    std::os::unix::fs::symlink("/etc/hostname", repo.dir.path().join("repo/escape.txt")).unwrap();

    let run = repo.ingest(IngestRequest::default());
    let skipped: Vec<(&str, SkipReason)> = run
        .skipped
        .iter()
        .map(|s| (s.path.as_str(), s.reason))
        .collect();
    assert!(
        skipped.contains(&("logo.png", SkipReason::Binary)),
        "{skipped:?}"
    );
    assert!(
        skipped.contains(&("data/huge.json", SkipReason::TooLarge)),
        "{skipped:?}"
    );
    #[cfg(unix)]
    assert!(
        skipped.contains(&("escape.txt", SkipReason::OutsideRoot)),
        "{skipped:?}"
    );
    assert_eq!(run.artifact_counts.get("code"), Some(&1));
    assert_eq!(run.artifact_counts.get("doc"), Some(&1));
    let found = repo.search("total_with_tax", SearchFilters::default());
    assert_eq!(found[0].0, "src/billing/invoice.py");
    assert!(
        found
            .iter()
            .all(|(p, _)| !p.starts_with("build/") && p != "debug.log"),
        "ignored files stay out: {found:?}"
    );
    let recorded = last_run(&repo.state(), None).unwrap();
    assert_eq!(recorded.run_id, run.run_id);
}

#[test]
fn reingest_touches_only_changes_and_drops_stale_chunks() {
    let repo = Repo::new(&[
        (
            "pkg/orders.py",
            "def quokka_order(order):\n    courier.dispatch(order)\n",
        ),
        (
            "pkg/refunds.py",
            "def platypus_refund(payment):\n    ledger.reverse(payment)\n",
        ),
        ("pkg/users.py", "def rename_user(user):\n    user.save()\n"),
    ]);
    let first = repo.ingest(IngestRequest::default());
    assert_eq!((first.files_changed, first.files_removed), (3, 0));
    let chunks = first.chunk_count;

    // Nothing changed: nothing re-chunked.
    let again = repo.ingest(IngestRequest::default());
    assert_eq!((again.files_changed, again.files_removed), (0, 0));
    assert_eq!(again.chunk_count, chunks);

    // One changed, one deleted.
    repo.write(
        "pkg/orders.py",
        "def wombat_parcel(parcel):\n    courier.dispatch(parcel)\n",
    );
    std::fs::remove_file(repo.dir.path().join("repo/pkg/refunds.py")).unwrap();
    let third = repo.ingest(IngestRequest::default());
    assert_eq!((third.files_changed, third.files_removed), (1, 1));
    assert!(
        repo.search("quokka", SearchFilters::default()).is_empty(),
        "old text gone"
    );
    assert_eq!(
        paths(&repo.search("wombat", SearchFilters::default())),
        vec!["pkg/orders.py"]
    );
    assert!(
        repo.search("platypus", SearchFilters::default()).is_empty(),
        "deleted file gone"
    );

    // `paths` ingests just the files named, deleted ones included.
    repo.write(
        "pkg/users.py",
        "def echidna_account(account):\n    account.save()\n",
    );
    repo.write("pkg/new.py", "def numbat():\n    pass\n");
    let targeted = repo.ingest(IngestRequest {
        paths: vec!["pkg/users.py".into(), "pkg/missing.py".into()],
        ..Default::default()
    });
    assert_eq!(targeted.files_seen, 1);
    assert_eq!(
        paths(&repo.search("echidna", SearchFilters::default())),
        vec!["pkg/users.py"]
    );
    assert!(
        repo.search("numbat", SearchFilters::default()).is_empty(),
        "not named, not read"
    );

    // A dry run reads and counts but writes nothing.
    std::fs::remove_file(repo.dir.path().join("repo/pkg/users.py")).unwrap();
    let dry = repo.ingest(IngestRequest {
        dry_run: true,
        ..Default::default()
    });
    assert_eq!(dry.files_removed, 1);
    assert_eq!(
        paths(&repo.search("echidna", SearchFilters::default())),
        vec!["pkg/users.py"]
    );
}

#[test]
fn filters_apply_before_ranking_so_nothing_is_cut() {
    // 400 documents that match "pipeline" strongly, one test that matches
    // it once: a top-N cut before filtering would lose the test.
    let mut files: Vec<(String, String)> = (0..400)
        .map(|n| {
            (
                format!("docs/pipeline_{n}.md"),
                format!("# Pipeline {n}\npipeline pipeline pipeline stages of the pipeline\n"),
            )
        })
        .collect();
    files.push((
        "tests/test_stages.py".into(),
        format!(
            "def test_stages():\n    # the pipeline\n{}\n",
            "    assert run()\n".repeat(30)
        ),
    ));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let repo = Repo::new(&refs);
    repo.ingest(IngestRequest::default());
    let tests = repo.search(
        "pipeline",
        SearchFilters {
            artifact_types: vec!["test".into()],
            ..Default::default()
        },
    );
    assert_eq!(paths(&tests), vec!["tests/test_stages.py"]);
    let in_docs = repo.search(
        "pipeline",
        SearchFilters {
            namespaces: vec!["docs".into()],
            symbol_languages: vec!["python".into()],
            ..Default::default()
        },
    );
    assert!(in_docs.is_empty(), "filters combine with AND: {in_docs:?}");
}

#[test]
fn a_stack_trace_leads_to_the_file_it_names() {
    let repo = Repo::new(&[
        (
            "app/session.py",
            "def request(method, url):\n    adapter = self.get_adapter(url)\n    return adapter.send(method)\n",
        ),
        (
            "app/adapters.py",
            "class HTTPAdapter:\n    def send(self, request):\n        raise ConnectionError(request)\n",
        ),
        (
            "docs/errors.md",
            "# Errors\nA ConnectionError is raised when send fails; the adapter and the request are logged.\n",
        ),
    ]);
    repo.ingest(IngestRequest::default());
    let trace = "ConnectionError when sending\nTraceback (most recent call last):\n  File \"/srv/venv/lib/python3.11/site-packages/app/adapters.py\", line 3, in send\n    raise ConnectionError(request)";
    let found = repo.search(trace, SearchFilters::default());
    assert_eq!(found[0].0, "app/adapters.py", "{found:?}");
}

#[test]
fn a_missing_root_fails_the_run_and_says_so() {
    let repo = Repo::new(&[]);
    std::fs::remove_dir_all(repo.dir.path().join("repo")).unwrap();
    let run = ingest(
        &ProjectFiles::at(repo.dir.path()),
        &repo.state(),
        &repo.config,
        &repo.roots,
        &IngestRequest::default(),
        None,
        &mut |_, _| {},
    )
    .unwrap();
    assert!(!run.success);
    assert!(run.error.unwrap().contains("not a folder"));
    assert!(
        !last_run(&repo.state(), None).unwrap().success,
        "a failed run is recorded too"
    );
}

fn search_full(repo: &Repo, query: &str, filters: SearchFilters) -> lore_gateway::SearchResponse {
    let index = GatewayIndex::open(&repo.state().join("index")).unwrap();
    search(
        &index,
        &SearchRequest {
            query: query.into(),
            limit: Some(25),
            filters,
            ..Default::default()
        },
        None,
    )
    .unwrap()
}

const INVOICE_PY: &str = "class Invoice:\n    def total_with_tax(self):\n        return self.net * 1.2\n\n\ndef print_invoice(invoice):\n    return str(invoice.total_with_tax())\n";

#[test]
fn chunks_carry_their_symbols_and_symbol_filters_find_definitions() {
    let repo = Repo::new(&[
        ("billing/invoice.py", INVOICE_PY),
        (
            "billing/report.py",
            "from billing.invoice import Invoice\n\ndef report(invoice: Invoice):\n    return invoice.total_with_tax()\n",
        ),
        (
            "web/src/client.ts",
            "export interface InvoiceClient {\n  total(id: string): Promise<number>;\n}\n\nexport class HttpInvoiceClient implements InvoiceClient {\n  async total(id: string) { return 1; }\n}\n",
        ),
    ]);
    repo.ingest(IngestRequest::default());

    // The definition, named by its qualified name, in any case.
    let found = search_full(
        &repo,
        "invoice total",
        SearchFilters {
            symbols: vec!["invoice.TOTAL_WITH_TAX".into()],
            ..Default::default()
        },
    );
    assert_eq!(found.results.len(), 1);
    let chunk = &found.results[0].chunk;
    assert_eq!(chunk.artifact_path, "billing/invoice.py");
    assert_eq!(chunk.chunk_id, "app/billing/invoice.py::Invoice");
    let names: Vec<(&str, &str, u64, u64)> = chunk
        .symbols
        .iter()
        .map(|s| {
            (
                s.qualified_name.as_str(),
                s.kind.as_str(),
                s.start_line,
                s.end_line,
            )
        })
        .collect();
    assert_eq!(
        names,
        vec![
            ("Invoice", "class", 1, 3),
            ("Invoice.total_with_tax", "method", 2, 3),
            ("print_invoice", "function", 6, 7),
        ]
    );
    assert_eq!(
        chunk.symbols[1].id,
        "Symbol:app/billing/invoice.py::Invoice.total_with_tax"
    );

    // A bare name finds the method too; kinds narrow to interfaces.
    let bare = search_full(
        &repo,
        "total",
        SearchFilters {
            symbols: vec!["total".into()],
            ..Default::default()
        },
    );
    assert_eq!(bare.results.len(), 1);
    assert_eq!(bare.results[0].chunk.artifact_path, "web/src/client.ts");
    let interfaces = search_full(
        &repo,
        "invoice client total",
        SearchFilters {
            symbol_kinds: vec!["interface".into()],
            ..Default::default()
        },
    );
    assert_eq!(interfaces.results.len(), 1);
    assert!(
        interfaces.results[0]
            .chunk
            .symbols
            .iter()
            .any(|s| s.qualified_name == "InvoiceClient" && s.kind == "interface")
    );

    // A query naming the method ranks its definition above its callers.
    let ranked = search_full(
        &repo,
        "total_with_tax returns wrong value",
        SearchFilters::default(),
    );
    assert_eq!(ranked.results[0].chunk.artifact_path, "billing/invoice.py");
    assert!(
        ranked.results[0]
            .scoring
            .signals
            .contains_key("defines_symbol")
    );

    // Renamed: the old name no longer finds anything.
    repo.write(
        "billing/invoice.py",
        &INVOICE_PY.replace("total_with_tax", "gross_total"),
    );
    repo.ingest(IngestRequest::default());
    let gone = search_full(
        &repo,
        "invoice total",
        SearchFilters {
            symbols: vec!["Invoice.total_with_tax".into()],
            ..Default::default()
        },
    );
    assert!(gone.results.is_empty());
}

#[test]
fn tags_come_from_the_catalog_and_front_matter() {
    let repo = Repo::new(&[
        ("billing/invoice.py", INVOICE_PY),
        (
            "docs/tax.md",
            "---\ntitle: Tax\ntags: [finance, Integration]\n---\n# Tax rules\nInvoices carry tax.\n",
        ),
        ("docs/other.md", "# Other\nInvoices elsewhere.\n"),
        (
            ".metadata/subsystems.json",
            r#"{"Billing": {"paths": ["billing/**"], "tags": ["finance"]}}"#,
        ),
    ]);
    repo.ingest(IngestRequest::default());
    let found = search_full(
        &repo,
        "invoice",
        SearchFilters {
            tags: vec!["finance".into()],
            ..Default::default()
        },
    );
    let mut paths: Vec<&str> = found
        .results
        .iter()
        .map(|r| r.chunk.artifact_path.as_str())
        .collect();
    paths.sort();
    assert_eq!(paths, vec!["billing/invoice.py", "docs/tax.md"]);
    let doc = found
        .results
        .iter()
        .find(|r| r.chunk.artifact_path == "docs/tax.md")
        .unwrap();
    assert_eq!(doc.chunk.tags, vec!["finance", "Integration"]);
}

#[test]
fn a_definition_in_a_language_without_a_grammar_ranks_above_its_callers() {
    // Ruby has no outline here: the chunk's definitions are read from its
    // keywords, and the file defining the method wins over the files that
    // only call it more often.
    let repo = Repo::new(&[
        (
            "lib/billing/invoice.rb",
            "class Invoice\n  def total_with_tax\n    net * 1.2\n  end\nend\n",
        ),
        (
            "lib/billing/report.rb",
            "class Report\n  def lines(invoices)\n    invoices.map { |i| i.total_with_tax }\n    invoices.sum(&:total_with_tax) + invoices.first.total_with_tax\n  end\nend\n",
        ),
    ]);
    repo.ingest(IngestRequest::default());
    let found = search_full(
        &repo,
        "Invoice total_with_tax is wrong for reduced rates",
        SearchFilters::default(),
    );
    let first = &found.results[0];
    assert_eq!(first.chunk.artifact_path, "lib/billing/invoice.rb");
    assert_eq!(first.scoring.signals.get("defines_symbol"), Some(&1.5));
    let caller = found
        .results
        .iter()
        .find(|r| r.chunk.artifact_path == "lib/billing/report.rb")
        .expect("the caller is found too");
    assert!(!caller.scoring.signals.contains_key("defines_symbol"));
    // The results carry their stored text, read after ranking.
    assert!(first.chunk.text.contains("def total_with_tax"));
}

#[test]
fn an_index_a_search_rebuilt_is_filled_again_by_the_next_ingest() {
    // An index of an older format is rebuilt empty by whoever opens it
    // first — here a search. The ledger then lists files the index does
    // not hold: the next ingest must read them all again.
    let repo = Repo::new(&[("billing/invoice.py", INVOICE_PY)]);
    repo.ingest(IngestRequest::default());
    std::fs::write(repo.state().join("index/FORMAT"), "lore-gateway-0").unwrap();
    let empty = search_full(&repo, "invoice total", SearchFilters::default());
    assert!(empty.results.is_empty());
    assert!(empty.metadata.warnings.iter().any(|w| w.contains("ingest")));
    let run = repo.ingest(IngestRequest::default());
    assert_eq!(run.files_changed, 1, "{run:?}");
    assert!(run.chunk_count > 0);
    let found = search_full(&repo, "invoice total", SearchFilters::default());
    assert_eq!(found.results[0].chunk.artifact_path, "billing/invoice.py");
}
