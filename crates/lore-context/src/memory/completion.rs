//! Suggestions for what a user is typing into a prompt or resource-URI
//! argument (MCP's `completion/complete`): the memory's topics, tags,
//! entry and relation ids and graph nodes that start with what was typed.
//!
//! Every answer is bounded: at most [`MAX_VALUES`] values, and the store is
//! read a bounded number of pages ([`SCAN_MAX`] items) so a large memory
//! answers as fast as a small one. `total` counts the matches seen and
//! `has_more` says there may be others (more matches than shown, or the
//! scan stopped before the end).

use std::collections::BTreeSet;

use lore_store::{EntryQuery, KnowledgeStore, StoreError, TripleQuery};

/// The most values one answer carries (the MCP limit).
pub const MAX_VALUES: usize = 100;

/// The most entries or relations one answer reads.
pub const SCAN_MAX: usize = 5_000;

/// Items read per page while scanning.
const PAGE: usize = 200;

/// What can be completed from the memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryField {
    /// Entry topics (matched case-insensitively, as `query` filters them).
    Topic,
    /// Entry tags.
    Tag,
    /// Entry ids (`e-42`).
    EntryId,
    /// Relation ids (`t-7`).
    TripleId,
    /// Relation subjects.
    Subject,
    /// Relation predicates.
    Predicate,
    /// Relation objects.
    Object,
    /// Entry or relation ids (the history of either).
    AnyId,
}

/// Suggestions for one argument.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completions {
    /// Matching values, sorted, at most [`MAX_VALUES`].
    pub values: Vec<String>,
    /// How many distinct matches were seen.
    pub total: usize,
    /// Whether there are (or may be) matches not listed.
    pub has_more: bool,
}

impl Completions {
    /// The first [`MAX_VALUES`] of `candidates` that start with `prefix`
    /// (case-insensitively), sorted and without duplicates; `scan_cut`
    /// says the candidates are not all there are.
    pub fn matching<I, S>(candidates: I, prefix: &str, scan_cut: bool) -> Completions
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let prefix = prefix.to_lowercase();
        let matches: BTreeSet<String> = candidates
            .into_iter()
            .map(|c| c.as_ref().to_string())
            .filter(|c| !c.is_empty() && c.to_lowercase().starts_with(&prefix))
            .collect();
        let total = matches.len();
        Completions {
            values: matches.into_iter().take(MAX_VALUES).collect(),
            total,
            has_more: total > MAX_VALUES || scan_cut,
        }
    }
}

/// The values of `field` in the current memory that start with `prefix`.
pub fn complete(
    store: &dyn KnowledgeStore,
    field: MemoryField,
    prefix: &str,
) -> Result<Completions, StoreError> {
    match field {
        MemoryField::Topic | MemoryField::Tag | MemoryField::EntryId => {
            // Topics are filtered by the store itself (a prefix, ignoring
            // case); tags and ids are filtered here.
            let topic = (field == MemoryField::Topic && !prefix.is_empty()).then_some(prefix);
            let (entries, cut) = scan_entries(store, topic)?;
            let candidates: Vec<String> = match field {
                MemoryField::Topic => entries.into_iter().map(|e| e.topic).collect(),
                MemoryField::Tag => entries.into_iter().flat_map(|e| e.tags).collect(),
                _ => entries.into_iter().map(|e| e.id).collect(),
            };
            Ok(Completions::matching(candidates, prefix, cut))
        }
        MemoryField::AnyId => {
            let (entries, entries_cut) = scan_entries(store, None)?;
            let (triples, triples_cut) = scan_triples(store)?;
            let ids = entries
                .into_iter()
                .map(|e| e.id)
                .chain(triples.into_iter().map(|t| t.id));
            Ok(Completions::matching(
                ids,
                prefix,
                entries_cut || triples_cut,
            ))
        }
        _ => {
            let (triples, cut) = scan_triples(store)?;
            let candidates = triples.into_iter().map(|t| match field {
                MemoryField::TripleId => t.id,
                MemoryField::Subject => t.subject,
                MemoryField::Predicate => t.predicate,
                _ => t.object,
            });
            Ok(Completions::matching(candidates, prefix, cut))
        }
    }
}

/// Current entries (with a topic prefix when given), at most [`SCAN_MAX`];
/// `true` when more were left unread.
fn scan_entries(
    store: &dyn KnowledgeStore,
    topic: Option<&str>,
) -> Result<(Vec<lore_store::Entry>, bool), StoreError> {
    let mut items = Vec::new();
    let mut query = EntryQuery {
        topic: topic.map(str::to_string),
        limit: Some(PAGE),
        ..EntryQuery::default()
    };
    loop {
        let page = store.query(&query)?;
        items.extend(page.items);
        match page.next_cursor {
            Some(cursor) if items.len() < SCAN_MAX => query.cursor = Some(cursor),
            Some(_) => return Ok((items, true)),
            None => return Ok((items, false)),
        }
    }
}

/// Current relations, at most [`SCAN_MAX`]; `true` when more were left
/// unread.
fn scan_triples(store: &dyn KnowledgeStore) -> Result<(Vec<lore_store::Triple>, bool), StoreError> {
    let mut items = Vec::new();
    let mut query = TripleQuery {
        limit: Some(PAGE),
        ..TripleQuery::default()
    };
    loop {
        let page = store.list_triples(&query)?;
        items.extend(page.items);
        match page.next_cursor {
            Some(cursor) if items.len() < SCAN_MAX => query.cursor = Some(cursor),
            Some(_) => return Ok((items, true)),
            None => return Ok((items, false)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_store::{Durability, NewEntry, NewTriple, SqliteStore};

    fn store() -> (tempfile::TempDir, SqliteStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("s.db"), Durability::Process).unwrap();
        (dir, store)
    }

    #[test]
    fn topics_tags_and_nodes_complete_by_prefix_without_duplicates() {
        let (_dir, store) = store();
        for (topic, tag) in [
            ("billing rules", "finance"),
            ("Billing refunds", "finance"),
            ("deployment", "ops"),
        ] {
            store
                .store(
                    "t",
                    NewEntry {
                        topic: topic.into(),
                        content: format!("{topic} notes"),
                        tags: vec![tag.into()],
                        ..Default::default()
                    },
                )
                .unwrap();
        }
        store
            .relate(
                "t",
                NewTriple {
                    subject: "orders".into(),
                    predicate: "depends_on".into(),
                    object: "customers".into(),
                    ..Default::default()
                },
            )
            .unwrap();
        let topics = complete(&store, MemoryField::Topic, "bil").unwrap();
        assert_eq!(topics.values, ["Billing refunds", "billing rules"]);
        assert_eq!((topics.total, topics.has_more), (2, false));
        let tags = complete(&store, MemoryField::Tag, "").unwrap();
        assert_eq!(tags.values, ["finance", "ops"]);
        assert_eq!(
            complete(&store, MemoryField::Predicate, "dep")
                .unwrap()
                .values,
            ["depends_on"]
        );
        let ids = complete(&store, MemoryField::AnyId, "t-").unwrap();
        assert_eq!(ids.values.len(), 1, "{ids:?}");
        assert!(
            complete(&store, MemoryField::Subject, "x")
                .unwrap()
                .values
                .is_empty()
        );
    }

    #[test]
    fn answers_are_capped_at_one_hundred_values_and_say_there_are_more() {
        let many = (0..250).map(|i| format!("orders_{i:03}"));
        let completions = Completions::matching(many, "ORDERS_", false);
        assert_eq!(completions.values.len(), MAX_VALUES);
        assert_eq!(completions.values[0], "orders_000");
        assert_eq!(completions.total, 250);
        assert!(completions.has_more);
    }
}
