//! Localisation benchmark: for each real issue of `localisation/issues.jsonl`,
//! does the gateway's search put a file that the issue's fix changed near
//! the top, when the query is the issue as its reporter wrote it?
//!
//! Every issue's repository is checked out at the fix's parent commit (from
//! a bare mirror, `git archive | tar -x`), ingested exactly as a project
//! would (the `Gateway` service, its code graph in the project's store),
//! and searched with the issue's title and body. The ranked chunks
//! become a ranked list of distinct files (first occurrence order), scored
//! by file-level Acc@1, Acc@5 and MRR. The same run scores a plain BM25
//! baseline: one tantivy document per text file of the same checkout (the
//! files the gateway reads), body and path as text with tantivy's default
//! tokenizer, every query term OR'ed, no boosts.
//!
//! `cargo bench -p lore-gateway --bench localisation`
//! - `LORE_BENCH_MIRRORS`: where the mirrors are (default `/work/.mirror`),
//!   a repository `owner/name` at `<mirrors>/<owner>+<name>/repo`;
//! - `LORE_BENCH_ONLY=<substring>`: only the issues whose id contains it;
//! - `LORE_BENCH_VERBOSE=1`: also print each system's first five files.
//!
//! See `localisation/README.md` for how the set was built.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use std::sync::Arc;

#[path = "common/mirror.rs"]
mod mirror;

use lore_core::project::Project;
use lore_gateway::Gateway;
use lore_gateway::index::GatewayIndex;
use lore_gateway::ingest::IngestRequest;
use lore_gateway::search::{MAX_QUERY_CHARS, SearchRequest, check_request, search};
use lore_gateway::walk;
use lore_store::feed::StoreHandle;
use serde::Deserialize;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, STORED, Schema, TEXT, Value};
use tantivy::{Index, TantivyDocument, Term};

/// Files larger than this are skipped by both systems.
const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Results asked of the gateway (its maximum), and files kept of BM25.
const LIMIT: usize = 25;
/// How many of the first files `LORE_BENCH_VERBOSE` prints.
const SHOWN: usize = 5;

/// One issue of the set (the fields the benchmark reads).
#[derive(Debug, Deserialize)]
struct Issue {
    id: String,
    repo: String,
    base_commit: String,
    language: String,
    title: String,
    body: String,
    gold: Vec<String>,
}

impl Issue {
    /// The query: the issue's title and body, cut to what the gateway takes.
    fn query(&self) -> String {
        let text = format!("{}\n\n{}", self.title, self.body);
        text.chars().take(MAX_QUERY_CHARS).collect()
    }

    /// The 1-based rank of the first gold file in `files`.
    fn rank(&self, files: &[String]) -> Option<usize> {
        files
            .iter()
            .position(|f| self.gold.iter().any(|g| g == f))
            .map(|i| i + 1)
    }
}

/// What one system found for one issue.
struct Outcome {
    rank: Option<usize>,
    top: Vec<String>,
}

/// One scored issue.
struct Scored {
    id: String,
    language: String,
    gateway: Outcome,
    bm25: Outcome,
    /// The gateway's lexical ranking without the graph's signals.
    no_graph: Outcome,
}

/// Acc@1, Acc@5 and MRR over a set of ranks.
#[derive(Default)]
struct Metrics {
    n: usize,
    at1: usize,
    at5: usize,
    reciprocal: f64,
}

impl Metrics {
    fn add(&mut self, rank: Option<usize>) {
        self.n += 1;
        if let Some(rank) = rank {
            if rank == 1 {
                self.at1 += 1;
            }
            if rank <= 5 {
                self.at5 += 1;
            }
            self.reciprocal += 1.0 / rank as f64;
        }
    }

    fn row(&self, slice: &str, system: &str) -> String {
        let n = self.n.max(1) as f64;
        format!(
            "| {slice} | {system} | {} | {:.3} | {:.3} | {:.3} |",
            self.n,
            self.at1 as f64 / n,
            self.at5 as f64 / n,
            self.reciprocal / n
        )
    }
}

fn main() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/localisation/issues.jsonl");
    let mirrors = PathBuf::from(
        std::env::var("LORE_BENCH_MIRRORS").unwrap_or_else(|_| "/work/.mirror".to_string()),
    );
    let only = std::env::var("LORE_BENCH_ONLY").ok();
    let verbose = std::env::var("LORE_BENCH_VERBOSE").is_ok_and(|v| !v.is_empty() && v != "0");

    let issues = read_issues(&data);
    let total = issues.len();
    let issues: Vec<Issue> = issues
        .into_iter()
        .filter(|i| only.as_deref().is_none_or(|s| i.id.contains(s)))
        .collect();
    println!(
        "localisation: {} of {total} issues selected, mirrors in {}",
        issues.len(),
        mirrors.display()
    );

    // One checkout, ingest and BM25 index per (repository, base commit).
    let mut groups: BTreeMap<(String, String), Vec<Issue>> = BTreeMap::new();
    for issue in issues {
        groups
            .entry((issue.repo.clone(), issue.base_commit.clone()))
            .or_default()
            .push(issue);
    }

    let mut scored: Vec<Scored> = Vec::new();
    let mut missing: BTreeMap<String, usize> = BTreeMap::new();
    let mut failed = 0usize;
    let started = Instant::now();
    for ((repo, base), issues) in &groups {
        let mirror = mirrors.join(repo.replace('/', "+")).join("repo");
        if !mirror.is_dir() {
            *missing.entry(repo.clone()).or_default() += issues.len();
            continue;
        }
        match score_checkout(&mirror, base, issues, verbose) {
            Ok(mut found) => scored.append(&mut found),
            Err(e) => {
                eprintln!("localisation: {repo} at {base}: {e}; its issues are skipped");
                failed += issues.len();
            }
        }
    }

    for (repo, n) in &missing {
        println!(
            "localisation: no mirror of {repo} (looked for {}): {n} issue(s) skipped",
            mirrors.join(repo.replace('/', "+")).join("repo").display()
        );
    }
    let skipped: usize = missing.values().sum::<usize>() + failed;
    println!(
        "localisation: scored {} issue(s), skipped {skipped}, in {:.1} s",
        scored.len(),
        started.elapsed().as_secs_f64()
    );
    println!();
    println!("{}", summary(&scored));
}

/// Reads the set, one JSON object a line.
fn read_issues(path: &Path) -> Vec<Issue> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1))
        })
        .collect()
}

/// Checks `base` out of `mirror`, ingests it, and scores every issue of it
/// with both systems.
fn score_checkout(
    mirror: &Path,
    base: &str,
    issues: &[Issue],
    verbose: bool,
) -> Result<Vec<Scored>, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("temporary folder: {e}"))?;
    let root = dir.path().join("repo");
    std::fs::create_dir_all(&root).map_err(|e| format!("temporary folder: {e}"))?;
    let absent = mirror::checkout(mirror, base, &root)?;
    if !absent.is_empty() {
        println!(
            "localisation: {} file(s) of {base} are absent from the mirror and left out: {}",
            absent.len(),
            absent.join(", ")
        );
    }

    // The gateway, set up as a project would (one root named after the
    // repo, the code graph in the project's store).
    std::fs::write(
        dir.path().join("lore.yaml"),
        format!(
            "gateway:\n  roots:\n    - path: repo\n      name: repo\n  max_file_bytes: {MAX_FILE_BYTES}\n"
        ),
    )
    .map_err(|e| format!("lore.yaml: {e}"))?;
    let project = Project::load(dir.path()).map_err(|e| format!("lore.yaml: {e}"))?;
    let gateway = Gateway::for_project(&project)
        .with_store(Arc::new(StoreHandle::sqlite(project.store_path())));
    let run = gateway
        .ingest(&IngestRequest::default(), &mut |_, _| {})
        .map_err(|e| format!("ingest: {e}"))?;
    if !run.success {
        return Err(format!("ingest failed: {:?}", run.error));
    }

    let lexical = GatewayIndex::open(&dir.path().join(".lore/gateway/index"))
        .map_err(|e| format!("index: {e}"))?;
    let baseline = Bm25::build(&root).map_err(|e| format!("bm25: {e}"))?;

    let mut out = Vec::with_capacity(issues.len());
    for issue in issues {
        let query = issue.query();
        let request = SearchRequest {
            query,
            limit: Some(LIMIT),
            ..Default::default()
        };
        check_request(&request).map_err(|e| format!("{}: {e}", issue.id))?;
        let found = gateway
            .search(&request)
            .map_err(|e| format!("{}: {e}", issue.id))?;
        let gateway_files = distinct(found.results.into_iter().map(|r| r.chunk.artifact_path));
        let no_graph =
            search(&lexical, &request, None).map_err(|e| format!("{}: {e}", issue.id))?;
        let no_graph = distinct(no_graph.results.into_iter().map(|r| r.chunk.artifact_path));
        let no_graph = Outcome {
            rank: issue.rank(&no_graph),
            top: Vec::new(),
        };
        let bm25_files = baseline
            .search(&request.query)
            .map_err(|e| format!("{}: bm25: {e}", issue.id))?;

        let gateway = Outcome {
            rank: issue.rank(&gateway_files),
            top: gateway_files.into_iter().take(SHOWN).collect(),
        };
        let bm25 = Outcome {
            rank: issue.rank(&bm25_files),
            top: bm25_files.into_iter().take(SHOWN).collect(),
        };
        println!(
            "{:<40} gateway {:>2}  bm25 {:>2}  gateway top: {}",
            issue.id,
            shown(gateway.rank),
            shown(bm25.rank),
            gateway.top.first().map_or("(none)", String::as_str)
        );
        if verbose {
            println!("    gold:    {}", issue.gold.join(", "));
            println!("    gateway: {}", gateway.top.join(", "));
            println!("    bm25:    {}", bm25.top.join(", "));
        }
        out.push(Scored {
            id: issue.id.clone(),
            language: issue.language.clone(),
            gateway,
            bm25,
            no_graph,
        });
    }
    Ok(out)
}

/// The distinct paths, in first-occurrence order.
fn distinct(paths: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen = HashSet::new();
    paths
        .into_iter()
        .filter(|p| seen.insert(p.clone()))
        .collect()
}

fn shown(rank: Option<usize>) -> String {
    rank.map_or_else(|| "-".to_string(), |r| r.to_string())
}

/// The plain BM25 baseline: one document per text file, in RAM.
struct Bm25 {
    index: Index,
    path: Field,
    body: Field,
}

impl Bm25 {
    /// Indexes every text file the gateway's walk keeps under `root`.
    fn build(root: &Path) -> tantivy::Result<Bm25> {
        let mut schema = Schema::builder();
        let path = schema.add_text_field("path", TEXT | STORED);
        let body = schema.add_text_field("body", TEXT);
        let index = Index::create_in_ram(schema.build());
        let mut writer = index.writer_with_num_threads(1, 100_000_000)?;
        for file in walk::walk(root, MAX_FILE_BYTES).files {
            let Ok(text) = walk::read_text(&file.absolute) else {
                continue;
            };
            let mut doc = TantivyDocument::default();
            doc.add_text(path, &file.path);
            doc.add_text(body, &text);
            writer.add_document(doc)?;
        }
        writer.commit()?;
        Ok(Bm25 { index, path, body })
    }

    /// The files best matching `text`, every distinct term OR'ed over body
    /// and path.
    fn search(&self, text: &str) -> tantivy::Result<Vec<String>> {
        let mut analyzer = self.index.tokenizer_for_field(self.body)?;
        let mut terms: Vec<String> = Vec::new();
        let mut seen = HashSet::new();
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            let term = stream.token().text.clone();
            if seen.insert(term.clone()) {
                terms.push(term);
            }
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::with_capacity(terms.len() * 2);
        for term in &terms {
            for field in [self.body, self.path] {
                clauses.push((
                    Occur::Should,
                    Box::new(TermQuery::new(
                        Term::from_field_text(field, term),
                        IndexRecordOption::WithFreqs,
                    )),
                ));
            }
        }
        if clauses.is_empty() {
            return Ok(Vec::new());
        }
        let query = BooleanQuery::new(clauses);
        let reader = self.index.reader()?;
        let searcher = reader.searcher();
        let top = searcher.search(&query, &TopDocs::with_limit(LIMIT).order_by_score())?;
        let mut files = Vec::with_capacity(top.len());
        for (_, address) in top {
            let doc: TantivyDocument = searcher.doc(address)?;
            if let Some(p) = doc.get_first(self.path).and_then(|v| v.as_str()) {
                files.push(p.to_string());
            }
        }
        Ok(files)
    }
}

const GATEWAY: &str = "gateway (lexical + graph)";
const NO_GRAPH: &str = "gateway without graph signals";

/// The markdown summary: per language and overall, every system.
fn summary(scored: &[Scored]) -> String {
    let mut slices: BTreeMap<String, (Metrics, Metrics, Metrics)> = BTreeMap::new();
    let mut all = (Metrics::default(), Metrics::default(), Metrics::default());
    for s in scored {
        let entry = slices.entry(s.language.clone()).or_default();
        entry.0.add(s.gateway.rank);
        entry.1.add(s.bm25.rank);
        entry.2.add(s.no_graph.rank);
        all.0.add(s.gateway.rank);
        all.1.add(s.bm25.rank);
        all.2.add(s.no_graph.rank);
    }
    let mut out = String::new();
    let _ = writeln!(out, "| slice | system | n | Acc@1 | Acc@5 | MRR |");
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|");
    for (language, (gateway, bm25, no_graph)) in &slices {
        let _ = writeln!(out, "{}", gateway.row(language, GATEWAY));
        let _ = writeln!(out, "{}", no_graph.row(language, NO_GRAPH));
        let _ = writeln!(out, "{}", bm25.row(language, "BM25 whole files"));
    }
    let _ = writeln!(out, "{}", all.0.row("all", GATEWAY));
    let _ = writeln!(out, "{}", all.2.row("all", NO_GRAPH));
    let _ = write!(out, "{}", all.1.row("all", "BM25 whole files"));
    let misses: Vec<&str> = scored
        .iter()
        .filter(|s| s.gateway.rank.is_none_or(|r| r > 5))
        .map(|s| s.id.as_str())
        .collect();
    if !misses.is_empty() {
        let _ = write!(
            out,
            "\n\ngateway misses (no gold file in its first 5 files): {}",
            misses.join(", ")
        );
    }
    out
}
