//! Following the roots: a running server keeps the index fresh as files
//! are saved, created, deleted or renamed, without anyone running ingest.
//!
//! One thread per project (one process per project: the one holding
//! `.lore/follow.lock`; another server waits and takes over when
//! it stops). Changes are noticed by inotify on every folder the ingest
//! walk enters ([`watch`]), or, where inotify is missing, its watch limit
//! is reached or `gateway.follow.watch: walk` says so, by walking the root
//! every `walk_interval_ms` against its ledger ([`changes`]). After the
//! first change, changes are collected for `debounce_ms`; then the changed
//! files alone are ingested (`IngestRequest::paths`: a file gone or renamed
//! away loses its chunks and graph facts), at most `max_files` a run, the
//! rest in the next run, runs of a root at least `min_interval_ms` apart
//! (longer after a failure), one at a time. A folder that came, went or
//! moved, or a changed ignore file, has the root walked. When a run over
//! some files would lose the others (the index was rebuilt, the catalog
//! changed), the whole ingest runs instead. A root never ingested is left
//! to `lore gateway ingest` / `km-ingest-trigger`; it is followed after.
//!
//! Lore's own writes never start a run: `.lore/` is hidden (never
//! watched), and `lore.yaml` and other files the gateway never serves are
//! left out. What the follower sees and does is on the [`board`].

pub mod board;
pub mod changes;
pub mod watch;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use lore_core::config::{FollowConfig, FollowWatch};
use lore_core::time::UtcMillis;

pub use board::{Board, FollowMode, IngestStatus, RootFreshness, freshness};

use crate::Gateway;
use crate::ingest::{IngestRequest, Root, last_run, ledger_is_current, read_ledger, was_ingested};
use board::FollowLock;
use changes::{Known, Remembered, changed_files, matters, stamp_of};
use watch::{Seen, TreeWatch};

/// The longest the thread waits before looking at its clocks (and at
/// whether it should stop).
const TICK: Duration = Duration::from_millis(200);

/// The longest a failing root waits before its next run.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// A running follower; dropping it stops it.
pub struct Follower {
    stop: Arc<AtomicBool>,
    stopped: std::sync::mpsc::Receiver<()>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Follower {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // A run in progress is waited for a while; its writes are whole
        // either way (an interrupted run is read again next time).
        if self.stopped.recv_timeout(Duration::from_secs(5)).is_ok()
            && let Some(thread) = self.thread.take()
        {
            let _ = thread.join();
        }
    }
}

/// Starts following `gateway`'s roots, unless following is off or there
/// is no root.
pub fn start(gateway: Arc<Gateway>) -> Option<Follower> {
    if !gateway.config.follow.enabled || gateway.roots.is_empty() {
        return None;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let (done, stopped) = std::sync::mpsc::channel();
    let flag = Arc::clone(&stop);
    let thread = std::thread::Builder::new()
        .name("lore-follow".to_string())
        .spawn(move || {
            follow(&gateway, &flag);
            let _ = done.send(());
        })
        .ok()?;
    Some(Follower {
        stop,
        stopped,
        thread: Some(thread),
    })
}

/// Waits for the project's follow lock (another process may follow it),
/// then follows until `stop`.
fn follow(gateway: &Gateway, stop: &AtomicBool) {
    let mut waited = false;
    let lock = loop {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        if let Some(lock) = FollowLock::take(&gateway.state) {
            break lock;
        }
        if !waited {
            tracing::info!("another process follows this project's roots; waiting to take over");
            waited = true;
        }
        std::thread::sleep(TICK * 5);
    };
    let mut session = Session::open(gateway);
    session.publish();
    while !stop.load(Ordering::SeqCst) {
        session.step();
    }
    gateway.board.clear(&gateway.state);
    drop(lock);
}

/// What the follower knows of one root.
struct Followed {
    root: Root,
    mode: FollowMode,
    /// Root-relative paths changed and not ingested yet.
    pending: BTreeSet<String>,
    /// The root must be walked for changes.
    rescan: bool,
    /// When the first change not ingested yet was seen.
    first_change: Option<Instant>,
    changed_at: Option<String>,
    /// When the last run ended, and how many failed in a row.
    last_run: Option<Instant>,
    failures: u32,
    next_walk: Instant,
    remembered: Remembered,
    ingested_at: Option<String>,
    ok: Option<bool>,
    error: Option<String>,
    /// Why it is walked, when inotify was meant to watch it.
    note: Option<String>,
    /// Whether it was ever ingested (a root never ingested is not
    /// followed until it is).
    ingested: bool,
}

impl Followed {
    fn changed(&mut self) {
        self.first_change.get_or_insert_with(Instant::now);
        self.changed_at = Some(UtcMillis::now().to_iso());
    }

    /// When the next run may start: `debounce_ms` after the first
    /// change, `min_interval_ms` after the last run (doubling, up to a
    /// minute, while runs fail).
    fn due_at(&self, settings: &FollowConfig) -> Option<Instant> {
        let first = self.first_change?;
        let debounced = first + Duration::from_millis(settings.debounce_ms);
        let base = Duration::from_millis(settings.min_interval_ms);
        let wait = match self.failures {
            0 => base,
            n => base
                .max(Duration::from_secs(1))
                .saturating_mul(1 << (n - 1).min(6))
                .min(MAX_BACKOFF),
        };
        Some(match self.last_run {
            Some(last) => debounced.max(last + wait),
            None => debounced,
        })
    }

    fn freshness(&self) -> RootFreshness {
        RootFreshness {
            root: self.root.name.clone(),
            follow: self.mode,
            fresh: self.ingested
                && self.pending.is_empty()
                && !self.rescan
                && self.ok != Some(false),
            pending: self.pending.len() as u64,
            changed_at: self.changed_at.clone(),
            ingested_at: self.ingested_at.clone(),
            ingested_by: None,
            ok: self.ok,
            error: self.error.clone(),
            note: match (self.ingested, &self.note) {
                (false, _) => Some(
                    "never ingested: run lore gateway ingest (or km-ingest-trigger) once; it is followed after"
                        .to_string(),
                ),
                (true, note) => note.clone(),
            },
        }
    }
}

/// A follower at work.
struct Session<'g> {
    gateway: &'g Gateway,
    settings: FollowConfig,
    watch: Option<TreeWatch>,
    roots: Vec<Followed>,
    /// `runs.jsonl`'s length and time when its last run was taken in.
    runs_seen: Option<(u64, std::time::SystemTime)>,
}

impl<'g> Session<'g> {
    /// Watches every root it can; every root is walked once for what
    /// changed while no one followed.
    fn open(gateway: &'g Gateway) -> Session<'g> {
        let settings = gateway.config.follow.clone();
        let mut watch = match settings.watch {
            FollowWatch::Walk => None,
            FollowWatch::Auto => match TreeWatch::new() {
                Ok(watch) => Some(watch),
                Err(e) => {
                    tracing::warn!("inotify is not available ({e}); the roots are walked");
                    None
                }
            },
        };
        let mut roots = Vec::new();
        for root in &gateway.roots {
            let (mode, note) = match watch.as_mut().map(|w| w.add_root(&root.path)) {
                Some(Ok(_)) => (FollowMode::Inotify, None),
                Some(Err(reason)) => (FollowMode::Walk, Some(reason)),
                None if settings.watch == FollowWatch::Walk => (FollowMode::Walk, None),
                None => (
                    FollowMode::Walk,
                    Some("inotify is not available here".to_string()),
                ),
            };
            if let Some(reason) = &note {
                tracing::warn!(root = %root.name, "{reason}: walking it every {} ms", settings.walk_interval_ms);
            }
            roots.push(Followed {
                root: root.clone(),
                mode,
                pending: BTreeSet::new(),
                rescan: true,
                first_change: Some(Instant::now()),
                changed_at: None,
                last_run: None,
                failures: 0,
                next_walk: Instant::now() + Duration::from_millis(settings.walk_interval_ms),
                remembered: Remembered::new(),
                ingested_at: None,
                ok: None,
                error: None,
                note: note.map(|n| format!("{n}; walked every {} ms", settings.walk_interval_ms)),
                ingested: was_ingested(&gateway.state, &root.name),
            });
        }
        Session {
            gateway,
            settings,
            watch,
            roots,
            runs_seen: None,
        }
    }

    /// Waits for changes or the next due run, then runs what is due.
    fn step(&mut self) {
        let now = Instant::now();
        let next = self
            .roots
            .iter()
            .flat_map(|r| {
                let walk = (r.mode == FollowMode::Walk).then_some(r.next_walk);
                [r.due_at(&self.settings), walk]
            })
            .flatten()
            .min();
        let timeout = next.map_or(TICK, |at| at.saturating_duration_since(now).min(TICK));
        let seen = match self.watch.as_mut() {
            Some(watch) => watch.wait(timeout),
            None => {
                std::thread::sleep(timeout);
                Vec::new()
            }
        };
        for seen in seen {
            self.note(seen);
        }
        let interval = Duration::from_millis(self.settings.walk_interval_ms);
        for followed in &mut self.roots {
            if !followed.ingested {
                // A first ingest, by a tool or the CLI.
                followed.ingested = was_ingested(&self.gateway.state, &followed.root.name);
            }
            if followed.mode == FollowMode::Walk && Instant::now() >= followed.next_walk {
                followed.next_walk = Instant::now() + interval;
                followed.rescan = true;
                followed.first_change.get_or_insert_with(Instant::now);
            }
        }
        for index in 0..self.roots.len() {
            let due = self.roots[index].due_at(&self.settings);
            if due.is_some_and(|at| Instant::now() >= at) {
                self.run(index);
                self.publish();
            }
        }
        self.publish();
    }

    /// Records what a watch saw.
    fn note(&mut self, seen: Seen) {
        match seen {
            Seen::File(root, path) => {
                if let Some(followed) = self.roots.get_mut(root) {
                    followed.pending.insert(path);
                    followed.changed();
                }
            }
            Seen::Root(root) => {
                if let Some(followed) = self.roots.get_mut(root) {
                    followed.rescan = true;
                    followed.changed();
                }
            }
            Seen::Everything => {
                for followed in &mut self.roots {
                    followed.rescan = true;
                    followed.changed();
                }
            }
            Seen::Lost(root, reason) => {
                if let Some(followed) = self.roots.get_mut(root) {
                    tracing::warn!(root = %followed.root.name, "{reason}: walking it from now on");
                    followed.mode = FollowMode::Walk;
                    followed.note = Some(format!(
                        "{reason}; walked every {} ms",
                        self.settings.walk_interval_ms
                    ));
                    followed.rescan = true;
                    followed.changed();
                }
            }
        }
    }

    /// Publishes every root's freshness.
    fn publish(&mut self) {
        self.take_in_last_run();
        let roots = self.roots.iter().map(Followed::freshness).collect();
        self.gateway.board.publish(&self.gateway.state, roots);
    }

    /// The roots' last ingest, whoever ran it (this follower, a tool, the
    /// CLI), read again when `runs.jsonl` changed.
    fn take_in_last_run(&mut self) {
        let state = &self.gateway.state;
        let stamp = std::fs::metadata(state.join("runs.jsonl"))
            .ok()
            .and_then(|meta| Some((meta.len(), meta.modified().ok()?)));
        if stamp.is_none() || stamp == self.runs_seen {
            return;
        }
        self.runs_seen = stamp;
        let Some(run) = last_run(state, None) else {
            return;
        };
        for followed in &mut self.roots {
            if run.roots.contains(&followed.root.name) {
                followed.ingested_at = Some(board::finished_at(&run));
                followed.ok = Some(run.success);
                followed.error = run.error.clone();
            }
        }
    }

    /// Ingests what changed in root `index`: its changed files (a batch),
    /// or every root when a run over some files would lose the others.
    fn run(&mut self, index: usize) {
        let gateway = self.gateway;
        let followed = &mut self.roots[index];
        let state = &gateway.state;
        let name = followed.root.name.clone();
        followed.ingested = was_ingested(state, &name);
        if !followed.ingested {
            // Ingesting a whole root is for the user to start.
            followed.pending.clear();
            followed.rescan = false;
            followed.first_change = None;
            return;
        }
        let ledger = read_ledger(state, &name);
        if std::mem::take(&mut followed.rescan) {
            let known = Known {
                ledger: &ledger,
                remembered: &followed.remembered,
                unknown_since_ms: i64::MIN,
            };
            let found = changed_files(
                &gateway.files,
                &followed.root,
                gateway.config.max_file_bytes,
                &known,
            );
            if !found.is_empty() && followed.mode == FollowMode::Walk {
                followed.changed_at = Some(UtcMillis::now().to_iso());
            }
            followed.pending.extend(found);
        }
        let root = followed.root.clone();
        followed
            .pending
            .retain(|path| matters(&gateway.files, &root, &ledger, path));
        if followed.pending.is_empty() {
            followed.first_change = None;
            return;
        }
        let current = gateway.open_index().is_ok_and(|index| {
            ledger_is_current(gateway.files.root(), &root, &ledger, &index.instance)
        });
        let batch: Vec<String> = if current {
            followed
                .pending
                .iter()
                .take(self.settings.max_files)
                .cloned()
                .collect()
        } else {
            // Every file of every root is looked at (unchanged ones are
            // not read again).
            followed.pending.iter().cloned().collect()
        };
        let request = IngestRequest {
            profile: Some("follow".to_string()),
            dry_run: false,
            paths: if current {
                batch
                    .iter()
                    .map(|p| root.path.join(p).display().to_string())
                    .collect()
            } else {
                Vec::new()
            },
        };
        let outcome = gateway.ingest(&request, &mut |_, _| {});
        finish(followed, &batch, outcome, &root, state);
    }
}

/// Takes a run's outcome into the root's state: the batch leaves the
/// pending files when the run succeeded.
fn finish(
    followed: &mut Followed,
    batch: &[String],
    outcome: Result<crate::ingest::IngestRun, lore_core::ErrorReport>,
    root: &Root,
    state: &std::path::Path,
) {
    followed.last_run = Some(Instant::now());
    followed.ingested_at = Some(UtcMillis::now().to_iso());
    let error = match outcome {
        Ok(run) if run.success => None,
        Ok(run) => Some(run.error.unwrap_or_else(|| "no reason given".to_string())),
        Err(e) => Some(e.message),
    };
    followed.ok = Some(error.is_none());
    if let Some(error) = error {
        tracing::warn!(root = %root.name, "following: re-ingest failed: {error}");
        followed.failures = followed.failures.saturating_add(1);
        followed.error = Some(error);
        return;
    }
    followed.failures = 0;
    followed.error = None;
    let ledger = read_ledger(state, &root.name);
    for path in batch {
        followed.pending.remove(path);
        // A file the run left as the ledger does not have it (skipped, a
        // link) is not handed over again until it changes.
        let kept = ledger.files.get(path).map(|e| (e.size, e.modified_ms));
        match stamp_of(root, path) {
            Some(stamp) if kept != Some(stamp) => {
                followed.remembered.insert(path.clone(), stamp);
            }
            _ => {
                followed.remembered.remove(path);
            }
        }
    }
    if followed.pending.is_empty() {
        followed.first_change = None;
    }
}
