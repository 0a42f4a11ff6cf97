//! The wiki: markdown pages of knowledge about the project's data
//! (metric definitions, gotchas, conventions), kept in the knowledge store
//! and mirrored to `wiki/` for people.
//!
//! - [`page`]: the file format (front matter, keys, `[[wikilinks]]`).
//! - [`service`]: [`Wiki`], which writes pages through the store and keeps
//!   the files and the store in step.
//! - [`requests`]: search, read and write as `wiki_search`, `wiki_read`
//!   and `wiki_write` (and `lore wiki`) ask for them.

pub mod page;
pub mod requests;
pub mod service;

use lore_search::{DocKind, MatchField, SearchDoc};
use lore_store::Entry;
use serde_json::json;

pub use requests::{wiki_read, wiki_search, wiki_write};
pub use service::{Page, PageWrite, SyncReport, Wiki, WrittenPage, current_user};

use page::UsageMode;

/// The search document of a page (none for `usage_mode: never`). Its id
/// is the page's path under `wiki/` without `.md` (`global/revenue`), so
/// a global and a user page with one key stay apart; the payload carries
/// the key, scope, summary and body that results show.
pub fn page_doc(page: &Page) -> Option<SearchDoc> {
    if page.front.usage_mode == UsageMode::Never {
        return None;
    }
    let mut fields = vec![(MatchField::Name, page.address.key.replace('/', " "))];
    let mut display: Vec<String> = page::title(&page.body).into_iter().collect();
    display.extend(page.front.tags.iter().cloned());
    if !display.is_empty() {
        fields.push((MatchField::Display, display.join(" ; ")));
    }
    if let Some(summary) = &page.front.summary {
        fields.push((MatchField::Description, summary.clone()));
    }
    fields.push((MatchField::Body, page.body.clone()));
    Some(SearchDoc {
        kind: DocKind::Wiki,
        connection: None,
        id: page.address.topic().trim_start_matches("wiki/").to_string(),
        fields,
        payload: json!({
            "key": page.address.key,
            "entryId": page.entry.id,
            "scope": page.address.scope.name(),
            "user": page.address.scope.user(),
            "path": page.address.path(),
            "summary": page.front.summary,
            "tags": page.front.tags,
            "body": page.body,
        }),
    })
}

/// The search document of a knowledge entry: a wiki page's (see
/// [`page_doc`]) or a memory note's (kind `entry`, id `e-…`); none for a
/// semantic-layer file (the semantic-layer lane indexes the model itself).
pub fn entry_doc(entry: &Entry) -> Option<SearchDoc> {
    match entry.kind {
        lore_store::EntryKind::Wiki => {
            return Page::from_entry(entry.clone()).and_then(|p| page_doc(&p));
        }
        lore_store::EntryKind::Model => return None,
        lore_store::EntryKind::Note | lore_store::EntryKind::Document => {}
    }
    let mut fields = vec![(MatchField::Name, entry.topic.clone())];
    if !entry.tags.is_empty() {
        fields.push((MatchField::Display, entry.tags.join(" ; ")));
    }
    fields.push((MatchField::Body, entry.content.clone()));
    Some(SearchDoc {
        kind: DocKind::Entry,
        connection: None,
        id: entry.id.clone(),
        fields,
        payload: json!({"topic": entry.topic, "summary": entry.topic, "body": entry.content}),
    })
}
