//! `discover_data`: one ranked search over what exists — wiki pages,
//! semantic-layer sources, measures and dimensions, and scanned tables and
//! columns — answered from the shared index under `.lore/index/`.
//!
//! Freshness: before every search, wiki files edited on disk are imported
//! into the knowledge store, the store's group is brought up to the
//! store's newest transaction (incrementally, from the transaction log),
//! and each connection's group is compared with its source (the latest
//! scan's `syncId`, the model files' stamp) and re-indexed when it moved
//! on. So a new scan, an edited model or a page saved a moment ago is
//! found by the very next call. Lanes (raw schema, semantic layer, wiki,
//! and the optional embedding lane of [`embedding`]) are searched
//! separately and fused by weighted reciprocal rank (lexical lanes weigh
//! 1); scores are normalised so the best is 1, unless only a low-weight
//! lane answered (the listing of a small schema a question's words missed).

mod data;
pub mod documents;
pub mod embedding;
mod schema_rank;
pub mod watch;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use lore_core::error::HasErrorCode;
use lore_core::project::Project;
use lore_core::{ErrorCode, ErrorReport};
use lore_search::{DocKind, SearchDoc, SearchHit, SearchIndex, SearchQuery};
use lore_semantic::model::ModelCache;
use lore_store::{Entry, KnowledgeStore, StoreError, TxId};
use lore_warehouse::catalog::Catalog;
use schemars::JsonSchema;
use serde::Serialize;

use crate::semantic::files::SemanticFiles;
use crate::wiki::{Wiki, entry_doc};
pub use embedding::{EMBEDDING_LANE, EmbeddingLane};

pub use data::{
    DiscoverDataInput, DiscoverDataOutput, DiscoverRef, LaneReport, RefKind, check_search,
    discover_data,
};

/// The index group of the knowledge store's entries (wiki pages, notes);
/// its stamp is the transaction it reflects.
pub const STORE_GROUP: &str = "store";

/// How many transactions behind the store group may be and still be
/// caught up one change at a time (beyond, it is rebuilt).
const INCREMENTAL_MAX: i64 = 500;

/// The lane of scanned tables and columns, ranked by [`schema_rank`].
const SCHEMA_LANE: &str = "raw_schema";
/// The rest of a small schema, listed after what the question's words
/// found (see `schema_rank`).
pub const LISTING_LANE: &str = "schema_listing";
/// Its weight in fusion: below any hit of a full lane, so its scores stay
/// small when nothing else answered.
const LISTING_WEIGHT: f32 = 0.02;

/// A search lane: the kinds it covers.
const LANES: [(&str, &[DocKind]); 3] = [
    (SCHEMA_LANE, &[DocKind::Table, DocKind::Column]),
    (
        "semantic_layer",
        &[DocKind::SlSource, DocKind::SlMeasure, DocKind::SlDimension],
    ),
    ("wiki", &[DocKind::Wiki]),
];

/// The discovery service of one project.
pub struct Discover {
    index_dir: PathBuf,
    connections: Vec<String>,
    catalog: Arc<Catalog>,
    models: Arc<ModelCache>,
    wiki: Option<Arc<Wiki>>,
    model_files: Option<Arc<SemanticFiles>>,
    index: Mutex<Option<Arc<SearchIndex>>>,
    /// A long-running server's change notification, with the project root
    /// it watches under.
    watch: Option<(watch::ChangeWatch, PathBuf)>,
    /// The store's head after the last full check (`None` inside: no store).
    checked_at: Mutex<Option<Option<TxId>>>,
    /// The semantic lane, when `lore.yaml` configures an embedding provider.
    embedding: Option<Arc<EmbeddingLane>>,
    /// The raw schema lane's ranker.
    schema: schema_rank::SchemaRanker,
}

/// One fused result before it is shaped for the wire.
pub struct Fused {
    /// The hit.
    pub hit: SearchHit,
    /// Fused score, 0..1.
    pub score: f64,
    /// The lanes that found it, with its rank in each.
    pub lanes: Vec<LaneRank>,
}

/// Where one lane ranked a result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LaneRank {
    /// The lane.
    pub lane: String,
    /// 1 for the lane's best.
    pub rank: usize,
    /// The embedding lane only: cosine similarity of the query and the
    /// document, -1 to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
}

/// A search's results with what each lane contributed.
pub struct Discovered {
    /// Best first.
    pub results: Vec<Fused>,
    /// Per lane: candidates found, or why it was skipped.
    pub lanes: Vec<LaneReport>,
}

impl Discover {
    /// The service over a project's connections, catalog and models.
    pub fn new(
        index_dir: PathBuf,
        connections: Vec<String>,
        catalog: Arc<Catalog>,
        models: Arc<ModelCache>,
    ) -> Discover {
        Discover {
            index_dir,
            connections,
            catalog,
            models,
            wiki: None,
            model_files: None,
            index: Mutex::new(None),
            watch: None,
            checked_at: Mutex::new(None),
            embedding: None,
            schema: schema_rank::SchemaRanker::default(),
        }
    }

    /// Adds the semantic lane.
    pub fn with_embeddings(mut self, lane: EmbeddingLane) -> Discover {
        self.embedding = Some(Arc::new(lane));
        self
    }

    /// The semantic lane, when one is configured.
    pub fn embedding(&self) -> Option<&Arc<EmbeddingLane>> {
        self.embedding.as_ref()
    }

    /// Skips the folder walks of the freshness checks while nothing under
    /// `root`'s wiki, semantic layer, scans or index changed (see
    /// [`watch`]). For long-running servers; one-shot commands walk.
    pub fn with_watch(mut self, root: &std::path::Path) -> Discover {
        self.watch = Some((watch::ChangeWatch::new(), root.to_path_buf()));
        self
    }

    /// Adds the wiki and the knowledge store it lives in: their pages and
    /// entries are indexed and kept fresh too.
    pub fn with_wiki(mut self, wiki: Arc<Wiki>) -> Discover {
        self.wiki = Some(wiki);
        self
    }

    /// The wiki, when there is one.
    pub fn wiki(&self) -> Option<&Arc<Wiki>> {
        self.wiki.as_ref()
    }

    /// Adds the semantic model's files: edits made to them on disk are
    /// recorded in the store (as versions) before every search.
    pub fn with_model_files(mut self, files: Arc<SemanticFiles>) -> Discover {
        self.model_files = Some(files);
        self
    }

    /// The semantic model's files, when they are kept in the store.
    pub fn model_files(&self) -> Option<&Arc<SemanticFiles>> {
        self.model_files.as_ref()
    }

    /// The service of a loaded project: its connections, its scans (shared
    /// `catalog`) and its semantic models (shared `models`).
    pub fn for_project(
        project: &Project,
        catalog: Arc<Catalog>,
        models: Arc<ModelCache>,
    ) -> Discover {
        let discover = Discover::new(
            project.index_dir(),
            project.config.connections.keys().cloned().collect(),
            catalog,
            models,
        );
        match EmbeddingLane::for_project(project) {
            Some(lane) => discover.with_embeddings(lane),
            None => discover,
        }
    }

    /// The configured connection ids.
    pub fn connections(&self) -> &[String] {
        &self.connections
    }

    /// Brings every group up to date with its source and returns the index.
    /// Blocking: call it off the async runtime.
    pub fn refresh(&self) -> Result<Arc<SearchIndex>, ErrorReport> {
        let mut slot = self.index.lock().unwrap_or_else(|p| p.into_inner());
        let index = match slot.as_ref() {
            Some(index) => Arc::clone(index),
            None => {
                let index = Arc::new(SearchIndex::open(&self.index_dir).map_err(internal)?);
                *slot = Some(Arc::clone(&index));
                index
            }
        };
        let head = self.store_head()?;
        if let Some((watch, root)) = &self.watch {
            let quiet = !watch.changed();
            if quiet && *self.checked_at.lock().unwrap_or_else(|p| p.into_inner()) == Some(head) {
                return Ok(index);
            }
            // Watch before checking, so a change made during the check is
            // seen by the next call.
            self.watch_sources(watch, root);
        }
        // Also makes searches see commits made by other processes.
        let stamps = index.sync().map_err(internal)?;
        // The wiki's files (and the model files' history) are checked on
        // a second thread while this one checks the scans and the model
        // files for the index (each is a folder walk).
        let (moved, wiki_synced) = std::thread::scope(|scope| {
            let files = self.model_files.as_ref();
            let wiki = self.wiki.as_ref().map(|wiki| {
                scope.spawn(move || {
                    if let Some(files) = files
                        && let Err(e) = files.refresh()
                    {
                        // The model is read from its files: a failure to
                        // record their history never stops a search.
                        tracing::warn!("semantic-layer mirror: {e}");
                    }
                    wiki.refresh()
                })
            });
            let moved = self.moved_groups(&stamps);
            let synced = wiki.map(|w| {
                w.join().unwrap_or_else(|_| {
                    Err(ErrorReport::new(
                        ErrorCode::Internal,
                        "the wiki sync panicked",
                    ))
                })
            });
            (moved, synced)
        });
        if let (Some(wiki), Some(synced)) = (&self.wiki, wiki_synced) {
            // Files edited on disk became store transactions: index them.
            synced?;
            self.refresh_store(wiki, &index, &stamps)?;
        }
        let (replaced, dropped) = moved;
        if !replaced.is_empty() || !dropped.is_empty() {
            let groups: Vec<(&str, &str, &[lore_search::SearchDoc])> = replaced
                .iter()
                .map(|(g, s, d)| (g.as_str(), s.as_str(), d.as_slice()))
                .collect();
            index.replace_groups(&groups, &dropped).map_err(internal)?;
        }
        if self.watch.is_some() {
            *self.checked_at.lock().unwrap_or_else(|p| p.into_inner()) = Some(self.store_head()?);
        }
        Ok(index)
    }

    /// The index groups whose source moved on since they were indexed
    /// (scans, semantic-layer files, connections no longer configured).
    /// Reads only: the next search or `refresh` catches them up.
    pub fn stale_groups(&self) -> Result<Vec<String>, ErrorReport> {
        let index = SearchIndex::open(&self.index_dir).map_err(internal)?;
        let stamps = index.sync().map_err(internal)?;
        let (replaced, dropped) = self.moved_groups(&stamps);
        Ok(replaced
            .into_iter()
            .map(|(group, _, _)| group)
            .chain(dropped.into_iter().map(str::to_string))
            .collect())
    }

    /// The knowledge store's newest transaction, without creating a store
    /// that does not exist.
    fn store_head(&self) -> Result<Option<TxId>, ErrorReport> {
        match &self.wiki {
            Some(wiki) if wiki.exists() => Ok(Some(wiki.store()?.head().map_err(|e| e.report())?)),
            _ => Ok(None),
        }
    }

    /// Watches every folder whose change the freshness checks look for.
    fn watch_sources(&self, watch: &watch::ChangeWatch, root: &std::path::Path) {
        watch::watch_or_parent(watch, root, &root.join("wiki"));
        watch::watch_tree(watch, &root.join("wiki"));
        for connection in &self.connections {
            watch::watch_or_parent(watch, root, &self.models.dir(connection));
            watch::watch_or_parent(
                watch,
                root,
                &lore_warehouse::snapshot::snapshots_dir(root, connection),
            );
        }
        // Commits of other processes (the store's are seen by its head).
        watch::watch_or_parent(watch, root, &self.index_dir);
    }

    /// The connection groups whose source moved on since `stamps` (with
    /// their new stamp and documents) and the groups of connections no
    /// longer configured.
    #[allow(clippy::type_complexity)]
    fn moved_groups<'s>(
        &self,
        stamps: &'s BTreeMap<String, String>,
    ) -> (Vec<(String, String, Vec<SearchDoc>)>, Vec<&'s str>) {
        let mut replaced = Vec::new();
        for connection in &self.connections {
            let group = format!("schema:{connection}");
            match self.catalog.latest(connection) {
                Ok(Some(snapshot)) => {
                    let stamp = snapshot.manifest.sync_id.clone();
                    if stamps.get(&group) != Some(&stamp) {
                        replaced.push((
                            group,
                            stamp,
                            documents::schema_docs(connection, &snapshot),
                        ));
                    }
                }
                // Not scanned yet, or a broken snapshot (entity_details
                // reports it): nothing to find.
                _ => {
                    if stamps.contains_key(&group) {
                        replaced.push((group, String::new(), Vec::new()));
                    }
                }
            }
            let group = format!("sl:{connection}");
            let stamp = self.models.stamp(connection);
            if stamps.get(&group) != Some(&stamp) {
                let docs = match self.models.model(connection) {
                    Ok(model) => documents::semantic_docs(connection, &model),
                    Err(_) => Vec::new(),
                };
                replaced.push((group, stamp, docs));
            }
        }
        // Groups of connections no longer configured.
        let dropped: Vec<&str> = stamps
            .keys()
            .filter(|group| {
                group.split_once(':').is_some_and(|(prefix, c)| {
                    (prefix == "schema" || prefix == "sl")
                        && !self.connections.iter().any(|k| k == c)
                })
            })
            .map(String::as_str)
            .collect();
        (replaced, dropped)
    }

    /// Brings the store group up to the store's newest transaction: one
    /// change at a time from the log when it is a little behind, rebuilt
    /// when it is far behind, missing or ahead (a replaced store).
    fn refresh_store(
        &self,
        wiki: &Wiki,
        index: &SearchIndex,
        stamps: &BTreeMap<String, String>,
    ) -> Result<(), ErrorReport> {
        let store = wiki.store()?;
        let head = store.head().map_err(|e| e.report())?;
        let indexed: Option<TxId> = stamps.get(STORE_GROUP).and_then(|s| s.parse().ok());
        match indexed {
            Some(at) if at == head => Ok(()),
            Some(at) if at < head && head - at <= INCREMENTAL_MAX => {
                let changes = store
                    .changes_since(at, INCREMENTAL_MAX as usize)
                    .map_err(|e| e.report())?;
                let last = changes.last().map_or(at, |c| c.tx_id);
                let ids: BTreeSet<&str> = changes
                    .iter()
                    .flat_map(|c| c.entries.iter().map(|(id, _)| id.as_str()))
                    .collect();
                let mut removed = Vec::new();
                let mut docs = Vec::new();
                for id in ids {
                    if let Some(doc) = entry_as_of(store.as_ref(), id, at)?
                        .as_ref()
                        .and_then(entry_doc)
                    {
                        removed.push(doc.key());
                    }
                    if let Some(doc) = entry_as_of(store.as_ref(), id, last)?
                        .as_ref()
                        .and_then(entry_doc)
                    {
                        docs.push(doc);
                    }
                }
                index
                    .update_group(STORE_GROUP, &last.to_string(), &removed, &docs)
                    .map_err(internal)
            }
            _ => {
                let (at, entries) = store.entries_at(None, None).map_err(|e| e.report())?;
                let docs: Vec<SearchDoc> = entries.iter().filter_map(entry_doc).collect();
                index
                    .replace_group(STORE_GROUP, &at.to_string(), &docs)
                    .map_err(internal)
            }
        }
    }

    /// Searches each lane the kinds ask for and fuses the results.
    /// Blocking.
    pub fn search(
        &self,
        text: &str,
        kinds: &[DocKind],
        connection: Option<&str>,
        limit: usize,
    ) -> Result<Discovered, ErrorReport> {
        let index = self.refresh()?;
        let mut lanes = Vec::new();
        let mut ranked = Vec::new();
        for (lane, lane_kinds) in LANES {
            let wanted: Vec<DocKind> = lane_kinds
                .iter()
                .copied()
                .filter(|k| kinds.is_empty() || kinds.contains(k))
                .collect();
            if wanted.is_empty() {
                lanes.push(LaneReport::skipped(lane, "not in kinds"));
                continue;
            }
            let hits = if lane == SCHEMA_LANE {
                let connections: Vec<&str> = match connection {
                    Some(c) => vec![c],
                    None => self.connections.iter().map(String::as_str).collect(),
                };
                let (found, listed) =
                    self.schema
                        .search(&self.catalog, &connections, text, &wanted, limit);
                if !listed.is_empty() {
                    lanes.push(LaneReport::ran(LISTING_LANE, listed.len()));
                    ranked.push(RankedLane {
                        lane: LISTING_LANE,
                        weight: LISTING_WEIGHT,
                        hits: listed,
                    });
                }
                found
            } else {
                self.lane_hits(
                    &index,
                    &SearchQuery {
                        text: text.to_string(),
                        kinds: wanted,
                        connection: connection.map(String::from),
                        // Fusion never ranks a lane's hit below `limit` into
                        // the fused top `limit` (at equal weights).
                        limit,
                    },
                )?
            };
            lanes.push(LaneReport::ran(lane, hits.len()));
            ranked.push(RankedLane {
                lane,
                weight: 1.0,
                hits,
            });
        }
        if let Some((report, hits)) = self.semantic_lane(&index, text, kinds, connection, limit) {
            lanes.push(report);
            ranked.extend(hits);
        }
        Ok(Discovered {
            results: fuse(ranked, limit),
            lanes,
        })
    }

    /// Searches wiki pages only (`wiki_search`): the lexical lane, and the
    /// embedding lane when one is configured. Blocking.
    pub fn search_wiki(&self, text: &str, limit: usize) -> Result<Discovered, ErrorReport> {
        let index = self.refresh()?;
        let hits = self.lane_hits(
            &index,
            &SearchQuery {
                text: text.to_string(),
                kinds: vec![DocKind::Wiki],
                connection: None,
                limit,
            },
        )?;
        let mut lanes = vec![LaneReport::ran("lexical", hits.len())];
        let mut ranked = vec![RankedLane {
            lane: "lexical",
            weight: 1.0,
            hits,
        }];
        if let Some((report, hits)) =
            self.semantic_lane(&index, text, &[DocKind::Wiki], None, limit)
        {
            lanes.push(report);
            ranked.extend(hits);
        }
        Ok(Discovered {
            results: fuse(ranked, limit),
            lanes,
        })
    }

    /// Runs the embedding lane, when one is configured: its report, and
    /// its hits when it found any. It never fails a search: trouble is a
    /// skipped lane.
    fn semantic_lane(
        &self,
        index: &SearchIndex,
        text: &str,
        kinds: &[DocKind],
        connection: Option<&str>,
        limit: usize,
    ) -> Option<(LaneReport, Option<RankedLane<'static>>)> {
        let lane = self.embedding.as_ref()?;
        let cache = self.vector_cache();
        let synced = index
            .stamps()
            .map_err(|e| e.to_string())
            .and_then(|stamps| lane.sync(index, &stamps, cache.as_deref()));
        let outcome = match synced {
            Ok(()) => lane.search(
                index,
                cache.as_deref(),
                &embedding::LaneQuery {
                    text,
                    kinds,
                    connection,
                    user: self.wiki.as_ref().map(|w| w.user()),
                    limit,
                },
            ),
            Err(reason) => embedding::LaneOutcome {
                hits: Vec::new(),
                report: LaneReport::skipped(EMBEDDING_LANE, &reason),
            },
        };
        let hits = (!outcome.hits.is_empty()).then(|| RankedLane {
            lane: EMBEDDING_LANE,
            weight: lane.weight(),
            hits: outcome.hits,
        });
        Some((outcome.report, hits))
    }

    /// Where vectors are cached: the knowledge store, when there is one.
    fn vector_cache(&self) -> Option<Arc<dyn KnowledgeStore>> {
        let wiki = self.wiki.as_ref()?;
        match wiki.store() {
            Ok(store) => Some(store),
            Err(e) => {
                tracing::warn!(error = %e.message, "embedding cache unavailable");
                None
            }
        }
    }

    /// Embeds every document still without a vector (the server's warm-up,
    /// `lore reindex`); `progress` hears (embedded so far, still pending)
    /// after each batch. Returns how many were embedded, or why the
    /// provider could not be used; `Ok(None)` when no lane is configured.
    /// Blocking.
    pub fn embed_all(
        &self,
        progress: impl FnMut(usize, usize),
    ) -> Result<Option<usize>, ErrorReport> {
        let Some(lane) = &self.embedding else {
            return Ok(None);
        };
        let index = self.refresh()?;
        let cache = self.vector_cache();
        let stamps = index.stamps().map_err(internal)?;
        lane.sync(&index, &stamps, cache.as_deref())
            .and_then(|()| lane.embed_pending(usize::MAX, cache.as_deref(), progress))
            .map(Some)
            .map_err(|reason| ErrorReport::new(ErrorCode::UpstreamError, reason))
    }

    /// One lane's hits, without other users' wiki pages.
    fn lane_hits(
        &self,
        index: &SearchIndex,
        query: &SearchQuery,
    ) -> Result<Vec<SearchHit>, ErrorReport> {
        let mut hits = index.search(query).map_err(internal)?;
        if let Some(wiki) = &self.wiki {
            hits.retain(|hit| {
                hit.payload
                    .get("user")
                    .and_then(|u| u.as_str())
                    .is_none_or(|u| u == wiki.user())
            });
        }
        Ok(hits)
    }
}

/// One lane's ranked hits and its weight in fusion.
pub struct RankedLane<'a> {
    /// The lane's name.
    pub lane: &'a str,
    /// Its weight (lexical lanes 1).
    pub weight: f32,
    /// Best first.
    pub hits: Vec<SearchHit>,
}

/// Fuses ranked lists by weighted reciprocal rank (`weight / (60 + rank)`),
/// best first; a document found by several lanes adds up. Ties go to the
/// stronger match of the first lane that found it. A result keeps the hit
/// of the first lane that found it (lexical lanes come first: their hit
/// says which words matched).
/// Scores are relative to the best hit, or to a full-weight lane's first
/// hit when the best is weaker (a low-weight lane's hits alone score low).
pub fn fuse(ranked: Vec<RankedLane<'_>>, limit: usize) -> Vec<Fused> {
    let mut by_key: BTreeMap<String, (f32, f32, SearchHit, Vec<LaneRank>)> = BTreeMap::new();
    for RankedLane { lane, weight, hits } in ranked {
        for (rank, hit) in hits.into_iter().enumerate() {
            let rrf = lore_search::vectors::reciprocal_rank(rank + 1, weight);
            let similarity = (lane == EMBEDDING_LANE).then(|| round(hit.score as f64, 1e4));
            let slot = by_key
                .entry(hit.key.clone())
                .or_insert_with(|| (0.0, hit.score, hit, Vec::new()));
            slot.0 += rrf;
            slot.3.push(LaneRank {
                lane: lane.to_string(),
                rank: rank + 1,
                similarity,
            });
        }
    }
    let mut fused: Vec<(f32, f32, SearchHit, Vec<LaneRank>)> = by_key.into_values().collect();
    fused.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(b.1.total_cmp(&a.1))
            .then(a.2.key.cmp(&b.2.key))
    });
    fused.truncate(limit);
    // Relative to the best, or to a full-weight lane's first hit when no
    // better hit exists, so a weak lane alone never scores 1.
    let best = fused
        .first()
        .map_or(1.0, |f| f.0)
        .max(lore_search::vectors::reciprocal_rank(1, 1.0));
    fused
        .into_iter()
        .map(|(rrf, _, hit, lanes)| Fused {
            score: round((rrf / best) as f64, 1e6),
            hit,
            lanes,
        })
        .collect()
}

fn round(value: f64, scale: f64) -> f64 {
    (value * scale).round() / scale
}

/// An entry as of a transaction; none when it did not exist (or was
/// deleted) then.
fn entry_as_of(
    store: &dyn KnowledgeStore,
    id: &str,
    tx: TxId,
) -> Result<Option<Entry>, ErrorReport> {
    match store.get(id, Some(tx)) {
        Ok(value) => Ok(serde_json::from_value(value).ok()),
        Err(StoreError::NotFound(_)) => Ok(None),
        Err(e) => Err(e.report()),
    }
}

fn internal(error: lore_search::SearchError) -> ErrorReport {
    ErrorReport::new(ErrorCode::Internal, error.to_string())
}
