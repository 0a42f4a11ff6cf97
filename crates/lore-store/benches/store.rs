//! Knowledge-store speed, in process, on a real SQLite file:
//!
//! - committed transactions per second for single-entry stores;
//! - `query` (text, topic, tags, plain listing) and the same reads as of an
//!   older transaction, over 100 000 entries and 200 000 triples;
//! - `query_graph` at depth 3;
//! - the store's size on disk.
//!
//! Run with `cargo bench -p lore-store --bench store`. `LORE_BENCH_ENTRIES`
//! (default 100000) and `LORE_BENCH_TRIPLES` (default 200000) size it.
//! With `LORE_BENCH_STORE_URL=postgres://…` the same runs on a
//! `PostgresStore` (schema `lore_bench`, dropped before and after).

use std::time::{Duration, Instant};

use lore_store::*;

fn stats(mut samples: Vec<Duration>) -> String {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    let ms = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1e3);
    format!(
        "{} | {} | {} | {}",
        samples.len(),
        ms(at(0.5)),
        ms(at(0.99)),
        ms(samples[samples.len() - 1])
    )
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A small deterministic generator (no dependency).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const TOPICS: &[&str] = &[
    "deployment",
    "billing",
    "oncall",
    "pricing",
    "security",
    "onboarding",
    "analytics",
    "support",
    "infrastructure",
    "release",
    "database",
    "networking",
    "compliance",
    "hiring",
];
const WORDS: &[&str] = &[
    "service",
    "customer",
    "invoice",
    "latency",
    "rollback",
    "canary",
    "cluster",
    "ticket",
    "account",
    "schema",
    "migration",
    "alert",
    "budget",
    "contract",
    "region",
    "replica",
    "queue",
    "cache",
    "token",
    "audit",
    "plan",
    "refund",
    "backup",
    "index",
    "shard",
];

const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ra", "ten", "vo", "sul", "pe", "dan", "gri", "fo", "ne", "bal", "tu", "zor",
    "hi", "wen", "qua", "ber", "lin",
];

/// Vocabulary word `i` (8 000 distinct words).
fn word(i: usize) -> String {
    format!(
        "{}{}{}",
        SYLLABLES[i % 20],
        SYLLABLES[(i / 20) % 20],
        SYLLABLES[(i / 400) % 20]
    )
}

/// Text with a long-tailed word distribution, as real notes have: a few
/// words are everywhere, most are rare.
fn sentence(rng: &mut Rng, n: usize) -> String {
    (0..n)
        .map(|_| {
            let bound = rng.below(8_000) + 1;
            word(rng.below(bound))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// An entry's content: twelve long-tail words, and in every third entry
/// "customer", a word as common as real notes have.
fn content(rng: &mut Rng, i: usize) -> String {
    let common = if i.is_multiple_of(3) { " customer" } else { "" };
    format!("{}{common} {i}", sentence(rng, 12))
}

fn time<T>(runs: usize, mut f: impl FnMut(usize) -> T) -> Vec<Duration> {
    (0..runs)
        .map(|i| {
            let start = Instant::now();
            std::hint::black_box(f(i));
            start.elapsed()
        })
        .collect()
}

fn main() {
    let entries = env("LORE_BENCH_ENTRIES", 100_000);
    let triples = env("LORE_BENCH_TRIPLES", 200_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.db");
    let postgres = std::env::var("LORE_BENCH_STORE_URL").ok();
    if let Some(url) = &postgres {
        drop_bench_schema(url);
    }
    let store: Box<dyn KnowledgeStore> = match &postgres {
        Some(url) => Box::new(PostgresStore::open_in_schema(url, "lore_bench").unwrap()),
        None => Box::new(SqliteStore::open(&path, Durability::Process).unwrap()),
    };
    println!(
        "backend: {}",
        if postgres.is_some() {
            "PostgreSQL"
        } else {
            "SQLite"
        }
    );
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);

    // 1. Single-entry stores, one transaction each.
    let single = 20_000.min(entries);
    let start = Instant::now();
    for i in 0..single {
        let topic = TOPICS[i % TOPICS.len()];
        store
            .store(
                "bench",
                NewEntry {
                    topic: topic.to_string(),
                    content: content(&mut rng, i),
                    tags: vec![WORDS[i % WORDS.len()].to_string()],
                    confidence: Some((i % 10) as f64 / 10.0),
                    ..Default::default()
                },
            )
            .unwrap();
    }
    let elapsed = start.elapsed();
    println!(
        "single-entry store: {single} transactions in {:.2} s = {:.0} tx/s",
        elapsed.as_secs_f64(),
        single as f64 / elapsed.as_secs_f64()
    );

    // The rest in batches of 1000, then updates so history has depth.
    let start = Instant::now();
    let mut stored = single;
    while stored < entries {
        let batch: Vec<NewEntry> = (stored..(stored + 1000).min(entries))
            .map(|i| NewEntry {
                topic: format!("{} {}", TOPICS[i % TOPICS.len()], WORDS[i % WORDS.len()]),
                content: content(&mut rng, i),
                tags: vec![WORDS[i % WORDS.len()].to_string()],
                confidence: Some((i % 10) as f64 / 10.0),
                ..Default::default()
            })
            .collect();
        stored += batch.len();
        store.store_batch("bench", batch).unwrap();
    }
    let middle = store.head().unwrap();
    for i in 0..5_000 {
        let id = format!("e-{}", 1 + rng.below(entries));
        store
            .update(
                "bench",
                &id,
                EntryPatch {
                    content: Some(format!("revised {} {i}", sentence(&mut rng, 8))),
                    ..Default::default()
                },
            )
            .unwrap();
    }
    println!(
        "loaded {entries} entries (+5000 updates) in {:.1} s",
        start.elapsed().as_secs_f64()
    );

    // Triples: a random graph over entries/10 nodes.
    let nodes = (entries / 10).max(10);
    let start = Instant::now();
    for _ in 0..triples {
        let s = format!("node-{}", rng.below(nodes));
        let o = format!("node-{}", rng.below(nodes));
        let p = ["depends_on", "owns", "calls", "reads"][rng.below(4)];
        store
            .relate(
                "bench",
                NewTriple {
                    subject: s,
                    predicate: p.into(),
                    object: o,
                    ..Default::default()
                },
            )
            .unwrap();
    }
    let elapsed = start.elapsed();
    println!(
        "relate: {triples} transactions in {:.1} s = {:.0} tx/s",
        elapsed.as_secs_f64(),
        triples as f64 / elapsed.as_secs_f64()
    );

    println!("\nread | samples | median | p99 | max");
    let runs = 300;
    let common = word(0);
    let mid = format!("{} {}", word(300), word(1200));
    let share = |w: &str| {
        let db = rusqlite::Connection::open(&path).unwrap();
        let n: i64 = db
            .query_row(
                "SELECT count(*) FROM entry_text WHERE entry_text MATCH ?1",
                [format!("\"{w}\"")],
                |r| r.get(0),
            )
            .unwrap();
        100.0 * n as f64 / entries as f64
    };
    if postgres.is_none() {
        println!(
            "(\"{common}\" is in {:.0}% of entries; \"{mid}\" in {:.1}% and {:.1}%)",
            share(&common),
            share(&word(300)),
            share(&word(1200))
        );
    }
    let cases: Vec<(&str, EntryQuery)> = vec![
        (
            "query text (2 words of the long tail), limit 20",
            EntryQuery {
                text: Some(mid.clone()),
                ..Default::default()
            },
        ),
        (
            "query text (a word in 1% of entries), limit 20",
            EntryQuery {
                text: Some(common.clone()),
                ..Default::default()
            },
        ),
        (
            "query text (\"customer\", in 33% of entries), limit 20",
            EntryQuery {
                text: Some("customer".into()),
                ..Default::default()
            },
        ),
        (
            "query topic prefix, limit 20",
            EntryQuery {
                topic: Some("billing".into()),
                ..Default::default()
            },
        ),
        (
            "query tag + min_confidence",
            EntryQuery {
                tags: vec!["invoice".into()],
                min_confidence: Some(0.5),
                ..Default::default()
            },
        ),
        ("query newest 20 (no filter)", EntryQuery::default()),
    ];
    for (name, query) in &cases {
        let now = time(runs, |_| store.query(query).unwrap().items.len());
        println!("{name} | {}", stats(now));
        let past = EntryQuery {
            as_of_tx_id: Some(middle),
            ..query.clone()
        };
        let then = time(runs, |_| store.query(&past).unwrap().items.len());
        println!("{name}, as_of an older tx | {}", stats(then));
    }
    let page = store
        .query(&EntryQuery {
            limit: Some(100),
            ..Default::default()
        })
        .unwrap();
    let cursor = page.next_cursor.clone();
    let paged = time(runs, |_| {
        store
            .query(&EntryQuery {
                limit: Some(100),
                cursor: cursor.clone(),
                ..Default::default()
            })
            .unwrap()
            .items
            .len()
    });
    println!("query second page of 100 (cursor) | {}", stats(paged));
    let get = time(runs, |i| {
        store
            .get(&format!("e-{}", 1 + (i * 7919) % entries), Some(middle))
            .unwrap()
    });
    println!("get one entry as_of | {}", stats(get));
    let graph = time(runs, |i| {
        store
            .query_graph(&GraphQuery {
                node: format!("node-{}", (i * 31) % nodes),
                direction: Direction::Out,
                depth: Some(3),
                limit: Some(1000),
                ..Default::default()
            })
            .unwrap()
            .edges
            .len()
    });
    let reached = store
        .query_graph(&GraphQuery {
            node: "node-1".into(),
            direction: Direction::Out,
            depth: Some(3),
            limit: Some(1000),
            ..Default::default()
        })
        .unwrap();
    println!(
        "query_graph depth 3, out (~{} edges) | {}",
        reached.edges.len(),
        stats(graph)
    );
    let history = time(runs, |i| {
        store
            .history(&HistoryQuery {
                id: Some(format!("e-{}", 1 + (i * 13) % entries)),
                ..Default::default()
            })
            .unwrap()
            .items
            .len()
    });
    println!("history of one entry | {}", stats(history));

    drop(store);
    if let Some(url) = &postgres {
        drop_bench_schema(url);
        return;
    }
    let size: u64 = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!("\nstore size on disk: {:.1} MiB", size as f64 / 1048576.0);
}

/// Drops the bench's schema on the PostgreSQL server at `url`.
fn drop_bench_schema(url: &str) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        client
            .batch_execute("DROP SCHEMA IF EXISTS lore_bench CASCADE")
            .await
            .unwrap();
    });
}
