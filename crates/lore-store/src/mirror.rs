//! File mirrors: entries of one kind in the knowledge store, kept in step
//! with the files of one folder of the project that people edit and
//! commit. The wiki (`wiki/**/*.md`) and the semantic layer
//! (`semantic-layer/<connection>/*.yaml`) are mirrors; a [`MirrorFormat`]
//! says which files belong, how a file's path maps to a store topic and
//! what a file must hold to be imported.
//!
//! The store gives the files history, undo and as-of reads; the files stay
//! what people and tools read and edit.
//!
//! ## Keeping the store and the files in step
//!
//! A ledger (`.lore/<name>-ledger.json`) records, for every file, the hash
//! of the content the store and the file last agreed on. Comparing the
//! store (S), the file (D) and the ledger (L) tells who moved:
//!
//! | store | file | ledger | meaning | action |
//! |---|---|---|---|---|
//! | S | D = S | – | in step | none |
//! | S | D ≠ S | L = D | the store moved (a write, an undo) | write the file |
//! | S | D ≠ S | other | the file was edited | import D as a new version |
//! | S | none | L = S | the file was deleted | delete the entry |
//! | S | none | other | never mirrored | write the file |
//! | none | D | L = D | the entry was deleted (or undone) | remove the file |
//! | none | D | other | a new file | import it as a new entry |
//!
//! When both moved, the file wins: the store's version stays in history.
//! A file that cannot be imported (a format error, a bad name) is reported
//! and left alone, never overwritten. A sync is cheap when nothing moved (a
//! directory walk and the kind's newest transaction); a file lock
//! (`.lore/<name>.lock`) keeps Lore processes from syncing or writing at
//! once. [`FileMirror::write`] writes several files as one transaction, so
//! one undo takes them all back.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::feed::StoreHandle;
use crate::{Entry, EntryKind, KnowledgeStore, NewEntry, TopicWrite, TopicWritten, TxId};
use lore_core::error::HasErrorCode;
use lore_core::hash::content_hash;
use lore_core::project::Project;
use lore_core::{ErrorCode, ErrorReport};
use schemars::JsonSchema;
use serde::Serialize;

/// What a folder of mirrored files holds and how its files map to store
/// entries.
pub trait MirrorFormat: Send + Sync + 'static {
    /// Names the ledger (`.lore/<name>-ledger.json`) and the lock
    /// (`.lore/<name>.lock`).
    fn name(&self) -> &'static str;
    /// The kind of entry the files are stored as.
    fn kind(&self) -> EntryKind;
    /// The mirrored folder, relative to the project root.
    fn folder(&self) -> &'static str;
    /// Whether the file at `path` (relative to the project root,
    /// `/`-separated) belongs to the mirror; others are never looked at.
    fn holds(&self, path: &str) -> bool;
    /// The store topic of the file at `path`, or why it cannot have one
    /// and how to rename it.
    fn topic_of(&self, path: &str) -> Result<String, String>;
    /// The file path of a stored topic (`None`: the topic is no path of
    /// this mirror's).
    fn path_of(&self, topic: &str) -> Option<String>;
    /// Reads a file's text before it is stored: the tags to store it
    /// with and a warning when it is stored but incomplete, or why it
    /// cannot be stored and how to fix it.
    fn check(&self, path: &str, text: &str) -> Result<Checked, String>;
    /// Folders (relative to the project root) never removed when the last
    /// file in them goes.
    fn kept_folders(&self) -> Vec<String> {
        vec![self.folder().to_string()]
    }
}

/// What [`MirrorFormat::check`] read out of a file.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    /// Tags to store the entry with.
    pub tags: Vec<String>,
    /// Stored, but something is missing (said to the user).
    pub warning: Option<String>,
}

/// Something a sync could not do, or found wrong.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SyncProblem {
    /// The file (or store topic) concerned.
    pub path: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// What a sync did.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct MirrorReport {
    /// Files whose edits were imported as new versions (or new entries).
    pub imported: Vec<String>,
    /// Files written from the store.
    pub mirrored: Vec<String>,
    /// Files removed because their entry was deleted.
    pub removed_files: Vec<String>,
    /// Entries deleted because their file was deleted (by path).
    pub deleted: Vec<String>,
    /// Files left alone, and why.
    pub problems: Vec<SyncProblem>,
    /// The store's newest transaction after the sync.
    pub tx_id: TxId,
}

impl MirrorReport {
    /// Whether the sync changed anything, on disk or in the store.
    pub fn changed_anything(&self) -> bool {
        !(self.imported.is_empty()
            && self.mirrored.is_empty()
            && self.removed_files.is_empty()
            && self.deleted.is_empty())
    }
}

/// One file to write (or remove) in a [`FileMirror::write`].
#[derive(Debug, Clone)]
pub struct FileChange {
    /// The file, relative to the project root (`/`-separated).
    pub path: String,
    /// Its new text; `None` removes it.
    pub content: Option<String>,
    /// Refuse the whole write unless the file's entry is at this version
    /// (0: must not exist).
    pub expected_version: Option<i64>,
}

/// One file of a [`FileMirror::write`], as written.
#[derive(Debug, Clone)]
pub struct FileWritten {
    /// The file, relative to the project root.
    pub path: String,
    /// Its entry afterwards (`None` when removed or never there).
    pub entry: Option<Entry>,
    /// False when the file already held exactly this.
    pub changed: bool,
    /// Stored, but incomplete (from [`MirrorFormat::check`]).
    pub warning: Option<String>,
}

/// What a [`FileMirror::write`] wrote.
#[derive(Debug, Clone)]
pub struct MirrorWrite {
    /// The transaction holding every change (the newest one when nothing
    /// changed).
    pub tx_id: TxId,
    /// False when every file already held what was asked.
    pub changed: bool,
    /// One per change, in the order given.
    pub files: Vec<FileWritten>,
}

/// The files and their stamps, by path relative to the project root.
type DiskState = BTreeMap<String, (u128, u64)>;

/// The mirror of one folder of one project.
pub struct FileMirror {
    root: PathBuf,
    ledger_path: PathBuf,
    lock_path: PathBuf,
    store: Arc<StoreHandle>,
    format: Box<dyn MirrorFormat>,
    /// The disk fingerprint and the kind's newest transaction at the last
    /// sync.
    seen: Mutex<Option<(u64, TxId)>>,
}

impl FileMirror {
    /// The mirror of `format`'s folder in `project`, over `store`.
    pub fn new(
        project: &Project,
        store: Arc<StoreHandle>,
        format: impl MirrorFormat,
    ) -> FileMirror {
        let state = project.state_dir();
        let name = format.name();
        FileMirror {
            root: project.root.clone(),
            ledger_path: state.join(format!("{name}-ledger.json")),
            lock_path: state.join(format!("{name}.lock")),
            store,
            format: Box::new(format),
            seen: Mutex::new(None),
        }
    }

    /// The format.
    pub fn format(&self) -> &dyn MirrorFormat {
        self.format.as_ref()
    }

    /// The store handle.
    pub fn store(&self) -> &Arc<StoreHandle> {
        &self.store
    }

    /// Whether there is anything to keep in step yet (the folder or a
    /// store file); checking creates nothing.
    pub fn exists(&self) -> bool {
        self.store.exists() || self.root.join(self.format.folder()).is_dir()
    }

    /// Brings the store and the files in step, even when nothing seems to
    /// have moved. Blocking.
    pub fn sync(&self) -> Result<MirrorReport, ErrorReport> {
        Ok(self.sync_if(true)?.unwrap_or_default())
    }

    /// Syncs when a file or the store moved since the last sync; returns
    /// the report when it synced. Blocking.
    pub fn refresh(&self) -> Result<Option<MirrorReport>, ErrorReport> {
        self.sync_if(false)
    }

    fn sync_if(&self, force: bool) -> Result<Option<MirrorReport>, ErrorReport> {
        if !self.exists() {
            // No files and no store: nothing to sync, and nothing to create.
            return Ok(None);
        }
        let store = self.store.open()?;
        let kind = self.format.kind();
        // Only this kind's entries matter: other writes do not start a sync.
        let head = store.kind_head(kind).map_err(|e| e.report())?;
        let disk = self.walk()?;
        if !force && *self.seen() == Some((disk_fingerprint(&disk), head)) {
            return Ok(None);
        }
        let _lock = self.lock()?;
        // What this sync starts from, read under the lock.
        let head = store.kind_head(kind).map_err(|e| e.report())?;
        let mut disk = self.walk()?;
        let report = self.sync_locked(store.as_ref(), &disk)?;
        // Remember what the sync read, plus the files it wrote itself, so
        // anything anyone else changes from now on (even during the sync)
        // differs from it. The head is the one read before the sync: its
        // own imports make the next call sync once more, finding nothing.
        self.note_files(
            &mut disk,
            report.mirrored.iter().chain(&report.removed_files),
        );
        *self.seen() = Some((disk_fingerprint(&disk), head));
        Ok(Some(report))
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Option<(u64, TxId)>> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Updates `disk` with the current stamps of `paths` (written or
    /// removed by this process).
    fn note_files<'a>(&self, disk: &mut DiskState, paths: impl Iterator<Item = &'a String>) {
        for path in paths {
            match std::fs::metadata(self.root.join(path)) {
                Ok(meta) => {
                    disk.insert(path.clone(), file_stamp(&meta));
                }
                Err(_) => {
                    disk.remove(path);
                }
            }
        }
    }

    fn sync_locked(
        &self,
        store: &dyn KnowledgeStore,
        disk: &DiskState,
    ) -> Result<MirrorReport, ErrorReport> {
        let mut report = MirrorReport::default();
        let mut ledger = self.load_ledger();
        let (_, entries) = store
            .entries_at(Some(self.format.kind()), None)
            .map_err(|e| e.report())?;
        let mut in_store: BTreeMap<String, Entry> = BTreeMap::new();
        for entry in entries {
            match self.format.path_of(&entry.topic) {
                Some(path) => {
                    in_store.insert(path, entry);
                }
                None => report.problems.push(SyncProblem {
                    path: entry.topic.clone(),
                    message: format!(
                        "{} entry {} has a topic that names no file under {}/; it is not mirrored",
                        self.format.kind().as_str(),
                        entry.id,
                        self.format.folder()
                    ),
                }),
            }
        }
        let paths: BTreeSet<String> = in_store
            .keys()
            .chain(disk.keys())
            .chain(ledger.keys())
            .cloned()
            .collect();
        for path in paths {
            let stored = in_store.get(&path);
            let on_disk = if disk.contains_key(&path) {
                match std::fs::read_to_string(self.root.join(&path)) {
                    Ok(text) => Some(text),
                    Err(e) => {
                        report.problems.push(SyncProblem {
                            path: path.clone(),
                            message: format!("cannot read the file ({e}); it is left alone"),
                        });
                        continue;
                    }
                }
            } else {
                None
            };
            let agreed = ledger.get(&path).cloned();
            let stored_hash = stored.map(|e| content_hash(&e.content));
            let disk_hash = on_disk.as_deref().map(content_hash);
            match (stored, on_disk) {
                (None, None) => {
                    ledger.remove(&path);
                }
                (Some(_), Some(_)) if stored_hash == disk_hash => {
                    ledger.insert(path, stored_hash.unwrap_or_default());
                }
                (Some(entry), None) if agreed == stored_hash => {
                    store.delete("disk", &entry.id).map_err(|e| e.report())?;
                    report.deleted.push(path.clone());
                    ledger.remove(&path);
                }
                (Some(entry), d) if d.is_none() || agreed == disk_hash => {
                    self.write_file(&path, &entry.content)?;
                    report.mirrored.push(path.clone());
                    ledger.insert(path, stored_hash.unwrap_or_default());
                }
                (None, Some(_)) if agreed == disk_hash => {
                    self.remove_file(&path)?;
                    report.removed_files.push(path.clone());
                    ledger.remove(&path);
                }
                (stored, Some(text)) => {
                    let expected = stored.map_or(0, |e| e.version);
                    match self.import(store, &path, &text, expected) {
                        Ok(warning) => {
                            report.imported.push(path.clone());
                            if let Some(message) = warning {
                                report.problems.push(SyncProblem {
                                    path: path.clone(),
                                    message,
                                });
                            }
                            ledger.insert(path, disk_hash.unwrap_or_default());
                        }
                        Err(message) => report.problems.push(SyncProblem { path, message }),
                    }
                }
                (Some(_), None) => {}
            }
        }
        self.save_ledger(&ledger)?;
        report.tx_id = store.head().map_err(|e| e.report())?;
        Ok(report)
    }

    /// Imports a file's text as the entry of `path`; `Ok(Some(warning))`
    /// when it was imported but is incomplete.
    fn import(
        &self,
        store: &dyn KnowledgeStore,
        path: &str,
        text: &str,
        expected_version: i64,
    ) -> Result<Option<String>, String> {
        let topic = self.format.topic_of(path)?;
        let checked = self.format.check(path, text)?;
        store
            .put(
                "disk",
                NewEntry {
                    topic,
                    content: text.to_string(),
                    tags: checked.tags,
                    kind: Some(self.format.kind()),
                    ..Default::default()
                },
                Some(expected_version),
            )
            .map_err(|e| format!("not imported: {e}"))?;
        Ok(checked.warning)
    }

    /// Writes (and removes) files through the store as one transaction
    /// with `summary`, then mirrors them. Edits made on disk and not yet
    /// imported are imported first, so they stay in history. Every change
    /// is checked before anything is written: a file the format refuses
    /// is `invalid_request`, a stale expected version a `conflict`, and
    /// either writes nothing. Blocking.
    pub fn write(
        &self,
        actor: &str,
        summary: &str,
        changes: Vec<FileChange>,
    ) -> Result<MirrorWrite, ErrorReport> {
        if changes.is_empty() {
            return Err(ErrorReport::new(
                ErrorCode::InvalidRequest,
                "nothing to write: give at least one file",
            ));
        }
        let mut written = write_together(actor, summary, vec![(self, changes)], Vec::new())?;
        Ok(MirrorWrite {
            tx_id: written.tx_id,
            changed: written.changed,
            files: written
                .parts
                .pop()
                .map(|(_, files)| files)
                .unwrap_or_default(),
        })
    }

    /// A change as the store's write of its topic, and the format's
    /// warning; refused when the path is not this mirror's or the text
    /// does not check.
    fn topic_write(
        &self,
        change: &FileChange,
    ) -> Result<(TopicWrite, Option<String>), ErrorReport> {
        if !self.format.holds(&change.path) {
            return Err(ErrorReport::new(
                ErrorCode::InvalidRequest,
                format!(
                    "{} is not a file of {}/ that Lore keeps in its store",
                    change.path,
                    self.format.folder()
                ),
            ));
        }
        let topic = self
            .format
            .topic_of(&change.path)
            .map_err(|m| ErrorReport::new(ErrorCode::InvalidRequest, m))?;
        let (content, checked) = match &change.content {
            Some(text) => {
                let checked = self.format.check(&change.path, text).map_err(|m| {
                    ErrorReport::new(ErrorCode::InvalidRequest, format!("{}: {m}", change.path))
                })?;
                (text.clone(), checked)
            }
            None => (String::new(), Checked::default()),
        };
        Ok((
            TopicWrite {
                entry: NewEntry {
                    topic,
                    content,
                    tags: checked.tags,
                    kind: Some(self.format.kind()),
                    ..Default::default()
                },
                expected_version: change.expected_version,
                remove: change.content.is_none(),
            },
            checked.warning,
        ))
    }

    /// Writes (or removes) the files of stored entries and records them
    /// in the ledger.
    fn apply(
        &self,
        changes: Vec<FileChange>,
        items: Vec<TopicWritten>,
        warnings: Vec<Option<String>>,
    ) -> Result<Vec<FileWritten>, ErrorReport> {
        let mut ledger = self.load_ledger();
        let mut files = Vec::with_capacity(changes.len());
        for ((change, item), warning) in changes.into_iter().zip(items).zip(warnings) {
            let done = match &item.entry {
                Some(entry) => self.write_file(&change.path, &entry.content).map(|()| {
                    ledger.insert(change.path.clone(), content_hash(&entry.content));
                }),
                None => self.remove_file(&change.path).map(|()| {
                    ledger.remove(&change.path);
                }),
            };
            if let Err(error) = done {
                // The files written so far are recorded, so a later sync
                // knows them for the store's and not for edits.
                self.save_ledger(&ledger)?;
                return Err(error);
            }
            files.push(FileWritten {
                path: change.path,
                entry: item.entry,
                changed: item.changed,
                warning,
            });
        }
        self.save_ledger(&ledger)?;
        Ok(files)
    }

    /// Writes one file through the store (a `put` of its topic) and
    /// mirrors it: [`FileMirror::write`] for a single file, keeping the
    /// store's own summary of the change. Returns the entry, the
    /// transaction and whether anything changed. Blocking.
    pub fn write_one(
        &self,
        actor: &str,
        path: &str,
        content: String,
        expected_version: Option<i64>,
    ) -> Result<(Entry, TxId, bool), ErrorReport> {
        let topic = self
            .format
            .topic_of(path)
            .map_err(|m| ErrorReport::new(ErrorCode::InvalidRequest, m))?;
        let checked = self
            .format
            .check(path, &content)
            .map_err(|m| ErrorReport::new(ErrorCode::InvalidRequest, format!("{path}: {m}")))?;
        self.refresh()?;
        let store = self.store.open()?;
        let _lock = self.lock()?;
        let written = store
            .put(
                actor,
                NewEntry {
                    topic,
                    content,
                    tags: checked.tags,
                    kind: Some(self.format.kind()),
                    ..Default::default()
                },
                expected_version,
            )
            .map_err(|e| e.report())?;
        self.write_file(path, &written.value.content)?;
        let mut ledger = self.load_ledger();
        ledger.insert(path.to_string(), content_hash(&written.value.content));
        self.save_ledger(&ledger)?;
        Ok((written.value, written.tx_id, written.changed))
    }

    /// The live entries of the mirror's kind with their file paths, as
    /// the store holds them now (no sync first). Blocking.
    pub fn entries(&self) -> Result<(TxId, Vec<(String, Entry)>), ErrorReport> {
        let (tx_id, entries) = self
            .store
            .open()?
            .entries_at(Some(self.format.kind()), None)
            .map_err(|e| e.report())?;
        Ok((
            tx_id,
            entries
                .into_iter()
                .filter_map(|e| self.format.path_of(&e.topic).map(|p| (p, e)))
                .collect(),
        ))
    }

    fn walk(&self) -> Result<DiskState, ErrorReport> {
        let mut out = DiskState::new();
        let folder = self.format.folder();
        let base = self.root.join(folder);
        if base.is_dir() {
            self.walk_dir(&base, folder, &mut out)?;
        }
        Ok(out)
    }

    /// Adds the mirrored files under `dir` (whose path relative to the
    /// project is `prefix`) to `out`: one `readdir` per folder and one
    /// `stat` per file, nothing more.
    fn walk_dir(&self, dir: &Path, prefix: &str, out: &mut DiskState) -> Result<(), ErrorReport> {
        let entries = std::fs::read_dir(dir).map_err(|e| io_error(dir, e))?;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if name.starts_with('.') {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let relative = format!("{prefix}/{name}");
            if kind.is_dir() {
                self.walk_dir(&entry.path(), &relative, out)?;
            } else if kind.is_file() && self.format.holds(&relative) {
                let Ok(meta) = entry.metadata() else { continue };
                out.insert(relative, file_stamp(&meta));
            }
        }
        Ok(())
    }

    /// Removes, under the mirror's lock (so no write of its files is in
    /// progress), the temporary files a process killed while writing one
    /// of its files left in its folder (`.lore-*.tmp`, at any depth).
    /// Returns their paths relative to the project. Blocking.
    pub fn remove_temp_files(&self) -> Result<Vec<String>, ErrorReport> {
        let folder = self.format.folder();
        let base = self.root.join(folder);
        if !base.is_dir() {
            return Ok(Vec::new());
        }
        let _lock = self.lock()?;
        let mut removed = Vec::new();
        let mut pending = vec![(base, folder.to_string())];
        while let Some((dir, prefix)) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(name) = name.to_str() else { continue };
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let relative = format!("{prefix}/{name}");
                // Symbolic links are never followed nor removed.
                if kind.is_dir() {
                    pending.push((entry.path(), relative));
                } else if kind.is_file()
                    && lore_core::project::is_temp_file_name(name)
                    && std::fs::remove_file(entry.path()).is_ok()
                {
                    removed.push(relative);
                }
            }
        }
        Ok(removed)
    }

    /// Takes the mirror's file lock (released when dropped).
    pub fn lock(&self) -> Result<File, ErrorReport> {
        if let Some(parent) = self.lock_path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io_error(parent, e))?;
        }
        let file = File::create(&self.lock_path).map_err(|e| io_error(&self.lock_path, e))?;
        file.lock().map_err(|e| io_error(&self.lock_path, e))?;
        Ok(file)
    }

    fn load_ledger(&self) -> BTreeMap<String, String> {
        // A missing or damaged ledger only means "nothing agreed yet":
        // files then win over the store, and nothing is lost.
        std::fs::read(&self.ledger_path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    fn save_ledger(&self, ledger: &BTreeMap<String, String>) -> Result<(), ErrorReport> {
        let text = serde_json::to_vec_pretty(ledger).unwrap_or_default();
        write_atomic(&self.ledger_path, &text)
    }

    fn write_file(&self, path: &str, content: &str) -> Result<(), ErrorReport> {
        let target = self.root.join(path);
        if std::fs::read(&target).is_ok_and(|old| old == content.as_bytes()) {
            return Ok(());
        }
        write_atomic(&target, content.as_bytes())
    }

    fn remove_file(&self, path: &str) -> Result<(), ErrorReport> {
        let target = self.root.join(path);
        match std::fs::remove_file(&target) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_error(&target, e)),
        }
        // Empty folders a removed file leaves behind go too (not the
        // folders the format keeps).
        let stop: Vec<PathBuf> = self
            .format
            .kept_folders()
            .iter()
            .map(|f| self.root.join(f))
            .collect();
        let mut dir = target.parent().map(Path::to_path_buf);
        while let Some(d) = dir {
            if stop.contains(&d) || !d.starts_with(&self.root) || std::fs::remove_dir(&d).is_err() {
                break;
            }
            dir = d.parent().map(Path::to_path_buf);
        }
        Ok(())
    }
}

/// A file's modification time (ns) and size.
fn file_stamp(meta: &std::fs::Metadata) -> (u128, u64) {
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    (modified, meta.len())
}

fn disk_fingerprint(disk: &DiskState) -> u64 {
    let stamps: Vec<[u8; 24]> = disk
        .values()
        .map(|(modified, len)| {
            let mut bytes = [0u8; 24];
            bytes[..16].copy_from_slice(&modified.to_le_bytes());
            bytes[16..].copy_from_slice(&len.to_le_bytes());
            bytes
        })
        .collect();
    let mut parts: Vec<&[u8]> = Vec::with_capacity(disk.len() * 2);
    for (path, stamp) in disk.keys().zip(&stamps) {
        parts.push(path.as_bytes());
        parts.push(stamp);
    }
    lore_core::hash::fnv1a(&parts)
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ErrorReport> {
    lore_core::project::write_atomically(path, bytes).map_err(|e| e.report())
}

/// An IO failure on `path` as a public error (`permission_denied` when the
/// OS refused).
fn io_error(path: &Path, error: std::io::Error) -> ErrorReport {
    let code = if error.kind() == std::io::ErrorKind::PermissionDenied {
        ErrorCode::PermissionDenied
    } else {
        ErrorCode::Internal
    };
    ErrorReport::new(code, format!("{}: {error}", path.display()))
}

/// What a [`write_together`] wrote.
pub struct WrittenTogether<'a> {
    /// The transaction holding every change (the newest one when nothing
    /// changed).
    pub tx_id: TxId,
    /// False when every file already held what was asked.
    pub changed: bool,
    /// Each mirror's files as written, in the order given.
    pub parts: Vec<(&'a FileMirror, Vec<FileWritten>)>,
    /// The other entries written with them, in the order given.
    pub entries: Vec<TopicWritten>,
}

/// Writes the files of several mirrors (a wiki page and a semantic-layer
/// file) as one store transaction whose summary is `summary`: every file
/// is checked first and nothing is written on a refusal; one undo reverts
/// them all. `entries` are written in the same transaction: entries of
/// kinds no mirror keeps as files (memory notes). Each mirror first
/// imports edits made on disk and is locked while its files are written.
/// The mirrors must share one store. Blocking.
pub fn write_together<'a>(
    actor: &str,
    summary: &str,
    parts: Vec<(&'a FileMirror, Vec<FileChange>)>,
    entries: Vec<TopicWrite>,
) -> Result<WrittenTogether<'a>, ErrorReport> {
    let Some(first) = parts.first().map(|(mirror, _)| *mirror) else {
        return Err(ErrorReport::new(
            ErrorCode::InvalidRequest,
            "nothing to write: give at least one file",
        ));
    };
    let mut writes = Vec::new();
    let mut prepared = Vec::with_capacity(parts.len());
    for (mirror, changes) in parts {
        let mut warnings = Vec::with_capacity(changes.len());
        for change in &changes {
            let (write, warning) = mirror.topic_write(change)?;
            writes.push(write);
            warnings.push(warning);
        }
        prepared.push((mirror, changes, warnings));
    }
    // An edit made on disk and not yet imported must not be lost.
    for (mirror, _, _) in &prepared {
        mirror.refresh()?;
    }
    let store = first.store.open()?;
    let mut locks = Vec::with_capacity(prepared.len());
    for (mirror, _, _) in &prepared {
        locks.push(mirror.lock()?);
    }
    let entry_count = entries.len();
    writes.extend(entries);
    let written = store
        .put_many(actor, summary, writes)
        .map_err(|e| e.report())?;
    let mut items = written.items.into_iter();
    let mut parts = Vec::with_capacity(prepared.len());
    for (mirror, changes, warnings) in prepared {
        let mine: Vec<TopicWritten> = items.by_ref().take(changes.len()).collect();
        match mirror.apply(changes, mine, warnings) {
            Ok(files) => parts.push((mirror, files)),
            Err(error) if written.changed => {
                // A file that cannot be written takes the whole write
                // back: the store and the files stay as they were (the
                // next sync puts back any file already rewritten).
                let undone = store.undo(actor, written.tx_id, true);
                drop(locks);
                for (mirror, _) in &parts {
                    let _ = mirror.sync();
                }
                let _ = mirror.sync();
                return Err(ErrorReport::new(
                    error.code,
                    match undone {
                        Ok(_) => format!("{}; the write was taken back", error.message),
                        Err(e) => format!(
                            "{}; taking the write back failed too ({e}): undo transaction {}",
                            error.message, written.tx_id
                        ),
                    },
                ));
            }
            Err(error) => return Err(error),
        }
    }
    drop(locks);
    Ok(WrittenTogether {
        tx_id: written.tx_id,
        changed: written.changed,
        parts,
        entries: items.take(entry_count).collect(),
    })
}
