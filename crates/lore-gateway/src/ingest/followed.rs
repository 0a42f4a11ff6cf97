//! The roots a server knows from the store's file log (a shared
//! PostgreSQL store, see [`super::team`]). The versions other servers
//! publish reach this server's index, and its books too, so it answers
//! for their files as the server that read them: the root's graph ledger
//! (`.lore/gateway/graph/<root>.json`: the facts each record carries, and
//! the edges they make, which the publisher wrote to the store) and, for
//! a root this server never ingested, its ledger (marked `from_store`;
//! coverage and lifecycle count from it, and this server's own first
//! ingest of the root reads every file). The roots so known are listed
//! in `.lore/gateway/followed.json`, with the server that published the
//! newest version applied.
//!
//! A root this server ingests itself keeps its own ledger (its files'
//! stamps on this disk) while its graph ledger takes what others publish:
//! the graph ledger always describes what the index holds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lore_core::error::HasErrorCode;
use lore_core::time::UtcMillis;
use lore_core::{ErrorCode, ErrorReport};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Gateway;
use crate::graph::call_index::{self, CallChanges};
use crate::graph::{FACTS_VERSION, GraphLedger};
use crate::index::GatewayIndex;
use crate::index::shared::Applied;
use crate::ingest::follow::{FollowMode, RootFreshness};
use crate::ingest::subsystem::Catalog;
use crate::ingest::{Ledger, LedgerEntry, Root, ledger_path, read_ledger};

/// A root known from the store's file log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FollowedRoot {
    /// The server that published the newest version applied here (its
    /// host and project folder).
    pub by: String,
    /// When that version was written (ISO-8601 UTC).
    pub at: String,
    /// Its place in the log.
    pub seq: i64,
    /// The root's files this server holds from the log (0 once every one
    /// closed).
    pub files: usize,
}

/// Where the list of followed roots is kept.
pub(crate) fn list_path(state: &Path) -> PathBuf {
    state.join("followed.json")
}

/// Where root `root`'s graph ledger is kept.
pub(crate) fn graph_path(state: &Path, root: &str) -> PathBuf {
    state.join("graph").join(format!("{root}.json"))
}

/// The roots known from the store's file log, by name (none before the
/// first version another server wrote is applied).
pub fn load(state: &Path) -> BTreeMap<String, FollowedRoot> {
    std::fs::read(list_path(state))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

fn write_json<T: Serialize>(path: &Path, value: &T, what: &str) -> Result<(), ErrorReport> {
    let bytes = serde_json::to_vec(value)
        .map_err(|e| ErrorReport::new(ErrorCode::Internal, format!("{what}: {e}")))?;
    lore_core::project::write_atomically(path, bytes).map_err(|e| e.report())
}

/// Takes versions other servers wrote, already applied to `index`, into
/// the books of their roots (under the process's ingest lock). Answers a
/// warning per root whose subsystem catalog could not be read (its edges
/// are then made without it).
pub(crate) fn record(
    gateway: &Gateway,
    index: &GatewayIndex,
    applied: Vec<Applied>,
) -> Result<Vec<String>, ErrorReport> {
    let mut warnings = Vec::new();
    if applied.is_empty() {
        return Ok(warnings);
    }
    let mut by_root: BTreeMap<String, Vec<Applied>> = BTreeMap::new();
    for version in applied {
        by_root
            .entry(version.root.clone())
            .or_default()
            .push(version);
    }
    let mut list = load(&gateway.state);
    for (root, versions) in by_root {
        let configured = gateway.roots.iter().find(|r| r.name == root);
        let files = record_root(gateway, index, &root, configured, &versions, &mut warnings)?;
        if let Some(last) = versions.iter().max_by_key(|v| v.seq) {
            list.insert(
                root,
                FollowedRoot {
                    by: last.origin.clone(),
                    at: UtcMillis(last.written_ms).to_iso(),
                    seq: last.seq,
                    files,
                },
            );
        }
    }
    write_json(&list_path(&gateway.state), &list, "followed roots")?;
    Ok(warnings)
}

/// One root's versions into its graph ledger and, unless this server
/// ingests the root itself, its ledger. Answers how many files the root
/// holds afterwards.
fn record_root(
    gateway: &Gateway,
    index: &GatewayIndex,
    root: &str,
    configured: Option<&Root>,
    versions: &[Applied],
    warnings: &mut Vec<String>,
) -> Result<usize, ErrorReport> {
    let state = &gateway.state;
    let mut graph = GraphLedger::load(&graph_path(state, root));
    if graph.files.is_empty() {
        graph.facts_version = FACTS_VERSION;
    }
    // A root this server ingested keeps the ledger of its own files.
    let own = configured.is_some() && ledger_path(state, root).is_file();
    let mut ledger: Option<Ledger> =
        Some(read_ledger(state, root)).filter(|ledger| !own || ledger.from_store);
    // The call edges kept with the graph follow its files (`call_index`).
    let mut calls = CallChanges::default();
    for version in versions {
        let path = version.path.clone();
        match &version.file {
            Some(file) => {
                match &file.graph {
                    Some(facts) => {
                        let before = graph.files.insert(path.clone(), facts.clone());
                        calls.replaced(&path, before.as_ref(), facts);
                    }
                    None => {
                        if graph.files.remove(&path).is_some() {
                            calls.removed();
                        }
                    }
                };
                if let Some(ledger) = &mut ledger {
                    ledger.removed.remove(&path);
                    ledger.files.insert(
                        path,
                        LedgerEntry {
                            hash: file.text_hash.clone(),
                            size: file.size,
                            modified_ms: file.modified_ms,
                            artifact_type: file.artifact_type,
                        },
                    );
                }
            }
            None => {
                if graph.files.remove(&path).is_some() {
                    calls.removed();
                }
                if let Some(ledger) = &mut ledger {
                    let by = format!("{} (file log version {})", version.origin, version.seq);
                    ledger.forget_as(&path, &UtcMillis(version.written_ms).to_iso(), &by);
                }
            }
        }
    }
    // The edges these facts make: what the publisher wrote to the store.
    let project = gateway.files.root();
    let catalog = match configured {
        Some(configured) => Catalog::load(project, &configured.path),
        None => Catalog::of_project(project),
    };
    let catalog = catalog.unwrap_or_else(|e| {
        warnings.push(format!(
            "root `{root}`: the subsystem catalog is left out of its graph here: {}",
            e.message
        ));
        Catalog::default()
    });
    graph.written = crate::graph::build(root, &graph.files, &catalog)
        .into_iter()
        .map(|(edge, properties)| (edge.key(), properties))
        .collect();
    call_index::update(&mut graph, &calls);
    write_json(&graph_path(state, root), &graph, "graph ledger")?;
    let Some(mut ledger) = ledger else {
        return Ok(graph.files.len());
    };
    ledger.from_store = true;
    ledger.index = index.instance.clone();
    write_json(&ledger_path(state, root), &ledger, "ledger")?;
    Ok(ledger.files.len())
}

/// The roots this server knows from the store alone: followed, holding
/// files, and not among `configured`.
pub fn store_only_roots(state: &Path, configured: &[Root]) -> Vec<String> {
    load(state)
        .into_iter()
        .filter(|(name, root)| root.files > 0 && !configured.iter().any(|r| &r.name == name))
        .map(|(name, _)| name)
        .collect()
}

/// Adds the roots this server answers from the store's file log to
/// `roots` (each root's freshness), or describes them where listed: a
/// configured root this server never ingested itself, and a root only
/// other servers have. Such a root is fresh when this server has applied
/// every version other servers wrote of it. Blocking (one query).
pub(crate) fn add_freshness(gateway: &Gateway, roots: &mut Vec<RootFreshness>) {
    if !super::team::is_shared(gateway) {
        return;
    }
    let state = &gateway.state;
    // (name, what was applied of it, whether it is a root of this project)
    let known: Vec<(String, FollowedRoot, bool)> = load(state)
        .into_iter()
        .filter_map(|(name, root)| {
            let configured = gateway.roots.iter().any(|r| r.name == name);
            let answered = if configured {
                !super::was_ingested(state, &name)
            } else {
                root.files > 0
            };
            answered.then_some((name, root, configured))
        })
        .collect();
    if known.is_empty() {
        return;
    }
    let pending = gateway
        .store
        .as_ref()
        .ok_or_else(|| "no store".to_string())
        .and_then(|handle| handle.open().map_err(|e| e.message))
        .and_then(|store| {
            store
                .shared_files_pending(
                    crate::index::shared::applied_seq(state),
                    &super::team::origin(gateway),
                )
                .map_err(|e| e.to_string())
        });
    for (name, root, configured) in known {
        let waiting = pending
            .as_ref()
            .ok()
            .map(|p| p.get(&name).copied().unwrap_or(0));
        let mut note = if configured {
            format!(
                "ingested by another server only: answered from the store's file log until this server ingests its own copy (lore gateway ingest); newest version applied: #{} ({} files)",
                root.seq, root.files
            )
        } else {
            format!(
                "not a root of this project: answered from the store's file log, as other servers ingest it; newest version applied: #{} ({} files)",
                root.seq, root.files
            )
        };
        if let Err(reason) = &pending {
            note = format!("{note}; the store cannot be asked what is left to apply: {reason}");
        }
        let entry = RootFreshness {
            root: name.clone(),
            follow: FollowMode::Store,
            fresh: waiting == Some(0),
            pending: waiting.unwrap_or(0),
            changed_at: None,
            ingested_at: Some(root.at),
            ingested_by: Some(root.by),
            ok: None,
            error: None,
            note: Some(note),
        };
        match roots.iter_mut().find(|r| r.root == name) {
            Some(slot) => *slot = entry,
            None => roots.push(entry),
        }
    }
}
