//! The wiki service: pages live in the knowledge store (history, undo,
//! as-of) and are mirrored to `wiki/` as files people edit and commit,
//! through a [`FileMirror`] of [`WikiFiles`] (how the store and the files
//! are kept in step is described in [`lore_store::mirror`]). Syncs run on
//! start-up, before every wiki or discovery read (cheaply: a directory walk
//! and the store's newest wiki change, and nothing more when neither
//! moved), after every write, and from `lore wiki sync`.

use std::collections::BTreeSet;
use std::sync::Arc;

use lore_core::error::HasErrorCode;
use lore_core::project::Project;
use lore_core::{ErrorCode, ErrorReport};
use lore_store::{Entry, EntryKind, EntryQuery, KnowledgeStore, TxId};
use schemars::JsonSchema;
use serde::Serialize;

use super::page::{self, FrontMatter, PageAddress, Scope};
use lore_store::feed::StoreHandle;
pub use lore_store::mirror::SyncProblem;
use lore_store::mirror::{Checked, FileMirror, MirrorFormat};

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

/// The wiki's files: `wiki/**/*.md`, one page each, stored as wiki
/// entries whose topic is the page's address (`wiki/global/<key>`,
/// `wiki/user/<id>/<key>`).
pub struct WikiFiles;

impl MirrorFormat for WikiFiles {
    fn name(&self) -> &'static str {
        "wiki"
    }

    fn kind(&self) -> EntryKind {
        EntryKind::Wiki
    }

    fn folder(&self) -> &'static str {
        "wiki"
    }

    fn holds(&self, path: &str) -> bool {
        path.ends_with(".md")
    }

    fn topic_of(&self, path: &str) -> Result<String, String> {
        PageAddress::from_path(path)
            .map(|a| a.topic())
            .ok_or_else(|| {
                format!(
                    "not imported: the file name is not a page key (lower-case letters, digits, `-`, `_`, `.`); rename it, e.g. to `{}`",
                    page::slug(path.trim_end_matches(".md"))
                )
            })
    }

    fn path_of(&self, topic: &str) -> Option<String> {
        PageAddress::from_topic(topic).map(|a| a.path())
    }

    fn check(&self, _path: &str, text: &str) -> Result<Checked, String> {
        let (front, _) = page::parse(text)
            .map_err(|e| format!("not imported: {e}; fix the file and run `lore wiki sync`"))?;
        Ok(Checked {
            warning: front
                .summary
                .is_none()
                .then(|| "has no `summary` in its front matter; searches show none".to_string()),
            tags: front.tags,
        })
    }

    fn kept_folders(&self) -> Vec<String> {
        vec!["wiki".into(), "wiki/global".into(), "wiki/user".into()]
    }
}

/// The wiki of one project.
pub struct Wiki {
    mirror: FileMirror,
    user: String,
}

impl Wiki {
    /// The wiki of `project` over its store, for `user` (see
    /// [`current_user`]).
    pub fn new(project: &Project, store: Arc<StoreHandle>, user: String) -> Wiki {
        Wiki {
            mirror: FileMirror::new(project, store, WikiFiles),
            user,
        }
    }

    /// The wiki of `project` for the current user (see [`current_user`]),
    /// over `store`, or over a store handle of its own when `None` (the
    /// CLI).
    pub fn for_project(project: &Project, store: Option<Arc<StoreHandle>>) -> Wiki {
        let store = store.unwrap_or_else(|| Arc::new(StoreHandle::for_project(project)));
        Wiki::new(project, store, current_user())
    }

    /// The user whose `wiki/user/<id>/` pages this wiki shows.
    pub fn user(&self) -> &str {
        &self.user
    }

    /// The store.
    pub fn store(&self) -> Result<Arc<dyn KnowledgeStore>, ErrorReport> {
        self.mirror.store().open()
    }

    /// Whether a page belongs to someone else (and stays hidden).
    pub fn is_foreign(&self, scope: &Scope) -> bool {
        scope.user().is_some_and(|u| u != self.user)
    }

    /// Whether there is anything to keep in step yet (a `wiki/` folder or
    /// a store file); checking creates nothing.
    pub fn exists(&self) -> bool {
        self.mirror.exists()
    }

    /// Brings the store and the files in step, even when nothing seems to
    /// have moved. Blocking.
    pub fn sync(&self) -> Result<SyncReport, ErrorReport> {
        let report = self.mirror.sync()?;
        self.report(report)
    }

    /// Syncs when a file or the store moved since the last sync; returns
    /// the report when it synced. Blocking.
    pub fn refresh(&self) -> Result<Option<SyncReport>, ErrorReport> {
        match self.mirror.refresh()? {
            Some(report) => Ok(Some(self.report(report)?)),
            None => Ok(None),
        }
    }

    /// A mirror's report with the wiki's own checks (links, page count).
    fn report(&self, report: lore_store::mirror::MirrorReport) -> Result<SyncReport, ErrorReport> {
        let (tx_id, entries) = self.mirror.entries()?;
        let pages: Vec<Page> = entries
            .into_iter()
            .filter_map(|(_, e)| Page::from_entry(e))
            .collect();
        Ok(SyncReport {
            imported: report.imported,
            mirrored: report.mirrored,
            removed_files: report.removed_files,
            deleted_pages: report.deleted,
            problems: report.problems,
            broken_links: broken_links(&pages),
            pages: pages.len(),
            tx_id: tx_id.max(report.tx_id),
        })
    }

    /// The mirror of the page files (for writes made together with other
    /// mirrors' files).
    pub fn mirror(&self) -> &FileMirror {
        &self.mirror
    }

    /// Writes a page through the store and mirrors it. Blocking.
    pub fn write(&self, actor: &str, input: PageWrite) -> Result<WrittenPage, ErrorReport> {
        page::check_key(&input.key)?;
        let summary = input.front.summary.as_deref().unwrap_or_default().trim();
        if summary.is_empty() {
            return Err(ErrorReport::new(
                ErrorCode::InvalidArguments,
                "summary must not be empty: say in one line what the page explains",
            ));
        }
        if summary.chars().count() > page::SUMMARY_CHARS || summary.contains('\n') {
            return Err(ErrorReport::new(
                ErrorCode::InvalidArguments,
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
        let (entry, tx_id, changed) =
            self.mirror
                .write_one(actor, &address.path(), content, input.expected_version)?;
        let page = Page::from_entry(entry).ok_or_else(|| {
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
        let (_, entries) = self.mirror.entries()?;
        Ok(entries
            .into_iter()
            .filter_map(|(_, e)| Page::from_entry(e))
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
        let store = self.store()?;
        let scopes = match scope {
            None => vec![Scope::User(self.user.clone()), Scope::Global],
            Some("global") => vec![Scope::Global],
            Some("user") => vec![Scope::User(self.user.clone())],
            Some(other) => {
                return Err(ErrorReport::new(
                    ErrorCode::InvalidArguments,
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
