//! Relevance of `discover_data` on the demo project: a labelled set of
//! questions (`relevance.txt`) with the refs an analyst expects in the top
//! 5; reports recall@5 and MRR, and lists the misses.
//!
//! Run with `cargo bench -p lore --bench relevance`.

use lore_context::discover::{DiscoverDataInput, discover_data};
use lore_core::project::Project;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_lore"))
        .arg("demo")
        .arg(&root)
        .arg("--no-serve")
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "lore demo failed");
    let project = Project::load(&root).unwrap();
    let discover = lore_context::services::Services::for_project(&project).discover;
    let set = include_str!("relevance.txt");
    let (mut questions, mut hits, mut reciprocal) = (0usize, 0usize, 0f64);
    let mut misses = Vec::new();
    for line in set
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let (question, expected) = line.split_once('|').expect("question | refs");
        let expected: Vec<&str> = expected.split(',').map(str::trim).collect();
        let found = discover_data(
            &discover,
            DiscoverDataInput {
                query: question.trim().to_string(),
                connection_id: None,
                kinds: None,
                limit: Some(10),
            },
        )
        .unwrap();
        let ranked: Vec<String> = found
            .refs
            .iter()
            .map(|r| {
                format!(
                    "{}:{}",
                    serde_json::to_value(r.kind).unwrap().as_str().unwrap(),
                    r.id
                )
            })
            .collect();
        questions += 1;
        match ranked.iter().position(|r| expected.contains(&r.as_str())) {
            Some(rank) => {
                reciprocal += 1.0 / (rank + 1) as f64;
                if rank < 5 {
                    hits += 1;
                } else {
                    misses.push(format!(
                        "{} → first expected at rank {}",
                        question.trim(),
                        rank + 1
                    ));
                }
            }
            None => misses.push(format!(
                "{} → not in the top 10 (top 3: {})",
                question.trim(),
                ranked
                    .iter()
                    .take(3)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    println!(
        "{questions} questions: recall@5 = {:.3}, MRR = {:.3}",
        hits as f64 / questions as f64,
        reciprocal / questions as f64
    );
    for miss in misses {
        println!("  miss: {miss}");
    }
}
