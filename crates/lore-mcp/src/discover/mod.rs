//! `discover_data`: one ranked search over what exists — semantic-layer
//! sources, measures and dimensions, scanned tables and columns (and wiki
//! pages, once the wiki lands) — answered from the shared index under
//! `.lore/index/`.
//!
//! Freshness: before every search, each connection's index group is
//! compared with its source (the latest scan's `syncId`, the model files'
//! stamp) and re-indexed when it moved on, so a new scan or an edited
//! model is found by the very next call. Lanes (raw schema, semantic layer,
//! wiki) are searched separately and fused by reciprocal rank with equal
//! weights; scores are normalised so the best is 1.

pub mod documents;
mod tool;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use lore_core::project::Project;
use lore_core::{ErrorCode, ErrorReport};
use lore_search::{DocKind, SearchHit, SearchIndex, SearchQuery};
use lore_semantic::model::ModelCache;
use lore_warehouse::catalog::Catalog;

pub use tool::{
    DiscoverData, DiscoverDataInput, DiscoverDataOutput, DiscoverRef, LaneReport, RefKind,
    discover_data,
};

/// The reciprocal-rank constant (the usual 60).
const RRF_K: f32 = 60.0;

/// A search lane: the kinds it covers.
const LANES: [(&str, &[DocKind]); 3] = [
    ("raw_schema", &[DocKind::Table, DocKind::Column]),
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
    index: Mutex<Option<Arc<SearchIndex>>>,
}

/// One fused result before it is shaped for the wire.
pub struct Fused {
    /// The hit.
    pub hit: SearchHit,
    /// Fused score, 0..1.
    pub score: f64,
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
            index: Mutex::new(None),
        }
    }

    /// The service of a loaded project: its connections, its scans (shared
    /// `catalog`) and its semantic models (shared `models`).
    pub fn for_project(
        project: &Project,
        catalog: Arc<Catalog>,
        models: Arc<ModelCache>,
    ) -> Discover {
        Discover::new(
            project.index_dir(),
            project.config.connections.keys().cloned().collect(),
            catalog,
            models,
        )
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
        // Also makes searches see commits made by other processes.
        let stamps = index.sync().map_err(internal)?;
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
        if !replaced.is_empty() || !dropped.is_empty() {
            let groups: Vec<(&str, &str, &[lore_search::SearchDoc])> = replaced
                .iter()
                .map(|(g, s, d)| (g.as_str(), s.as_str(), d.as_slice()))
                .collect();
            index.replace_groups(&groups, &dropped).map_err(internal)?;
        }
        Ok(index)
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
        let mut fused: Vec<(f32, f32, SearchHit)> = Vec::new();
        for (lane, lane_kinds) in LANES {
            let wanted: Vec<DocKind> = lane_kinds
                .iter()
                .copied()
                .filter(|k| kinds.is_empty() || kinds.contains(k))
                .collect();
            if wanted.is_empty() {
                lanes.push(LaneReport {
                    lane: lane.to_string(),
                    candidates: 0,
                    skipped: Some("not in kinds".to_string()),
                });
                continue;
            }
            let hits = index
                .search(&SearchQuery {
                    text: text.to_string(),
                    kinds: wanted,
                    connection: connection.map(String::from),
                    // Equal-weight fusion never ranks a lane's hit below
                    // `limit` into the fused top `limit`.
                    limit,
                })
                .map_err(internal)?;
            lanes.push(LaneReport {
                lane: lane.to_string(),
                candidates: hits.len(),
                skipped: None,
            });
            for (rank, hit) in hits.into_iter().enumerate() {
                let rrf = 1.0 / (RRF_K + rank as f32 + 1.0);
                fused.push((rrf, hit.score, hit));
            }
        }
        // Equal lane weights; within a tie, the stronger BM25 match first.
        fused.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then(b.1.total_cmp(&a.1))
                .then(a.2.key.cmp(&b.2.key))
        });
        fused.truncate(limit);
        let best = fused.first().map_or(1.0, |f| f.0);
        let results = fused
            .into_iter()
            .map(|(rrf, _, hit)| Fused {
                score: ((rrf / best) as f64 * 1e6).round() / 1e6,
                hit,
            })
            .collect();
        Ok(Discovered { results, lanes })
    }
}

fn internal(error: lore_search::SearchError) -> ErrorReport {
    ErrorReport::new(ErrorCode::Internal, error.to_string())
}
