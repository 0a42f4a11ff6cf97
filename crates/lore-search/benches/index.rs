//! The search index at catalog scale, in process: 10 000 tables × 20
//! columns, 500 semantic-layer sources (5 measures and 10 dimensions each)
//! and 1 000 wiki-sized documents; index build time, search latency the
//! way `discover_data` searches (one search per lane), on-disk size and
//! resident memory.
//!
//! Also the embedding lane's own work on the documents it embeds by
//! default (all but columns): their texts and hashes, and brute-force
//! cosine ranking over random unit vectors of 768 and 1 536 dimensions.
//!
//! And the static embedding model's work as the schema ranker does it
//! (`static_embed`): every table's text (name, comment, 20 column names)
//! embedded once, a question embedded, and its cosine with every table.
//!
//! Run with `cargo bench -p lore-search --bench index`.
//! `LORE_BENCH_TABLES` (default 10000) sizes the schema.

use std::time::{Duration, Instant};

use lore_search::{DocKind, MatchField, SearchDoc, SearchIndex, SearchQuery};
use serde_json::json;

const DOMAINS: &[&str] = &[
    "sales",
    "billing",
    "support",
    "marketing",
    "product",
    "finance",
    "hr",
    "ops",
    "growth",
    "risk",
    "logistics",
    "inventory",
];
const ENTITIES: &[&str] = &[
    "orders",
    "invoices",
    "tickets",
    "accounts",
    "customers",
    "payments",
    "subscriptions",
    "events",
    "shipments",
    "refunds",
    "leads",
    "campaigns",
    "employees",
    "vendors",
    "products",
    "contracts",
    "sessions",
    "plans",
];
const COLUMNS: &[&str] = &[
    "status",
    "created_at",
    "updated_at",
    "amount_cents",
    "currency",
    "region",
    "channel",
    "customer_email",
    "display_name",
    "code",
    "is_active",
    "priority",
    "score",
    "notes",
    "owner_id",
    "closed_at",
    "category",
    "quantity",
];
const VALUES: &[&str] = &[
    "open",
    "closed",
    "pending",
    "EMEA",
    "APAC",
    "web",
    "partner",
    "Enterprise",
    "Starter",
];

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

fn rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

fn main() {
    let tables: usize = std::env::var("LORE_BENCH_TABLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index");
    let index = SearchIndex::open(&path).unwrap();

    let (schema, semantic, wiki) = (schema_docs(tables), semantic_docs(), wiki_docs());
    let docs = schema.len() + semantic.len() + wiki.len();

    let start = Instant::now();
    index
        .replace_group("schema:warehouse", "s1", &schema)
        .unwrap();
    let schema_time = start.elapsed();
    let start = Instant::now();
    index
        .replace_group("sl:warehouse", "m1", &semantic)
        .unwrap();
    index.replace_group("wiki", "w1", &wiki).unwrap();
    let rest_time = start.elapsed();
    println!(
        "indexed {docs} documents: schema ({} docs) in {:.1} s, semantic layer + wiki in {:.1} s",
        schema.len(),
        schema_time.as_secs_f64(),
        rest_time.as_secs_f64()
    );
    embedding_lane(&schema, &semantic, &wiki);
    static_embedding(&schema);
    drop((schema, semantic, wiki));

    time_searches(&index);
    let mut reopen = Vec::new();
    for _ in 0..20 {
        let start = Instant::now();
        let opened = SearchIndex::open(&path).unwrap();
        std::hint::black_box(opened.len());
        reopen.push(start.elapsed());
    }
    println!("open the index | {}", stats(reopen));
    let size: u64 = std::fs::read_dir(&path)
        .unwrap()
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!(
        "\nindex size on disk: {:.1} MiB; process RSS: {:.0} MiB",
        size as f64 / 1048576.0,
        rss_mib()
    );
}

/// A table document and 20 column documents per table, as a scan of
/// `tables` tables gives.
fn schema_docs(tables: usize) -> Vec<SearchDoc> {
    let mut schema = Vec::with_capacity(tables * 21);
    for t in 0..tables {
        let name = format!(
            "{}_{}_{t:05}",
            DOMAINS[t % DOMAINS.len()],
            ENTITIES[(t / 3) % ENTITIES.len()]
        );
        let table_ref = json!({"catalog": null, "db": "public", "name": name});
        schema.push(SearchDoc {
            kind: DocKind::Table,
            connection: Some("warehouse".into()),
            id: format!("public.{name}"),
            fields: vec![
                (MatchField::Name, name.clone()),
                (MatchField::Display, format!("public.{name}")),
                (
                    MatchField::Comment,
                    format!(
                        "{} records of the {} team",
                        ENTITIES[(t / 3) % ENTITIES.len()],
                        DOMAINS[t % DOMAINS.len()]
                    ),
                ),
            ],
            payload: json!({"tableRef": table_ref, "comment": null, "columns": ["id"]}),
        });
        for c in 0..20 {
            let column = if c == 0 {
                "id".to_string()
            } else {
                COLUMNS[(t + c) % COLUMNS.len()].to_string()
            };
            let mut fields = vec![
                (MatchField::Name, column.clone()),
                (MatchField::Display, format!("{name} {column}")),
            ];
            if c % 4 == 1 {
                fields.push((
                    MatchField::SampleValue,
                    format!(
                        "{} ; {}",
                        VALUES[(t + c) % VALUES.len()],
                        VALUES[(t + 2 * c) % VALUES.len()]
                    ),
                ));
            }
            schema.push(SearchDoc {
                kind: DocKind::Column,
                connection: Some("warehouse".into()),
                id: format!("public.{name}.{column}"),
                fields,
                payload: json!({"tableRef": table_ref, "columnName": column, "nativeType": "TEXT"}),
            });
        }
    }
    schema
}

/// 500 semantic-layer sources, each with 5 measures and 10 dimensions.
fn semantic_docs() -> Vec<SearchDoc> {
    let mut semantic = Vec::new();
    for s in 0..500 {
        let source = format!(
            "{}_{}_{s:03}",
            DOMAINS[s % DOMAINS.len()],
            ENTITIES[s % ENTITIES.len()]
        );
        semantic.push(SearchDoc {
            kind: DocKind::SlSource,
            connection: Some("warehouse".into()),
            id: source.clone(),
            fields: vec![
                (MatchField::Name, source.clone()),
                (
                    MatchField::Description,
                    format!(
                        "Modelled {} of {}",
                        ENTITIES[s % ENTITIES.len()],
                        DOMAINS[s % DOMAINS.len()]
                    ),
                ),
            ],
            payload: json!({}),
        });
        for m in [
            "count",
            "revenue",
            "total_amount",
            "average_score",
            "active_count",
        ] {
            semantic.push(SearchDoc {
                kind: DocKind::SlMeasure,
                connection: Some("warehouse".into()),
                id: format!("{source}.{m}"),
                fields: vec![
                    (MatchField::Name, m.into()),
                    (MatchField::Display, format!("{source} {m}")),
                    (MatchField::Expr, "sum(amount_cents) / 100.0".into()),
                ],
                payload: json!({}),
            });
        }
        for d in COLUMNS.iter().take(10) {
            semantic.push(SearchDoc {
                kind: DocKind::SlDimension,
                connection: Some("warehouse".into()),
                id: format!("{source}.{d}"),
                fields: vec![
                    (MatchField::Name, d.to_string()),
                    (MatchField::Display, format!("{source} {d}")),
                ],
                payload: json!({}),
            });
        }
    }
    semantic
}

/// 1,000 wiki pages of 200 words.
fn wiki_docs() -> Vec<SearchDoc> {
    (0..1000)
        .map(|w| SearchDoc {
            kind: DocKind::Wiki,
            connection: None,
            id: format!("page-{w:04}"),
            fields: vec![
                (
                    MatchField::Name,
                    format!(
                        "{} {} guide {w}",
                        DOMAINS[w % DOMAINS.len()],
                        ENTITIES[w % ENTITIES.len()]
                    ),
                ),
                (
                    MatchField::Body,
                    (0..200)
                        .map(|i| ENTITIES[(w * 7 + i) % ENTITIES.len()])
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
            ],
            payload: json!({}),
        })
        .collect()
}

/// Times discover_data's three lanes over a dozen queries, 49 rounds.
fn time_searches(index: &SearchIndex) {
    let queries = [
        "revenue",
        "support tickets",
        "customer email",
        "order status",
        "how is revenue defined",
        "where is the plan name",
        "billing invoices amount",
        "active subscriptions",
        "EMEA",
        "shipments by region",
        "refund amount cents",
        "campaign leads channel",
    ];
    let lanes: [&[DocKind]; 3] = [
        &[DocKind::Table, DocKind::Column],
        &[DocKind::SlSource, DocKind::SlMeasure, DocKind::SlDimension],
        &[DocKind::Wiki],
    ];
    let mut samples = Vec::new();
    for round in 0..50 {
        for q in queries {
            let start = Instant::now();
            for lane in lanes {
                let hits = index
                    .search(&SearchQuery {
                        text: q.to_string(),
                        kinds: lane.to_vec(),
                        connection: None,
                        limit: 30,
                    })
                    .unwrap();
                std::hint::black_box(hits);
            }
            if round > 0 {
                samples.push(start.elapsed());
            }
        }
    }
    println!("\nsearch | samples | median | p99 | max");
    println!(
        "three lanes, 15 hits each (as discover_data) | {}",
        stats(samples)
    );
}

/// The embedding lane's work per document and per search (no provider:
/// the vectors are random, the cost is the same).
fn embedding_lane(schema: &[SearchDoc], semantic: &[SearchDoc], wiki: &[SearchDoc]) {
    use lore_search::vectors::{content_hash, dot, embed_text, normalized, top_k};
    let embedded: Vec<&SearchDoc> = schema
        .iter()
        .filter(|d| d.kind == DocKind::Table)
        .chain(semantic)
        .chain(wiki)
        .collect();
    let start = Instant::now();
    let hashes: Vec<String> = embedded
        .iter()
        .map(|d| content_hash(embed_text(d)))
        .collect();
    println!(
        "\nembedding lane: texts and hashes of {} documents (all but columns) in {:.0} ms",
        hashes.len(),
        start.elapsed().as_secs_f64() * 1000.0
    );
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut random = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    for dims in [768, 1536] {
        let vectors: Vec<Vec<f32>> = (0..embedded.len())
            .map(|_| normalized(&(0..dims).map(|_| random()).collect::<Vec<_>>()).unwrap())
            .collect();
        let mut samples = Vec::new();
        for _ in 0..100 {
            let query = normalized(&(0..dims).map(|_| random()).collect::<Vec<_>>()).unwrap();
            let start = Instant::now();
            let scored: Vec<(f32, usize)> = vectors
                .iter()
                .enumerate()
                .map(|(i, v)| (dot(&query, v), i))
                .collect();
            std::hint::black_box(top_k(scored, 15));
            samples.push(start.elapsed());
        }
        println!(
            "cosine top 15 of {} vectors × {dims} dims ({:.0} MiB) | {}",
            vectors.len(),
            (vectors.len() * dims * 4) as f64 / 1048576.0,
            stats(samples)
        );
    }
}

/// The static embedding model's cost at this scale: the tables' texts
/// embedded once (when the ranker first weighs meaning for a scan), then
/// per question its vector and its cosine with every table.
fn static_embedding(schema: &[SearchDoc]) {
    use lore_search::static_embed::{cosine, model};
    let start = Instant::now();
    let embedder = model().expect("the shipped table parses");
    println!(
        "\nstatic embedding: model parsed in {:.1} ms",
        start.elapsed().as_secs_f64() * 1000.0
    );
    // A table's text as the ranker builds it: name, comment, columns' names.
    let mut texts: Vec<String> = Vec::new();
    for doc in schema {
        let field = |f: MatchField| doc.fields.iter().find(|(k, _)| *k == f).map(|(_, t)| t);
        match doc.kind {
            DocKind::Table => texts.push(format!(
                "{} {}",
                field(MatchField::Name).unwrap(),
                field(MatchField::Comment).map_or("", String::as_str)
            )),
            _ => {
                if let (Some(text), Some(name)) = (texts.last_mut(), field(MatchField::Name)) {
                    text.push(' ');
                    text.push_str(name);
                }
            }
        }
    }
    let start = Instant::now();
    let vectors: Vec<Vec<f32>> = texts.iter().filter_map(|t| embedder.embed(t)).collect();
    let took = start.elapsed();
    println!(
        "{} table texts (name, comment, column names) embedded in {:.0} ms ({:.1} µs each)",
        vectors.len(),
        took.as_secs_f64() * 1000.0,
        took.as_secs_f64() * 1e6 / vectors.len().max(1) as f64
    );
    let questions = [
        "who are the oldest patients",
        "monthly revenue by region for enterprise accounts",
        "support tickets opened last week",
    ];
    let (mut embed, mut rank) = (Vec::new(), Vec::new());
    for round in 0..100 {
        let question = questions[round % questions.len()];
        let start = Instant::now();
        let q = embedder.embed(question).unwrap();
        embed.push(start.elapsed());
        let start = Instant::now();
        let best = vectors
            .iter()
            .map(|v| cosine(&q, v))
            .fold(f32::MIN, f32::max);
        std::hint::black_box(best);
        rank.push(start.elapsed());
    }
    println!("embed a question | {}", stats(embed));
    println!(
        "cosine with {} tables × {} dims | {}",
        vectors.len(),
        embedder.dims(),
        stats(rank)
    );
}
