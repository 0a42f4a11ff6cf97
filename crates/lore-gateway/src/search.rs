//! `km-search`: the chunks an issue, a stack trace or a question is about.
//!
//! Ranking: BM25 over chunk text, headings and path words (identifier
//! aware: `orderItems` and `order_items` are `order item`), with the
//! files a query names (a path, a file name, a stack frame such as
//! `File "pkg/api.py", line 12` or `at run (src/app.ts:40:7)`) boosted.
//! Filters are part of the query, so they apply **before** ranking: a
//! filtered search never loses results to a top-N cut. Long queries (a
//! pasted issue) keep their most specific words. A file contributes at
//! most two chunks, the second at half weight, so one file cannot flood
//! the top. Every result explains its score.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};

use lore_core::time::UtcMillis;
use lore_core::{ErrorCode, ErrorReport};
use lore_search::embed::reciprocal_rank;
use lore_search::tokenizer::query_terms;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, Occur, Query, RangeQuery, TermQuery,
};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, TantivyDocument, Term};

use crate::chunk::ChunkSymbol;
use crate::classify::ArtifactType;
use crate::index::GatewayIndex;
use crate::outline::SymbolKind;

/// Longest query, in characters (a pasted issue with its stack trace fits).
pub const MAX_QUERY_CHARS: usize = 32_000;
/// Most results.
pub const MAX_LIMIT: usize = 25;
/// Results when no limit is given.
pub const DEFAULT_LIMIT: usize = 10;
/// Most distinct words a query is searched by (its rarest ones).
const MAX_QUERY_TERMS: usize = 64;
/// Chunks ranked before per-file aggregation.
const CANDIDATES: usize = 300;

/// Filters, combined with AND and applied before ranking.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchFilters {
    /// Only chunks of these subsystems.
    #[serde(default)]
    pub subsystems: Vec<String>,
    /// Only these artifact types: code, test, doc, config, other.
    #[serde(default)]
    pub artifact_types: Vec<String>,
    /// Only files under these top-level folders (`docs`, `src`), or of
    /// these roots.
    #[serde(default)]
    pub namespaces: Vec<String>,
    /// Only files with one of these tags (their subsystem's in the
    /// catalog, or their front matter's).
    #[serde(default)]
    pub tags: Vec<String>,
    /// Only chunks defining one of these symbols: a qualified name
    /// (`Invoice.total_with_tax`) or a bare one (`total_with_tax`), in any
    /// case.
    #[serde(default)]
    pub symbols: Vec<String>,
    /// Only chunks defining symbols of these kinds: class, function,
    /// method, interface, type, module.
    #[serde(default)]
    pub symbol_kinds: Vec<String>,
    /// Only files in these languages (`python`, `typescript`, `go`, …).
    #[serde(default)]
    pub symbol_languages: Vec<String>,
    /// Only files modified after this moment (RFC 3339).
    #[serde(default)]
    pub updated_after: Option<String>,
    /// Only files modified in the last this many days.
    #[serde(default)]
    pub max_age_days: Option<u32>,
}

/// A search.
#[derive(Debug, Clone, Default)]
pub struct SearchRequest {
    /// What to look for: words, identifiers, a whole issue, a stack trace.
    pub query: String,
    /// Most results (1 to 25; default 10).
    pub limit: Option<usize>,
    /// Filters applied before ranking.
    pub filters: SearchFilters,
    /// Rank by the embedding lane alone (when the gateway has one).
    pub sort_by_vector: bool,
}

/// A chunk as results show it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChunkOut {
    /// `<path>::<ordinal>`.
    pub chunk_id: String,
    /// The root it comes from.
    pub root: String,
    /// Root-relative path, `/`-separated.
    pub artifact_path: String,
    /// code, test, doc, config or other.
    pub artifact_type: String,
    /// Its subsystem (null when none).
    pub subsystem: Option<String>,
    /// Its language (null when unknown).
    pub language: Option<String>,
    /// First line (1-based).
    pub start_line: u64,
    /// Last line (inclusive).
    pub end_line: u64,
    /// The heading it sits under (documents), or the signature of the
    /// definition around it (a part of a large class or function).
    pub heading: Option<String>,
    /// The text.
    pub text: String,
    /// The definitions it holds.
    pub symbols: Vec<SymbolOut>,
    /// The file's tags.
    pub tags: Vec<String>,
}

/// A definition in a result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SymbolOut {
    /// Its graph node: `Symbol:<path>::<qualified_name>`.
    pub id: String,
    /// `Invoice.total_with_tax`.
    pub qualified_name: String,
    /// class, function, method, interface, type or module.
    pub kind: String,
    /// First line (1-based).
    pub start_line: u64,
    /// Last line (inclusive).
    pub end_line: u64,
    /// Opens it in the editor (when `gateway.editor_uri_template` is set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub editor_uri: Option<String>,
}

/// Why a result ranks where it does.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Scoring {
    /// BM25 over text, headings and path words, with file-name mentions
    /// (0 when only the embedding lane found the chunk).
    pub lexical: f32,
    /// Cosine similarity to the query in the embedding lane (when it ran
    /// and ranked the chunk).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector: Option<f32>,
    /// Factors applied to the lexical score, by name.
    pub signals: BTreeMap<String, f32>,
    /// The chunk's rank in each lane, when the two were fused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fusion: Option<Fusion>,
    /// The score results are ordered by: the lexical score after the
    /// signals; with the embedding lane, the fused score (or the cosine
    /// with `sort_by_vector`); halved for a file's second chunk.
    pub adjusted: f32,
}

/// How a result's lanes were fused: reciprocal rank fusion
/// ([`reciprocal_rank`]), `1/(60 + lexical_rank) + weight/(60 + vector_rank)`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Fusion {
    /// Its rank among the lexical lane's chunks (1 = first).
    pub lexical_rank: Option<usize>,
    /// Its rank among the embedding lane's chunks.
    pub vector_rank: Option<usize>,
}

/// The files each test validates in the code graph (`VALIDATES`), by
/// root-relative path.
#[derive(Debug, Default)]
pub struct GraphLinks {
    /// Test path → the code paths it validates.
    pub targets: HashMap<String, Vec<String>>,
}

/// The most a test raises the code it validates: `1 + GRAPH_BOOST ×
/// support`, the support being the test's score over the best
/// candidate's, divided by the square root of the files it validates.
const GRAPH_BOOST: f32 = 0.25;

/// The `graph_neighbour` signal: a code file that a well-ranked test of
/// the same search validates is raised (an issue is often written in its
/// tests' words), by at most [`GRAPH_BOOST`]. Documents' `DESCRIBES`
/// links were tried too and lost more than they found on the
/// localisation set.
fn graph_neighbours(scored: &mut [Candidate], links: &GraphLinks) {
    let best = scored
        .iter()
        .map(|c| c.scoring.adjusted)
        .fold(0.0f32, f32::max);
    if best <= 0.0 {
        return;
    }
    // Each pointing file's best chunk, relative to the best candidate.
    let mut support: HashMap<&str, f32> = HashMap::new();
    for candidate in scored.iter() {
        if candidate.artifact_type != ArtifactType::Test {
            continue;
        }
        let Some(targets) = links.targets.get(&candidate.path) else {
            continue;
        };
        // A test of one file says more about it than a test of many.
        let relative = candidate.scoring.adjusted / best / (targets.len() as f32).sqrt();
        for target in targets {
            if *target != candidate.path {
                let entry = support.entry(target.as_str()).or_insert(0.0);
                *entry = entry.max(relative);
            }
        }
    }
    if support.is_empty() {
        return;
    }
    for candidate in scored.iter_mut() {
        if candidate.artifact_type != ArtifactType::Code {
            continue;
        }
        if let Some(s) = support.get(candidate.path.as_str()) {
            let factor = 1.0 + GRAPH_BOOST * s.min(1.0);
            candidate
                .scoring
                .signals
                .insert("graph_neighbour".to_string(), factor);
            candidate.scoring.adjusted *= factor;
        }
    }
}

/// The embedding lane's part in one search.
pub struct VectorSearch<'a> {
    /// The lane, synced to the index.
    pub lane: &'a crate::vectors::VectorLane,
    /// The query's normalised vector.
    pub query: std::sync::Arc<[f32]>,
}

/// One result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchResult {
    /// The chunk.
    pub chunk: ChunkOut,
    /// Relative score, 0 to 1 (the best result is 1).
    pub score: f32,
    /// How it was computed.
    pub scoring: Scoring,
    /// The file's neighbours in the code graph (when `include_graph`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph_context: Option<crate::explore::GraphContext>,
}

/// About the search.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchMetadata {
    /// Quote it when giving feedback on a result.
    pub request_id: String,
    /// Results returned.
    pub result_count: usize,
    /// The ingest run the index reflects.
    pub index_run_id: Option<String>,
    /// What the caller should know (a shortened query, an empty index).
    pub warnings: Vec<String>,
}

/// What a search answers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchResponse {
    /// Best first.
    pub results: Vec<SearchResult>,
    /// About the search.
    pub metadata: SearchMetadata,
}

fn invalid(message: impl Into<String>) -> ErrorReport {
    ErrorReport::new(ErrorCode::InvalidArguments, message)
}

/// Checks a request: query length, limit, filter values.
pub fn check_request(request: &SearchRequest) -> Result<(), ErrorReport> {
    if request.query.trim().is_empty() {
        return Err(invalid(
            "query must not be empty: describe what you look for, or paste the issue",
        ));
    }
    let chars = request.query.chars().count();
    if chars > MAX_QUERY_CHARS {
        return Err(invalid(format!(
            "query is {chars} characters, more than {MAX_QUERY_CHARS}; keep the issue's title, description and stack trace"
        )));
    }
    if let Some(limit) = request.limit
        && !(1..=MAX_LIMIT).contains(&limit)
    {
        return Err(invalid(format!(
            "limit must be 1 to {MAX_LIMIT}, got {limit}"
        )));
    }
    let f = &request.filters;
    for kind in &f.artifact_types {
        if ArtifactType::parse(kind).is_none() {
            return Err(invalid(format!(
                "filters.artifact_types: `{kind}` is not one of code, test, doc, config, other"
            )));
        }
    }
    for kind in &f.symbol_kinds {
        if SymbolKind::parse(kind).is_none() {
            return Err(invalid(format!(
                "filters.symbol_kinds: `{kind}` is not one of class, function, method, interface, type, module"
            )));
        }
    }
    for (name, values) in [
        ("subsystems", &f.subsystems),
        ("namespaces", &f.namespaces),
        ("tags", &f.tags),
        ("symbols", &f.symbols),
        ("symbol_languages", &f.symbol_languages),
    ] {
        if values.iter().any(|v| v.trim().is_empty()) {
            return Err(invalid(format!(
                "filters.{name} holds an empty value; remove it or name what to keep"
            )));
        }
    }
    if let Some(after) = &f.updated_after
        && UtcMillis::parse_iso(after).is_none()
    {
        return Err(invalid(format!(
            "filters.updated_after: `{after}` is not an RFC 3339 time such as 2024-01-01T00:00:00Z"
        )));
    }
    Ok(())
}

static REQUESTS: AtomicU64 = AtomicU64::new(0);

/// Searches the index (the lexical lane alone).
pub fn search(
    index: &GatewayIndex,
    request: &SearchRequest,
    index_run_id: Option<String>,
) -> Result<SearchResponse, ErrorReport> {
    search_with(index, request, index_run_id, None, &Signals::default())
}

/// What ranks besides the index: the code graph's links, and agents'
/// feedback.
#[derive(Default)]
pub struct Signals<'a> {
    /// The tests' links to the code they validate (`graph_neighbour`).
    pub links: Option<&'a GraphLinks>,
    /// The votes on earlier searches' results (`feedback`).
    pub feedback: Option<&'a crate::feedback::FeedbackVotes>,
}

/// Searches the index, fusing the embedding lane's ranking with the
/// lexical one when `vector` is given.
pub fn search_with(
    index: &GatewayIndex,
    request: &SearchRequest,
    index_run_id: Option<String>,
    vector: Option<VectorSearch<'_>>,
    signals: &Signals<'_>,
) -> Result<SearchResponse, ErrorReport> {
    check_request(request)?;
    let limit = request.limit.unwrap_or(DEFAULT_LIMIT);
    let request_id = format!(
        "req-{}-{}",
        UtcMillis::now().to_compact(),
        REQUESTS.fetch_add(1, Ordering::Relaxed)
    );
    let mut warnings = Vec::new();
    index.reload()?;
    let searcher = index.reader.searcher();
    let f = &index.fields;
    if searcher.num_docs() == 0 {
        warnings.push(
            "the index is empty: run `lore gateway ingest PATH` (or km-ingest-trigger) first"
                .to_string(),
        );
    }

    // The query's words, rarest first when there are too many.
    let mut terms: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    let query = clean_query(&request.query);
    for term in query_terms(&query) {
        if seen.insert(term.clone()) {
            terms.push(term);
        }
    }
    let boosts = match signals.feedback {
        Some(votes) if !votes.is_empty() => {
            let all: HashSet<String> = terms.iter().cloned().collect();
            votes.boosts(&all, UtcMillis::now().0)
        }
        _ => HashMap::new(),
    };
    if terms.len() > MAX_QUERY_TERMS {
        let mut by_rarity: Vec<(u64, String)> = terms
            .into_iter()
            .map(|t| {
                let df = searcher
                    .doc_freq(&Term::from_field_text(f.text, &t))
                    .unwrap_or(0);
                (df, t)
            })
            .filter(|(df, _)| *df > 0)
            .collect();
        by_rarity.sort();
        let dropped = by_rarity.len().saturating_sub(MAX_QUERY_TERMS);
        by_rarity.truncate(MAX_QUERY_TERMS);
        terms = by_rarity.into_iter().map(|(_, t)| t).collect();
        if dropped > 0 {
            warnings.push(format!(
                "the query has many words: searched by its {MAX_QUERY_TERMS} most specific ones"
            ));
        }
    }
    let mentions = mentioned_files(&query);
    let identifiers = identifiers(&query);

    let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    let boosted = |field, text: &str, boost: f32| -> (Occur, Box<dyn Query>) {
        let query = TermQuery::new(
            Term::from_field_text(field, text),
            IndexRecordOption::WithFreqs,
        );
        (
            Occur::Should,
            Box::new(BoostQuery::new(Box::new(query), boost)),
        )
    };
    for term in &terms {
        should.push(boosted(f.text, term, 1.0));
        should.push(boosted(f.heading, term, 1.5));
        should.push(boosted(f.path_text, term, 2.0));
    }
    for term in &terms {
        should.push(boosted(f.symbol_text, term, 1.5));
    }
    for mention in &mentions {
        should.push(boosted(f.file_name, &mention.file_name, 6.0));
    }
    for name in &identifiers {
        should.push(boosted(f.symbol, &name.to_lowercase(), 3.0));
    }
    if should.is_empty() && vector.is_none() {
        warnings.push("the query has no searchable words".to_string());
        return Ok(SearchResponse {
            metadata: SearchMetadata {
                request_id,
                result_count: 0,
                index_run_id,
                warnings,
            },
            results: Vec::new(),
        });
    }
    let filters = filter_clauses(index, &request.filters)?;
    let filter_only: Option<Box<dyn Query>> = (!filters.is_empty()).then(|| {
        let must: Vec<(Occur, Box<dyn Query>)> = filters
            .iter()
            .map(|f| (Occur::Must, f.box_clone()))
            .collect();
        Box::new(BooleanQuery::new(must)) as Box<dyn Query>
    });
    // With the embedding lane a query may have no searchable word.
    let lexical = !should.is_empty();
    let mut clauses: Vec<(Occur, Box<dyn Query>)> =
        vec![(Occur::Must, Box::new(BooleanQuery::new(should)))];
    for filter in filters {
        clauses.push((Occur::Must, Box::new(ConstScoreQuery::new(filter, 0.0))));
    }
    let query = BooleanQuery::new(clauses);
    let top = if lexical {
        searcher
            .search(&query, &TopDocs::with_limit(CANDIDATES).order_by_score())
            .map_err(|e| ErrorReport::new(ErrorCode::Internal, format!("gateway search: {e}")))?
    } else {
        Vec::new()
    };

    // Ranked from the index alone (fast fields, the `defines` terms); the
    // stored documents are read for the results only.
    let facts = CandidateFacts::new(&searcher, index, &identifiers, !boosts.is_empty())?;
    let candidate_of = |address: DocAddress,
                        lexical: f32,
                        defining: &HashSet<DocAddress>|
     -> Result<Candidate, ErrorReport> {
        let (root, path, artifact_type) = facts.of(address)?;
        let defined = defining.contains(&address);
        let mut signals = BTreeMap::new();
        if mentions.iter().any(|m| m.matches_path(&path)) {
            signals.insert("path_mention".to_string(), 1.5);
        }
        if defined {
            signals.insert("defines_symbol".to_string(), 1.5);
        }
        if !boosts.is_empty()
            && let Some(factor) = boosts.get(&facts.chunk_id(address)?)
        {
            signals.insert("feedback".to_string(), *factor);
        }
        // Issues are about code: other kinds of files need more evidence.
        let prior = match artifact_type {
            ArtifactType::Test => 0.7,
            ArtifactType::Doc => 0.55,
            ArtifactType::Config => 0.5,
            ArtifactType::Other => 0.3,
            ArtifactType::Code => 1.0,
        };
        if prior < 1.0 && !signals.contains_key("path_mention") {
            signals.insert("artifact_type".to_string(), prior);
        }
        let factor: f32 = signals.values().product();
        Ok(Candidate {
            address,
            root,
            path,
            artifact_type,
            scoring: Scoring {
                lexical,
                vector: None,
                adjusted: lexical * factor,
                signals,
                fusion: None,
            },
        })
    };
    let defining = facts.defining(top.iter().map(|(_, address)| *address))?;
    let mut scored: Vec<Candidate> = Vec::with_capacity(top.len());
    for (lexical, address) in top {
        scored.push(candidate_of(address, lexical, &defining)?);
    }
    if let Some(links) = signals.links {
        graph_neighbours(&mut scored, links);
    }
    scored.sort_by(|a, b| b.scoring.adjusted.total_cmp(&a.scoring.adjusted));
    let mut scored: Vec<Candidate> = match vector {
        None => scored,
        Some(vector) => {
            let hits = vector
                .lane
                .candidates(
                    &searcher,
                    filter_only.as_deref(),
                    &vector.query,
                    CANDIDATES,
                )?
                .unwrap_or_else(|| {
                    warnings.push(
                        "embedding lane skipped: an ingest changed the index during the search; results are ranked lexically".to_string(),
                    );
                    Vec::new()
                });
            let weight = vector.lane.weight();
            let defining = facts.defining(hits.iter().map(|(_, address)| *address))?;
            let mut by_address: HashMap<DocAddress, (usize, Candidate)> = scored
                .into_iter()
                .enumerate()
                .map(|(rank, candidate)| (candidate.address, (rank + 1, candidate)))
                .collect();
            let mut fused = Vec::with_capacity(by_address.len() + hits.len());
            for (rank, (cosine, address)) in hits.into_iter().enumerate() {
                let (lexical_rank, mut candidate) = match by_address.remove(&address) {
                    Some((rank, candidate)) => (Some(rank), candidate),
                    None => (None, candidate_of(address, 0.0, &defining)?),
                };
                candidate.scoring.vector = Some(cosine);
                candidate.scoring.fusion = Some(Fusion {
                    lexical_rank,
                    vector_rank: Some(rank + 1),
                });
                fused.push(candidate);
            }
            if !request.sort_by_vector {
                for (_, (rank, mut candidate)) in by_address {
                    candidate.scoring.fusion = Some(Fusion {
                        lexical_rank: Some(rank),
                        vector_rank: None,
                    });
                    fused.push(candidate);
                }
            }
            for candidate in &mut fused {
                let fusion = candidate.scoring.fusion.as_ref();
                let lexical_rank = fusion.and_then(|f| f.lexical_rank);
                let vector_rank = fusion.and_then(|f| f.vector_rank);
                candidate.scoring.adjusted = if request.sort_by_vector {
                    candidate.scoring.vector.unwrap_or(0.0)
                } else {
                    lexical_rank.map_or(0.0, |r| reciprocal_rank(r, 1.0))
                        + vector_rank.map_or(0.0, |r| reciprocal_rank(r, weight))
                };
            }
            fused
        }
    };
    scored.sort_by(|a, b| b.scoring.adjusted.total_cmp(&a.scoring.adjusted));
    // One file contributes at most two chunks; the second counts half.
    let mut per_file: HashMap<(String, String), usize> = HashMap::new();
    let mut kept: Vec<Candidate> = Vec::new();
    for mut candidate in scored {
        let key = (candidate.root.clone(), candidate.path.clone());
        let count = per_file.entry(key).or_insert(0);
        *count += 1;
        match *count {
            1 => kept.push(candidate),
            2 => {
                candidate
                    .scoring
                    .signals
                    .insert("same_file".to_string(), 0.5);
                candidate.scoring.adjusted *= 0.5;
                kept.push(candidate);
            }
            _ => {}
        }
    }
    kept.sort_by(|a, b| b.scoring.adjusted.total_cmp(&a.scoring.adjusted));
    kept.truncate(limit);
    let best = kept
        .first()
        .map_or(1.0, |c| c.scoring.adjusted.max(f32::MIN_POSITIVE));
    let mut results = Vec::with_capacity(kept.len());
    for candidate in kept {
        let doc: TantivyDocument = searcher
            .doc(candidate.address)
            .map_err(|e| ErrorReport::new(ErrorCode::Internal, format!("gateway search: {e}")))?;
        results.push(SearchResult {
            chunk: chunk_of(index, &doc),
            score: (candidate.scoring.adjusted / best).clamp(0.0, 1.0),
            scoring: candidate.scoring,
            graph_context: None,
        });
    }
    Ok(SearchResponse {
        metadata: SearchMetadata {
            request_id,
            result_count: results.len(),
            index_run_id,
            warnings,
        },
        results,
    })
}

/// A chunk being ranked, before its stored document is read.
struct Candidate {
    address: DocAddress,
    root: String,
    path: String,
    artifact_type: ArtifactType,
    scoring: Scoring,
}

/// What ranking reads of a candidate without its stored document: its
/// file and type from the fast fields, and whether it defines one of the
/// query's identifiers (the `defines` terms).
struct CandidateFacts<'a> {
    searcher: &'a tantivy::Searcher,
    /// Per segment: the `file` and `artifact_type` columns.
    columns: Vec<(
        Option<tantivy::columnar::StrColumn>,
        Option<tantivy::columnar::StrColumn>,
    )>,
    /// Per segment: the `chunk_id` column (when feedback is to be read).
    chunk_ids: Vec<Option<tantivy::columnar::StrColumn>>,
    /// The query's identifiers, lower case, as `defines` terms.
    defines: Option<Box<dyn tantivy::query::Weight>>,
}

impl<'a> CandidateFacts<'a> {
    fn new(
        searcher: &'a tantivy::Searcher,
        index: &GatewayIndex,
        identifiers: &[String],
        with_chunk_ids: bool,
    ) -> Result<CandidateFacts<'a>, ErrorReport> {
        let f = &index.fields;
        let chunk_ids = if with_chunk_ids {
            searcher
                .segment_readers()
                .iter()
                .map(|reader| reader.fast_fields().str("chunk_id"))
                .collect::<tantivy::Result<Vec<_>>>()
                .map_err(search_failed)?
        } else {
            Vec::new()
        };
        let columns = searcher
            .segment_readers()
            .iter()
            .map(|reader| {
                let fast = reader.fast_fields();
                Ok((fast.str("file")?, fast.str("artifact_type")?))
            })
            .collect::<tantivy::Result<Vec<_>>>()
            .map_err(search_failed)?;
        let defines = if identifiers.is_empty() {
            None
        } else {
            let terms: Vec<(Occur, Box<dyn Query>)> = identifiers
                .iter()
                .map(|name| {
                    let q: Box<dyn Query> = Box::new(TermQuery::new(
                        Term::from_field_text(f.defines, &name.to_lowercase()),
                        IndexRecordOption::Basic,
                    ));
                    (Occur::Should, q)
                })
                .collect();
            let weight = BooleanQuery::new(terms)
                .weight(tantivy::query::EnableScoring::disabled_from_searcher(
                    searcher,
                ))
                .map_err(search_failed)?;
            Some(weight)
        };
        Ok(CandidateFacts {
            searcher,
            columns,
            chunk_ids,
            defines,
        })
    }

    /// The candidate's chunk id (empty unless asked for at creation).
    fn chunk_id(&self, address: DocAddress) -> Result<String, ErrorReport> {
        let column = self
            .chunk_ids
            .get(address.segment_ord as usize)
            .and_then(Option::as_ref);
        read_str(column, address)
    }

    /// The candidate's root, path and type.
    fn of(&self, address: DocAddress) -> Result<(String, String, ArtifactType), ErrorReport> {
        let (file, kind) = self
            .columns
            .get(address.segment_ord as usize)
            .map(|(file, kind)| (file.as_ref(), kind.as_ref()))
            .unwrap_or((None, None));
        let file = read_str(file, address)?;
        let (root, path) = file
            .split_once('\u{1f}')
            .map(|(r, p)| (r.to_string(), p.to_string()))
            .unwrap_or_default();
        let kind = ArtifactType::parse(&read_str(kind, address)?).unwrap_or(ArtifactType::Other);
        Ok((root, path, kind))
    }

    /// Which of `addresses` define one of the query's identifiers (one
    /// pass over each segment's postings, in document order).
    fn defining(
        &self,
        addresses: impl Iterator<Item = DocAddress>,
    ) -> Result<HashSet<DocAddress>, ErrorReport> {
        let mut found = HashSet::new();
        let Some(weight) = &self.defines else {
            return Ok(found);
        };
        let mut by_segment: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for address in addresses {
            by_segment
                .entry(address.segment_ord)
                .or_default()
                .push(address.doc_id);
        }
        for (segment_ord, mut docs) in by_segment {
            docs.sort_unstable();
            let reader = self.searcher.segment_reader(segment_ord);
            let mut scorer = weight.scorer(reader, 1.0).map_err(search_failed)?;
            for doc in docs {
                if scorer.doc() < doc {
                    scorer.seek(doc);
                }
                if scorer.doc() == doc {
                    found.insert(DocAddress::new(segment_ord, doc));
                }
            }
        }
        Ok(found)
    }
}

/// A document's value in a string fast field (empty when it has none).
fn read_str(
    column: Option<&tantivy::columnar::StrColumn>,
    address: DocAddress,
) -> Result<String, ErrorReport> {
    let mut out = String::new();
    if let Some(column) = column
        && let Some(ord) = column.term_ords(address.doc_id).next()
    {
        column.ord_to_str(ord, &mut out).map_err(search_failed)?;
    }
    Ok(out)
}

fn search_failed(e: impl std::fmt::Display) -> ErrorReport {
    ErrorReport::new(ErrorCode::Internal, format!("gateway search: {e}"))
}

fn chunk_of(index: &GatewayIndex, doc: &TantivyDocument) -> ChunkOut {
    let f = &index.fields;
    let text = |field| {
        doc.get_first(field)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    let optional = |field| Some(text(field)).filter(|s: &String| !s.is_empty());
    let number = |field| doc.get_first(field).and_then(|v| v.as_u64()).unwrap_or(0);
    let path = text(f.path);
    ChunkOut {
        chunk_id: text(f.chunk_id),
        root: text(f.root),
        artifact_path: text(f.path),
        artifact_type: text(f.artifact_type),
        subsystem: optional(f.subsystem),
        language: optional(f.language),
        start_line: number(f.start_line),
        end_line: number(f.end_line),
        heading: optional(f.heading),
        text: text(f.text),
        symbols: symbols_of(doc.get_first(f.symbols).and_then(|v| v.as_str()), &path),
        tags: doc
            .get_all(f.tags)
            .filter_map(|v| v.as_str())
            .map(str::to_string)
            .collect(),
    }
}

fn symbols_of(json: Option<&str>, path: &str) -> Vec<SymbolOut> {
    let stored: Vec<ChunkSymbol> = json
        .and_then(|j| serde_json::from_str(j).ok())
        .unwrap_or_default();
    stored
        .into_iter()
        .map(|s| SymbolOut {
            id: format!("Symbol:{path}::{}", s.qualified_name),
            qualified_name: s.qualified_name,
            kind: s.kind.as_str().to_string(),
            start_line: s.start_line as u64,
            end_line: s.end_line as u64,
            editor_uri: None,
        })
        .collect()
}

/// The filters as queries every result must match.
fn filter_clauses(
    index: &GatewayIndex,
    filters: &SearchFilters,
) -> Result<Vec<Box<dyn Query>>, ErrorReport> {
    let f = &index.fields;
    let any_of = |field, values: Vec<String>| -> Box<dyn Query> {
        Box::new(BooleanQuery::new(
            values
                .into_iter()
                .map(|v| {
                    let q: Box<dyn Query> = Box::new(TermQuery::new(
                        Term::from_field_text(field, &v),
                        IndexRecordOption::Basic,
                    ));
                    (Occur::Should, q)
                })
                .collect(),
        ))
    };
    let mut out = Vec::new();
    if !filters.subsystems.is_empty() {
        out.push(any_of(f.subsystem, filters.subsystems.clone()));
    }
    if !filters.artifact_types.is_empty() {
        out.push(any_of(
            f.artifact_type,
            filters
                .artifact_types
                .iter()
                .map(|t| t.to_ascii_lowercase())
                .collect(),
        ));
    }
    if !filters.tags.is_empty() {
        out.push(any_of(f.tags, filters.tags.clone()));
    }
    if !filters.symbols.is_empty() {
        out.push(any_of(
            f.symbol,
            filters.symbols.iter().map(|s| s.to_lowercase()).collect(),
        ));
    }
    if !filters.symbol_kinds.is_empty() {
        out.push(any_of(
            f.symbol_kind,
            filters
                .symbol_kinds
                .iter()
                .map(|k| k.to_ascii_lowercase())
                .collect(),
        ));
    }
    if !filters.symbol_languages.is_empty() {
        out.push(any_of(
            f.language,
            filters
                .symbol_languages
                .iter()
                .map(|l| l.to_ascii_lowercase())
                .collect(),
        ));
    }
    if !filters.namespaces.is_empty() {
        // A namespace is a root, or a top-level folder of any root.
        let searcher = index.reader.searcher();
        let mut paths: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for namespace in &filters.namespaces {
            let namespace = namespace.trim_matches('/');
            paths.push((
                Occur::Should,
                Box::new(TermQuery::new(
                    Term::from_field_text(f.root, namespace),
                    IndexRecordOption::Basic,
                )),
            ));
            let prefix = format!("{namespace}/");
            paths.push((
                Occur::Should,
                Box::new(
                    tantivy::query::RegexQuery::from_pattern(
                        &format!("{}.*", regex_escape(&prefix)),
                        f.path,
                    )
                    .map_err(|e| invalid(format!("filters.namespaces: {e}")))?,
                ),
            ));
        }
        drop(searcher);
        out.push(Box::new(BooleanQuery::new(paths)));
    }
    let mut after = filters
        .updated_after
        .as_deref()
        .and_then(UtcMillis::parse_iso)
        .map(|t| t.0);
    if let Some(days) = filters.max_age_days {
        let since = UtcMillis::now().0 - i64::from(days) * 86_400_000;
        after = Some(after.map_or(since, |a| a.max(since)));
    }
    if let Some(after) = after {
        out.push(Box::new(RangeQuery::new(
            std::ops::Bound::Excluded(Term::from_field_i64(f.modified, after)),
            std::ops::Bound::Unbounded,
        )));
    }
    Ok(out)
}

fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~\"@<>".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The query without what misleads ranking: links (one to a source file
/// keeps its path, a mention) and random-looking tokens (hashes, ids,
/// base64), whose rare fragments would otherwise outweigh the words.
pub fn clean_query(query: &str) -> String {
    let mut out = String::with_capacity(query.len());
    for token in query.split_inclusive(char::is_whitespace) {
        let word = token.trim_end();
        let tail = &token[word.len()..];
        let bare = word.trim_matches(|c: char| "<>()[]\"'`,".contains(c));
        if let Some(at) = bare.find("://") {
            // `…/blob/<ref>/src/x.py#L10` → `src/x.py`
            let path = bare[at + 3..].split(['#', '?']).next().unwrap_or_default();
            let segments: Vec<&str> = path.split('/').collect();
            let inner = segments
                .iter()
                .position(|s| *s == "blob" || *s == "tree")
                .map(|i| segments.get(i + 2..).unwrap_or_default().join("/"));
            if let Some(inner) = inner
                && matches!(
                    crate::classify::artifact_type(&inner, crate::classify::language(&inner)),
                    ArtifactType::Code | ArtifactType::Test
                )
            {
                out.push_str(&inner);
            }
            out.push_str(tail);
            continue;
        }
        let mut kept = String::with_capacity(word.len());
        let mut piece = String::new();
        let flush = |piece: &mut String, kept: &mut String| {
            if !is_random(piece) {
                kept.push_str(piece);
            }
            piece.clear();
        };
        for c in word.chars() {
            if c.is_alphanumeric() {
                piece.push(c);
            } else {
                flush(&mut piece, &mut kept);
                kept.push(c);
            }
        }
        flush(&mut piece, &mut kept);
        out.push_str(&kept);
        out.push_str(tail);
    }
    out
}

/// Whether a run of letters and digits reads as generated: a hex hash
/// or id, or a long mix of letters and digits (base64, tokens).
fn is_random(piece: &str) -> bool {
    let digits = piece.chars().filter(char::is_ascii_digit).count();
    let letters = piece.chars().filter(|c| c.is_alphabetic()).count();
    let hex = piece.len() >= 8 && digits >= 2 && piece.chars().all(|c| c.is_ascii_hexdigit());
    let mixed = piece.len() >= 16 && digits >= 3 && letters >= 3;
    hex || mixed
}

/// The identifiers a query writes as code (`total_with_tax`,
/// `sendRequest`, `Session.send` → `send`): words holding `_`, an inner
/// capital, or a `.` between names. Plain words are left to BM25.
fn identifiers(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for raw in query.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')) {
        let raw = raw.trim_matches('.');
        let qualified = raw.contains('.') && !raw.contains("..");
        let last = raw.rsplit('.').next().unwrap_or(raw);
        let camel =
            last.chars().skip(1).any(char::is_uppercase) && last.chars().any(char::is_lowercase);
        let code_like = last.contains('_') || camel || qualified;
        let is_file = qualified && crate::classify::language(raw).is_some();
        if last.chars().count() >= 3 && code_like && !is_file && !out.iter().any(|o| o == last) {
            out.push(last.to_string());
        }
    }
    out
}

/// A file the query names: a path, a file name, or a stack frame.
#[derive(Debug, Clone, PartialEq)]
struct Mention {
    /// As written, `/`-separated, without line numbers.
    path: String,
    /// Its last segment, lower-cased.
    file_name: String,
}

impl Mention {
    /// Whether `path` is the mentioned file: the mention is the path or a
    /// suffix of it made of whole segments (only a file name needs the
    /// name to match).
    fn matches_path(&self, path: &str) -> bool {
        let path = path.to_ascii_lowercase();
        let mention = self.path.to_ascii_lowercase();
        path == mention || path.ends_with(&format!("/{mention}"))
    }
}

/// The files a query names: tokens holding a known extension, with any
/// `:line[:col]`, quotes and brackets stripped.
fn mentioned_files(query: &str) -> Vec<Mention> {
    let mut out: Vec<Mention> = Vec::new();
    for raw in query.split(|c: char| c.is_whitespace() || "\"'`,()[]<>{}=".contains(c)) {
        let mut token = raw.trim_matches(|c: char| ".:;!?".contains(c));
        // `src/app.ts:40:7`, `x.go:45`
        while let Some((head, tail)) = token.rsplit_once(':') {
            if tail.chars().all(|c| c.is_ascii_digit()) && !tail.is_empty() {
                token = head;
            } else {
                break;
            }
        }
        let token = token.trim_start_matches("./").replace('\\', "/");
        let token = token.rsplit("site-packages/").next().unwrap_or(&token);
        let file_name = token.rsplit('/').next().unwrap_or(token);
        let Some((stem, _)) = file_name.rsplit_once('.') else {
            continue;
        };
        if stem.is_empty() || crate::classify::language(file_name).is_none() {
            continue;
        }
        let mention = Mention {
            path: token.trim_start_matches('/').to_string(),
            file_name: file_name.to_ascii_lowercase(),
        };
        if !out.contains(&mention) {
            out.push(mention);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_file_names_and_stack_frames_are_mentions() {
        let found = mentioned_files(
            "Traceback:\n  File \"/usr/lib/python3/site-packages/requests/sessions.py\", line 589, in request\n at run (src/app.ts:40:7)\n see handler_test.go:45 and README.md. Version 1.2 is fine.",
        );
        let paths: Vec<&str> = found.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(
            paths,
            vec![
                "requests/sessions.py",
                "src/app.ts",
                "handler_test.go",
                "README.md"
            ]
        );
        assert!(found[0].matches_path("src/requests/sessions.py"));
        assert!(!found[0].matches_path("src/requests/mysessions.py"));
    }

    #[test]
    fn links_and_random_tokens_leave_the_query() {
        let cleaned = clean_query(
            "Before reporting, read https://github.com/org/rich/blob/master/FAQ.md please.\nSee https://github.com/org/rich/blob/main/rich/console.py#L120 and playground https://x.dev/?q=eyJhbGciOiJIUzI1NiJ9aB3dE5fG6h commit 3f7d3e4e9a1b uuid 9b2c4d1e-0f3a-4b5c-8d9e-1a2b3c4d5e6f sha256 UTF8 v2",
        );
        assert!(!cleaned.contains("FAQ"), "{cleaned}");
        assert!(cleaned.contains("rich/console.py"), "{cleaned}");
        assert!(!cleaned.contains("eyJhbGci"), "{cleaned}");
        assert!(!cleaned.contains("3f7d3e4e"), "{cleaned}");
        assert!(!cleaned.contains("9b2c4d1e"), "{cleaned}");
        for kept in ["reporting", "sha256", "UTF8", "v2", "playground"] {
            assert!(cleaned.contains(kept), "{kept}: {cleaned}");
        }
    }

    #[test]
    fn code_like_words_find_their_definitions() {
        assert_eq!(
            identifiers(
                "Session.send fails in total_with_tax and sendRequest, not in setup.py or Basic words"
            ),
            vec!["send", "total_with_tax", "sendRequest"]
        );
        let defines = |text, name| crate::index::defined_names(text).contains(&name);
        assert!(defines(
            "class Invoice:\n    def total_with_tax(self):",
            "total_with_tax"
        ));
        assert!(defines(
            "func (s *Server) sendRequest(r int) {",
            "sendRequest"
        ));
        assert!(!defines(
            "    return total_with_tax_rate(x)",
            "total_with_tax"
        ));
        assert!(!defines(
            "assert Invoice().total_with_tax()",
            "total_with_tax"
        ));
    }

    #[test]
    fn bad_requests_are_refused_with_what_to_do() {
        let too_long = SearchRequest {
            query: "x".repeat(MAX_QUERY_CHARS + 1),
            ..Default::default()
        };
        assert_eq!(
            check_request(&too_long).unwrap_err().code,
            ErrorCode::InvalidArguments
        );
        let limit = SearchRequest {
            query: "x".into(),
            limit: Some(26),
            ..Default::default()
        };
        assert!(
            check_request(&limit)
                .unwrap_err()
                .message
                .contains("1 to 25")
        );
        let kind = SearchRequest {
            query: "x".into(),
            filters: SearchFilters {
                artifact_types: vec!["binary".into()],
                ..Default::default()
            },
            ..Default::default()
        };
        assert!(
            check_request(&kind)
                .unwrap_err()
                .message
                .contains("code, test")
        );
    }
}
