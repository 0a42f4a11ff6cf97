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

pub mod feedback;
mod issue;
mod query;
mod rank;
pub mod snippet;
mod terms;

pub use snippet::Detail;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};

use lore_core::time::UtcMillis;
use lore_core::{ErrorCode, ErrorReport};
use lore_search::vectors::reciprocal_rank;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tantivy::query::{BooleanQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, TantivyDocument, Term};

use query::QueryPlan;
pub use query::clean_query;
use rank::{CANDIDATES, Candidate, Ranker, per_file};

use crate::index::GatewayIndex;
use crate::ingest::chunk::ChunkSymbol;
use crate::ingest::classify::ArtifactType;
use crate::ingest::outline::SymbolKind;

/// Longest query, in characters (a pasted issue with its stack trace fits).
pub const MAX_QUERY_CHARS: usize = 32_000;
/// Most results.
pub const MAX_LIMIT: usize = 25;
/// Results when no limit is given.
pub const DEFAULT_LIMIT: usize = 10;

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
    /// Only files of these roots (by name; unknown names are refused).
    #[serde(default)]
    pub roots: Vec<String>,
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
    /// Snippets (the default) or each chunk's whole text.
    pub detail: Detail,
    /// Filters applied before ranking.
    pub filters: SearchFilters,
    /// Rank by the embedding lane alone (when the gateway has one).
    pub sort_by_vector: bool,
    /// Add each result's file neighbours in the code graph
    /// ([`Gateway::add_graph_context`](crate::Gateway::add_graph_context)).
    pub include_graph: bool,
}

/// A chunk as results show it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChunkOut {
    /// `<root>/<path>::<key>` (the key is the chunk's first definition,
    /// or its ordinal).
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
    /// The whole text (with `detail: full`; empty and left out of a
    /// compact answer).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// The lines that hold most of the query's words (a compact answer,
    /// the default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<Snippet>,
    /// The definitions it holds.
    pub symbols: Vec<SymbolOut>,
    /// The file's tags.
    pub tags: Vec<String>,
}

/// A few lines of a chunk.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Snippet {
    /// First line shown (1-based, in the file).
    pub start_line: u64,
    /// Last line shown (inclusive).
    pub end_line: u64,
    /// The lines (each cut at 160 characters).
    pub text: String,
}

/// A definition in a result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SymbolOut {
    /// Its graph node: `Symbol:<root>/<path>::<qualified_name>`.
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
    /// The share of the query's words, weighted by how rare they are,
    /// that the search's best chunk holds (in its text, headings, path or
    /// symbols); every score is scaled by it, so a query that matches
    /// little of anything scores low.
    pub query_coverage: f32,
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

/// The embedding lane's part in one search.
pub struct VectorSearch<'a> {
    /// The lane, synced to the index.
    pub lane: &'a crate::index::vectors::VectorLane,
    /// The query's normalised vector.
    pub query: std::sync::Arc<[f32]>,
}

/// One result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchResult {
    /// The chunk.
    pub chunk: ChunkOut,
    /// How good a match, 0 to 1: `adjusted` over the best chunk's in the
    /// whole index (filters do not change it), times `query_coverage`.
    pub score: f32,
    /// How it was computed.
    pub scoring: Scoring,
    /// The file's neighbours in the code graph (when `include_graph`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph_context: Option<crate::graph::explore::GraphContext>,
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
    for language in &f.symbol_languages {
        let known = crate::ingest::classify::LANGUAGES
            .iter()
            .any(|l| l.eq_ignore_ascii_case(language.trim()));
        if !known && !language.trim().is_empty() {
            return Err(invalid(format!(
                "filters.symbol_languages: `{language}` is not a language the gateway knows; use one of {}",
                crate::ingest::classify::LANGUAGES.join(", ")
            )));
        }
    }
    for (name, values) in [
        ("subsystems", &f.subsystems),
        ("namespaces", &f.namespaces),
        ("roots", &f.roots),
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
    pub links: Option<&'a crate::graph::explore::GraphLinks>,
    /// The votes on earlier searches' results (`feedback`).
    pub feedback: Option<&'a feedback::FeedbackVotes>,
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
    if searcher.num_docs() == 0 {
        warnings.push(
            "the index is empty: run `lore gateway ingest PATH` (or km-ingest-trigger) first"
                .to_string(),
        );
    }
    let stats = terms::TermStats::new(&searcher);
    let plan = QueryPlan::new(
        &stats,
        &index.fields,
        &request.query,
        signals.feedback,
        &mut warnings,
    );
    let ranker = Ranker::new(&searcher, index, &plan, signals, &stats)?;
    if !ranker.has_clauses() && vector.is_none() {
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
    let lexical = ranker.lexical(&filters)?;
    let (kept, best) = match vector {
        None => (per_file(lexical.members, limit), lexical.best),
        Some(vector) => {
            let fused = fuse(
                &ranker,
                &searcher,
                &filters,
                lexical.members,
                vector,
                request,
                &mut warnings,
            )?;
            // Fused scores are ranks: the scale is this search's best.
            let kept = per_file(fused, limit);
            let best = kept.first().map_or(0.0, |c| c.scoring.adjusted);
            (kept, best)
        }
    };
    // The best chunk's share of the query scales every score: a query
    // that matches little of anything scores low.
    let quality = match lexical.top {
        Some(top) => {
            let doc: TantivyDocument = searcher.doc(top).map_err(rank::search_failed)?;
            ranker.coverage(&doc)?
        }
        None => 1.0,
    };
    let best = best.max(f32::MIN_POSITIVE);
    let mut results = Vec::with_capacity(kept.len());
    for candidate in kept {
        let doc: TantivyDocument = searcher
            .doc(candidate.address)
            .map_err(|e| ErrorReport::new(ErrorCode::Internal, format!("gateway search: {e}")))?;
        let mut scoring = candidate.scoring;
        scoring.query_coverage = quality;
        results.push(SearchResult {
            chunk: chunk_of(index, &doc),
            score: (scoring.adjusted / best * quality).clamp(0.0, 1.0),
            scoring,
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

/// The lexical members fused with the embedding lane's by reciprocal rank
/// (or the embedding lane alone with `sort_by_vector`).
fn fuse(
    ranker: &Ranker<'_>,
    searcher: &tantivy::Searcher,
    filters: &[Box<dyn Query>],
    lexical: Vec<Candidate>,
    vector: VectorSearch<'_>,
    request: &SearchRequest,
    warnings: &mut Vec<String>,
) -> Result<Vec<Candidate>, ErrorReport> {
    let filter_only: Option<Box<dyn Query>> = (!filters.is_empty()).then(|| {
        let must: Vec<(Occur, Box<dyn Query>)> = filters
            .iter()
            .map(|f| (Occur::Must, f.box_clone()))
            .collect();
        Box::new(BooleanQuery::new(must)) as Box<dyn Query>
    });
    let hits = vector
        .lane
        .candidates(searcher, filter_only.as_deref(), &vector.query, CANDIDATES)?
        .unwrap_or_else(|| {
            warnings.push(
                "embedding lane skipped: an ingest changed the index during the search; results are ranked lexically".to_string(),
            );
            Vec::new()
        });
    let weight = vector.lane.weight();
    let defining = ranker
        .facts()
        .defining(hits.iter().map(|(_, address)| *address))?;
    let mut by_address: HashMap<DocAddress, (usize, Candidate)> = lexical
        .into_iter()
        .enumerate()
        .map(|(rank, candidate)| (candidate.address, (rank + 1, candidate)))
        .collect();
    let mut fused = Vec::with_capacity(by_address.len() + hits.len());
    for (rank, (cosine, address)) in hits.into_iter().enumerate() {
        let (lexical_rank, mut candidate) = match by_address.remove(&address) {
            Some((rank, candidate)) => (Some(rank), candidate),
            None => (None, ranker.candidate(address, 0.0, &defining)?),
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
    fused.sort_by(|a, b| b.scoring.adjusted.total_cmp(&a.scoring.adjusted));
    Ok(fused)
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
    let root = text(f.root);
    ChunkOut {
        chunk_id: text(f.chunk_id),
        root: root.clone(),
        artifact_path: path.clone(),
        artifact_type: text(f.artifact_type),
        subsystem: optional(f.subsystem),
        language: optional(f.language),
        start_line: number(f.start_line),
        end_line: number(f.end_line),
        heading: optional(f.heading),
        text: text(f.text),
        snippet: None,
        symbols: symbols_of(
            doc.get_first(f.symbols).and_then(|v| v.as_str()),
            &root,
            &path,
        ),
        tags: doc
            .get_all(f.tags)
            .filter_map(|v| v.as_str())
            .map(str::to_string)
            .collect(),
    }
}

fn symbols_of(json: Option<&str>, root: &str, path: &str) -> Vec<SymbolOut> {
    let stored: Vec<ChunkSymbol> = json
        .and_then(|j| serde_json::from_str(j).ok())
        .unwrap_or_default();
    stored
        .into_iter()
        .map(|s| SymbolOut {
            id: crate::graph::symbol_node(root, path, &s.qualified_name),
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
    if !filters.roots.is_empty() {
        out.push(any_of(f.root, filters.roots.clone()));
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

#[cfg(test)]
mod tests {
    use super::*;

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
