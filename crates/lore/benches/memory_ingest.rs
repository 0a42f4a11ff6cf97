//! `lore memory ingest` of a 50-page markdown handbook, deterministic (no
//! LLM), on the demo project: what a user waits for, process start
//! included.
//!
//! Run with `cargo bench -p lore --bench memory_ingest` (release build).
//! It creates the demo (`lore demo --no-serve`), writes a handbook of
//! `LORE_BENCH_PAGES` sections (default 50; each about a page: a
//! definition, three paragraphs, a gotcha, every fifth a glossary table,
//! every tenth an aggregate query over a demo table), then ingests it
//! `LORE_BENCH_RUNS` times (default 5), each into a fresh copy of the
//! demo, and once more into the last copy (the same note again: nothing
//! to write). Figures go in BENCHMARKS.md ("memory_ingest").

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use support::{env_count, machine, ms, stats};

const TOPICS: [&str; 10] = [
    "billing",
    "renewals",
    "support",
    "onboarding",
    "usage",
    "pricing",
    "refunds",
    "forecasting",
    "security",
    "partners",
];

fn handbook(pages: usize) -> String {
    let mut out = String::from(
        "---\nsource: Generated handbook\n---\n# Operations handbook\n\nHow the company's teams describe their work.\n\n",
    );
    for p in 0..pages {
        let topic = TOPICS[p % TOPICS.len()];
        let term = format!("{} metric {p}", topic);
        out.push_str(&format!("## {} practice {p}\n\n", capitalised(topic)));
        out.push_str(&format!(
            "**{}** is the number the {topic} team reviews every week for area {p}, counted once per account and period.\n\n",
            capitalised(&term)
        ));
        for k in 0..3 {
            out.push_str(&format!(
                "In area {p}, paragraph {k}: the {topic} team records each case with its owner, its opening date and its outcome. \
                 Figures are reconciled at month end against the finance ledger, and differences above one percent are explained \
                 in the monthly review. Cases older than ninety days are escalated to the head of {topic}, who decides whether \
                 the case is closed, written off or handed to another team. Reports use calendar months in UTC.\n\n"
            ));
        }
        out.push_str(&format!(
            "Gotcha: area {p} reports count cancelled cases too unless the status filter is applied.\n\n"
        ));
        if p % 5 == 0 {
            out.push_str("| Term | Definition |\n|------|------------|\n");
            for r in 0..3 {
                out.push_str(&format!(
                    "| {topic} code {p}-{r} | A classification used by the {topic} team for case type {r} |\n"
                ));
            }
            out.push('\n');
        }
        if p % 10 == 0 {
            out.push_str(&format!(
                "```sql\nSELECT COUNT(*) AS {topic}_open_tickets_{p} FROM support_tickets WHERE status = 'open'\n```\n\n"
            ));
        }
    }
    out
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().collect::<String>() + chars.as_str())
        .unwrap_or_default()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn ingest(root: &Path, note: &Path) -> (Duration, serde_json::Value) {
    let started = Instant::now();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_lore"))
        .arg("--project-dir")
        .arg(root)
        .args(["memory", "ingest"])
        .arg(note)
        .args(["--connection", "warehouse", "--json"])
        .output()
        .unwrap();
    let took = started.elapsed();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (took, serde_json::from_slice(&output.stdout).unwrap())
}

fn main() {
    let pages = env_count("LORE_BENCH_PAGES", 50);
    let runs = env_count("LORE_BENCH_RUNS", 5);
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("demo");
    let made = std::process::Command::new(env!("CARGO_BIN_EXE_lore"))
        .arg("demo")
        .arg(&demo)
        .arg("--no-serve")
        .output()
        .unwrap();
    assert!(made.status.success());
    let note = dir.path().join("handbook.md");
    let text = handbook(pages);
    std::fs::write(&note, &text).unwrap();
    println!("{}", machine());
    println!(
        "handbook: {pages} sections, {} KiB, {} words",
        text.len() / 1024,
        text.split_whitespace().count()
    );
    let mut samples = Vec::new();
    let mut last = None;
    let mut report = serde_json::Value::Null;
    for run in 0..runs {
        let copy = dir.path().join(format!("run-{run}"));
        copy_dir(&demo, &copy);
        let (took, status) = ingest(&copy, &note);
        assert_eq!(status["status"], "done", "{status}");
        samples.push(took);
        report = status;
        last = Some(copy);
    }
    let count = |lane: &str| report["captured"][lane].as_array().map_or(0, Vec::len);
    println!(
        "captured: {} wiki pages, {} measures, {} notes, {} xrefs; {} skipped, {} warnings",
        count("wiki"),
        count("sl"),
        count("memory"),
        count("xrefs"),
        report["skipped"].as_array().map_or(0, Vec::len),
        report["warnings"].as_array().map_or(0, Vec::len)
    );
    let s = stats(samples);
    println!(
        "first ingest into a fresh demo ({runs} runs): min {}, median {}, max {}",
        ms(s.min),
        ms(s.median),
        ms(s.p99)
    );
    let (again, status) = ingest(&last.unwrap(), &note);
    assert!(
        status["txId"].is_null(),
        "the same note again wrote something"
    );
    println!("the same note again (nothing to write): {}", ms(again));
}
