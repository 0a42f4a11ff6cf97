//! The wiki service: pages live in the knowledge store (history, undo,
//! as-of) and are mirrored to `wiki/` as files people edit and commit.
//!
//! ## Keeping the store and the files in step
//!
//! A ledger (`.lore/wiki-ledger.json`) records, for every page file, the
//! hash of the content the store and the file last agreed on. Comparing
//! the store (S), the file (D) and the ledger (L) tells who moved:
//!
//! | store | file | ledger | meaning | action |
//! |---|---|---|---|---|
//! | S | D = S | – | in step | none |
//! | S | D ≠ S | L = D | the store moved (a write, an undo) | write the file |
//! | S | D ≠ S | other | the file was edited | import D as a new version |
//! | S | none | L = S | the file was deleted | delete the page |
//! | S | none | other | never mirrored | write the file |
//! | none | D | L = D | the page was deleted (or undone) | remove the file |
//! | none | D | other | a new file | import it as a new page |
//!
//! When both moved, the file wins: the store's version stays in history.
//! A file that cannot be imported (broken front matter, a bad name) is
//! reported and left alone, never overwritten. Syncs run on start-up, before
//! every wiki or discovery read (cheaply: a directory walk and the store's
//! head, and nothing more when neither moved), after every write, and from
//! `lore wiki sync`; a file lock keeps Lore processes from syncing at once.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use lore_core::error::HasErrorCode;
use lore_core::project::Project;
use lore_core::{ErrorCode, ErrorReport};
use lore_store::{Entry, EntryKind, EntryQuery, KnowledgeStore, NewEntry, TxId};
use schemars::JsonSchema;
use serde::Serialize;

use super::page::{self, FrontMatter, PageAddress, Scope};
use lore_store::feed::StoreHandle;

/// A live page, read from the store.
#[derive(Debug, Clone)]
pub struct Page {
    /// Where it lives.
    pub address: PageAddress,
    /// The store entry holding it (id, version, tx_id, updated_at).
    pub entry: Entry,
    /// Its front matter (default when unreadable).
    pub front: FrontMatter,
    /// Its markdown body.
    pub body: String,
    /// Why the front matter could not be read, if it could not.
    pub problem: Option<String>,
}

impl Page {
    /// The page an entry holds, if its topic is a page address.
    pub fn from_entry(entry: Entry) -> Option<Page> {
        let address = PageAddress::from_topic(&entry.topic)?;
        let (front, body, problem) = match page::parse(&entry.content) {
            Ok((front, body)) => (front, body, None),
            Err(problem) => (FrontMatter::default(), entry.content.clone(), Some(problem)),
        };
        Some(Page {
            address,
            entry,
            front,
            body,
            problem,
        })
    }

    /// The links (`[[…]]` and `refs`) of the page.
    pub fn links(&self) -> Vec<String> {
        let mut links = page::wikilinks(&self.body);
        for r in &self.front.refs {
            if !links.contains(r) {
                links.push(r.clone());
            }
        }
        links
    }
}

/// Something a sync could not do, or found wrong.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SyncProblem {
    /// The file (or store topic) concerned.
    pub path: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// A link to a page that does not exist.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BrokenLink {
    /// The page holding the link.
    pub path: String,
    /// The key it links to.
    pub target: String,
}

/// What a sync did.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct SyncReport {
    /// Files whose edits were imported as new versions (or new pages).
    pub imported: Vec<String>,
    /// Files written from the store.
    pub mirrored: Vec<String>,
    /// Files removed because their page was deleted.
    pub removed_files: Vec<String>,
    /// Pages deleted because their file was deleted.
    pub deleted_pages: Vec<String>,
    /// Files left alone, and why.
    pub problems: Vec<SyncProblem>,
    /// Links to pages that do not exist.
    pub broken_links: Vec<BrokenLink>,
    /// Live pages after the sync.
    pub pages: usize,
    /// The store's newest transaction after the sync.
    pub tx_id: TxId,
}

/// A page to write.
#[derive(Debug, Clone, Default)]
pub struct PageWrite {
    /// Its key.
    pub key: String,
    /// `user` for the current user's page; global otherwise.
    pub user_scope: bool,
    /// Its front matter; the summary is required (one line).
    pub front: FrontMatter,
    /// Markdown.
    pub body: String,
    /// Refuse unless the page is at this version (0: must not exist).
    pub expected_version: Option<i64>,
}

/// What [`Wiki::write`] wrote.
#[derive(Debug, Clone)]
pub struct WrittenPage {
    /// The page as stored.
    pub page: Page,
    /// The transaction (the page's current one when nothing changed).
    pub tx_id: TxId,
    /// False when the page already had exactly this content.
    pub changed: bool,
}

/// The files and their stamps, by path relative to the project root.
type DiskState = BTreeMap<String, (u128, u64)>;

/// The wiki of one project.
pub struct Wiki {
    root: PathBuf,
    ledger_path: PathBuf,
    lock_path: PathBuf,
    store: Arc<StoreHandle>,
    user: String,
    /// The disk fingerprint and store head of the last sync.
    seen: Mutex<Option<(u64, TxId)>>,
}

impl Wiki {
    /// The wiki of `project` over its store, for `user` (see
    /// [`current_user`]).
    pub fn new(project: &Project, store: Arc<StoreHandle>, user: String) -> Wiki {
        let state = project.state_dir();
        Wiki {
            root: project.root.clone(),
            ledger_path: state.join("wiki-ledger.json"),
            lock_path: state.join("wiki.lock"),
            store,
            user,
            seen: Mutex::new(None),
        }
    }

    /// The wiki of `project` for the current user (see [`current_user`]),
    /// over `store`, or over a store handle of its own when `None` (the
    /// CLI).
    pub fn for_project(project: &Project, store: Option<Arc<StoreHandle>>) -> Wiki {
        let store = store.unwrap_or_else(|| Arc::new(StoreHandle::sqlite(project.store_path())));
        Wiki::new(project, store, current_user())
    }

    /// The user whose `wiki/user/<id>/` pages this wiki shows.
    pub fn user(&self) -> &str {
        &self.user
    }

    /// The store.
    pub fn store(&self) -> Result<Arc<dyn KnowledgeStore>, ErrorReport> {
        self.store.open()
    }

    /// Whether a page belongs to someone else (and stays hidden).
    pub fn is_foreign(&self, scope: &Scope) -> bool {
        scope.user().is_some_and(|u| u != self.user)
    }

    /// Whether there is anything to keep in step yet (a `wiki/` folder or
    /// a store file); checking creates nothing.
    pub fn exists(&self) -> bool {
        self.store.exists() || self.root.join("wiki").is_dir()
    }

    /// Brings the store and the files in step, even when nothing seems to
    /// have moved. Blocking.
    pub fn sync(&self) -> Result<SyncReport, ErrorReport> {
        Ok(self.sync_if(true)?.unwrap_or_default())
    }

    /// Syncs when a file or the store moved since the last sync; returns
    /// the report when it synced. Blocking.
    pub fn refresh(&self) -> Result<Option<SyncReport>, ErrorReport> {
        self.sync_if(false)
    }

    fn sync_if(&self, force: bool) -> Result<Option<SyncReport>, ErrorReport> {
        if !self.exists() {
            // No wiki and no store: nothing to sync, and nothing to create.
            return Ok(None);
        }
        let store = self.store.open()?;
        // Only wiki entries matter here: memory writes do not start a sync.
        let head = store.kind_head(EntryKind::Wiki).map_err(|e| e.report())?;
        let disk = self.walk()?;
        let fingerprint = disk_fingerprint(&disk);
        if !force
            && *self.seen.lock().unwrap_or_else(|p| p.into_inner()) == Some((fingerprint, head))
        {
            return Ok(None);
        }
        let _lock = self.lock()?;
        // What this sync starts from, read under the lock.
        let head = store.kind_head(EntryKind::Wiki).map_err(|e| e.report())?;
        let mut disk = self.walk()?;
        let report = self.sync_locked(store.as_ref(), &disk)?;
        // Remember what the sync read, plus the files it wrote itself, so
        // anything anyone else changes from now on (even during the sync)
        // differs from it. The head is the one read before the sync: its
        // own imports make the next call sync once more, finding nothing.
        for path in report.mirrored.iter().chain(&report.removed_files) {
            match std::fs::metadata(self.root.join(path)) {
                Ok(meta) => {
                    disk.insert(path.clone(), file_stamp(&meta));
                }
                Err(_) => {
                    disk.remove(path);
                }
            }
        }
        *self.seen.lock().unwrap_or_else(|p| p.into_inner()) =
            Some((disk_fingerprint(&disk), head));
        Ok(Some(report))
    }

    fn sync_locked(
        &self,
        store: &dyn KnowledgeStore,
        disk: &DiskState,
    ) -> Result<SyncReport, ErrorReport> {
        let mut report = SyncReport::default();
        let mut ledger = self.load_ledger();
        let (_, entries) = store
            .entries_at(Some(EntryKind::Wiki), None)
            .map_err(|e| e.report())?;
        let mut in_store: BTreeMap<String, Entry> = BTreeMap::new();
        for entry in entries {
            match PageAddress::from_topic(&entry.topic) {
                Some(address) => {
                    in_store.insert(address.path(), entry);
                }
                None => report.problems.push(SyncProblem {
                    path: entry.topic.clone(),
                    message: format!(
                        "wiki entry {} has a topic that is no page path (wiki/global/<key> or wiki/user/<id>/<key>); it is not mirrored",
                        entry.id
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
                    report.deleted_pages.push(path.clone());
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
        let (tx_id, entries) = store
            .entries_at(Some(EntryKind::Wiki), None)
            .map_err(|e| e.report())?;
        let pages: Vec<Page> = entries.into_iter().filter_map(Page::from_entry).collect();
        report.broken_links = broken_links(&pages);
        report.pages = pages.len();
        report.tx_id = tx_id;
        Ok(report)
    }

    /// Imports a file's text as the page at `path`; `Ok(Some(warning))`
    /// when it was imported but is incomplete.
    fn import(
        &self,
        store: &dyn KnowledgeStore,
        path: &str,
        text: &str,
        expected_version: i64,
    ) -> Result<Option<String>, String> {
        let address = PageAddress::from_path(path).ok_or_else(|| {
            format!(
                "not imported: the file name is not a page key (lower-case letters, digits, `-`, `_`, `.`); rename it, e.g. to `{}`",
                page::slug(path.trim_end_matches(".md"))
            )
        })?;
        let (front, _) = page::parse(text)
            .map_err(|e| format!("not imported: {e}; fix the file and run `lore wiki sync`"))?;
        store
            .put(
                "disk",
                NewEntry {
                    topic: address.topic(),
                    content: text.to_string(),
                    tags: front.tags.clone(),
                    kind: Some(EntryKind::Wiki),
                    ..Default::default()
                },
                Some(expected_version),
            )
            .map_err(|e| format!("not imported: {e}"))?;
        Ok(front
            .summary
            .is_none()
            .then(|| "has no `summary` in its front matter; searches show none".to_string()))
    }

    /// Writes a page through the store and mirrors it. Blocking.
    pub fn write(&self, actor: &str, input: PageWrite) -> Result<WrittenPage, ErrorReport> {
        page::check_key(&input.key)?;
        let summary = input.front.summary.as_deref().unwrap_or_default().trim();
        if summary.is_empty() {
            return Err(ErrorReport::new(
                ErrorCode::InvalidRequest,
                "summary must not be empty: say in one line what the page explains",
            ));
        }
        if summary.chars().count() > page::SUMMARY_CHARS || summary.contains('\n') {
            return Err(ErrorReport::new(
                ErrorCode::InvalidRequest,
                format!(
                    "summary must be one line of at most {} characters",
                    page::SUMMARY_CHARS
                ),
            ));
        }
        for r in &input.front.refs {
            page::check_key(r)?;
        }
        let address = PageAddress {
            scope: if input.user_scope {
                Scope::User(self.user.clone())
            } else {
                Scope::Global
            },
            key: input.key.clone(),
        };
        let front = FrontMatter {
            summary: Some(summary.to_string()),
            ..input.front.clone()
        };
        let content = page::render(&front, &input.body);
        // An edit made on disk and not yet imported must not be lost.
        self.refresh()?;
        let store = self.store.open()?;
        let _lock = self.lock()?;
        let written = store
            .put(
                actor,
                NewEntry {
                    topic: address.topic(),
                    content: content.clone(),
                    tags: front.tags.clone(),
                    kind: Some(EntryKind::Wiki),
                    ..Default::default()
                },
                input.expected_version,
            )
            .map_err(|e| e.report())?;
        let path = address.path();
        self.write_file(&path, &written.value.content)?;
        let mut ledger = self.load_ledger();
        ledger.insert(path, content_hash(&written.value.content));
        self.save_ledger(&ledger)?;
        let (tx_id, changed) = (written.tx_id, written.changed);
        let page = Page::from_entry(written.value).ok_or_else(|| {
            ErrorReport::new(ErrorCode::Internal, "the written page has no page address")
        })?;
        Ok(WrittenPage {
            page,
            tx_id,
            changed,
        })
    }

    /// Every live page this user may see (global and their own). Blocking.
    pub fn pages(&self) -> Result<Vec<Page>, ErrorReport> {
        self.refresh()?;
        self.visible_pages()
    }

    /// The pages this user may see as the store holds them now, without
    /// syncing first (for callers that just read or wrote a page).
    fn visible_pages(&self) -> Result<Vec<Page>, ErrorReport> {
        let (_, entries) = self
            .store
            .open()?
            .entries_at(Some(EntryKind::Wiki), None)
            .map_err(|e| e.report())?;
        Ok(entries
            .into_iter()
            .filter_map(Page::from_entry)
            .filter(|p| !self.is_foreign(&p.address.scope))
            .collect())
    }

    /// One page by key: the user's own page first, then the global one
    /// (or only the scope asked for), now or as of a transaction.
    /// Blocking.
    pub fn read(
        &self,
        key: &str,
        scope: Option<&str>,
        as_of_tx_id: Option<TxId>,
    ) -> Result<Option<Page>, ErrorReport> {
        page::check_key(key)?;
        self.refresh()?;
        let store = self.store.open()?;
        let scopes = match scope {
            None => vec![Scope::User(self.user.clone()), Scope::Global],
            Some("global") => vec![Scope::Global],
            Some("user") => vec![Scope::User(self.user.clone())],
            Some(other) => {
                return Err(ErrorReport::new(
                    ErrorCode::InvalidRequest,
                    format!("scope must be global or user, got `{other}`"),
                ));
            }
        };
        for scope in scopes {
            let topic = PageAddress {
                scope,
                key: key.to_string(),
            }
            .topic();
            if let Some(entry) = find_topic(store.as_ref(), &topic, as_of_tx_id)? {
                return Ok(Page::from_entry(entry));
            }
        }
        Ok(None)
    }

    /// Keys close to `key`, best first (for "did you mean", after a
    /// [`Wiki::read`] found nothing).
    pub fn suggest(&self, key: &str) -> Result<Vec<String>, ErrorReport> {
        let mut scored: Vec<(f64, String)> = self
            .visible_pages()?
            .into_iter()
            .map(|p| {
                let candidate = p.address.key;
                let last = candidate.rsplit('/').next().unwrap_or(&candidate);
                let score = strsim::jaro_winkler(key, &candidate)
                    .max(strsim::jaro_winkler(key, last))
                    .max(if candidate.contains(key) || key.contains(last) {
                        0.9
                    } else {
                        0.0
                    });
                (score, candidate)
            })
            .filter(|(score, _)| *score >= 0.75)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.dedup_by(|a, b| a.1 == b.1);
        Ok(scored.into_iter().take(3).map(|(_, k)| k).collect())
    }

    /// Keys of pages `page` (just read or written) links to that do not
    /// exist.
    pub fn broken_links_of(&self, page: &Page) -> Result<Vec<String>, ErrorReport> {
        let known: BTreeSet<String> = self
            .visible_pages()?
            .into_iter()
            .map(|p| p.address.key)
            .collect();
        Ok(page
            .links()
            .into_iter()
            .filter(|l| !known.contains(l))
            .collect())
    }

    fn walk(&self) -> Result<DiskState, ErrorReport> {
        let mut out = DiskState::new();
        let base = self.root.join("wiki");
        if base.is_dir() {
            walk_dir(&base, "wiki", &mut out)?;
        }
        Ok(out)
    }

    fn lock(&self) -> Result<File, ErrorReport> {
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
        // Empty folders a removed page leaves behind go too (not wiki/
        // itself, nor the scope folders).
        let stop = [
            self.root.join("wiki"),
            self.root.join("wiki/global"),
            self.root.join("wiki/user"),
        ];
        let mut dir = target.parent().map(Path::to_path_buf);
        while let Some(d) = dir {
            if stop.contains(&d) || std::fs::remove_dir(&d).is_err() {
                break;
            }
            dir = d.parent().map(Path::to_path_buf);
        }
        Ok(())
    }
}

/// The user id from `LORE_USER`, else `USER`, made a valid key segment.
pub fn current_user() -> String {
    let raw = std::env::var("LORE_USER")
        .or_else(|_| std::env::var("USER"))
        .unwrap_or_default();
    if raw.trim().is_empty() {
        return "local".to_string();
    }
    page::slug(&raw).replace('/', "-")
}

/// The live entry whose topic is exactly `topic`.
fn find_topic(
    store: &dyn KnowledgeStore,
    topic: &str,
    as_of_tx_id: Option<TxId>,
) -> Result<Option<Entry>, ErrorReport> {
    let mut cursor = None;
    loop {
        let page = store
            .query(&EntryQuery {
                topic: Some(topic.to_string()),
                kind: Some(EntryKind::Wiki),
                limit: Some(200),
                cursor,
                as_of_tx_id,
                ..Default::default()
            })
            .map_err(|e| e.report())?;
        if let Some(found) = page.items.into_iter().find(|e| e.topic == topic) {
            return Ok(Some(found));
        }
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return Ok(None),
        }
    }
}

fn broken_links(pages: &[Page]) -> Vec<BrokenLink> {
    let mut out = Vec::new();
    for page in pages {
        // A user's links resolve against their pages and the global ones.
        let visible = |key: &str| {
            pages.iter().any(|p| {
                p.address.key == key
                    && (p.address.scope == Scope::Global || p.address.scope == page.address.scope)
            })
        };
        for target in page.links() {
            if !visible(&target) {
                out.push(BrokenLink {
                    path: page.address.path(),
                    target,
                });
            }
        }
    }
    out
}

/// Adds the `.md` files under `dir` (whose path relative to the project
/// is `prefix`) to `out`. Runs before every search: one `readdir` per
/// folder and one `stat` per file, nothing more.
fn walk_dir(dir: &Path, prefix: &str, out: &mut DiskState) -> Result<(), ErrorReport> {
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
            walk_dir(&entry.path(), &relative, out)?;
        } else if kind.is_file() && name.ends_with(".md") {
            let Ok(meta) = entry.metadata() else { continue };
            out.insert(relative, file_stamp(&meta));
        }
    }
    Ok(())
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
    let mut parts: Vec<&[u8]> = Vec::with_capacity(disk.len() * 2);
    let stamps: Vec<[u8; 24]> = disk
        .values()
        .map(|(modified, len)| {
            let mut bytes = [0u8; 24];
            bytes[..16].copy_from_slice(&modified.to_le_bytes());
            bytes[16..].copy_from_slice(&len.to_le_bytes());
            bytes
        })
        .collect();
    for (path, stamp) in disk.keys().zip(&stamps) {
        parts.push(path.as_bytes());
        parts.push(stamp);
    }
    lore_core::hash::fnv1a(&parts)
}

use lore_core::hash::content_hash;

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ErrorReport> {
    lore_core::project::write_atomically(path, bytes).map_err(|e| e.report())
}

fn io_error(path: &Path, error: std::io::Error) -> ErrorReport {
    let code = if error.kind() == std::io::ErrorKind::PermissionDenied {
        ErrorCode::PermissionDenied
    } else {
        ErrorCode::Internal
    };
    ErrorReport::new(code, format!("{}: {error}", path.display()))
}
