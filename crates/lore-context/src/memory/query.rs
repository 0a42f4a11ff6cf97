//! The text search of the memory's `query` tool, through the shared index
//! (`.lore/index/`, the store's group): the same identifier-aware terms and
//! stemming as `discover_data` ("order items" finds `orderItems`), and one
//! index instead of two.
//!
//! The index holds the current state only, so it answers queries of the
//! current state: without `as_of_tx_id`, or with the transaction the index
//! reflects (so a read as of the head and a read of now are one read); a
//! read of the past keeps the store's own versioned full-text search. The
//! index leaves semantic-layer files out (their text would skew the
//! ranking of every other search), so they are matched by the store's
//! search as of the same transaction and merged rank by rank: the
//! memory's `query` finds every kind of entry, now as in the past. Pages
//! stay stable while others write:
//! the first page pins the transaction the index reflected and keeps the
//! ranking (the matching entry ids, best first) in memory under its
//! cursor; later pages read that ranking and the entries as of that
//! transaction. A ranking forgotten (a restart, many listings since) is
//! recomputed when the index still reflects that transaction, else the
//! cursor has expired and says so.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use lore_core::cursor::PageCursor;
use lore_core::error::HasErrorCode;
use lore_core::{ErrorCode, ErrorReport};
use lore_search::{DocKind, SearchQuery};
use lore_store::{Entry, EntryFilter, KnowledgeStore, Page, TxId};

use crate::discover::{Discover, STORE_GROUP};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The most matches a text query ranks.
pub const RANK_MAX: usize = 1_000;

/// Rankings kept for cursors.
const KEPT: usize = 64;

/// A listing's filters fingerprint, its transaction and its ranking.
type KeptRanking = (u64, TxId, Arc<Vec<String>>);

/// The memory's text search over the shared index.
pub struct MemorySearch {
    discover: Arc<Discover>,
    /// (filters fingerprint, transaction) → entry ids, best first.
    rankings: Mutex<VecDeque<KeptRanking>>,
}

impl MemorySearch {
    /// The search over `discover`'s index (which must carry the store's
    /// group, i.e. have a wiki).
    pub fn new(discover: Arc<Discover>) -> MemorySearch {
        MemorySearch {
            discover,
            rankings: Mutex::new(VecDeque::new()),
        }
    }

    /// Answers `input` when it is a text query of the current state (or
    /// of the transaction the index reflects, or the next page of one);
    /// `None` when the store should answer (no text, a read of the past,
    /// a store cursor). Blocking.
    pub fn query(
        &self,
        store: &dyn KnowledgeStore,
        input: &QueryInput,
    ) -> Result<Option<QueryOutput>, ErrorReport> {
        let Some(text) = input
            .text
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
        else {
            return Ok(None);
        };
        let ours = input
            .cursor
            .as_deref()
            .is_some_and(|c| PageCursor::is_kind(c, CURSOR_KIND));
        if !ours && input.cursor.is_some() {
            return Ok(None);
        }
        // Checked as the store checks its own queries.
        let limit = lore_store::page_size(input.limit).map_err(|e| e.report())?;
        let filter = EntryFilter::new(
            input.topic.as_deref(),
            input.tags.as_deref().unwrap_or_default(),
            input.min_confidence,
        )
        .map_err(|e| e.report())?;
        let fingerprint = fingerprint(text, &filter);
        let (as_of, offset, ranking) = match input.cursor.as_deref() {
            None => {
                let index = self.discover.refresh()?;
                let as_of = indexed_at(&index)?;
                if input.as_of_tx_id.is_some_and(|tx| tx != as_of) {
                    return Ok(None);
                }
                let ranking = rank(&index, store, text, as_of)?;
                (as_of, 0, self.keep(fingerprint, as_of, ranking))
            }
            Some(cursor) => {
                let (as_of, offset) = decode(cursor, fingerprint)?;
                if input.as_of_tx_id.is_some_and(|tx| tx != as_of) {
                    return Err(invalid(format!(
                        "the cursor reads as of transaction {as_of}, not {}; drop as_of_tx_id or the cursor",
                        input.as_of_tx_id.unwrap_or_default()
                    )));
                }
                (
                    as_of,
                    offset,
                    self.ranking(store, fingerprint, as_of, text)?,
                )
            }
        };
        // One read for the whole ranking, put back in rank order.
        let mut live: HashMap<String, Entry> = store
            .entries_by_id(&ranking, as_of)
            .map_err(|e| e.report())?
            .into_iter()
            .map(|e| (e.id.clone(), e))
            .collect();
        let mut items: Vec<Entry> = ranking
            .iter()
            .filter_map(|id| live.remove(id))
            .filter(|entry| filter.admits(entry))
            .skip(offset)
            .take(limit + 1)
            .collect();
        let next_cursor = (items.len() > limit).then(|| {
            items.truncate(limit);
            PageCursor {
                as_of,
                position: (offset + limit) as i64,
                filters: fingerprint,
            }
            .encode(CURSOR_KIND)
        });
        Ok(Some(QueryOutput {
            items,
            next_cursor,
            as_of_tx_id: as_of,
        }))
    }

    /// The ranking a cursor continues: kept, or recomputed when the index
    /// still reflects its transaction.
    fn ranking(
        &self,
        store: &dyn KnowledgeStore,
        fingerprint: u64,
        as_of: TxId,
        text: &str,
    ) -> Result<Arc<Vec<String>>, ErrorReport> {
        let kept = self
            .rankings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .find(|(f, tx, _)| *f == fingerprint && *tx == as_of)
            .map(|(_, _, ranking)| Arc::clone(ranking));
        if let Some(ranking) = kept {
            return Ok(ranking);
        }
        let index = self.discover.refresh()?;
        let now = indexed_at(&index)?;
        if now != as_of {
            return Err(invalid(format!(
                "this cursor has expired: the memory changed since its first page (transaction {as_of}, now {now}) and its ranking is no longer kept; run the query again without cursor"
            )));
        }
        Ok(self.keep(fingerprint, as_of, rank(&index, store, text, as_of)?))
    }

    fn keep(&self, fingerprint: u64, as_of: TxId, ranking: Vec<String>) -> Arc<Vec<String>> {
        let ranking = Arc::new(ranking);
        let mut kept = self.rankings.lock().unwrap_or_else(|p| p.into_inner());
        kept.retain(|(f, tx, _)| !(*f == fingerprint && *tx == as_of));
        if kept.len() >= KEPT {
            kept.pop_front();
        }
        kept.push_back((fingerprint, as_of, Arc::clone(&ranking)));
        ranking
    }
}

/// The transaction the index's store group reflects.
fn indexed_at(index: &lore_search::SearchIndex) -> Result<TxId, ErrorReport> {
    Ok(index
        .stamp(STORE_GROUP)
        .map_err(|e| ErrorReport::new(ErrorCode::Internal, e.to_string()))?
        .and_then(|s| s.parse().ok())
        .unwrap_or(0))
}

/// The entries matching `text` as of `as_of` (the transaction the index
/// reflects), best first: the index's ranking and the store's ranking of
/// semantic-layer files, taken in turn.
fn rank(
    index: &lore_search::SearchIndex,
    store: &dyn KnowledgeStore,
    text: &str,
    as_of: TxId,
) -> Result<Vec<String>, ErrorReport> {
    let indexed = rank_indexed(index, text)?;
    let models = rank_models(store, text, as_of)?;
    let mut merged = Vec::with_capacity(indexed.len() + models.len());
    let (mut indexed, mut models) = (indexed.into_iter(), models.into_iter());
    loop {
        match (indexed.next(), models.next()) {
            (None, None) => break,
            (a, b) => merged.extend(a.into_iter().chain(b)),
        }
    }
    merged.truncate(RANK_MAX);
    Ok(merged)
}

/// The semantic-layer files matching `text` as of `as_of`, best first
/// (the store's own search; the index does not hold them).
fn rank_models(
    store: &dyn KnowledgeStore,
    text: &str,
    as_of: TxId,
) -> Result<Vec<String>, ErrorReport> {
    let mut ids = Vec::new();
    let mut cursor = None;
    while ids.len() < RANK_MAX {
        let page = match store.query(&lore_store::EntryQuery {
            text: Some(text.to_string()),
            kind: Some(lore_store::EntryKind::Model),
            limit: Some(200),
            cursor,
            as_of_tx_id: Some(as_of),
            ..Default::default()
        }) {
            Ok(page) => page,
            // No word the store searches by (only punctuation): nothing
            // to match, as the index finds nothing either.
            Err(lore_store::StoreError::Invalid(_)) if ids.is_empty() => return Ok(ids),
            Err(e) => return Err(e.report()),
        };
        ids.extend(page.items.into_iter().map(|e| e.id));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    Ok(ids)
}

/// The entries matching `text` in the index, best first.
fn rank_indexed(index: &lore_search::SearchIndex, text: &str) -> Result<Vec<String>, ErrorReport> {
    let hits = index
        .search(&SearchQuery {
            text: text.to_string(),
            kinds: vec![DocKind::Entry, DocKind::Wiki],
            connection: None,
            limit: RANK_MAX,
        })
        .map_err(|e| ErrorReport::new(ErrorCode::Internal, e.to_string()))?;
    Ok(hits
        .into_iter()
        .filter_map(|hit| match hit.kind {
            DocKind::Entry => Some(hit.id),
            _ => hit
                .payload
                .get("entryId")
                .and_then(|v| v.as_str())
                .map(String::from),
        })
        .collect())
}

/// What a cursor is bound to: the text and the other filters.
fn fingerprint(text: &str, filter: &EntryFilter) -> u64 {
    let confidence = filter
        .min_confidence
        .map(|c| c.to_string())
        .unwrap_or_default();
    let mut parts: Vec<&[u8]> = vec![
        b"memory-text",
        text.as_bytes(),
        filter.topic.as_deref().unwrap_or_default().as_bytes(),
        confidence.as_bytes(),
    ];
    parts.extend(filter.tags.iter().map(|t| t.as_bytes()));
    lore_core::cursor::fingerprint(&parts)
}

/// The kind of this search's cursors (the store's are `c1`).
const CURSOR_KIND: &str = "i1";

/// A cursor of ours: the transaction and offset it continues from.
fn decode(cursor: &str, fingerprint: u64) -> Result<(TxId, usize), ErrorReport> {
    let cursor =
        PageCursor::decode(cursor, CURSOR_KIND, fingerprint).map_err(|e| invalid(e.to_string()))?;
    Ok((cursor.as_of, cursor.position as usize))
}

/// A cursor or argument of the query that cannot be used: the caller's
/// arguments are wrong (`invalid_arguments`).
fn invalid(message: String) -> ErrorReport {
    ErrorReport::new(ErrorCode::InvalidArguments, message)
}

/// Arguments of `query`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryInput {
    /// Words to look for in topic, content and tags; results are ranked by relevance. Identifiers split into words ("order items" finds orderItems).
    #[serde(default)]
    pub text: Option<String>,
    /// Topic prefix, case-insensitive ("deploy" finds "Deployment rollback").
    #[serde(default)]
    pub topic: Option<String>,
    /// Only entries carrying every one of these tags.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// Only entries at least this confident (0 to 1).
    #[serde(default)]
    pub min_confidence: Option<f64>,
    /// Page size, 1 to 200 (default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<usize>,
    /// next_cursor of the previous page (keep the other arguments the same).
    #[serde(default)]
    pub cursor: Option<String>,
    /// Read the memory as it was right after this transaction (see history).
    #[serde(default)]
    pub as_of_tx_id: Option<TxId>,
}

/// Result of `query`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct QueryOutput {
    /// Matching entries: by relevance when text is given, else most recently changed first.
    pub items: Vec<Entry>,
    /// Pass as cursor for the next page; null on the last page.
    pub next_cursor: Option<String>,
    /// The state read; every page of one listing reads the same state.
    pub as_of_tx_id: TxId,
}

impl From<Page<Entry>> for QueryOutput {
    fn from(page: Page<Entry>) -> Self {
        QueryOutput {
            items: page.items,
            next_cursor: page.next_cursor,
            as_of_tx_id: page.as_of_tx_id,
        }
    }
}
