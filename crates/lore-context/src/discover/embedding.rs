//! The optional semantic lane: documents and queries embedded by an
//! OpenAI-compatible provider (`search.embeddings` in `lore.yaml`), ranked
//! by cosine similarity.
//!
//! - **Which documents.** Those of the configured kinds, read from the
//!   shared index group by group; a group is read again only when its
//!   stamp moved, so the lane follows the index's freshness.
//! - **Vectors are cached** in the knowledge store by model and content
//!   hash: a text is sent to the provider once, whichever process asks.
//!   Documents without a vector are *pending*: a search embeds them at
//!   once when there are few (a page just edited), else they are left to
//!   [`EmbeddingLane::embed_pending`] (the server's warm-up, `lore
//!   reindex`) and the lane reports how many are still pending.
//! - **Never an error.** A provider that cannot be reached, refuses the
//!   key or answers nonsense makes the lane *skipped* (with the reason)
//!   and search answers from the lexical lanes; after a failure the
//!   provider is left alone for [`RETRY_AFTER`] so no search waits on a
//!   dead provider twice.
//! - **Ranking** is brute-force cosine over normalised `f32` vectors held
//!   in memory (4 × dimensions bytes per document).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use lore_core::config::EmbeddingsConfig;
use lore_core::project::Project;
use lore_llm::Provider;
use lore_search::vectors::{content_hash, dot, embed_text, normalized, top_k};
use lore_search::{DocKind, SearchHit, SearchIndex};
use lore_store::KnowledgeStore;

use super::data::LaneReport;

/// The lane's name in diagnostics.
pub const EMBEDDING_LANE: &str = "embedding";

/// How long a failed provider is left alone.
pub use lore_llm::provider::RETRY_AFTER;

/// The semantic lane of one project.
pub struct EmbeddingLane {
    /// The provider, behind its breaker.
    provider: Provider,
    weight: f32,
    kinds: Vec<DocKind>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The stamp each group was read at.
    groups: BTreeMap<String, String>,
    docs: HashMap<String, VecDoc>,
}

struct VecDoc {
    group: String,
    kind: DocKind,
    connection: Option<String>,
    /// The owner of a user-scoped wiki page.
    user: Option<String>,
    hash: String,
    /// The text, kept only until the vector is known.
    text: Option<String>,
    vector: Option<Arc<[f32]>>,
}

/// One search of the lane.
#[derive(Clone, Copy)]
pub struct LaneQuery<'a> {
    /// The words.
    pub text: &'a str,
    /// Only these kinds (every embedded kind when empty).
    pub kinds: &'a [DocKind],
    /// Only this connection's documents, and those of no connection.
    pub connection: Option<&'a str>,
    /// Whose user-scoped wiki pages may be seen.
    pub user: Option<&'a str>,
    /// Most hits.
    pub limit: usize,
}

/// What one search of the lane found.
pub struct LaneOutcome {
    /// Best first.
    pub hits: Vec<SearchHit>,
    /// The lane's diagnostics.
    pub report: LaneReport,
}

impl EmbeddingLane {
    /// The lane `config` describes; the API key is resolved now (a
    /// missing variable makes the lane skipped with that message).
    pub fn new(config: &EmbeddingsConfig, project_dir: &std::path::Path) -> EmbeddingLane {
        EmbeddingLane {
            provider: Provider::new(config, project_dir),
            weight: config.weight() as f32,
            kinds: config
                .kinds()
                .iter()
                .filter_map(|k| DocKind::parse(k))
                .collect(),
            state: Mutex::new(State::default()),
        }
    }

    /// The lane of a project that configures one.
    pub fn for_project(project: &Project) -> Option<EmbeddingLane> {
        project
            .config
            .search
            .embeddings
            .as_ref()
            .map(|config| EmbeddingLane::new(config, &project.root))
    }

    /// Its weight in fusion.
    pub fn weight(&self) -> f32 {
        self.weight
    }

    /// Whether it embeds documents of `kind`.
    pub fn covers(&self, kind: DocKind) -> bool {
        self.kinds.contains(&kind)
    }

    /// Reads the groups whose stamp moved since the lane last read them,
    /// taking the vectors of unchanged texts from memory or the cache.
    pub fn sync(
        &self,
        index: &SearchIndex,
        stamps: &BTreeMap<String, String>,
        cache: Option<&dyn KnowledgeStore>,
    ) -> Result<(), String> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let moved: Vec<(String, String)> = stamps
            .iter()
            .filter(|(group, stamp)| state.groups.get(*group) != Some(stamp))
            .map(|(g, s)| (g.clone(), s.clone()))
            .collect();
        let gone: Vec<String> = state
            .groups
            .keys()
            .filter(|g| !stamps.contains_key(*g))
            .cloned()
            .collect();
        if moved.is_empty() && gone.is_empty() {
            return Ok(());
        }
        let mut known: HashMap<String, Arc<[f32]>> = HashMap::new();
        for (group, _) in &moved {
            for doc in state.docs.values().filter(|d| &d.group == group) {
                if let Some(v) = &doc.vector {
                    known.insert(doc.hash.clone(), Arc::clone(v));
                }
            }
        }
        let stale: Vec<&String> = moved.iter().map(|(g, _)| g).chain(&gone).collect();
        state.docs.retain(|_, d| !stale.contains(&&d.group));
        for group in &gone {
            state.groups.remove(group);
        }
        let mut missing = Vec::new();
        for (group, stamp) in moved {
            let docs = index.group_docs(&group).map_err(|e| e.to_string())?;
            for doc in docs.into_iter().filter(|d| self.covers(d.kind)) {
                let text = embed_text(&doc);
                let hash = content_hash(&text);
                let vector = known.get(&hash).cloned();
                if vector.is_none() {
                    missing.push(hash.clone());
                }
                let user = doc
                    .payload
                    .get("user")
                    .and_then(|u| u.as_str())
                    .map(String::from);
                state.docs.insert(
                    doc.key(),
                    VecDoc {
                        group: group.clone(),
                        kind: doc.kind,
                        connection: doc.connection,
                        user,
                        hash,
                        text: vector.is_none().then_some(text),
                        vector,
                    },
                );
            }
            state.groups.insert(group, stamp);
        }
        if let Some(cache) = cache
            && !missing.is_empty()
        {
            let cached = cache
                .cached_vectors(self.provider.model(), &missing)
                .map_err(|e| e.to_string())?;
            for doc in state.docs.values_mut().filter(|d| d.vector.is_none()) {
                if let Some(vector) = cached.get(&doc.hash).and_then(|v| normalized(v)) {
                    doc.vector = Some(vector.into());
                    doc.text = None;
                }
            }
        }
        Ok(())
    }

    /// Documents still without a vector.
    pub fn pending(&self) -> usize {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.docs.values().filter(|d| d.vector.is_none()).count()
    }

    /// Embeds up to `max` pending documents, a batch at a time, caching
    /// their vectors; returns how many were embedded. Stops at the first
    /// provider failure (and leaves the provider alone for a while).
    pub fn embed_pending(
        &self,
        max: usize,
        cache: Option<&dyn KnowledgeStore>,
        mut progress: impl FnMut(usize, usize),
    ) -> Result<usize, String> {
        self.provider.ready()?;
        let mut done = 0;
        while done < max {
            // Texts are taken under the lock and embedded without it, so
            // searches go on meanwhile.
            let batch: Vec<(String, String)> = {
                let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
                let mut seen = std::collections::HashSet::new();
                state
                    .docs
                    .values()
                    .filter_map(|d| Some((d.hash.clone(), d.text.clone()?)))
                    .filter(|(hash, _)| seen.insert(hash.clone()))
                    .take(self.provider.batch_size().min(max - done))
                    .collect()
            };
            if batch.is_empty() {
                break;
            }
            let texts: Vec<String> = batch.iter().map(|(_, t)| t.clone()).collect();
            let vectors = self.provider.embed(&texts)?;
            let fresh: Vec<(String, Vec<f32>)> = batch
                .into_iter()
                .map(|(hash, _)| hash)
                .zip(vectors)
                .collect();
            if let Some(cache) = cache {
                // A cache that cannot be written costs a re-embedding
                // later, nothing now.
                if let Err(e) = cache.cache_vectors(self.provider.model(), &fresh) {
                    tracing::warn!(error = %e, "embedding cache not written");
                }
            }
            let by_hash: HashMap<String, Arc<[f32]>> = fresh
                .iter()
                .filter_map(|(h, v)| Some((h.clone(), normalized(v)?.into())))
                .collect();
            let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
            for doc in state.docs.values_mut().filter(|d| d.vector.is_none()) {
                if let Some(v) = by_hash.get(&doc.hash) {
                    doc.vector = Some(Arc::clone(v));
                    doc.text = None;
                }
            }
            let left = state.docs.values().filter(|d| d.vector.is_none()).count();
            drop(state);
            done += fresh.len();
            progress(done, left);
        }
        Ok(done)
    }

    /// The lane's best documents for `query`. Never an error: a failure
    /// is a skipped lane.
    pub fn search(
        &self,
        index: &SearchIndex,
        cache: Option<&dyn KnowledgeStore>,
        query: &LaneQuery<'_>,
    ) -> LaneOutcome {
        match self.try_search(index, cache, query) {
            Ok((hits, pending)) => LaneOutcome {
                report: LaneReport {
                    pending: (pending > 0).then_some(pending),
                    ..LaneReport::ran(EMBEDDING_LANE, hits.len())
                },
                hits,
            },
            Err(reason) => LaneOutcome {
                hits: Vec::new(),
                report: LaneReport::skipped(EMBEDDING_LANE, &reason),
            },
        }
    }

    fn try_search(
        &self,
        index: &SearchIndex,
        cache: Option<&dyn KnowledgeStore>,
        query: &LaneQuery<'_>,
    ) -> Result<(Vec<SearchHit>, usize), String> {
        let LaneQuery {
            text,
            kinds,
            connection,
            user,
            limit,
        } = *query;
        let wanted: Vec<DocKind> = if kinds.is_empty() {
            self.kinds.clone()
        } else {
            kinds.iter().copied().filter(|k| self.covers(*k)).collect()
        };
        if wanted.is_empty() {
            return Err("no kind asked for is embedded (search.embeddings.kinds)".to_string());
        }
        self.provider.ready()?;
        // A few pending documents (pages just edited) are embedded now;
        // many are left to the background and reported.
        let pending = self.pending();
        if pending > 0 && pending <= self.provider.batch_size() {
            self.embed_pending(pending, cache, |_, _| {})?;
        }
        let query = self.provider.query(text)?;
        let scored: Vec<(f32, String)> = {
            let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
            state
                .docs
                .iter()
                .filter(|(_, d)| wanted.contains(&d.kind))
                .filter(|(_, d)| {
                    connection.is_none()
                        || d.connection.is_none()
                        || d.connection.as_deref() == connection
                })
                .filter(|(_, d)| d.user.is_none() || d.user.as_deref() == user)
                .filter_map(|(key, d)| Some((dot(&query, d.vector.as_deref()?), key.clone())))
                .collect()
        };
        let scored = top_k(scored, limit);
        let keys: Vec<String> = scored.iter().map(|(_, k)| k.clone()).collect();
        let mut docs: HashMap<String, lore_search::SearchDoc> = index
            .docs_by_key(&keys)
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|d| (d.key(), d))
            .collect();
        let hits = scored
            .into_iter()
            .filter_map(|(score, key)| Some(SearchHit::of_doc(docs.remove(&key)?, score)))
            .collect();
        Ok((hits, self.pending()))
    }
}
