//! Planner speed, in process: compiling queries against the demo's model
//! (a three-source chasm query among them) and loading a model of 500
//! generated sources from disk.
//!
//! Run with `cargo bench -p lore-semantic --bench planner`.
//! `LORE_BENCH_CALLS` (default 20000) sets the compile samples.

use lore_core::limits::SqlLimits;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use lore_demo::DEMO_SEMANTIC_MODEL;
use lore_semantic::dialect::Dialect;
use lore_semantic::model::{load_dir, load_sources};
use lore_semantic::planner::compile;
use lore_semantic::query::SemanticQuery;

fn stats(mut samples: Vec<Duration>) -> String {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    let us = |d: Duration| format!("{:.1} µs", d.as_secs_f64() * 1e6);
    format!(
        "{} | {} | {} | {} | {}",
        samples.len(),
        us(samples[0]),
        us(at(0.5)),
        us(at(0.95)),
        us(at(0.99))
    )
}

fn main() {
    let calls: usize = std::env::var("LORE_BENCH_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20000);
    let model = load_sources(
        DEMO_SEMANTIC_MODEL
            .iter()
            .map(|(n, t)| (PathBuf::from(n), t.to_string()))
            .collect(),
    )
    .unwrap();
    let queries: Vec<(&str, SemanticQuery)> = vec![
        (
            "one source, two dimensions (revenue by segment and month)",
            serde_json::from_value(serde_json::json!({"measures": ["invoices.revenue"],
                "dimensions": ["accounts.segment", {"field": "invoices.issued_at", "granularity": "month"}]}))
            .unwrap(),
        ),
        (
            "three-source chasm (revenue, tickets, active accounts by segment and region, HAVING)",
            serde_json::from_value(serde_json::json!({
                "measures": ["invoices.revenue", "support_tickets.tickets", "accounts.active_accounts"],
                "dimensions": ["accounts.segment", "accounts.region"],
                "filters": ["invoices.revenue > 0"]}))
            .unwrap(),
        ),
        (
            "chasm + fan + derived (tickets per paying account by plan)",
            serde_json::from_value(serde_json::json!({
                "measures": [{"expr": "support_tickets.tickets / subscriptions.paying_accounts", "name": "r"}],
                "dimensions": ["plans.name"], "filters": ["subscriptions.status_normalized = 'active'"]}))
            .unwrap(),
        ),
    ];
    println!("| compile (PostgreSQL dialect) | samples | min | median | p95 | p99 |");
    println!("|---|---|---|---|---|---|");
    for (name, query) in &queries {
        for _ in 0..200 {
            compile(&model, query, Dialect::Postgres, &SqlLimits::default()).unwrap();
        }
        let samples = (0..calls)
            .map(|_| {
                let started = Instant::now();
                let compiled =
                    compile(&model, query, Dialect::Postgres, &SqlLimits::default()).unwrap();
                let elapsed = started.elapsed();
                assert!(!compiled.sql.is_empty());
                elapsed
            })
            .collect();
        println!("| {name} | {} |", stats(samples));
    }

    // 500 sources in 500 files: each with 12 columns, a join to the
    // previous one, two measures and a segment.
    let dir = tempfile::tempdir().unwrap();
    for i in 0..500 {
        let join = if i == 0 {
            String::new()
        } else {
            format!(
                "joins:\n  - {{ to: s{:03}, \"on\": \"parent_id = s{:03}.id\", relationship: many_to_one }}\n",
                i - 1,
                i - 1
            )
        };
        let columns: String = (0..9)
            .map(|c| {
                format!(
                    "  - {{ name: c{c}, type: {} }}\n",
                    ["string", "number", "time"][c % 3]
                )
            })
            .collect();
        std::fs::write(
            dir.path().join(format!("s{i:03}.yaml")),
            format!(
                "name: s{i:03}\ntable: public.t{i:03}\ngrain: [id]\ncolumns:\n  - {{ name: id, type: number }}\n  - {{ name: parent_id, type: number }}\n  - {{ name: amount, type: number, expr: \"c1 / 100.0\" }}\n{columns}{join}measures:\n  - {{ name: count, expr: \"count(*)\" }}\n  - {{ name: total, expr: \"sum(amount)\", filter: \"c0 != 'x'\" }}\nsegments:\n  - {{ name: recent, expr: \"c2 > '2025-01-01'\" }}\n"
            ),
        )
        .unwrap();
    }
    let loads: Vec<Duration> = (0..20)
        .map(|_| {
            let started = Instant::now();
            let model = load_dir(dir.path()).unwrap();
            let elapsed = started.elapsed();
            assert_eq!(model.sources.len(), 500);
            elapsed
        })
        .collect();
    let mut sorted = loads.clone();
    sorted.sort();
    println!();
    println!(
        "load and validate 500 sources (500 files): median {:.1} ms, min {:.1} ms over {} loads",
        sorted[sorted.len() / 2].as_secs_f64() * 1e3,
        sorted[0].as_secs_f64() * 1e3,
        sorted.len()
    );
}
