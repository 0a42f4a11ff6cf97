//! The optional embedding lane of `km-search`: chunks embedded by an
//! OpenAI-compatible provider (`gateway.embeddings: true`, the provider
//! under `search.embeddings`), ranked by cosine similarity and fused with
//! the lexical ranking by reciprocal rank (see [`crate::search`]).
//!
//! - **What is embedded**: [`embed_text`] of a chunk (its path, heading
//!   and text, at most [`MAX_EMBED_CHARS`](crate::ingest::chunk::MAX_EMBED_CHARS)); the index keeps its hash
//!   (`embed_hash`), which keys the vector cache in the knowledge store,
//!   so a text is sent to the provider once whichever process asks, and a
//!   chunk that did not change is never embedded again.
//! - **When**: after every ingest, all chunks without a vector (bounded
//!   only by the provider); at search time the few a concurrent ingest
//!   left (at most one batch), the rest reported as pending.
//! - **Filters first**: the lane ranks only the chunks the request's
//!   filters let through, like the lexical lane.
//! - **Never an error**: a provider that cannot be reached or refuses
//!   leaves the lane skipped (a warning) and search answers lexically.
//! - **Memory**: the vectors of the current index are held normalised,
//!   4 × dimensions bytes per distinct chunk text (30 MB for 10,000 chunks
//!   of 768 dimensions).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use lore_core::error::HasErrorCode;
use lore_core::project::Project;
use lore_core::{ErrorCode, ErrorReport};
use lore_llm::Provider;
use lore_llm::provider::normalized;
use lore_store::KnowledgeStore;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tantivy::collector::DocSetCollector;
use tantivy::index::SegmentId;
use tantivy::query::Query;
use tantivy::schema::Value;
use tantivy::{DocAddress, Searcher, TantivyDocument};

use crate::index::GatewayIndex;
use crate::ingest::chunk::embed_text;

/// Hashes asked of the vector cache at once.
const CACHE_BATCH: usize = 500;

/// What bringing the lane up to date did.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct EmbeddingReport {
    /// The model the vectors are of.
    pub model: String,
    /// Distinct chunk texts in the index.
    pub chunks: usize,
    /// Texts sent to the provider now.
    pub embedded: usize,
    /// Vectors found in the store's cache.
    pub from_cache: usize,
    /// Texts still without a vector (embedded by the next ingest).
    pub pending: usize,
    /// Why the provider could not be used, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The lane of one project.
pub struct VectorLane {
    provider: Provider,
    weight: f32,
    state: Mutex<LaneState>,
}

#[derive(Default)]
struct LaneState {
    /// The index segments (and their deletes) the vectors below are laid
    /// out for.
    layout: Option<Layout>,
    /// Vectors by text hash (normalised).
    vectors: HashMap<String, Arc<[f32]>>,
    /// Per segment, per document: its vector (none for a deleted
    /// document or a text not embedded yet).
    by_doc: Vec<Vec<Option<Arc<[f32]>>>>,
    /// Texts without a vector in that generation.
    pending: usize,
}

/// A searcher's segments in order, each with its deletes' stamp: two
/// searchers of one layout number their documents alike (a generation id
/// would not do: every reload makes a new one).
type Layout = Vec<(SegmentId, Option<u64>)>;

fn layout_of(searcher: &Searcher) -> Layout {
    searcher
        .segment_readers()
        .iter()
        .map(|s| (s.segment_id(), s.delete_opstamp()))
        .collect()
}

/// The chunks of the best cosine similarity, best first.
pub type VectorHits = Vec<(f32, DocAddress)>;

impl VectorLane {
    /// The lane of a project that asks for one (`gateway.embeddings`) and
    /// names a provider.
    pub fn for_project(project: &Project) -> Option<VectorLane> {
        if !project.config.gateway.embeddings {
            return None;
        }
        let config = project.config.search.embeddings.as_ref()?;
        Some(VectorLane {
            provider: Provider::new(config, &project.root),
            weight: config.weight() as f32,
            state: Mutex::new(LaneState::default()),
        })
    }

    /// Its weight in the fusion (`search.embeddings.weight`).
    pub fn weight(&self) -> f32 {
        self.weight
    }

    /// The normalised vector of a query (or why there is none).
    pub fn query(&self, text: &str) -> Result<Arc<[f32]>, String> {
        self.provider.query(text)
    }

    /// Brings the lane to `searcher`'s generation of the index: vectors
    /// from memory, then the store's cache, then the provider (at most
    /// `budget` texts). Nothing to do when the generation was seen and
    /// nothing is pending.
    pub fn sync(
        &self,
        searcher: &Searcher,
        store: Option<&dyn KnowledgeStore>,
        budget: usize,
    ) -> Result<EmbeddingReport, ErrorReport> {
        let layout = layout_of(searcher);
        let mut report = EmbeddingReport {
            model: self.provider.model().to_string(),
            ..Default::default()
        };
        if self.at_rest(&layout, &mut report) {
            return Ok(report);
        }
        let chunks = chunk_hashes(searcher)?;
        report.chunks = chunks.first_doc.len();
        let missing = self.take_cached(&chunks.first_doc, store, &mut report)?;
        let wanted = &missing[..missing.len().min(budget)];
        let fresh = self.embed(searcher, store, wanted, &chunks.first_doc, &mut report)?;
        self.lay_out(layout, chunks, fresh, &mut report);
        Ok(report)
    }

    /// Whether the lane is at `layout`'s generation already and has
    /// nothing to do now; `report` then says what is pending and why.
    fn at_rest(&self, layout: &Layout, report: &mut EmbeddingReport) -> bool {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.layout.as_ref() == Some(layout) {
            // Nothing new, or nothing the provider can take now: the
            // index is not walked again.
            let resting = match state.pending {
                0 => None,
                _ => self.provider.ready().err(),
            };
            if state.pending == 0 || resting.is_some() {
                report.chunks = state.vectors.len() + state.pending;
                report.pending = state.pending;
                report.error = resting;
                return true;
            }
        }
        false
    }

    /// Forgets the vectors of texts no longer in the index, takes the
    /// store's cached vectors of the texts without one, and returns the
    /// hashes still without a vector.
    fn take_cached(
        &self,
        first_doc: &HashMap<String, DocAddress>,
        store: Option<&dyn KnowledgeStore>,
        report: &mut EmbeddingReport,
    ) -> Result<Vec<String>, ErrorReport> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.vectors.retain(|hash, _| first_doc.contains_key(hash));
        let unknown: Vec<String> = first_doc
            .keys()
            .filter(|h| !state.vectors.contains_key(*h))
            .cloned()
            .collect();
        if let Some(store) = store {
            for batch in unknown.chunks(CACHE_BATCH) {
                let cached = store
                    .cached_vectors(self.provider.model(), batch)
                    .map_err(|e| ErrorReport::new(e.code(), e.to_string()))?;
                for (hash, vector) in cached {
                    if let Some(vector) = normalized(&vector) {
                        state.vectors.insert(hash, vector.into());
                        report.from_cache += 1;
                    }
                }
            }
        }
        Ok(unknown
            .into_iter()
            .filter(|h| !state.vectors.contains_key(h))
            .collect())
    }

    /// The vectors of the texts `wanted` (hashes, read from `first_doc`)
    /// from the provider, in batches, each batch written to the store's
    /// cache; a batch the provider refuses ends the run, its reason in
    /// `report`. Embedded without the lock: searches go on meanwhile.
    fn embed(
        &self,
        searcher: &Searcher,
        store: Option<&dyn KnowledgeStore>,
        wanted: &[String],
        first_doc: &HashMap<String, DocAddress>,
        report: &mut EmbeddingReport,
    ) -> Result<HashMap<String, Arc<[f32]>>, ErrorReport> {
        let mut fresh: HashMap<String, Arc<[f32]>> = HashMap::new();
        for batch in wanted.chunks(self.provider.batch_size().max(1)) {
            let mut texts = Vec::with_capacity(batch.len());
            for hash in batch {
                let doc: TantivyDocument = searcher.doc(first_doc[hash]).map_err(internal)?;
                texts.push(self.text_of(searcher, &doc));
            }
            let vectors = match self.provider.embed(&texts) {
                Ok(vectors) => vectors,
                Err(reason) => {
                    report.error = Some(reason);
                    break;
                }
            };
            let pairs: Vec<(String, Vec<f32>)> = batch.iter().cloned().zip(vectors).collect();
            if let Some(store) = store
                && let Err(e) = store.cache_vectors(self.provider.model(), &pairs)
            {
                // A cache that cannot be written costs a re-embedding
                // later, nothing now.
                tracing::warn!(error = %e, "gateway embedding cache not written");
            }
            for (hash, vector) in pairs {
                if let Some(vector) = normalized(&vector) {
                    fresh.insert(hash, vector.into());
                }
            }
            report.embedded += batch.len();
        }
        Ok(fresh)
    }

    /// Keeps the `fresh` vectors and lays every vector out per document
    /// for `layout`'s generation, counting the texts still pending.
    fn lay_out(
        &self,
        layout: Layout,
        chunks: ChunkHashes,
        fresh: HashMap<String, Arc<[f32]>>,
        report: &mut EmbeddingReport,
    ) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.vectors.extend(fresh);
        let LaneState {
            vectors, by_doc, ..
        } = &mut *state;
        *by_doc = chunks
            .by_doc
            .into_iter()
            .map(|segment| {
                segment
                    .into_iter()
                    .map(|hash| hash.and_then(|h| vectors.get(&h).cloned()))
                    .collect()
            })
            .collect();
        report.pending = chunks
            .first_doc
            .keys()
            .filter(|h| !state.vectors.contains_key(*h))
            .count();
        state.pending = report.pending;
        state.layout = Some(layout);
    }

    /// The text a stored chunk was embedded by.
    fn text_of(&self, searcher: &Searcher, doc: &TantivyDocument) -> String {
        let schema = searcher.schema();
        let field = |name: &str| {
            schema.get_field(name).ok().and_then(|f| {
                doc.get_first(f)
                    .and_then(|v| v.as_str().map(str::to_string))
            })
        };
        embed_text(
            &field("path").unwrap_or_default(),
            field("heading").as_deref(),
            &field("text").unwrap_or_default(),
        )
    }

    /// The `limit` chunks most similar to `query` among those `filter`
    /// lets through (every chunk when there is none), in `searcher`'s
    /// generation (call [`VectorLane::sync`] with it first; none when the
    /// index changed since).
    pub fn candidates(
        &self,
        searcher: &Searcher,
        filter: Option<&dyn Query>,
        query: &[f32],
        limit: usize,
    ) -> Result<Option<VectorHits>, ErrorReport> {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.layout.as_ref() != Some(&layout_of(searcher)) {
            // An ingest committed since the sync.
            return Ok(None);
        }
        let score = |address: DocAddress| {
            let vector = state
                .by_doc
                .get(address.segment_ord as usize)?
                .get(address.doc_id as usize)?
                .as_ref()?;
            Some((lore_search::vectors::dot(query, vector), address))
        };
        let scored: Vec<(f32, DocAddress)> = match filter {
            Some(filter) => searcher
                .search(filter, &DocSetCollector)
                .map_err(internal)?
                .into_iter()
                .filter_map(score)
                .collect(),
            None => state
                .by_doc
                .iter()
                .enumerate()
                .flat_map(|(segment, docs)| {
                    (0..docs.len()).map(move |doc| DocAddress::new(segment as u32, doc as u32))
                })
                .filter_map(score)
                .collect(),
        };
        Ok(Some(lore_search::vectors::top_k(scored, limit)))
    }
}

/// Every live chunk's text hash in one generation of the index.
struct ChunkHashes {
    /// Per segment, per document: its text hash (none for a deleted
    /// document or one without).
    by_doc: Vec<Vec<Option<String>>>,
    /// Each distinct hash, with a document to read its text from.
    first_doc: HashMap<String, DocAddress>,
}

/// Every live chunk's text hash in `searcher`'s generation, and a
/// document to read it from.
fn chunk_hashes(searcher: &Searcher) -> Result<ChunkHashes, ErrorReport> {
    let mut hashes_by_doc: Vec<Vec<Option<String>>> = Vec::new();
    let mut first_doc: HashMap<String, DocAddress> = HashMap::new();
    for (ord, segment) in searcher.segment_readers().iter().enumerate() {
        let column = segment.fast_fields().str("embed_hash").map_err(internal)?;
        let alive = segment.alive_bitset();
        let mut hashes = vec![None; segment.max_doc() as usize];
        if let Some(column) = column {
            let mut hash = String::new();
            for doc in 0..segment.max_doc() {
                if alive.is_some_and(|a| !a.is_alive(doc)) {
                    continue;
                }
                let Some(term) = column.term_ords(doc).next() else {
                    continue;
                };
                if column.ord_to_str(term, &mut hash).map_err(internal)? {
                    first_doc
                        .entry(hash.clone())
                        .or_insert(DocAddress::new(ord as u32, doc));
                    hashes[doc as usize] = Some(hash.clone());
                }
            }
        }
        hashes_by_doc.push(hashes);
    }
    Ok(ChunkHashes {
        by_doc: hashes_by_doc,
        first_doc,
    })
}

/// The index a lane ranks: its reader, reloaded.
pub(crate) fn searcher_of(index: &GatewayIndex) -> Result<Searcher, ErrorReport> {
    index.reload()?;
    Ok(index.reader.searcher())
}

fn internal(e: impl std::fmt::Display) -> ErrorReport {
    ErrorReport::new(ErrorCode::Internal, format!("gateway embedding lane: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::chunk::MAX_EMBED_CHARS;

    #[test]
    fn a_chunk_is_embedded_by_its_path_heading_and_text_within_bounds() {
        assert_eq!(
            embed_text("src/a.py", Some("class A:"), "def f(): pass"),
            "src/a.py\nclass A:\ndef f(): pass"
        );
        assert_eq!(embed_text("a.md", None, "x"), "a.md\nx");
        let long = embed_text("a.md", None, &"é".repeat(5_000));
        assert_eq!(long.chars().count(), MAX_EMBED_CHARS);
    }
}
