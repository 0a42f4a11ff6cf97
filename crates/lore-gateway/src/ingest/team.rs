//! The gateway on several servers sharing one PostgreSQL store
//! (docs/team-deployment.md): each ingest publishes the files whose chunks
//! moved to the store's file log (one version per file, in the run's
//! commit, before the local index commits); every server's index follows
//! that log ([`StoreFollower`], [`catch_up`]); and an ingest holds a lease
//! per root in the store, so two servers never ingest one root at once
//! (the second is answered `conflict`, naming the holder and when its
//! lease ends).
//!
//! None of it runs on the embedded SQLite store: one machine has one
//! index, and its ingest stays as it was.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use lore_core::error::HasErrorCode;
use lore_core::time::UtcMillis;
use lore_core::{ErrorCode, ErrorReport};
use lore_store::{KnowledgeStore, SharedFile};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Gateway;
use crate::index::GatewayIndex;
use crate::index::shared;
use crate::ingest::{Root, followed};

/// How long a root's lease lasts unless renewed: a server that dies
/// mid-ingest keeps its roots at most this long.
pub const LEASE_TTL_MS: i64 = 30_000;

/// How often a running ingest renews its leases.
const RENEW_EVERY: Duration = Duration::from_millis(LEASE_TTL_MS as u64 / 3);

/// How often a follower looks for versions other servers wrote.
pub const FOLLOW_INTERVAL: Duration = Duration::from_millis(250);

/// Versions applied per index commit.
const PAGE: usize = 500;

/// Pages applied before the books and the mark are written (and this
/// process's ingest may run).
const PAGES_PER_BATCH: usize = 10;

/// The name of root `root`'s lease.
fn lease_name(root: &str) -> String {
    format!("gateway-ingest:{root}")
}

/// Whether this gateway shares its index through a server store.
pub(crate) fn is_shared(gateway: &Gateway) -> bool {
    gateway.store.as_ref().is_some_and(|h| h.is_server())
}

/// This server's index, as the file log names its writer: the host and
/// the project folder.
pub(crate) fn origin(gateway: &Gateway) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_string());
    format!("{host}:{}", gateway.files.root().display())
}

/// The files a run publishes, by root and path (the last word on a file
/// wins).
#[derive(Default)]
pub(crate) struct Outbox {
    files: std::cell::RefCell<BTreeMap<(String, String), SharedFile>>,
}

impl Outbox {
    /// A file's new version: its chunks, graph facts and text.
    pub(crate) fn put(&self, file: &shared::Published<'_>) -> Result<(), ErrorReport> {
        let (json, hash) = shared::encode(file)?;
        let facts = file.facts;
        self.files.borrow_mut().insert(
            (facts.root.clone(), facts.path.clone()),
            SharedFile {
                root: facts.root.clone(),
                path: facts.path.clone(),
                hash,
                chunks: Some(json),
            },
        );
        Ok(())
    }

    /// A file gone from the index.
    pub(crate) fn close(&self, root: &str, path: &str) {
        self.files.borrow_mut().insert(
            (root.to_string(), path.to_string()),
            SharedFile {
                root: root.to_string(),
                path: path.to_string(),
                hash: String::new(),
                chunks: None,
            },
        );
    }

    /// Writes the run's files to the store's log in one write (only those
    /// that moved are kept).
    pub(crate) fn publish(
        &self,
        store: &dyn KnowledgeStore,
        origin: &str,
    ) -> Result<(), ErrorReport> {
        let files: Vec<SharedFile> = self.files.take().into_values().collect();
        if files.is_empty() {
            return Ok(());
        }
        store
            .publish_files(origin, &files)
            .map_err(|e| e.report())?;
        Ok(())
    }
}

/// The leases of the roots an ingest runs over, renewed while it runs and
/// released when dropped.
pub(crate) struct RootLeases {
    store: Arc<dyn KnowledgeStore>,
    holder: String,
    names: Vec<String>,
    stop: Arc<(Mutex<bool>, Condvar)>,
    renewer: Option<std::thread::JoinHandle<()>>,
}

/// Takes every root's lease for `holder`, or none: a root another server
/// is ingesting is a `conflict` naming it and when its lease ends.
pub(crate) fn take_leases(
    store: Arc<dyn KnowledgeStore>,
    roots: &[Root],
    holder: &str,
) -> Result<RootLeases, ErrorReport> {
    let mut leases = RootLeases {
        store,
        holder: holder.to_string(),
        names: Vec::new(),
        stop: Arc::new((Mutex::new(false), Condvar::new())),
        renewer: None,
    };
    let mut names: Vec<String> = roots.iter().map(|r| lease_name(&r.name)).collect();
    names.sort();
    for name in names {
        let grant = leases
            .store
            .acquire_lease(&name, holder, LEASE_TTL_MS)
            .map_err(|e| e.report())?;
        if !grant.granted {
            let lease = grant.lease;
            let root = name.trim_start_matches("gateway-ingest:");
            // The leases taken so far are released when `leases` drops.
            return Err(ErrorReport::new(
                ErrorCode::Conflict,
                format!(
                    "gateway root `{root}` is being ingested by another server ({}, since {}; its lease ends {} unless that ingest renews it): try again when it finishes — its chunks reach this server's index through the store",
                    lease.holder,
                    UtcMillis(lease.acquired_ms).to_iso(),
                    UtcMillis(lease.expires_ms).to_iso()
                ),
            ));
        }
        leases.names.push(name);
    }
    let (store, holder, names, stop) = (
        Arc::clone(&leases.store),
        leases.holder.clone(),
        leases.names.clone(),
        Arc::clone(&leases.stop),
    );
    leases.renewer = Some(std::thread::spawn(move || {
        let (stopped, wake) = &*stop;
        let mut done = stopped.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let (guard, _) = wake
                .wait_timeout(done, RENEW_EVERY)
                .unwrap_or_else(|p| p.into_inner());
            done = guard;
            if *done {
                return;
            }
            for name in &names {
                if let Err(e) = store.acquire_lease(name, &holder, LEASE_TTL_MS) {
                    tracing::warn!("renewing the ingest lease {name}: {e}");
                }
            }
        }
    }));
    Ok(leases)
}

impl Drop for RootLeases {
    fn drop(&mut self) {
        let (stopped, wake) = &*self.stop;
        *stopped.lock().unwrap_or_else(|p| p.into_inner()) = true;
        wake.notify_all();
        if let Some(renewer) = self.renewer.take() {
            let _ = renewer.join();
        }
        for name in &self.names {
            if let Err(e) = self.store.release_lease(name, &self.holder) {
                // It lapses on its own within LEASE_TTL_MS.
                tracing::warn!("releasing the ingest lease {name}: {e}");
            }
        }
    }
}

/// What one [`catch_up`] applied.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CatchUp {
    /// Versions other servers wrote, applied to this index.
    pub applied: usize,
    /// The log's sequence number the index has applied up to.
    pub seq: i64,
    /// Versions that could not be read (skipped).
    pub warnings: Vec<String>,
}

/// Brings this server's index up to the store's file log: every version
/// another server wrote since the one applied last, a page per commit,
/// and the books of their roots ([`followed`]) every few pages. Nothing
/// on a gateway whose store is not a server's. Blocking.
pub fn catch_up(gateway: &Gateway) -> Result<CatchUp, ErrorReport> {
    let mut done = CatchUp::default();
    let Some(handle) = gateway.store.as_ref().filter(|h| h.is_server()) else {
        return Ok(done);
    };
    let store = handle.open()?;
    let origin = origin(gateway);
    while catch_up_batch(gateway, store.as_ref(), &origin, &mut done)? {}
    Ok(done)
}

/// Up to [`PAGES_PER_BATCH`] pages, then the books and the mark; whether
/// the log holds more.
fn catch_up_batch(
    gateway: &Gateway,
    store: &dyn KnowledgeStore,
    origin: &str,
    done: &mut CatchUp,
) -> Result<bool, ErrorReport> {
    // Not while this process ingests: one index writer at a time, and
    // a first ingest creates the index this would otherwise open (and
    // create) beside it.
    let _one = gateway.ingesting.lock().unwrap_or_else(|p| p.into_inner());
    let index = gateway.open_index()?;
    let mut after = shared::applied(&gateway.state, &index);
    done.seq = after;
    let mut books = Vec::new();
    let mut more = false;
    for page in 0..PAGES_PER_BATCH {
        let versions = store
            .shared_files_since(after, PAGE)
            .map_err(|e| e.report())?;
        let Some(last) = versions.last().map(|v| v.seq) else {
            break;
        };
        let (applied, warnings) = apply_page(&index, &versions, origin)?;
        books.extend(applied);
        done.warnings.extend(warnings);
        after = last;
        more = versions.len() == PAGE && page + 1 == PAGES_PER_BATCH;
        if versions.len() < PAGE {
            break;
        }
    }
    if after == done.seq {
        return Ok(false);
    }
    // The books after the index, the mark last: a crash in between applies
    // these versions again, which changes nothing.
    done.applied += books.len();
    done.warnings
        .extend(followed::record(gateway, &index, books)?);
    shared::remember(&gateway.state, &index, after)?;
    done.seq = after;
    Ok(more)
}

/// Applies one page of versions and commits (nothing to commit when all
/// were this index's own).
fn apply_page(
    index: &GatewayIndex,
    versions: &[lore_store::SharedFileVersion],
    origin: &str,
) -> Result<(Vec<shared::Applied>, Vec<String>), ErrorReport> {
    if versions.iter().all(|v| v.origin == origin) {
        return Ok((Vec::new(), Vec::new()));
    }
    let mut writer = index.writer()?;
    let (applied, warnings) = shared::apply(index, &writer, versions, origin)?;
    index.commit(&mut writer)?;
    index.compact(&mut writer)?;
    Ok((applied, warnings))
}

/// A running server's follower of the store's file log (dropped to stop).
pub struct StoreFollower {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Starts following the store's file log: what another server ingests is
/// in this server's index within [`FOLLOW_INTERVAL`] of its commit (and a
/// page's index commit). None unless the store is a server's.
pub fn follow_store(gateway: Arc<Gateway>) -> Option<StoreFollower> {
    if !is_shared(&gateway) {
        return None;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = Arc::clone(&stop);
    let thread = std::thread::Builder::new()
        .name("lore-gateway-store-follower".to_string())
        .spawn(move || {
            let mut failing = false;
            while !stopped.load(Ordering::Relaxed) {
                match catch_up(&gateway) {
                    Ok(_) => failing = false,
                    Err(e) if !failing => {
                        // Said once per outage; the next look retries.
                        tracing::warn!("following the store's gateway files: {}", e.message);
                        failing = true;
                    }
                    Err(_) => {}
                }
                std::thread::sleep(FOLLOW_INTERVAL);
            }
        })
        .ok()?;
    Some(StoreFollower {
        stop,
        thread: Some(thread),
    })
}

impl Drop for StoreFollower {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A root another server ingested last, as `km-ingest-status` reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IngestedElsewhere {
    /// The root.
    pub root: String,
    /// The server (its host and project folder, and process).
    pub by: String,
    /// When its ingest started (ISO-8601 UTC).
    pub started_at: String,
    /// When it ended (or, while `running`, when its lease ends unless
    /// renewed).
    pub until: String,
    /// Whether that ingest is still running.
    pub running: bool,
}

/// The roots whose last ingest ran on another server sharing the store
/// (none on an embedded store). Blocking.
pub fn ingested_elsewhere(gateway: &Gateway) -> Result<Vec<IngestedElsewhere>, ErrorReport> {
    let Some(handle) = gateway.store.as_ref().filter(|h| h.is_server()) else {
        return Ok(Vec::new());
    };
    let store = handle.open()?;
    let mine = format!("{} (pid ", origin(gateway));
    let now = UtcMillis::now().0;
    let leases = store.leases("gateway-ingest:").map_err(|e| e.report())?;
    Ok(leases
        .into_iter()
        .filter(|lease| !lease.holder.starts_with(&mine))
        .map(|lease| IngestedElsewhere {
            root: lease.name.trim_start_matches("gateway-ingest:").to_string(),
            running: lease.is_held(now),
            started_at: UtcMillis(lease.acquired_ms).to_iso(),
            until: UtcMillis(lease.expires_ms).to_iso(),
            by: lease.holder,
        })
        .collect())
}

/// The lease holder this process is (its server's origin and pid).
pub(crate) fn holder(gateway: &Gateway) -> String {
    format!("{} (pid {})", origin(gateway), std::process::id())
}

impl Gateway {
    /// Follows the store's file log while the returned follower lives:
    /// what another server sharing the store ingests becomes searchable
    /// here. None unless the store is a server's. See [`follow_store`].
    pub fn follow_store(self: &Arc<Self>) -> Option<StoreFollower> {
        follow_store(Arc::clone(self))
    }

    /// Applies what other servers published since this index last looked
    /// (see [`catch_up`]). Blocking.
    pub fn catch_up(&self) -> Result<CatchUp, ErrorReport> {
        catch_up(self)
    }

    /// The roots another server ingested last (see
    /// [`ingested_elsewhere`]). Blocking.
    pub fn ingested_elsewhere(&self) -> Result<Vec<IngestedElsewhere>, ErrorReport> {
        ingested_elsewhere(self)
    }
}
