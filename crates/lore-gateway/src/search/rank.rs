//! How candidates are ranked: each chunk's BM25 score times its signals
//! (a file the query names, a definition of an identifier it writes, the
//! file's artifact type, agents' feedback, the tests that validate it),
//! then at most two chunks a file.
//!
//! Filters decide membership only: the signals and the scale of scores
//! come from the whole index, so a chunk scores the same with or without
//! a filter (a filtered search ranks its members as the unfiltered one
//! would, and finds members the unfiltered one cut).

use std::collections::{BTreeMap, HashMap, HashSet};

use lore_core::{ErrorCode, ErrorReport};
use tantivy::collector::TopDocs;
use tantivy::query::{
    Bm25StatisticsProvider, BooleanQuery, ConstScoreQuery, Occur, Query, TermQuery,
};
use tantivy::schema::IndexRecordOption;
use tantivy::schema::Value;
use tantivy::{DocAddress, Searcher, TantivyDocument, Term};

use super::query::QueryPlan;
use super::terms::TermStats;
use super::{Scoring, Signals};
use crate::graph::explore::GraphLinks;
use crate::index::{Fields, GatewayIndex};
use crate::ingest::chunk::ChunkSymbol;
use crate::ingest::classify::ArtifactType;

/// Chunks ranked before per-file aggregation.
pub(super) const CANDIDATES: usize = 300;
/// Members of a filter among the whole index's candidates that make the
/// filtered search unneeded.
const ENOUGH_MEMBERS: usize = 150;

/// The most a test raises the code it validates: `1 + GRAPH_BOOST ×
/// support`, the support being the test's score over the best
/// candidate's, divided by the square root of the files it validates.
const GRAPH_BOOST: f32 = 0.25;

/// The `graph_neighbour` signal: a code file that a well-ranked test of
/// the same search validates is raised (an issue is often written in its
/// tests' words), by at most [`GRAPH_BOOST`]. Documents' `DESCRIBES`
/// links were tried too and lost more than they found on the
/// localisation set.
fn graph_support(scored: &[Candidate], links: &GraphLinks) -> HashMap<String, f32> {
    let mut support: HashMap<String, f32> = HashMap::new();
    let best = scored
        .iter()
        .map(|c| c.scoring.adjusted)
        .fold(0.0f32, f32::max);
    if best <= 0.0 {
        return support;
    }
    // Each pointing file's best chunk, relative to the best candidate.
    for candidate in scored {
        if candidate.artifact_type != ArtifactType::Test {
            continue;
        }
        let file = format!("{}/{}", candidate.root, candidate.path);
        let Some(targets) = links.targets.get(&file) else {
            continue;
        };
        // A test of one file says more about it than a test of many.
        let relative = candidate.scoring.adjusted / best / (targets.len() as f32).sqrt();
        for target in targets {
            if *target != file {
                let entry = support.entry(target.clone()).or_insert(0.0);
                *entry = entry.max(relative);
            }
        }
    }
    support
}

/// Raises each code candidate by its tests' support.
fn apply_support(scored: &mut [Candidate], support: &HashMap<String, f32>) {
    if support.is_empty() {
        return;
    }
    for candidate in scored.iter_mut() {
        if candidate.artifact_type != ArtifactType::Code {
            continue;
        }
        if let Some(s) = support.get(&format!("{}/{}", candidate.root, candidate.path)) {
            let factor = 1.0 + GRAPH_BOOST * s.min(1.0);
            candidate
                .scoring
                .signals
                .insert("graph_neighbour".to_string(), factor);
            candidate.scoring.adjusted *= factor;
        }
    }
}

/// The lexical lane's ranking of one search.
pub(super) struct Lexical {
    /// The filter's members, best first, with their signals.
    pub members: Vec<Candidate>,
    /// The best adjusted score over the whole index (the scale of scores).
    pub best: f32,
    /// The best chunk over the whole index.
    pub top: Option<DocAddress>,
}

/// Ranks one query's candidates.
pub(super) struct Ranker<'a> {
    searcher: &'a Searcher,
    fields: &'a Fields,
    plan: &'a QueryPlan,
    facts: CandidateFacts<'a>,
    signals: &'a Signals<'a>,
    stats: &'a TermStats<'a>,
    clauses: Vec<(Occur, Box<dyn Query>)>,
}

impl<'a> Ranker<'a> {
    pub fn new(
        searcher: &'a Searcher,
        index: &'a GatewayIndex,
        plan: &'a QueryPlan,
        signals: &'a Signals<'a>,
        stats: &'a TermStats<'a>,
    ) -> Result<Ranker<'a>, ErrorReport> {
        let facts =
            CandidateFacts::new(searcher, index, &plan.identifiers, !plan.boosts.is_empty())?;
        Ok(Ranker {
            searcher,
            fields: &index.fields,
            plan,
            facts,
            signals,
            stats,
            clauses: plan.clauses(&index.fields, stats).map_err(search_failed)?,
        })
    }

    /// Whether the query has anything to search by.
    pub fn has_clauses(&self) -> bool {
        self.plan.has_clauses()
    }

    /// The share of the query's words, each weighted by its IDF, that the
    /// chunk `doc` holds in its text, heading, path or symbol names (1
    /// when the query has no words). Read from the stored document: one
    /// chunk's words, against one dictionary lookup per query word.
    pub fn coverage(&self, doc: &TantivyDocument) -> Result<f32, ErrorReport> {
        let f = self.fields;
        let mut text = String::new();
        for field in [f.text, f.heading, f.path] {
            for value in doc.get_all(field).filter_map(|v| v.as_str()) {
                text.push_str(value);
                text.push('\n');
            }
        }
        let symbols = doc.get_first(f.symbols).and_then(|v| v.as_str());
        let symbols: Vec<ChunkSymbol> = symbols
            .and_then(|json| serde_json::from_str(json).ok())
            .unwrap_or_default();
        for symbol in symbols {
            text.push_str(&symbol.qualified_name);
            text.push('\n');
        }
        let words: HashSet<String> = lore_search::tokenizer::terms(&text).into_iter().collect();
        let documents = self.searcher.num_docs() as f32;
        let (mut total, mut found) = (0.0f32, 0.0f32);
        for term in &self.plan.terms {
            let df = self
                .stats
                .doc_freq(&Term::from_field_text(f.text, term))
                .map_err(search_failed)? as f32;
            let weight = ((documents - df + 0.5) / (df + 0.5) + 1.0).ln();
            total += weight;
            if words.contains(term) {
                found += weight;
            }
        }
        Ok(if total > 0.0 { found / total } else { 1.0 })
    }

    /// The facts candidates are read with (for the embedding lane's own).
    pub fn facts(&self) -> &CandidateFacts<'a> {
        &self.facts
    }

    /// The lexical ranking of the members of `filters` (all chunks when
    /// there are none), scored as over the whole index.
    pub fn lexical(&self, filters: &[Box<dyn Query>]) -> Result<Lexical, ErrorReport> {
        if self.clauses.is_empty() {
            return Ok(Lexical {
                members: Vec::new(),
                best: 0.0,
                top: None,
            });
        }
        let mut everything = self.scored(self.top(&[])?)?;
        let support = self
            .signals
            .links
            .map(|links| graph_support(&everything, links))
            .unwrap_or_default();
        apply_support(&mut everything, &support);
        everything.sort_by(|a, b| b.scoring.adjusted.total_cmp(&a.scoring.adjusted));
        let best = best_file_score(&everything);
        let top = everything.first().map(|c| c.address);
        if filters.is_empty() {
            return Ok(Lexical {
                members: everything,
                best,
                top,
            });
        }
        // The members among the whole index's candidates are the best
        // members by BM25; when they are many, they are the ranking (a
        // second search would only add members too weak to reach the
        // results), else the filtered search finds the rest.
        let all_of: Vec<(Occur, Box<dyn Query>)> = filters
            .iter()
            .map(|f| (Occur::Must, f.box_clone()))
            .collect();
        let weight = BooleanQuery::new(all_of)
            .weight(tantivy::query::EnableScoring::disabled_from_searcher(
                self.searcher,
            ))
            .map_err(search_failed)?;
        let inside = matching(
            self.searcher,
            weight.as_ref(),
            everything.iter().map(|c| c.address),
        )?;
        let complete = everything.len() < CANDIDATES;
        let mut members: Vec<Candidate> = everything
            .into_iter()
            .filter(|c| inside.contains(&c.address))
            .collect();
        if complete || members.len() >= ENOUGH_MEMBERS {
            return Ok(Lexical { members, best, top });
        }
        let have: HashSet<DocAddress> = members.iter().map(|c| c.address).collect();
        let fresh: Vec<(f32, DocAddress)> = self
            .top(filters)?
            .into_iter()
            .filter(|(_, address)| !have.contains(address))
            .collect();
        let mut fresh = self.scored(fresh)?;
        apply_support(&mut fresh, &support);
        members.extend(fresh);
        members.sort_by(|a, b| b.scoring.adjusted.total_cmp(&a.scoring.adjusted));
        Ok(Lexical { members, best, top })
    }

    /// The best [`CANDIDATES`] chunks by BM25 among those every filter
    /// keeps.
    fn top(&self, filters: &[Box<dyn Query>]) -> Result<Vec<(f32, DocAddress)>, ErrorReport> {
        let should: Vec<(Occur, Box<dyn Query>)> = self
            .clauses
            .iter()
            .map(|(occur, q)| (*occur, q.box_clone()))
            .collect();
        let mut clauses: Vec<(Occur, Box<dyn Query>)> =
            vec![(Occur::Must, Box::new(BooleanQuery::new(should)))];
        for filter in filters {
            clauses.push((
                Occur::Must,
                Box::new(ConstScoreQuery::new(filter.box_clone(), 0.0)),
            ));
        }
        self.searcher
            .search_with_statistics_provider(
                &BooleanQuery::new(clauses),
                &TopDocs::with_limit(CANDIDATES).order_by_score(),
                self.stats,
            )
            .map_err(search_failed)
    }

    /// Candidates with their signals, in the order given.
    fn scored(&self, top: Vec<(f32, DocAddress)>) -> Result<Vec<Candidate>, ErrorReport> {
        let defining = self
            .facts
            .defining(top.iter().map(|(_, address)| *address))?;
        self.facts
            .prefetch(top.iter().map(|(_, address)| *address))?;
        top.into_iter()
            .map(|(lexical, address)| self.candidate(address, lexical, &defining))
            .collect()
    }

    /// A candidate: its BM25 score times its signals.
    pub fn candidate(
        &self,
        address: DocAddress,
        lexical: f32,
        defining: &HashSet<DocAddress>,
    ) -> Result<Candidate, ErrorReport> {
        let (root, path, artifact_type) = self.facts.of(address)?;
        let mut signals = BTreeMap::new();
        if self.plan.mentions_path(&path) {
            signals.insert("path_mention".to_string(), 1.5);
        }
        if defining.contains(&address) {
            signals.insert("defines_symbol".to_string(), 1.5);
        }
        if !self.plan.boosts.is_empty()
            && let Some(factor) = self.plan.boosts.get(&self.facts.chunk_id(address)?)
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
                query_coverage: 1.0,
            },
        })
    }
}

/// How much each further matching chunk of a file adds to its best one:
/// the `k`-th best (from 0) counts `FILE_EVIDENCE^k`, so a file is at most
/// twice its best chunk however large it is.
const FILE_EVIDENCE: f32 = 0.5;

/// The best file's score among `scored` (see [`per_file`]).
fn best_file_score(scored: &[Candidate]) -> f32 {
    let mut files: HashMap<(&str, &str), (f32, f32)> = HashMap::new();
    // `scored` is best first: each file's chunks come in decreasing order.
    for candidate in scored {
        let (score, weight) = files
            .entry((candidate.root.as_str(), candidate.path.as_str()))
            .or_insert((0.0, 1.0));
        *score += *weight * candidate.scoring.adjusted;
        *weight *= FILE_EVIDENCE;
    }
    files.values().map(|(score, _)| *score).fold(0.0, f32::max)
}

/// Files, not chunks, are ranked: a file scores its best chunk plus the
/// evidence of its other matching chunks, decaying ([`FILE_EVIDENCE`]),
/// so an issue whose words fall in several parts of one file finds it,
/// and a large file cannot win by volume. A file gives at most two
/// results: its best chunk at the file's score (`file_evidence` is the
/// factor over the chunk's own), its second at half that (`same_file`).
pub(super) fn per_file(scored: Vec<Candidate>, limit: usize) -> Vec<Candidate> {
    let mut files: HashMap<(String, String), Vec<Candidate>> = HashMap::new();
    for candidate in scored {
        let key = (candidate.root.clone(), candidate.path.clone());
        files.entry(key).or_default().push(candidate);
    }
    let mut kept: Vec<Candidate> = Vec::new();
    for (_, mut chunks) in files {
        chunks.sort_by(|a, b| b.scoring.adjusted.total_cmp(&a.scoring.adjusted));
        let best = chunks[0].scoring.adjusted;
        let mut file_score = 0.0;
        let mut weight = 1.0;
        for chunk in &chunks {
            file_score += weight * chunk.scoring.adjusted;
            weight *= FILE_EVIDENCE;
        }
        let mut chunks = chunks.into_iter();
        if let Some(mut first) = chunks.next() {
            if best > 0.0 && file_score > best {
                let factor = file_score / best;
                first
                    .scoring
                    .signals
                    .insert("file_evidence".to_string(), factor);
            }
            first.scoring.adjusted = file_score;
            kept.push(first);
        }
        if let Some(mut second) = chunks.next() {
            second.scoring.signals.insert("same_file".to_string(), 0.5);
            second.scoring.adjusted = file_score * 0.5;
            kept.push(second);
        }
    }
    kept.sort_by(|a, b| {
        b.scoring
            .adjusted
            .total_cmp(&a.scoring.adjusted)
            .then_with(|| a.path.cmp(&b.path))
    });
    kept.truncate(limit);
    kept
}

/// A chunk being ranked, before its stored document is read.
pub(super) struct Candidate {
    pub address: DocAddress,
    pub root: String,
    pub path: String,
    pub artifact_type: ArtifactType,
    pub scoring: Scoring,
}

/// What ranking reads of a candidate without its stored document: its
/// file and type from the fast fields, and whether it defines one of the
/// query's identifiers (the `defines` terms).
pub(super) struct CandidateFacts<'a> {
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
    /// The `file` and `artifact_type` values read so far, by segment and
    /// term ordinal (a search's candidates share files, and a column
    /// holds five types).
    read: std::cell::RefCell<HashMap<(u32, bool, u64), String>>,
}

impl<'a> CandidateFacts<'a> {
    pub fn new(
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
            read: Default::default(),
        })
    }

    /// Reads the files and types of `addresses` in one pass over each
    /// segment's dictionaries (in term order), for [`Self::of`].
    pub fn prefetch(&self, addresses: impl Iterator<Item = DocAddress>) -> Result<(), ErrorReport> {
        let mut wanted: BTreeMap<(u32, bool), Vec<u64>> = BTreeMap::new();
        for address in addresses {
            let Some((file, kind)) = self.columns.get(address.segment_ord as usize) else {
                continue;
            };
            for (is_kind, column) in [(false, file), (true, kind)] {
                if let Some(ord) = column
                    .as_ref()
                    .and_then(|c| c.term_ords(address.doc_id).next())
                {
                    wanted
                        .entry((address.segment_ord, is_kind))
                        .or_default()
                        .push(ord);
                }
            }
        }
        let mut read = self.read.borrow_mut();
        for ((segment, is_kind), mut ords) in wanted {
            ords.sort_unstable();
            ords.dedup();
            ords.retain(|ord| !read.contains_key(&(segment, is_kind, *ord)));
            let (file, kind) = &self.columns[segment as usize];
            let Some(column) = (if is_kind { kind } else { file }) else {
                continue;
            };
            let mut at = 0;
            column
                .dictionary()
                .sorted_ords_to_term_cb(&ords, |bytes| {
                    if let Some(ord) = ords.get(at) {
                        read.insert(
                            (segment, is_kind, *ord),
                            String::from_utf8_lossy(bytes).into_owned(),
                        );
                    }
                    at += 1;
                })
                .map_err(search_failed)?;
        }
        Ok(())
    }

    /// A document's value in the `file` (or with `is_kind`, the
    /// `artifact_type`) column, from what [`Self::prefetch`] read.
    fn value(&self, address: DocAddress, is_kind: bool) -> Result<String, ErrorReport> {
        let column = self
            .columns
            .get(address.segment_ord as usize)
            .and_then(|(file, kind)| if is_kind { kind } else { file }.as_ref());
        let Some(ord) = column.and_then(|c| c.term_ords(address.doc_id).next()) else {
            return Ok(String::new());
        };
        let key = (address.segment_ord, is_kind, ord);
        if let Some(value) = self.read.borrow().get(&key) {
            return Ok(value.clone());
        }
        let value = read_str(column, address)?;
        self.read.borrow_mut().insert(key, value.clone());
        Ok(value)
    }

    /// The candidate's chunk id (empty unless asked for at creation).
    pub fn chunk_id(&self, address: DocAddress) -> Result<String, ErrorReport> {
        let column = self
            .chunk_ids
            .get(address.segment_ord as usize)
            .and_then(Option::as_ref);
        read_str(column, address)
    }

    /// The candidate's root, path and type.
    pub fn of(&self, address: DocAddress) -> Result<(String, String, ArtifactType), ErrorReport> {
        let file = self.value(address, false)?;
        let (root, path) = file
            .split_once('\u{1f}')
            .map(|(r, p)| (r.to_string(), p.to_string()))
            .unwrap_or_default();
        let kind = ArtifactType::parse(&self.value(address, true)?).unwrap_or(ArtifactType::Other);
        Ok((root, path, kind))
    }

    /// Which of `addresses` define one of the query's identifiers (one
    /// pass over each segment's postings, in document order).
    pub fn defining(
        &self,
        addresses: impl Iterator<Item = DocAddress>,
    ) -> Result<HashSet<DocAddress>, ErrorReport> {
        match &self.defines {
            Some(weight) => matching(self.searcher, weight.as_ref(), addresses),
            None => Ok(HashSet::new()),
        }
    }
}

/// Which of `addresses` `weight` matches (one pass over each segment's
/// postings, in document order).
fn matching(
    searcher: &Searcher,
    weight: &dyn tantivy::query::Weight,
    addresses: impl Iterator<Item = DocAddress>,
) -> Result<HashSet<DocAddress>, ErrorReport> {
    let mut found = HashSet::new();
    let mut by_segment: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for address in addresses {
        by_segment
            .entry(address.segment_ord)
            .or_default()
            .push(address.doc_id);
    }
    for (segment_ord, mut docs) in by_segment {
        docs.sort_unstable();
        let reader = searcher.segment_reader(segment_ord);
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

pub(super) fn search_failed(e: impl std::fmt::Display) -> ErrorReport {
    ErrorReport::new(ErrorCode::Internal, format!("gateway search: {e}"))
}
