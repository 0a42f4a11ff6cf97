//! Localisation benchmark: for each real issue of the localisation set
//! (`localisation/*.jsonl`), does the gateway's search put a file that the
//! issue's fix changed near the top, when the query is the issue as its
//! reporter wrote it?
//!
//! Every issue's repository is checked out at the fix's parent commit (from
//! a bare mirror, `git archive | tar -x`), ingested exactly as a project
//! would (the `Gateway` service, its code graph in the project's store),
//! and searched with the issue's title and body, `filters.artifact_types:
//! ["code"]` (the reported configuration) and without filters. The ranked
//! chunks become a ranked list of distinct files (first occurrence order),
//! scored by file-level Acc@1, Acc@5 and MRR. The same run scores a plain
//! BM25 baseline over whole source files, tests excluded: one tantivy
//! document per file of the same checkout that the gateway reads, has a
//! source extension of the four language families and is not a test
//! ([`is_candidate`]), body and path as text with tantivy's default
//! tokenizer, every query term OR'ed, no boosts.
//!
//! The set has a development split (`issues.jsonl`, `dev-extra.jsonl`) and a
//! held-out split (`heldout.jsonl`), reported apart (`/work/shared/EVALUATION.md`:
//! tune on development, report held-out, never study a held-out miss).
//!
//! `cargo bench -p lore-gateway --bench localisation`
//! - `LORE_BENCH_MIRRORS`: where the mirrors are (default `/work/.mirror`),
//!   a repository `owner/name` at `<mirrors>/<owner>+<name>/repo`;
//! - `LORE_BENCH_SPLIT=dev|heldout|all`: which split to run (default all;
//!   `dev` never reads `heldout.jsonl`);
//! - `LORE_BENCH_ONLY=<substring>`: only the issues whose id contains it;
//! - `LORE_BENCH_VERBOSE=1`: also print each system's first five files, for
//!   development issues only (refused when a held-out issue is selected);
//! - `LORE_BENCH_DUMP=<file>`: append every result of the gateway's searches
//!   of development issues (chunk id and score, in order) to the file, to
//!   check that two builds rank alike (`diff` the files).
//!
//! Held-out issues print no id and no file, only their ranks.
//!
//! See `localisation/README.md` for how the set was built.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

#[path = "common/mirror.rs"]
mod mirror;

use lore_core::project::Project;
use lore_gateway::Gateway;
use lore_gateway::index::GatewayIndex;
use lore_gateway::ingest::IngestRequest;
use lore_gateway::ingest::walk;
use lore_gateway::search::{MAX_QUERY_CHARS, SearchFilters, SearchRequest, check_request, search};
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

/// The set's files and their split. Two files rather than a field, so that
/// a development run never opens the held-out one.
const FILES: [(&str, Split); 3] = [
    ("issues.jsonl", Split::Dev),
    ("dev-extra.jsonl", Split::Dev),
    ("heldout.jsonl", Split::Heldout),
];

/// The language families figures are reported by, in the order printed.
const FAMILIES: [&str; 4] = ["python", "typescript/javascript", "go", "rust"];

/// Source extensions of the four families: what "whole source files" means
/// for the baseline (the gold rules' list, `build_tools/goldrules.py`).
const SOURCE_EXTENSIONS: [&str; 11] = [
    "py", "pyi", "ts", "tsx", "js", "mjs", "cjs", "mts", "cts", "go", "rs",
];

/// Folders of tests and test support (the test part of the gold rules).
const TEST_FOLDERS: [&str; 18] = [
    "test",
    "tests",
    "__tests__",
    "testing",
    "runtime-tests",
    "testdata",
    "test-types",
    "type-tests",
    "typetests",
    "integration",
    "e2e",
    "fixtures",
    "fixture",
    "__fixtures__",
    "mocks",
    "__mocks__",
    "snapshots",
    "__snapshots__",
];

/// The part of the set an issue belongs to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
enum Split {
    /// Look at its misses, tune on it.
    Dev,
    /// Report a figure, never study a miss. The default, so that an issue
    /// whose split was not set is hidden rather than shown.
    #[default]
    Heldout,
}

impl Split {
    fn as_str(self) -> &'static str {
        match self {
            Split::Dev => "dev",
            Split::Heldout => "heldout",
        }
    }

    /// What a section of the report says the split is made of.
    fn files(self) -> String {
        let names: Vec<&str> = FILES
            .iter()
            .filter(|(_, s)| *s == self)
            .map(|(name, _)| *name)
            .collect();
        names.join(" + ")
    }
}

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
    /// The split the line declares (absent in `issues.jsonl`: development).
    #[serde(rename = "split", default)]
    declared: Option<String>,
    /// The split of the file it was read from.
    #[serde(skip)]
    split: Split,
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

    /// Its language family (TypeScript and JavaScript are one).
    fn family(&self) -> &'static str {
        match self.language.as_str() {
            "python" => FAMILIES[0],
            "typescript" | "javascript" => FAMILIES[1],
            "go" => FAMILIES[2],
            "rust" => FAMILIES[3],
            _ => "other",
        }
    }
}

/// What one system found for one issue.
struct Outcome {
    rank: Option<usize>,
    top: Vec<String>,
}

impl Outcome {
    fn of(issue: &Issue, files: Vec<String>) -> Outcome {
        Outcome {
            rank: issue.rank(&files),
            top: files.into_iter().take(SHOWN).collect(),
        }
    }
}

/// One scored issue.
struct Scored {
    id: String,
    split: Split,
    family: &'static str,
    /// The gateway with `artifact_types: ["code"]` (the reported row).
    code: Outcome,
    /// The gateway without filters.
    unfiltered: Outcome,
    /// The code-filtered lexical ranking without the graph's signals.
    no_graph: Outcome,
    bm25: Outcome,
    /// Of the code-filtered gateway's first five files, how many the
    /// baseline's candidate rule leaves out (tests, test support, other
    /// languages).
    outside: usize,
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

/// What the environment asks of the run.
struct Options {
    mirrors: PathBuf,
    only: Option<String>,
    verbose: bool,
    splits: Vec<Split>,
}

/// Stops the run with a message (a refused or malformed setting).
fn refuse(message: &str) -> ! {
    eprintln!("localisation: {message}");
    std::process::exit(2)
}

fn options() -> Options {
    let splits = match std::env::var("LORE_BENCH_SPLIT").as_deref() {
        Err(_) | Ok("" | "all") => vec![Split::Dev, Split::Heldout],
        Ok("dev") => vec![Split::Dev],
        Ok("heldout") => vec![Split::Heldout],
        Ok(other) => refuse(&format!(
            "LORE_BENCH_SPLIT={other} is not one of dev, heldout, all"
        )),
    };
    Options {
        mirrors: PathBuf::from(
            std::env::var("LORE_BENCH_MIRRORS").unwrap_or_else(|_| "/work/.mirror".to_string()),
        ),
        only: std::env::var("LORE_BENCH_ONLY").ok(),
        verbose: std::env::var("LORE_BENCH_VERBOSE").is_ok_and(|v| !v.is_empty() && v != "0"),
        splits,
    }
}

fn main() {
    let options = options();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/localisation");
    let mut issues = Vec::new();
    for (name, split) in FILES {
        if options.splits.contains(&split) {
            issues.extend(read_issues(&dir.join(name), split));
        }
    }
    let total = issues.len();
    let issues: Vec<Issue> = issues
        .into_iter()
        .filter(|i| options.only.as_deref().is_none_or(|s| i.id.contains(s)))
        .collect();
    let held_out = issues.iter().filter(|i| i.split == Split::Heldout).count();
    if options.verbose && held_out > 0 {
        refuse(&format!(
            "LORE_BENCH_VERBOSE prints each issue's files, and the selection holds {held_out} \
             held-out issue(s), whose misses must not be studied (EVALUATION.md); \
             set LORE_BENCH_SPLIT=dev"
        ));
    }
    let splits: Vec<&str> = options.splits.iter().map(|s| s.as_str()).collect();
    println!(
        "localisation: split {}, {} of {total} issues selected ({held_out} held-out), mirrors in {}",
        splits.join("+"),
        issues.len(),
        options.mirrors.display()
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
    // Issues skipped, per split: (no mirror, checkout or ingest failed).
    let mut skipped: BTreeMap<Split, (usize, usize)> = BTreeMap::new();
    let mut missing: BTreeMap<String, usize> = BTreeMap::new();
    let mut shown_held_out = 0usize;
    let started = Instant::now();
    for ((repo, base), issues) in &groups {
        let mirror = options.mirrors.join(repo.replace('/', "+")).join("repo");
        if !mirror.is_dir() {
            *missing.entry(repo.clone()).or_default() += issues.len();
            for issue in issues {
                skipped.entry(issue.split).or_default().0 += 1;
            }
            continue;
        }
        match score_checkout(&mirror, base, issues) {
            Ok(found) => {
                for s in found {
                    print_issue(&s, options.verbose, &mut shown_held_out);
                    scored.push(s);
                }
            }
            Err(e) => {
                eprintln!("localisation: {repo} at {base}: {e}; its issues are skipped");
                for issue in issues {
                    skipped.entry(issue.split).or_default().1 += 1;
                }
            }
        }
    }

    for (repo, n) in &missing {
        println!(
            "localisation: no mirror of {repo} (looked for {}): {n} issue(s) skipped",
            options
                .mirrors
                .join(repo.replace('/', "+"))
                .join("repo")
                .display()
        );
    }
    println!(
        "localisation: scored {} issue(s) in {:.1} s",
        scored.len(),
        started.elapsed().as_secs_f64()
    );
    for split in &options.splits {
        println!();
        println!("{}", summary(*split, &scored, skipped.get(split)));
    }
}

/// Reads one file of the set, one JSON object a line, checking that each
/// line's declared split is the file's.
fn read_issues(path: &Path, split: Split) -> Vec<Issue> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| refuse(&format!("cannot read {}: {e}", path.display())));
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            let mut issue: Issue = serde_json::from_str(line)
                .unwrap_or_else(|e| refuse(&format!("{}:{}: {e}", path.display(), n + 1)));
            if issue
                .declared
                .as_deref()
                .is_some_and(|d| d != split.as_str())
            {
                refuse(&format!(
                    "{}:{}: split {:?} in a {} file",
                    path.display(),
                    n + 1,
                    issue.declared,
                    split.as_str()
                ));
            }
            issue.split = split;
            issue
        })
        .collect()
}

/// One issue's line: ranks, and for a development issue its id and the
/// gateway's first file (with `verbose`, each system's first files). A
/// held-out issue shows only a number and its ranks.
fn print_issue(s: &Scored, verbose: bool, held_out: &mut usize) {
    let ranks = format!(
        "code {:>2}  unfiltered {:>2}  bm25 {:>2}",
        shown(s.code.rank),
        shown(s.unfiltered.rank),
        shown(s.bm25.rank)
    );
    if s.split == Split::Heldout {
        *held_out += 1;
        println!("{:<40} {ranks}", format!("held-out #{held_out}"));
        return;
    }
    println!(
        "{:<40} {ranks}  code top: {}",
        s.id,
        s.code.top.first().map_or("(none)", String::as_str)
    );
    if verbose {
        println!("    code:       {}", s.code.top.join(", "));
        println!("    unfiltered: {}", s.unfiltered.top.join(", "));
        println!("    bm25:       {}", s.bm25.top.join(", "));
    }
}

/// Checks `base` out of `mirror`, ingests it, and scores every issue of it
/// with every system.
fn score_checkout(mirror: &Path, base: &str, issues: &[Issue]) -> Result<Vec<Scored>, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("temporary folder: {e}"))?;
    let root = dir.path().join("repo");
    std::fs::create_dir_all(&root).map_err(|e| format!("temporary folder: {e}"))?;
    let absent = mirror::checkout(mirror, base, &root)?;
    if !absent.is_empty() {
        // A count only: the names could belong to a held-out repository.
        println!(
            "localisation: {} file(s) of {base} are absent from the mirror and left out",
            absent.len()
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
        let err = |e: &dyn std::fmt::Display| format!("{}: {e}", issue.id);
        let unfiltered = SearchRequest {
            query: issue.query(),
            limit: Some(LIMIT),
            ..Default::default()
        };
        let code = SearchRequest {
            filters: SearchFilters {
                artifact_types: vec!["code".to_string()],
                ..Default::default()
            },
            ..unfiltered.clone()
        };
        check_request(&code).map_err(|e| err(&e))?;
        let files = |found: lore_gateway::search::SearchResponse| {
            distinct(found.results.into_iter().map(|r| r.chunk.artifact_path))
        };
        let code_found = gateway.search(&code).map_err(|e| err(&e))?;
        let unfiltered_found = gateway.search(&unfiltered).map_err(|e| err(&e))?;
        let no_graph_found = search(&lexical, &code, None).map_err(|e| err(&e))?;
        if issue.split == Split::Dev {
            dump(
                &issue.id,
                &[
                    ("code", &code_found),
                    ("unfiltered", &unfiltered_found),
                    ("no graph", &no_graph_found),
                ],
            );
        }
        let code_files = files(code_found);
        let unfiltered_files = files(unfiltered_found);
        let no_graph_files = files(no_graph_found);
        let bm25_files = baseline.search(&code.query).map_err(|e| err(&e))?;
        if issue.split == Split::Dev {
            dump_files(&issue.id, "bm25", &bm25_files);
        }
        let outside = code_files
            .iter()
            .take(5)
            .filter(|f| !is_candidate(f))
            .count();
        out.push(Scored {
            id: issue.id.clone(),
            split: issue.split,
            family: issue.family(),
            code: Outcome::of(issue, code_files),
            unfiltered: Outcome::of(issue, unfiltered_files),
            no_graph: Outcome::of(issue, no_graph_files),
            bm25: Outcome::of(issue, bm25_files),
            outside,
        });
    }
    Ok(out)
}

/// Appends each search's results (chunk id, score) to `LORE_BENCH_DUMP`'s
/// file, when it is set.
fn dump(id: &str, searches: &[(&str, &lore_gateway::search::SearchResponse)]) {
    let Ok(path) = std::env::var("LORE_BENCH_DUMP") else {
        return;
    };
    let mut out = String::new();
    for (kind, found) in searches {
        for (n, r) in found.results.iter().enumerate() {
            let _ = writeln!(
                out,
                "{id}\t{kind}\t{}\t{}\t{:.6}\t{:.6}",
                n + 1,
                r.chunk.chunk_id,
                r.score,
                r.scoring.adjusted
            );
        }
    }
    append_to_dump(&path, &out);
}

/// Appends a file ranking (rank, path) to `LORE_BENCH_DUMP`'s file, when
/// it is set.
fn dump_files(id: &str, kind: &str, files: &[String]) {
    let Ok(path) = std::env::var("LORE_BENCH_DUMP") else {
        return;
    };
    let mut out = String::new();
    for (n, file) in files.iter().enumerate() {
        let _ = writeln!(out, "{id}\t{kind}\t{}\t{file}\t0\t0", n + 1);
    }
    append_to_dump(&path, &out);
}

/// Appends `out` to the dump file at `path`.
fn append_to_dump(path: &str, out: &str) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|e| refuse(&format!("LORE_BENCH_DUMP {path}: {e}")));
    std::io::Write::write_all(&mut file, out.as_bytes())
        .unwrap_or_else(|e| refuse(&format!("LORE_BENCH_DUMP {path}: {e}")));
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

/// Whether the baseline indexes `path` (root-relative, `/`-separated): a
/// source file of the four families that is not a test or test support.
/// Fixed by the bench, not by the gateway's classification, so that the
/// reference does not move when the gateway's notion of "code" does.
fn is_candidate(path: &str) -> bool {
    let (folders, name) = path.rsplit_once('/').unwrap_or(("", path));
    let Some((stem, extension)) = name.rsplit_once('.') else {
        return false;
    };
    if !SOURCE_EXTENSIONS.contains(&extension) {
        return false;
    }
    if folders.split('/').any(|f| TEST_FOLDERS.contains(&f)) {
        return false;
    }
    let test_file = match extension {
        "py" | "pyi" => {
            name == "conftest.py" || stem.starts_with("test_") || stem.ends_with("_test")
        }
        "go" => stem.ends_with("_test"),
        "rs" => {
            stem.ends_with("_test") || stem.ends_with("_tests") || stem == "test" || stem == "tests"
        }
        _ => {
            [".test", ".spec", ".test-d"]
                .iter()
                .any(|s| stem.ends_with(s))
                || ["test", "tests", "spec"].contains(&stem)
        }
    };
    !test_file
}

/// The plain BM25 baseline: one document per whole source file, in RAM.
struct Bm25 {
    index: Index,
    path: Field,
    body: Field,
}

impl Bm25 {
    /// Indexes every file the gateway's walk keeps under `root` that
    /// [`is_candidate`] accepts.
    fn build(root: &Path) -> tantivy::Result<Bm25> {
        let mut schema = Schema::builder();
        let path = schema.add_text_field("path", TEXT | STORED);
        let body = schema.add_text_field("body", TEXT);
        let index = Index::create_in_ram(schema.build());
        let mut writer = index.writer_with_num_threads(1, 100_000_000)?;
        for file in walk::walk(root, MAX_FILE_BYTES).files {
            if !is_candidate(&file.path) {
                continue;
            }
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

/// The systems of the report, in the order printed.
const SYSTEMS: [&str; 4] = [
    "gateway, artifact_types [code]",
    "gateway, no filter",
    "gateway, [code], no graph signals",
    "BM25 source files, tests excluded",
];

/// One split's section: a table per language family and overall, every
/// system; how many issues were skipped; for development only, the ids the
/// code-filtered gateway missed.
fn summary(split: Split, scored: &[Scored], skipped: Option<&(usize, usize)>) -> String {
    let scored: Vec<&Scored> = scored.iter().filter(|s| s.split == split).collect();
    let (no_mirror, failed) = skipped.copied().unwrap_or_default();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### split {} ({}): {} scored, {no_mirror} skipped for a missing mirror, {failed} for a failed checkout or ingest",
        split.as_str(),
        split.files(),
        scored.len()
    );
    let _ = writeln!(out);
    let _ = writeln!(out, "| slice | system | n | Acc@1 | Acc@5 | MRR |");
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|");
    let mut slices: Vec<&str> = FAMILIES.to_vec();
    if scored.iter().any(|s| !FAMILIES.contains(&s.family)) {
        slices.push("other");
    }
    slices.push("all");
    for slice in slices {
        let mut metrics: [Metrics; 4] = Default::default();
        for s in scored
            .iter()
            .filter(|s| slice == "all" || s.family == slice)
        {
            for (m, o) in metrics
                .iter_mut()
                .zip([&s.code, &s.unfiltered, &s.no_graph, &s.bm25])
            {
                m.add(o.rank);
            }
        }
        if metrics[0].n == 0 {
            continue;
        }
        for (m, system) in metrics.iter().zip(SYSTEMS) {
            let _ = writeln!(out, "{}", m.row(slice, system));
        }
    }
    let outside: usize = scored.iter().map(|s| s.outside).sum();
    let _ = write!(
        out,
        "\nfiles among the code-filtered gateway's first 5 that the baseline's rule leaves out \
         (tests, test support, other languages): {outside}"
    );
    if split == Split::Dev {
        let misses: Vec<&str> = scored
            .iter()
            .filter(|s| s.code.rank.is_none_or(|r| r > 5))
            .map(|s| s.id.as_str())
            .collect();
        if !misses.is_empty() {
            let _ = write!(
                out,
                "\n\ngateway [code] misses (no gold file in its first 5 files): {}",
                misses.join(", ")
            );
        }
    }
    out
}
