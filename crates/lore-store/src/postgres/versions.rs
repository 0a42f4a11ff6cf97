//! Entry and triple versions as the rows that hold them: what a write
//! inserts for the version it makes, and what a copy from another store
//! inserts for each version it brings over (with its row id and validity
//! as they were). One place computes a version's full-text document, so a
//! copied version is found by search exactly as a written one.

use std::collections::HashMap;

use tokio_postgres::types::ToSql;

use super::read::SEARCH_CONFIG;
use super::session::{Session, placeholders};
use crate::error::StoreError;
use crate::model::*;

/// The most a version's search document holds, in the bytes its
/// `tsvector` takes (PostgreSQL refuses one of 1 MiB or more). Only a
/// pathological text (hundreds of thousands of distinct words) reaches
/// it; the words past it are not found by text search.
const SEARCH_BYTES: usize = 768 * 1024;

/// PostgreSQL does not index longer words.
const SEARCH_WORD_BYTES: usize = 2047;

/// The words of `text` as one space-separated document (so PostgreSQL's
/// parser cuts it exactly as [`crate::text::words`] does), within
/// `budget` bytes of `tsvector`.
fn search_document(text: &str, budget: &mut usize) -> String {
    let mut document = String::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for word in crate::text::words(text) {
        if word.len() > SEARCH_WORD_BYTES {
            continue;
        }
        let cost = match seen.get(&word) {
            None => word.len() + 8,
            // Up to 256 positions per word are kept, 2 bytes each.
            Some(&n) if n < 256 => 2,
            Some(_) => 0,
        };
        if cost > *budget {
            break;
        }
        *budget -= cost;
        if !document.is_empty() {
            document.push(' ');
        }
        document.push_str(&word);
        *seen.entry(word).or_insert(0) += 1;
    }
    document
}

/// One entry version ready to insert: the entry, its row id, the
/// transaction that ends it ([`super::schema::OPEN`] while current), and
/// the columns derived from it.
pub(super) struct EntryRow {
    vid: i64,
    entry: Entry,
    to_tx: TxId,
    kind: &'static str,
    topic_key: String,
    /// Topic, tags and content words (none for a tombstone, which is not
    /// searchable).
    words: [Option<String>; 3],
}

impl EntryRow {
    pub fn new(vid: i64, entry: Entry, to_tx: TxId) -> EntryRow {
        let words = if entry.deleted {
            [None, None, None]
        } else {
            let mut budget = SEARCH_BYTES;
            [
                Some(search_document(&entry.topic, &mut budget)),
                Some(search_document(&entry.tags.join(" "), &mut budget)),
                Some(search_document(&entry.content, &mut budget)),
            ]
        };
        EntryRow {
            vid,
            kind: entry.kind.as_str(),
            topic_key: entry.topic.to_lowercase(),
            words,
            entry,
            to_tx,
        }
    }

    pub fn into_entry(self) -> Entry {
        self.entry
    }

    /// About the bytes the row sends (to bound a statement's size).
    pub fn size(&self) -> usize {
        let e = &self.entry;
        64 + 2 * (e.topic.len() + e.content.len())
            + e.tags.iter().map(|t| 2 * t.len() + 8).sum::<usize>()
            + e.source.as_deref().map_or(0, str::len)
    }

    fn params(&self) -> [&(dyn ToSql + Sync); 18] {
        let e = &self.entry;
        [
            &self.vid,
            &e.id,
            &e.version,
            &e.tx_id,
            &self.to_tx,
            &e.deleted,
            &self.kind,
            &e.topic,
            &self.topic_key,
            &e.content,
            &e.confidence,
            &e.tags,
            &e.source,
            &e.recorded_at,
            &e.updated_at,
            &self.words[0],
            &self.words[1],
            &self.words[2],
        ]
    }
}

/// The values of one entry version row, parameters numbered from `n`.
fn entry_tuple(n: usize) -> String {
    let plain = placeholders(n, 15);
    format!(
        "{}, setweight(to_tsvector({SEARCH_CONFIG}, ${}::TEXT), 'A')
           || setweight(to_tsvector({SEARCH_CONFIG}, ${}::TEXT), 'B')
           || setweight(to_tsvector({SEARCH_CONFIG}, ${}::TEXT), 'C'))",
        &plain[..plain.len() - 1],
        n + 15,
        n + 16,
        n + 17
    )
}

/// Inserts entry versions, all in one statement.
pub(super) fn insert_entry_versions(tx: &mut Session, rows: &[EntryRow]) -> Result<(), StoreError> {
    let params: Vec<_> = rows.iter().map(EntryRow::params).collect();
    tx.insert_rows(
        "INSERT INTO entry_versions (vid, id, version, from_tx, to_tx, deleted, kind, topic, topic_key,
             content, confidence, tags, source, recorded_at, updated_at, search) VALUES",
        entry_tuple,
        &params,
    )
}

/// One triple version ready to insert (see [`EntryRow`]).
pub(super) struct TripleRow {
    vid: i64,
    triple: Triple,
    to_tx: TxId,
    properties: Option<String>,
}

impl TripleRow {
    pub fn new(vid: i64, triple: Triple, to_tx: TxId) -> TripleRow {
        TripleRow {
            vid,
            properties: triple
                .properties
                .as_ref()
                .map(|p| serde_json::Value::Object(p.clone()).to_string()),
            triple,
            to_tx,
        }
    }

    pub fn into_triple(self) -> Triple {
        self.triple
    }

    /// About the bytes the row sends.
    pub fn size(&self) -> usize {
        let t = &self.triple;
        64 + t.id.len()
            + t.subject.len()
            + t.predicate.len()
            + t.object.len()
            + self.properties.as_deref().map_or(0, str::len)
    }

    fn params(&self) -> [&(dyn ToSql + Sync); 11] {
        let t = &self.triple;
        [
            &self.vid,
            &t.id,
            &t.version,
            &t.tx_id,
            &self.to_tx,
            &t.deleted,
            &t.subject,
            &t.predicate,
            &t.object,
            &t.confidence,
            &self.properties,
        ]
    }
}

/// Inserts triple versions, all in one statement.
pub(super) fn insert_triple_versions(
    tx: &mut Session,
    rows: &[TripleRow],
) -> Result<(), StoreError> {
    let params: Vec<_> = rows.iter().map(TripleRow::params).collect();
    tx.insert_rows(
        "INSERT INTO triple_versions (vid, id, version, from_tx, to_tx, deleted, subject, predicate,
             object, confidence, properties) VALUES",
        |n| placeholders(n, 11),
        &params,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_document_is_the_words_within_the_budget() {
        let mut budget = SEARCH_BYTES;
        assert_eq!(
            search_document("Blue-green deploys; a.py", &mut budget),
            "blue green deploys a py"
        );
        let mut small = 20;
        // "one" costs 11, "two" 11: the second does not fit.
        assert_eq!(search_document("one one two", &mut small), "one one");
        let long = "x".repeat(SEARCH_WORD_BYTES + 1);
        let mut budget = SEARCH_BYTES;
        assert_eq!(
            search_document(&format!("{long} kept"), &mut budget),
            "kept"
        );
    }

    #[test]
    fn an_entry_row_lists_its_values_after_its_columns() {
        assert_eq!(
            entry_tuple(19)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            "($19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, \
             setweight(to_tsvector('lore_english'::regconfig, $34::TEXT), 'A') \
             || setweight(to_tsvector('lore_english'::regconfig, $35::TEXT), 'B') \
             || setweight(to_tsvector('lore_english'::regconfig, $36::TEXT), 'C'))"
        );
    }
}
