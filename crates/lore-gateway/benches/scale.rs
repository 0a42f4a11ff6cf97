//! Gateway speed on real repositories, through the service the CLI and the
//! MCP adapter use (`Gateway` with its SQLite store, so the code graph is
//! written as it is for a user):
//!
//! 1. per repository, its own project: a cold ingest, a re-ingest with
//!    nothing changed, one edited file ingested by path, the same after a
//!    full walk, and one file given a new definition (by path: every call
//!    site of the root is resolved again);
//! 2. one project holding every repository as a root (copies under other
//!    root names until it reaches `LORE_BENCH_CHUNKS` chunks): `km-search`
//!    latency over real issue texts and their titles, with and without
//!    graph context, and the process's resident memory.
//!
//! Each repository is its mirror's HEAD (`git archive | tar -x`).
//!
//! `cargo bench -p lore-gateway --bench scale`
//! - `LORE_BENCH_MIRRORS`: where the mirrors are (default `/work/.mirror`,
//!   `<owner>+<name>/repo`);
//! - `LORE_BENCH_REPOS`: `owner/name,…` (default the ten below; missing
//!   mirrors are reported and skipped);
//! - `LORE_BENCH_CHUNKS`: chunks the search project reaches (default
//!   100,000; 0 measures ingest alone);
//! - `LORE_BENCH_SCALE_DIR`: keep the search project in this folder and
//!   measure searches alone: the first run builds it, later runs reuse it
//!   (no ingest table; to compare builds on one index).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "common/mirror.rs"]
mod mirror;

use lore_core::project::Project;
use lore_gateway::Gateway;
use lore_gateway::ingest::{IngestRequest, IngestRun};
use lore_gateway::search::{SearchFilters, SearchRequest};
use lore_store::feed::StoreHandle;
use serde::Deserialize;

const DEFAULT_REPOS: [&str; 9] = [
    "fastapi/fastapi",
    "Textualize/textual",
    "Textualize/rich",
    "pallets/click",
    "pallets/werkzeug",
    "encode/httpx",
    "colinhacks/zod",
    "honojs/hono",
    "sindresorhus/ky",
];

/// Searches timed per query kind (each query of the set, round robin).
const SEARCHES: usize = 400;
/// Searches run first and not timed (caches, page cache).
const WARM_UP: usize = 50;

#[derive(Deserialize)]
struct Issue {
    title: String,
    body: String,
}

fn main() {
    let mirrors = PathBuf::from(
        std::env::var("LORE_BENCH_MIRRORS").unwrap_or_else(|_| "/work/.mirror".to_string()),
    );
    let repos: Vec<String> = match std::env::var("LORE_BENCH_REPOS") {
        Ok(list) if !list.trim().is_empty() => {
            list.split(',').map(|r| r.trim().to_string()).collect()
        }
        _ => DEFAULT_REPOS.iter().map(|r| r.to_string()).collect(),
    };
    let target: u64 = std::env::var("LORE_BENCH_CHUNKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let present: Vec<(String, PathBuf)> = repos
        .into_iter()
        .filter_map(|repo| {
            let mirror = mirrors.join(repo.replace('/', "+")).join("repo");
            if mirror.is_dir() {
                Some((repo, mirror))
            } else {
                println!(
                    "scale: no mirror of {repo} at {}: skipped",
                    mirror.display()
                );
                None
            }
        })
        .collect();
    if present.is_empty() {
        println!("scale: no repository to measure");
        return;
    }
    let work = tempfile::tempdir().expect("temporary folder");
    let kept = std::env::var("LORE_BENCH_SCALE_DIR")
        .ok()
        .filter(|d| !d.is_empty())
        .map(PathBuf::from);
    match &kept {
        Some(dir) => search_scale(&present, dir, target),
        None => {
            ingest_each(&present, work.path());
            if target > 0 {
                search_scale(&present, &work.path().join("scale"), target);
            }
        }
    }
}

/// The ingest table: each repository as its own project.
fn ingest_each(present: &[(String, PathBuf)], work: &Path) {
    println!("## Ingest, one project per repository\n");
    println!(
        "| repository | files read | chunks | relations | cold | files/s | nothing changed | one file by path | one file, full walk | new definition by path |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (repo, mirror) in present {
        let dir = work.join(repo.replace('/', "+"));
        let root = dir.join("repo");
        checkout(mirror, &root);
        let gateway = project(&dir, &[("repo", "repo")]);
        let (cold, took) = timed(|| ingest(&gateway, Vec::new()));
        let read = cold.files_seen - cold.skipped.len() as u64;
        let (_, unchanged) = timed(|| ingest(&gateway, Vec::new()));
        let edited = edit_a_code_file(&root);
        let (by_path, one) = timed(|| ingest(&gateway, vec![edited.clone()]));
        assert_eq!(by_path.files_changed, 1, "{repo}: {edited}");
        edit(&root.join(&edited));
        let (walked, walk) = timed(|| ingest(&gateway, Vec::new()));
        assert_eq!(walked.files_changed, 1, "{repo}: {edited}");
        add_definition(&root.join(&edited));
        let (_, reshaped) = timed(|| ingest(&gateway, vec![edited.clone()]));
        println!(
            "| {repo} | {read} | {} | {} | {} | {:.0} | {} | {} | {} | {} |",
            cold.chunk_count,
            cold.relation_count,
            ms(took),
            read as f64 / took.as_secs_f64(),
            ms(unchanged),
            ms(one),
            ms(walk),
            ms(reshaped),
        );
        // Only the search project is kept.
        drop(gateway);
        std::fs::remove_dir_all(&dir).expect("clearing a project");
    }
}

/// The search project at `dir` (built until it holds `target` chunks,
/// unless an earlier run left it there), and its searches timed.
fn search_scale(present: &[(String, PathBuf)], dir: &Path, target: u64) {
    println!("\n## Search at scale\n");
    let listed = dir.join("roots.txt");
    let mut roots: Vec<(String, String)> = std::fs::read_to_string(&listed)
        .map(|t| {
            t.lines()
                .map(|name| (name.to_string(), name.to_string()))
                .collect()
        })
        .unwrap_or_default();
    let mut chunks = 0u64;
    if !roots.is_empty() {
        let pairs: Vec<(&str, &str)> = roots
            .iter()
            .map(|(p, n)| (p.as_str(), n.as_str()))
            .collect();
        let (run, took) = timed(|| ingest(&project(dir, &pairs), Vec::new()));
        chunks = run.chunk_count;
        println!(
            "scale: reusing {} ({chunks} chunks; its ingest took {})",
            dir.display(),
            ms(took)
        );
    }
    let mut round = roots.len() / present.len().max(1) + 1;
    let started = Instant::now();
    while roots.is_empty() || chunks < target {
        for (repo, mirror) in present {
            let name = match round {
                1 => repo.replace('/', "-"),
                n => format!("{}-{n}", repo.replace('/', "-")),
            };
            checkout(mirror, &dir.join(&name));
            roots.push((name.clone(), name));
        }
        let pairs: Vec<(&str, &str)> = roots
            .iter()
            .map(|(p, n)| (p.as_str(), n.as_str()))
            .collect();
        let run = ingest(&project(dir, &pairs), Vec::new());
        chunks = run.chunk_count;
        println!(
            "scale: {} roots, {} chunks, {} relations ({:.0} s so far)",
            roots.len(),
            chunks,
            run.relation_count,
            started.elapsed().as_secs_f64()
        );
        round += 1;
    }
    let names: Vec<&str> = roots.iter().map(|(_, n)| n.as_str()).collect();
    std::fs::write(&listed, names.join("\n")).expect("roots.txt");
    let pairs: Vec<(&str, &str)> = roots
        .iter()
        .map(|(p, n)| (p.as_str(), n.as_str()))
        .collect();
    let gateway = project(dir, &pairs);
    let rss_before = rss_kib("VmRSS");

    let set = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/localisation/issues.jsonl");
    let issues: Vec<Issue> = std::fs::read_to_string(set)
        .expect("the localisation set")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("an issue"))
        .collect();
    let whole: Vec<String> = issues
        .iter()
        .map(|i| format!("{}\n\n{}", i.title, i.body))
        .collect();
    let titles: Vec<String> = issues.iter().map(|i| i.title.clone()).collect();
    let first = Instant::now();
    search(&gateway, &whole[0], false, false);
    let first = first.elapsed();

    println!(
        "\n{} chunks in {} roots; first search (index opened) {}\n",
        chunks,
        roots.len(),
        ms(first)
    );
    println!("| query | graph context | n | p50 | p95 | p99 | max |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    let runs = [
        ("issue title", &titles, false),
        ("whole issue", &whole, false),
        ("whole issue, `artifact_types: [code]`", &whole, true),
    ];
    for (kind, queries, code) in runs {
        for graph in [false, true] {
            for query in queries.iter().cycle().take(WARM_UP) {
                search(&gateway, query, graph, code);
            }
            let mut times: Vec<Duration> = queries
                .iter()
                .cycle()
                .take(SEARCHES)
                .map(|query| timed(|| search(&gateway, query, graph, code)).1)
                .collect();
            times.sort();
            let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
            println!(
                "| {kind} | {} | {} | {} | {} | {} | {} |",
                if graph { "yes" } else { "no" },
                times.len(),
                ms(at(0.50)),
                ms(at(0.95)),
                ms(at(0.99)),
                ms(*times.last().unwrap()),
            );
        }
    }
    time_references(&gateway, &titles);
    println!(
        "\nresident memory: {} MiB before the first search, {} MiB after them, {} MiB at the peak (ingest included)",
        rss_before / 1024,
        rss_kib("VmRSS") / 1024,
        rss_kib("VmHWM") / 1024
    );
}

/// `km-graph-references` over the symbols an agent would look up next:
/// each issue title's first result's symbols, by id (`Symbol:…`) and by
/// bare name (every root's definitions of it); the first call, which
/// indexes its root's call edges, timed apart.
fn time_references(gateway: &Gateway, titles: &[String]) {
    let mut symbols: Vec<String> = Vec::new();
    for title in titles {
        let request = SearchRequest {
            query: title.clone(),
            limit: Some(3),
            ..Default::default()
        };
        let found = gateway.search(&request).expect("search");
        for result in found.results {
            for symbol in result.chunk.symbols.into_iter().take(2) {
                symbols.push(symbol.id);
                symbols.push(symbol.qualified_name);
            }
        }
    }
    assert!(!symbols.is_empty(), "no symbol among the results");
    let (first, took) = timed(|| gateway.references(&symbols[0], &[], Some(50)));
    first.expect("references");
    println!(
        "\n`km-graph-references` ({} symbols, half by id, half by name): first call (its root's call edges indexed) {}\n",
        symbols.len(),
        ms(took)
    );
    let mut times: Vec<Duration> = symbols
        .iter()
        .cycle()
        .take(SEARCHES)
        .map(|symbol| {
            let (answer, took) = timed(|| gateway.references(symbol, &[], Some(50)));
            answer.expect("references");
            took
        })
        .collect();
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    println!("| query | n | p50 | p95 | p99 | max |");
    println!("|---|---:|---:|---:|---:|---:|");
    println!(
        "| references, limit 50 | {} | {} | {} | {} | {} |",
        times.len(),
        ms(at(0.50)),
        ms(at(0.95)),
        ms(at(0.99)),
        ms(*times.last().unwrap())
    );
}

/// A project at `dir` with these roots (`path`, `name`), and its gateway
/// with the store.
fn project(dir: &Path, roots: &[(&str, &str)]) -> Gateway {
    std::fs::create_dir_all(dir).expect("project folder");
    let mut config = String::from("gateway:\n  roots:\n");
    for (path, name) in roots {
        config.push_str(&format!("    - path: \"{path}\"\n      name: \"{name}\"\n"));
    }
    std::fs::write(dir.join("lore.yaml"), config).expect("lore.yaml");
    let project = Project::load(dir).expect("a valid lore.yaml");
    Gateway::for_project(&project).with_store(Arc::new(StoreHandle::sqlite(project.store_path())))
}

fn ingest(gateway: &Gateway, paths: Vec<String>) -> IngestRun {
    let run = gateway
        .ingest(
            &IngestRequest {
                paths,
                ..Default::default()
            },
            &mut |_, _| {},
        )
        .expect("ingest");
    assert!(run.success, "ingest failed: {:?}", run.error);
    run
}

fn search(gateway: &Gateway, query: &str, graph: bool, code: bool) {
    let request = SearchRequest {
        query: query.chars().take(32_000).collect(),
        limit: Some(10),
        filters: SearchFilters {
            artifact_types: if code {
                vec!["code".into()]
            } else {
                Vec::new()
            },
            ..Default::default()
        },
        ..Default::default()
    };
    let mut found = gateway.search(&request).expect("search");
    if graph {
        gateway
            .add_graph_context(&mut found)
            .expect("graph context");
    }
    assert!(!found.results.is_empty() || found.metadata.result_count == 0);
}

/// The first code file (sorted) of a root's largest source folder, edited.
fn edit_a_code_file(root: &Path) -> String {
    let mut files: Vec<String> = Vec::new();
    collect(root, root, &mut files);
    files.sort();
    let code = files
        .iter()
        .find(|f| {
            (f.ends_with(".py") || f.ends_with(".ts")) && !f.contains("test") && !f.contains("docs")
        })
        .or_else(|| files.first())
        .expect("a file")
        .clone();
    edit(&root.join(&code));
    code
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("a folder").flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            collect(root, &path, out);
        } else if let Ok(relative) = path.strip_prefix(root) {
            out.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// A function appended to a Python or TypeScript file (anything else
/// gets a comment).
fn add_definition(file: &Path) {
    let mut text = std::fs::read_to_string(file).expect("a text file");
    match file.extension().and_then(|e| e.to_str()) {
        Some("py") => text.push_str("\n\ndef lore_bench_added():\n    return 1\n"),
        Some("ts") => text.push_str("\nexport function loreBenchAdded() {\n  return 1;\n}\n"),
        _ => text.push_str("\n# a definition added by the benchmark\n"),
    }
    std::fs::write(file, text).expect("writing");
}

fn edit(file: &Path) {
    let mut text = std::fs::read_to_string(file).expect("a text file");
    text.push_str("\n# edited by the benchmark\n");
    std::fs::write(file, text).expect("writing");
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let started = Instant::now();
    let out = f();
    (out, started.elapsed())
}

fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms >= 1000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else if ms >= 10.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{ms:.1} ms")
    }
}

/// A `/proc/self/status` figure in KiB (0 where there is none).
fn rss_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// The mirror's HEAD in `into`.
fn checkout(mirror: &Path, into: &Path) {
    std::fs::create_dir_all(into).expect("checkout folder");
    let absent = mirror::checkout(mirror, "HEAD", into)
        .unwrap_or_else(|e| panic!("checkout of {}: {e}", mirror.display()));
    if !absent.is_empty() {
        println!(
            "scale: {} file(s) absent from {} left out",
            absent.len(),
            mirror.display()
        );
    }
}
