//! The contract every knowledge-store backend passes: the store's
//! behaviour as its users see it (versions, history, as-of reads, undo and
//! its conflicts, queries, pages, graph walks, the change feed, batches,
//! keyed puts, reads by id and the embedding cache). Each case takes a
//! fresh, empty store; a backend's test file runs every case with
//! [`contract_suite!`] and its own way of opening one.

#![allow(dead_code)]

pub mod numbering;

use lore_store::*;

pub fn note(topic: &str, content: &str) -> NewEntry {
    NewEntry {
        topic: topic.to_string(),
        content: content.to_string(),
        ..Default::default()
    }
}

pub fn code(error: StoreError) -> &'static str {
    use lore_core::error::HasErrorCode;
    error.code().as_str()
}

/// Part of the contract.
pub fn every_change_is_a_new_version_with_its_own_transaction(store: &dyn KnowledgeStore) {
    let first = store
        .store("test", note("deployment", "Blue-green deploys."))
        .unwrap();
    assert_eq!(first.value.id, "e-1");
    assert_eq!(first.value.version, 1);
    assert_eq!(first.value.confidence, 1.0);
    let second = store
        .update(
            "test",
            "e-1",
            EntryPatch {
                content: Some("Canary deploys.".into()),
                expected_version: Some(1),
                ..Default::default()
            },
        )
        .unwrap();
    assert!(second.changed);
    assert_eq!(second.value.version, 2);
    assert!(second.tx_id > first.tx_id);
    assert_eq!(second.value.recorded_at, first.value.recorded_at);

    // The old version is still readable as of its transaction.
    let then = store.get("e-1", Some(first.tx_id)).unwrap();
    assert_eq!(then["content"], "Blue-green deploys.");
    let now = store.get("e-1", None).unwrap();
    assert_eq!(now["content"], "Canary deploys.");
}

/// Part of the contract.
pub fn a_stale_expected_version_is_a_conflict_and_changes_nothing(store: &dyn KnowledgeStore) {
    store
        .store("test", note("billing", "Invoices in cents."))
        .unwrap();
    store
        .update(
            "test",
            "e-1",
            EntryPatch {
                confidence: Some(0.5),
                ..Default::default()
            },
        )
        .unwrap();
    let stale = store
        .update(
            "test",
            "e-1",
            EntryPatch {
                content: Some("Invoices in dollars.".into()),
                expected_version: Some(1),
                ..Default::default()
            },
        )
        .unwrap_err();
    assert!(stale.to_string().contains("version 2"), "{stale}");
    assert_eq!(code(stale), "conflict");
    assert_eq!(
        store.get("e-1", None).unwrap()["content"],
        "Invoices in cents."
    );
    assert_eq!(store.head().unwrap(), 2);
}

/// Part of the contract.
pub fn an_update_that_changes_nothing_writes_no_transaction(store: &dyn KnowledgeStore) {
    store
        .store("test", note("billing", "Invoices in cents."))
        .unwrap();
    let same = store
        .update(
            "test",
            "e-1",
            EntryPatch {
                content: Some("Invoices in cents.".into()),
                ..Default::default()
            },
        )
        .unwrap();
    assert!(!same.changed);
    assert_eq!(same.value.version, 1);
    assert_eq!(store.head().unwrap(), 1);
}

/// Part of the contract.
pub fn bad_input_is_refused_with_a_reason_and_writes_nothing(store: &dyn KnowledgeStore) {
    for (entry, needle) in [
        (note("", "x"), "topic must not be empty"),
        (note("t", "  "), "content must not be empty"),
        (
            NewEntry {
                confidence: Some(1.5),
                ..note("t", "x")
            },
            "between 0 and 1",
        ),
        (
            NewEntry {
                tags: vec!["".into()],
                ..note("t", "x")
            },
            "tags must not be empty",
        ),
        (note(&"x".repeat(201), "x"), "longer than 200"),
    ] {
        let error = store.store("test", entry).unwrap_err();
        assert!(error.to_string().contains(needle), "{error}");
        assert_eq!(code(error), "invalid_arguments");
    }
    assert_eq!(store.head().unwrap(), 0);
    let error = store.update(
        "test",
        "e-9",
        EntryPatch {
            content: Some("x".into()),
            ..Default::default()
        },
    );
    assert_eq!(code(error.unwrap_err()), "not_found");
    let error = store
        .update("test", "e-9", EntryPatch::default())
        .unwrap_err();
    assert!(error.to_string().contains("nothing to update"));
}

/// Part of the contract.
pub fn delete_writes_a_tombstone_that_history_and_as_of_reads_still_see_past(
    store: &dyn KnowledgeStore,
) {
    let stored = store
        .store("test", note("oncall", "Page Ana first."))
        .unwrap();
    let deleted_in = store.delete("test", "e-1").unwrap();
    assert_eq!(code(store.get("e-1", None).unwrap_err()), "not_found");
    assert_eq!(
        store.get("e-1", Some(stored.tx_id)).unwrap()["content"],
        "Page Ana first."
    );
    let error = store
        .update(
            "test",
            "e-1",
            EntryPatch {
                content: Some("x".into()),
                ..Default::default()
            },
        )
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains(&format!("deleted in transaction {deleted_in}")),
        "{error}"
    );
    assert_eq!(code(store.delete("test", "e-1").unwrap_err()), "not_found");

    let history = store
        .history(&HistoryQuery {
            id: Some("e-1".into()),
            ..Default::default()
        })
        .unwrap();
    let kinds: Vec<_> = history
        .items
        .iter()
        .map(|i| i.transaction.kind.as_str())
        .collect();
    assert_eq!(kinds, ["delete", "store"]);
    assert_eq!(history.items[0].state.as_ref().unwrap()["deleted"], true);
    assert_eq!(
        history.items[1].state.as_ref().unwrap()["content"],
        "Page Ana first."
    );
}

/// Part of the contract.
pub fn undo_restores_the_state_before_a_transaction_as_a_new_transaction(
    store: &dyn KnowledgeStore,
) {
    store
        .store("test", note("pricing", "Pro plan is 49 USD."))
        .unwrap();
    let bad = store
        .update(
            "test",
            "e-1",
            EntryPatch {
                content: Some("Pro plan is 9 USD.".into()),
                ..Default::default()
            },
        )
        .unwrap();
    let undo = store.undo("test", bad.tx_id, false).unwrap();
    assert_eq!(undo.undone_tx_id, bad.tx_id);
    assert_eq!(undo.changed_ids, ["e-1"]);
    let now = store.get("e-1", None).unwrap();
    assert_eq!(now["content"], "Pro plan is 49 USD.");
    assert_eq!(now["version"], 3);

    // Undoing it again is refused and names the undo; undoing the undo redoes.
    let again = store.undo("test", bad.tx_id, false).unwrap_err();
    assert!(
        again
            .to_string()
            .contains(&format!("already undone by transaction {}", undo.tx_id)),
        "{again}"
    );
    store.undo("test", undo.tx_id, false).unwrap();
    assert_eq!(
        store.get("e-1", None).unwrap()["content"],
        "Pro plan is 9 USD."
    );

    // Undoing a store removes the entry; undoing a delete restores it.
    let created = store.store("test", note("x", "temporary")).unwrap();
    store.undo("test", created.tx_id, false).unwrap();
    assert_eq!(
        code(store.get(&created.value.id, None).unwrap_err()),
        "not_found"
    );
    let gone = store.delete("test", "e-1").unwrap();
    store.undo("test", gone, false).unwrap();
    assert_eq!(
        store.get("e-1", None).unwrap()["content"],
        "Pro plan is 9 USD."
    );
}

/// Part of the contract.
pub fn undo_over_later_changes_is_a_conflict_unless_forced(store: &dyn KnowledgeStore) {
    store
        .store("test", note("sla", "Respond within 4 hours."))
        .unwrap();
    let first = store
        .update(
            "test",
            "e-1",
            EntryPatch {
                content: Some("Respond within 2 hours.".into()),
                ..Default::default()
            },
        )
        .unwrap();
    let later = store
        .update(
            "test",
            "e-1",
            EntryPatch {
                confidence: Some(0.7),
                ..Default::default()
            },
        )
        .unwrap();
    let error = store.undo("test", first.tx_id, false).unwrap_err();
    let StoreError::Conflict { ids, message } = &error else {
        panic!("expected a conflict, got {error}");
    };
    assert_eq!(ids, &["e-1"]);
    assert!(
        message.contains(&format!("e-1 (transaction {})", later.tx_id)),
        "{message}"
    );
    assert_eq!(store.head().unwrap(), later.tx_id);

    let forced = store.undo("test", first.tx_id, true).unwrap();
    let now = store.get("e-1", None).unwrap();
    assert_eq!(now["content"], "Respond within 4 hours.");
    assert_eq!(now["confidence"], 1.0);
    assert_eq!(forced.changed_ids, ["e-1"]);
    assert_eq!(
        code(store.undo("test", 999, false).unwrap_err()),
        "not_found"
    );
}

/// Part of the contract.
pub fn query_filters_by_topic_prefix_tags_confidence_and_text(store: &dyn KnowledgeStore) {
    let entries = [
        (
            "deployment",
            "Use blue-green deploys for zero-downtime releases.",
            0.92,
            vec!["ops"],
        ),
        (
            "Deployment rollback",
            "Rollback within 5 min if error rate exceeds 1%.",
            0.85,
            vec!["ops", "sre"],
        ),
        ("deployments-legacy", "Old Jenkins pipeline.", 0.3, vec![]),
        ("release", "Not about deployment by topic.", 0.9, vec![]),
        (
            "billing",
            "Amounts are stored in cents.",
            0.99,
            vec!["finance"],
        ),
    ];
    for (topic, content, confidence, tags) in entries {
        store
            .store(
                "test",
                NewEntry {
                    confidence: Some(confidence),
                    tags: tags.into_iter().map(String::from).collect(),
                    ..note(topic, content)
                },
            )
            .unwrap();
    }
    let topics = |query: EntryQuery| -> Vec<String> {
        store
            .query(&query)
            .unwrap()
            .items
            .into_iter()
            .map(|e| e.topic)
            .collect()
    };
    assert_eq!(
        topics(EntryQuery {
            topic: Some("DEPLOY".into()),
            ..Default::default()
        }),
        ["deployments-legacy", "Deployment rollback", "deployment"]
    );
    assert_eq!(
        topics(EntryQuery {
            tags: vec!["OPS".into(), "sre".into()],
            ..Default::default()
        }),
        ["Deployment rollback"]
    );
    assert_eq!(
        topics(EntryQuery {
            min_confidence: Some(0.95),
            ..Default::default()
        }),
        ["billing"]
    );
    let found = topics(EntryQuery {
        text: Some("how are amounts stored?".into()),
        ..Default::default()
    });
    assert_eq!(found, ["billing"]);
    let found = topics(EntryQuery {
        text: Some("rollback error rate".into()),
        ..Default::default()
    });
    assert_eq!(found[0], "Deployment rollback");
    // FTS syntax in user text is just text.
    store
        .query(&EntryQuery {
            text: Some("\"NEAR( AND *".into()),
            ..Default::default()
        })
        .unwrap();
}

/// Part of the contract.
pub fn text_search_finds_words_whatever_their_case_accents_and_endings(store: &dyn KnowledgeStore) {
    for (topic, content) in [
        ("coffee", "Café au lait at the Zürich office."),
        ("models", "Naïve Bayes ranks the tickets."),
        ("deploys", "Deploying on Fridays is forbidden."),
        ("billing", "Invoices are in cents."),
    ] {
        store.store("test", note(topic, content)).unwrap();
    }
    let topics = |text: &str| -> Vec<String> {
        let mut found: Vec<String> = store
            .query(&EntryQuery {
                text: Some(text.into()),
                ..Default::default()
            })
            .unwrap()
            .items
            .into_iter()
            .map(|e| e.topic)
            .collect();
        found.sort();
        found
    };
    assert_eq!(topics("CAFE"), ["coffee"]);
    assert_eq!(topics("zurich"), ["coffee"]);
    assert_eq!(topics("naive"), ["models"]);
    assert_eq!(topics("deploys friday"), ["deploys"]);
    assert_eq!(topics("invoice"), ["billing"]);
    // A word is found whole: a prefix is not the word.
    assert!(topics("inv").is_empty());
    // Any of the words matches.
    assert_eq!(topics("cafe invoices"), ["billing", "coffee"]);
}

/// Part of the contract.
pub fn pages_read_one_state_even_while_others_write(store: &dyn KnowledgeStore) {
    for i in 0..25 {
        store
            .store("test", note("batch", &format!("fact {i}")))
            .unwrap();
    }
    let first = store
        .query(&EntryQuery {
            limit: Some(10),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(first.items.len(), 10);
    // Concurrent writes: new entries, an update, a delete.
    store.store("test", note("batch", "new fact")).unwrap();
    store.delete("test", "e-3").unwrap();
    let mut seen: Vec<String> = first.items.iter().map(|e| e.content.clone()).collect();
    let mut cursor = first.next_cursor;
    while let Some(c) = cursor {
        let page = store
            .query(&EntryQuery {
                limit: Some(10),
                cursor: Some(c),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(page.as_of_tx_id, first.as_of_tx_id);
        seen.extend(page.items.iter().map(|e| e.content.clone()));
        cursor = page.next_cursor;
    }
    let expected: Vec<String> = (0..25).rev().map(|i| format!("fact {i}")).collect();
    assert_eq!(seen, expected);
    // A cursor replayed with other filters is refused.
    let other = store
        .query(&EntryQuery {
            topic: Some("x".into()),
            ..Default::default()
        })
        .unwrap();
    assert!(other.items.is_empty());
    let first = store
        .query(&EntryQuery {
            limit: Some(2),
            ..Default::default()
        })
        .unwrap();
    let error = store
        .query(&EntryQuery {
            topic: Some("batch".into()),
            cursor: first.next_cursor,
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(code(error), "invalid_arguments");
}

/// Part of the contract.
pub fn as_of_reads_see_exactly_the_state_after_a_transaction(store: &dyn KnowledgeStore) {
    let a = store.store("test", note("a", "one")).unwrap().tx_id;
    let b = store.store("test", note("b", "two")).unwrap().tx_id;
    store.delete("test", "e-1").unwrap();
    let at = |tx| -> Vec<String> {
        store
            .query(&EntryQuery {
                as_of_tx_id: Some(tx),
                ..Default::default()
            })
            .unwrap()
            .items
            .into_iter()
            .map(|e| e.id)
            .collect()
    };
    assert_eq!(at(0), Vec::<String>::new());
    assert_eq!(at(a), ["e-1"]);
    assert_eq!(at(b), ["e-2", "e-1"]);
    assert_eq!(at(store.head().unwrap()), ["e-2"]);
    let future = store
        .query(&EntryQuery {
            as_of_tx_id: Some(99),
            ..Default::default()
        })
        .unwrap_err();
    assert!(future.to_string().contains("in the future"));
}

/// Part of the contract.
pub fn relating_twice_changes_nothing_and_graph_walks_handle_cycles(store: &dyn KnowledgeStore) {
    let rel = |s: &str, p: &str, o: &str| {
        store
            .relate(
                "test",
                NewTriple {
                    subject: s.into(),
                    predicate: p.into(),
                    object: o.into(),
                    ..Default::default()
                },
            )
            .unwrap()
    };
    let first = rel("api", "depends_on", "db");
    let again = rel("api", "depends_on", "db");
    assert!(!again.changed);
    assert_eq!(again.value.id, first.value.id);
    rel("db", "depends_on", "disk");
    rel("disk", "depends_on", "api"); // a cycle
    rel("web", "calls", "api");

    let walk = |node: &str, direction, depth, predicate: Option<&str>| {
        store
            .query_graph(&GraphQuery {
                node: node.into(),
                direction,
                depth: Some(depth),
                predicate: predicate.map(String::from),
                ..Default::default()
            })
            .unwrap()
    };
    let out = walk("api", Direction::Out, 5, None);
    let names: Vec<_> = out.nodes.iter().map(|n| (n.id.as_str(), n.depth)).collect();
    assert_eq!(names, [("api", 0), ("db", 1), ("disk", 2)]);
    assert_eq!(out.edges.len(), 3);
    let near = walk("api", Direction::Both, 1, None);
    assert_eq!(near.edges.len(), 3);
    let calls = walk("api", Direction::In, 1, Some("calls"));
    assert_eq!(calls.edges.len(), 1);
    assert_eq!(calls.edges[0].subject, "web");

    // Unrelating hides the edge now but not as of before.
    let before = store.head().unwrap();
    store.unrelate("test", "db", "depends_on", "disk").unwrap();
    assert_eq!(walk("db", Direction::Out, 1, None).edges.len(), 0);
    let past = store
        .query_graph(&GraphQuery {
            node: "db".into(),
            direction: Direction::Out,
            as_of_tx_id: Some(before),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(past.edges.len(), 1);
    // Relating it again revives the same triple id.
    let revived = rel("db", "depends_on", "disk");
    assert_eq!(revived.value.version, 3);
    let limited = store
        .query_graph(&GraphQuery {
            node: "api".into(),
            depth: Some(5),
            limit: Some(2),
            ..Default::default()
        })
        .unwrap();
    assert!(limited.truncated);
    assert_eq!(limited.edges.len(), 2);
}

/// Part of the contract.
pub fn history_lists_newest_first_and_polls_oldest_first_since_a_transaction(
    store: &dyn KnowledgeStore,
) {
    for i in 0..5 {
        store
            .store("test", note("t", &format!("fact {i}")))
            .unwrap();
    }
    let page = store
        .history(&HistoryQuery {
            limit: Some(2),
            ..Default::default()
        })
        .unwrap();
    let ids: Vec<_> = page.items.iter().map(|i| i.transaction.tx_id).collect();
    assert_eq!(ids, [5, 4]);
    let next = store
        .history(&HistoryQuery {
            limit: Some(2),
            cursor: page.next_cursor,
            ..Default::default()
        })
        .unwrap();
    let ids: Vec<_> = next.items.iter().map(|i| i.transaction.tx_id).collect();
    assert_eq!(ids, [3, 2]);
    let polled = store
        .history(&HistoryQuery {
            since_tx_id: Some(3),
            ..Default::default()
        })
        .unwrap();
    let ids: Vec<_> = polled.items.iter().map(|i| i.transaction.tx_id).collect();
    assert_eq!(ids, [4, 5]);
    assert_eq!(polled.items[0].transaction.changed_ids, ["e-4"]);
    assert!(polled.next_cursor.is_none());
    let error = store
        .history(&HistoryQuery {
            id: Some("e-77".into()),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(code(error), "not_found");
}

/// Part of the contract.
pub fn the_change_feed_reports_each_transaction_and_how_rows_changed(store: &dyn KnowledgeStore) {
    store.store("test", note("a", "one")).unwrap();
    store
        .relate(
            "test",
            NewTriple {
                subject: "a".into(),
                predicate: "is".into(),
                object: "b".into(),
                ..Default::default()
            },
        )
        .unwrap();
    store.delete("test", "e-1").unwrap();
    let feed = store.changes_since(1, 10).unwrap();
    assert_eq!(
        feed,
        [
            TxChanges {
                tx_id: 2,
                entries: vec![],
                triples: vec![("t-1".into(), ChangeType::Upsert)]
            },
            TxChanges {
                tx_id: 3,
                entries: vec![("e-1".into(), ChangeType::Delete)],
                triples: vec![]
            },
        ]
    );
    let health = store.check().unwrap();
    assert!(health.integrity_ok);
    assert_eq!(
        (health.entries, health.triples, health.head_tx_id),
        (0, 1, 3)
    );
}

/// Part of the contract.
pub fn a_batch_is_one_transaction_and_a_bad_item_stores_nothing(store: &dyn KnowledgeStore) {
    let (tx, entries) = store
        .store_batch("test", vec![note("a", "one"), note("b", "two")])
        .unwrap();
    assert_eq!(
        entries.iter().map(|e| e.tx_id).collect::<Vec<_>>(),
        [tx, tx]
    );
    let error = store
        .store_batch("test", vec![note("c", "three"), note("", "bad")])
        .unwrap_err();
    assert_eq!(code(error), "invalid_arguments");
    assert_eq!(store.head().unwrap(), tx);
}

/// Part of the contract.
pub fn put_keeps_one_entry_per_topic_and_checks_the_expected_version(store: &dyn KnowledgeStore) {
    let page = |content: &str| NewEntry {
        topic: "wiki/global/revenue".into(),
        content: content.into(),
        kind: Some(EntryKind::Wiki),
        ..Default::default()
    };
    // 0 means "must not exist yet".
    let first = store.put("test", page("v1"), Some(0)).unwrap();
    assert_eq!((first.value.id.as_str(), first.value.version), ("e-1", 1));
    let again = store.put("test", page("v1"), Some(0)).unwrap_err();
    assert_eq!(code(again), "conflict");
    let second = store.put("test", page("v2"), None).unwrap();
    assert_eq!((second.value.id.as_str(), second.value.version), ("e-1", 2));
    let same = store.put("test", page("v2"), Some(2)).unwrap();
    assert!(!same.changed, "an identical put writes nothing");
    assert_eq!(store.head().unwrap(), 2);
    let stale = store.put("test", page("v3"), Some(1)).unwrap_err();
    assert_eq!(code(stale), "conflict");
    // A note with the same topic is a different entry.
    let note = store
        .put("test", note("wiki/global/revenue", "x"), None)
        .unwrap();
    assert_eq!(note.value.id, "e-3");
    // After a delete, the topic is free again: a new entry.
    store.delete("test", "e-1").unwrap();
    let reborn = store.put("test", page("v4"), Some(0)).unwrap();
    assert_eq!(reborn.value.id, "e-5");
    // The history of e-1 is intact.
    let (at, wiki) = store.entries_at(Some(EntryKind::Wiki), Some(2)).unwrap();
    assert_eq!(at, 2);
    assert_eq!(wiki.len(), 1);
    assert_eq!(wiki[0].content, "v2");
    let (_, now) = store.entries_at(None, None).unwrap();
    let ids: Vec<&str> = now.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["e-3", "e-5"]);
}

/// Part of the contract.
pub fn entries_are_read_by_id_as_of_a_transaction(store: &dyn KnowledgeStore) {
    let a = store.store("test", note("a", "first")).unwrap();
    let b = store.store("test", note("b", "second")).unwrap();
    store.delete("test", &a.value.id).unwrap();
    let ids = vec![a.value.id.clone(), b.value.id.clone(), "e-999".to_string()];
    let then: Vec<String> = store
        .entries_by_id(&ids, b.tx_id)
        .unwrap()
        .into_iter()
        .map(|e| e.content)
        .collect();
    assert_eq!(then.len(), 2);
    assert!(then.contains(&"first".to_string()) && then.contains(&"second".to_string()));
    let now = store.entries_by_id(&ids, store.head().unwrap()).unwrap();
    assert_eq!(now.len(), 1);
    assert_eq!(now[0].content, "second");
}

/// Part of the contract.
pub fn the_embedding_cache_keeps_vectors_by_model_and_hash_outside_history(
    store: &dyn KnowledgeStore,
) {
    let head = store.head().unwrap();
    store
        .cache_vectors(
            "m",
            &[
                ("h1".into(), vec![0.5, -1.0]),
                ("h2".into(), vec![1.0, 0.0]),
            ],
        )
        .unwrap();
    store
        .cache_vectors("m", &[("h1".into(), vec![2.0, 3.0])])
        .unwrap();
    let found = store
        .cached_vectors("m", &["h1".into(), "h2".into(), "h3".into()])
        .unwrap();
    assert_eq!(found.len(), 2);
    assert_eq!(found["h1"], vec![2.0, 3.0]);
    assert!(
        store
            .cached_vectors("other", &["h1".into()])
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store.head().unwrap(),
        head,
        "the cache writes no transaction"
    );
}

/// Part of the contract.
pub fn the_head_of_one_kind_moves_only_with_changes_to_that_kind(store: &dyn KnowledgeStore) {
    assert_eq!(store.kind_head(EntryKind::Wiki).unwrap(), 0);
    let page = store
        .store(
            "test",
            NewEntry {
                kind: Some(EntryKind::Wiki),
                ..note("wiki/global/revenue", "Revenue is paid invoices.")
            },
        )
        .unwrap();
    assert_eq!(store.kind_head(EntryKind::Wiki).unwrap(), page.tx_id);
    // Memory writes and relations leave the wiki's head where it was.
    let fact = store
        .store("test", note("ops", "Deploys on Tuesdays."))
        .unwrap();
    store
        .relate(
            "test",
            NewTriple {
                subject: "a".into(),
                predicate: "b".into(),
                object: "c".into(),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(store.kind_head(EntryKind::Wiki).unwrap(), page.tx_id);
    assert_eq!(store.kind_head(EntryKind::Note).unwrap(), fact.tx_id);
    // A delete and its undo each move it.
    let deleted = store.delete("test", &page.value.id).unwrap();
    assert_eq!(store.kind_head(EntryKind::Wiki).unwrap(), deleted);
    let undone = store.undo("test", deleted, false).unwrap();
    assert_eq!(store.kind_head(EntryKind::Wiki).unwrap(), undone.tx_id);
    assert_eq!(store.head().unwrap(), undone.tx_id);
}

fn model_file(topic: &str, content: &str) -> TopicWrite {
    TopicWrite {
        entry: NewEntry {
            kind: Some(EntryKind::Model),
            ..note(topic, content)
        },
        ..Default::default()
    }
}

fn live_models(store: &dyn KnowledgeStore, as_of: Option<TxId>) -> Vec<(String, String)> {
    let (_, entries) = store.entries_at(Some(EntryKind::Model), as_of).unwrap();
    let mut out: Vec<(String, String)> =
        entries.into_iter().map(|e| (e.topic, e.content)).collect();
    out.sort();
    out
}

/// Part of the contract.
pub fn put_many_is_one_transaction_checked_whole_and_undone_whole(store: &dyn KnowledgeStore) {
    let first = store
        .put_many(
            "test",
            "two sources",
            vec![
                model_file("semantic-layer/wh/a.yaml", "a: 1"),
                model_file("semantic-layer/wh/b.yaml", "b: 1"),
            ],
        )
        .unwrap();
    assert!(first.changed);
    assert_eq!(first.items.len(), 2);
    assert!(first.items.iter().all(|i| i.changed && i.entry.is_some()));
    let history = store.history(&HistoryQuery::default()).unwrap();
    assert_eq!(history.items[0].transaction.tx_id, first.tx_id);
    assert_eq!(history.items[0].transaction.summary, "two sources");

    // Update one, remove one, add one: one transaction.
    let second = store
        .put_many(
            "test",
            "",
            vec![
                TopicWrite {
                    expected_version: Some(1),
                    ..model_file("semantic-layer/wh/a.yaml", "a: 2")
                },
                TopicWrite {
                    remove: true,
                    ..model_file("semantic-layer/wh/b.yaml", "")
                },
                model_file("semantic-layer/wh/c.yaml", "c: 1"),
            ],
        )
        .unwrap();
    assert_eq!(second.tx_id, first.tx_id + 1);
    assert_eq!(second.items[0].entry.as_ref().unwrap().version, 2);
    assert!(second.items[1].entry.is_none() && second.items[1].changed);
    assert_eq!(
        live_models(store, None),
        vec![
            ("semantic-layer/wh/a.yaml".into(), "a: 2".into()),
            ("semantic-layer/wh/c.yaml".into(), "c: 1".into()),
        ]
    );

    // The same again changes nothing and writes no transaction.
    let same = store
        .put_many(
            "test",
            "",
            vec![
                model_file("semantic-layer/wh/a.yaml", "a: 2"),
                TopicWrite {
                    remove: true,
                    ..model_file("semantic-layer/wh/b.yaml", "")
                },
            ],
        )
        .unwrap();
    assert!(!same.changed);
    assert_eq!(same.tx_id, second.tx_id);
    assert_eq!(store.head().unwrap(), second.tx_id);

    // One stale expected version refuses the whole batch.
    let conflict = store
        .put_many(
            "test",
            "",
            vec![
                model_file("semantic-layer/wh/d.yaml", "d: 1"),
                TopicWrite {
                    expected_version: Some(1),
                    ..model_file("semantic-layer/wh/a.yaml", "a: 3")
                },
            ],
        )
        .unwrap_err();
    assert_eq!(code(conflict), "conflict");
    // A topic twice is refused, whatever its case.
    let twice = store
        .put_many(
            "test",
            "",
            vec![
                model_file("semantic-layer/wh/e.yaml", "e: 1"),
                model_file("semantic-layer/wh/E.yaml", "e: 2"),
            ],
        )
        .unwrap_err();
    assert_eq!(code(twice), "invalid_request");
    assert_eq!(store.head().unwrap(), second.tx_id);

    // Undo reverts every change of the batch at once.
    store.undo("test", second.tx_id, false).unwrap();
    assert_eq!(
        live_models(store, None),
        vec![
            ("semantic-layer/wh/a.yaml".into(), "a: 1".into()),
            ("semantic-layer/wh/b.yaml".into(), "b: 1".into()),
        ]
    );
    assert_eq!(live_models(store, Some(second.tx_id)).len(), 2);
}

/// Part of the contract.
pub fn mirrored_kinds_hold_files_larger_than_a_note(store: &dyn KnowledgeStore) {
    let big = "x".repeat(200 * 1024);
    let refused = store.store("test", note("big", &big)).unwrap_err();
    assert_eq!(code(refused), "invalid_arguments");
    let written = store
        .put_many(
            "test",
            "",
            vec![model_file("semantic-layer/wh/big.yaml", &big)],
        )
        .unwrap();
    assert_eq!(
        written.items[0].entry.as_ref().unwrap().content.len(),
        big.len()
    );
}

fn edge(s: &str, p: &str, o: &str) -> NewTriple {
    NewTriple {
        subject: s.into(),
        predicate: p.into(),
        object: o.into(),
        confidence: None,
        properties: None,
    }
}

fn key(s: &str, p: &str, o: &str) -> TripleKey {
    TripleKey {
        subject: s.into(),
        predicate: p.into(),
        object: o.into(),
    }
}

fn live_edges(store: &dyn KnowledgeStore, as_of: Option<TxId>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = store
        .list_triples(&TripleQuery {
            limit: Some(200),
            as_of_tx_id: as_of,
            ..Default::default()
        })
        .unwrap()
        .items
        .into_iter()
        .map(|t| (t.subject, t.object))
        .collect();
    out.sort();
    out
}

/// Part of the contract.
pub fn relate_many_adds_and_removes_in_one_transaction_and_is_idempotent(
    store: &dyn KnowledgeStore,
) {
    let first = store
        .relate_many(
            "test",
            "graph of a.py",
            vec![
                edge("Code:a.py", "IMPORTS", "Code:b.py"),
                edge("Code:a.py", "IMPORTS", "Code:c.py"),
            ],
            vec![key("Code:a.py", "IMPORTS", "Code:gone.py")],
        )
        .unwrap();
    assert!(first.changed);
    assert_eq!((first.related, first.unrelated), (2, 0));
    let history = store.history(&HistoryQuery::default()).unwrap();
    assert_eq!(history.items.len(), 1);
    assert_eq!(history.items[0].transaction.summary, "graph of a.py");

    // Written again after a crash: nothing changes, no transaction.
    let again = store
        .relate_many(
            "test",
            "graph of a.py",
            vec![edge("Code:a.py", "IMPORTS", "Code:b.py")],
            vec![key("Code:x.py", "IMPORTS", "Code:y.py")],
        )
        .unwrap();
    assert!(!again.changed);
    assert_eq!(again.tx_id, first.tx_id);

    // One removed, one added: one transaction, undone whole.
    let second = store
        .relate_many(
            "test",
            "",
            vec![edge("Code:a.py", "IMPORTS", "Code:d.py")],
            vec![key("Code:a.py", "IMPORTS", "Code:c.py")],
        )
        .unwrap();
    assert_eq!((second.related, second.unrelated), (1, 1));
    assert_eq!(
        live_edges(store, None),
        vec![
            ("Code:a.py".to_string(), "Code:b.py".to_string()),
            ("Code:a.py".to_string(), "Code:d.py".to_string()),
        ]
    );
    assert_eq!(live_edges(store, Some(first.tx_id)).len(), 2);
    store.undo("test", second.tx_id, false).unwrap();
    assert_eq!(
        live_edges(store, None),
        vec![
            ("Code:a.py".to_string(), "Code:b.py".to_string()),
            ("Code:a.py".to_string(), "Code:c.py".to_string()),
        ]
    );

    // A bad node or a relation both added and removed writes nothing.
    let head = store.head().unwrap();
    let bad = store
        .relate_many(
            "test",
            "",
            vec![
                edge("Code:e.py", "IMPORTS", "Code:f.py"),
                edge("", "X", "y"),
            ],
            Vec::new(),
        )
        .unwrap_err();
    assert_eq!(code(bad), "invalid_arguments");
    let both = store
        .relate_many(
            "test",
            "",
            vec![edge("Code:e.py", "IMPORTS", "Code:f.py")],
            vec![key("Code:e.py", "IMPORTS", "Code:f.py")],
        )
        .unwrap_err();
    assert_eq!(code(both), "invalid_request");
    assert_eq!(store.head().unwrap(), head);
}

/// Part of the contract.
pub fn feedback_names_a_recorded_search_and_one_of_its_results_outside_history(
    store: &dyn KnowledgeStore,
) {
    use lore_store::{NewFeedback, SearchRecord};
    let head = store.head().unwrap();
    store
        .record_search(&SearchRecord {
            request_id: "req-1".into(),
            query: "parse settings".into(),
            chunk_ids: vec!["a.py::parse".into(), "b.py::read".into()],
            created_at: "2026-01-01T00:00:00Z".into(),
        })
        .unwrap();
    let vote = |request: &str, chunk: &str, vote: i8| NewFeedback {
        request_id: request.into(),
        chunk_id: chunk.into(),
        vote,
        note: Some("useful".into()),
        context: serde_json::json!({"task": "demo"}).as_object().cloned(),
        voter: "alice".into(),
    };
    let stored = store
        .submit_feedback(vote("req-1", "b.py::read", 1))
        .unwrap();
    assert_eq!(stored.query, "parse settings");
    assert_eq!(stored.vote, 1);
    assert_eq!(
        code(
            store
                .submit_feedback(vote("req-2", "b.py::read", 1))
                .unwrap_err()
        ),
        "not_found"
    );
    assert_eq!(
        code(
            store
                .submit_feedback(vote("req-1", "c.py::x", 1))
                .unwrap_err()
        ),
        "not_found"
    );
    assert_eq!(
        code(
            store
                .submit_feedback(vote("req-1", "a.py::parse", 2))
                .unwrap_err()
        ),
        "invalid_arguments"
    );
    let second = store
        .submit_feedback(vote("req-1", "a.py::parse", -1))
        .unwrap();
    assert!(second.id > stored.id);
    let all = store.feedback_since(0, 10).unwrap();
    assert_eq!(all, vec![stored.clone(), second.clone()]);
    assert_eq!(store.feedback_since(stored.id, 10).unwrap(), vec![second]);
    assert_eq!(store.feedback_since(0, 1).unwrap(), vec![stored]);
    // Signals, not knowledge: no transaction was written.
    assert_eq!(store.head().unwrap(), head);
}

/// Part of the contract.
pub fn a_stamped_transaction_and_the_undo_of_a_transaction_are_found(store: &dyn KnowledgeStore) {
    // A stamp is a summary's start, matched literally (`_` is no
    // wildcard), the newest first.
    assert_eq!(
        store.transaction_stamped("memory_ingest run-1:").unwrap(),
        None
    );
    let first = store
        .put_many(
            "test",
            "memory_ingest run-1: Handbook",
            vec![model_file("semantic-layer/wh/a.yaml", "a: 1")],
        )
        .unwrap();
    store
        .put_many(
            "test",
            "memory_ingest run-10: Other",
            vec![model_file("semantic-layer/wh/b.yaml", "b: 1")],
        )
        .unwrap();
    assert_eq!(
        store.transaction_stamped("memory_ingest run-1:").unwrap(),
        Some(first.tx_id)
    );
    assert_eq!(
        store.transaction_stamped("memoryXingest run-1:").unwrap(),
        None
    );
    assert_eq!(
        store.transaction_stamped("memory_ingest run-2:").unwrap(),
        None
    );
    assert_eq!(
        code(store.transaction_stamped("").unwrap_err()),
        "invalid_request"
    );

    // Undone: the undo names it; undoing the undo is the undo's own.
    assert_eq!(store.reverted_by(first.tx_id).unwrap(), None);
    let undo = store.undo("test", first.tx_id, false).unwrap();
    assert_eq!(store.reverted_by(first.tx_id).unwrap(), Some(undo.tx_id));
    let redo = store.undo("test", undo.tx_id, false).unwrap();
    assert_eq!(store.reverted_by(undo.tx_id).unwrap(), Some(redo.tx_id));
    assert_eq!(store.reverted_by(first.tx_id).unwrap(), Some(undo.tx_id));
    assert_eq!(store.reverted_by(999).unwrap(), None);
}

pub fn ingest_runs_are_kept_by_id_outside_history(store: &dyn KnowledgeStore) {
    let head = store.head().unwrap();
    let mut run = IngestRunRecord {
        run_id: "run-1".into(),
        status: "running".into(),
        stage: "queued".into(),
        connection_id: Some("warehouse".into()),
        content_hash: "h".into(),
        actor: "cli".into(),
        pid: 42,
        started_at: "2026-11-25T10:00:00.000Z".into(),
        heartbeat_at: "2026-11-25T10:00:00.000Z".into(),
        finished_at: None,
        tx_id: None,
        report: serde_json::json!({"captured": {"wiki": []}}),
    };
    store.save_ingest_run(&run).unwrap();
    let other = IngestRunRecord {
        run_id: "run-2".into(),
        ..run.clone()
    };
    store.save_ingest_run(&other).unwrap();
    assert_eq!(store.ingest_run("run-1").unwrap(), Some(run.clone()));
    assert_eq!(store.ingest_run("run-9").unwrap(), None);
    assert_eq!(store.running_ingest_runs().unwrap().len(), 2);
    // Saving again replaces the record.
    run.status = "done".into();
    run.stage = "done".into();
    run.tx_id = Some(7);
    store.save_ingest_run(&run).unwrap();
    assert_eq!(store.ingest_run("run-1").unwrap(), Some(run));
    let running: Vec<String> = store
        .running_ingest_runs()
        .unwrap()
        .into_iter()
        .map(|r| r.run_id)
        .collect();
    assert_eq!(running, ["run-2"]);
    // Operational records, not knowledge: no transaction was written.
    assert_eq!(store.head().unwrap(), head);
}

pub fn task_records_carry_a_cancellation_no_save_clears_and_expire(store: &dyn KnowledgeStore) {
    let head = store.head().unwrap();
    let mut task = TaskRecord {
        task_id: "task-1".into(),
        owner: "host-a:42".into(),
        caller: "token:alice".into(),
        status: "working".into(),
        detail: serde_json::json!({"taskId": "task-1", "status": "working", "statusMessage": "started"}),
        cancel_requested: false,
        updated_at: "2026-11-25T10:00:00.000Z".into(),
        expires_at: None,
    };
    assert!(!store.save_task(&task).unwrap());
    assert_eq!(store.task("task-1").unwrap(), Some(task.clone()));
    assert_eq!(store.task("task-9").unwrap(), None);
    assert!(!store.request_task_cancel("task-9").unwrap());

    // Another server asks for the cancellation: the owner's next save
    // (which knows nothing of it) keeps it and learns of it.
    assert!(store.request_task_cancel("task-1").unwrap());
    assert!(store.task("task-1").unwrap().unwrap().cancel_requested);
    task.detail["statusMessage"] = "step 2".into();
    assert!(store.save_task(&task).unwrap());
    let read = store.task("task-1").unwrap().unwrap();
    assert!(read.cancel_requested);
    assert_eq!(read.detail["statusMessage"], "step 2");

    // An ended task is kept until it expires, then forgotten.
    task.status = "cancelled".into();
    task.expires_at = Some("2999-01-01T00:00:00.000Z".into());
    store.save_task(&task).unwrap();
    assert_eq!(store.task("task-1").unwrap().unwrap().status, "cancelled");
    let gone = TaskRecord {
        task_id: "task-2".into(),
        status: "completed".into(),
        expires_at: Some("2000-01-01T00:00:00.000Z".into()),
        ..task.clone()
    };
    store.save_task(&gone).unwrap();
    assert_eq!(store.task("task-2").unwrap(), None);
    assert!(!store.request_task_cancel("task-2").unwrap());
    // A record without an id is refused.
    let nameless = TaskRecord {
        task_id: " ".into(),
        ..task
    };
    assert_eq!(
        code(store.save_task(&nameless).unwrap_err()),
        "invalid_arguments"
    );
    // Operational records, not knowledge: no transaction was written.
    assert_eq!(store.head().unwrap(), head);
}

/// Part of the contract.
pub fn a_lease_has_one_holder_until_released_or_lapsed(store: &dyn KnowledgeStore) {
    let first = store
        .acquire_lease("gateway-ingest:repo", "server-a", 60_000)
        .unwrap();
    assert!(first.granted);
    assert_eq!(first.lease.holder, "server-a");
    assert!(first.lease.is_held(first.now_ms));
    // Another holder is told who holds it and until when.
    let refused = store
        .acquire_lease("gateway-ingest:repo", "server-b", 60_000)
        .unwrap();
    assert!(!refused.granted);
    assert_eq!(refused.lease.holder, "server-a");
    assert_eq!(refused.lease.expires_ms, first.lease.expires_ms);
    // Its holder renews it, keeping its start.
    let renewed = store
        .acquire_lease("gateway-ingest:repo", "server-a", 90_000)
        .unwrap();
    assert!(renewed.granted);
    assert_eq!(renewed.lease.acquired_ms, first.lease.acquired_ms);
    assert!(renewed.lease.expires_ms >= first.lease.expires_ms);
    // Released, it is free, and still says who held it last.
    assert!(
        !store
            .release_lease("gateway-ingest:repo", "server-b")
            .unwrap()
    );
    assert!(
        store
            .release_lease("gateway-ingest:repo", "server-a")
            .unwrap()
    );
    let last = store.leases("gateway-ingest:").unwrap();
    assert_eq!(last.len(), 1);
    assert_eq!(last[0].holder, "server-a");
    assert!(last[0].released);
    assert!(
        store
            .acquire_lease("gateway-ingest:repo", "server-b", 60_000)
            .unwrap()
            .granted
    );
    // A lapsed lease (its holder died) is free after its time.
    assert!(
        store
            .acquire_lease("gateway-ingest:other", "server-b", 1)
            .unwrap()
            .granted
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    let taken = store
        .acquire_lease("gateway-ingest:other", "server-a", 60_000)
        .unwrap();
    assert!(taken.granted);
    assert_eq!(store.leases("gateway-ingest:").unwrap().len(), 2);
    assert!(store.leases("nothing:").unwrap().is_empty());
    // Nothing of it is knowledge.
    assert_eq!(store.head().unwrap(), 0);
    assert!(store.acquire_lease("", "server-a", 1_000).is_err());
    assert!(store.acquire_lease("x", "server-a", 0).is_err());
}

fn shared(path: &str, hash: &str, chunks: Option<&str>) -> SharedFile {
    SharedFile {
        root: "repo".to_string(),
        path: path.to_string(),
        hash: hash.to_string(),
        chunks: chunks.map(String::from),
    }
}

/// Part of the contract.
pub fn the_file_log_appends_only_what_moved_and_reads_in_order(store: &dyn KnowledgeStore) {
    let first = store
        .publish_files(
            "server-a",
            &[
                shared("a.py", "h1", Some("[1]")),
                shared("b.py", "h2", Some("[2]")),
            ],
        )
        .unwrap();
    assert_eq!(first.written, 2);
    // The same hash again, and a file closed that was never there, write
    // nothing; a new hash and a closing do.
    let second = store
        .publish_files(
            "server-b",
            &[
                shared("a.py", "h1", Some("[1]")),
                shared("b.py", "h3", Some("[3]")),
                shared("c.py", "h4", None),
            ],
        )
        .unwrap();
    assert_eq!(second.written, 1);
    let third = store
        .publish_files("server-a", &[shared("a.py", "h1", None)])
        .unwrap();
    assert_eq!(third.written, 1);
    // A closed file that comes back with its old text is written again.
    let fourth = store
        .publish_files("server-a", &[shared("a.py", "h1", Some("[1]"))])
        .unwrap();
    assert_eq!(fourth.written, 1);
    assert!(fourth.seq > third.seq && third.seq > second.seq && second.seq > first.seq);
    let all = store.shared_files_since(0, 100).unwrap();
    let seen: Vec<(&str, Option<&str>, &str)> = all
        .iter()
        .map(|v| {
            (
                v.file.path.as_str(),
                v.file.chunks.as_deref(),
                v.origin.as_str(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            ("a.py", Some("[1]"), "server-a"),
            ("b.py", Some("[2]"), "server-a"),
            ("b.py", Some("[3]"), "server-b"),
            ("a.py", None, "server-a"),
            ("a.py", Some("[1]"), "server-a"),
        ]
    );
    assert!(all.windows(2).all(|w| w[0].seq < w[1].seq));
    // A reader that applied up to the first write reads the rest, in pages.
    let rest = store.shared_files_since(first.seq, 2).unwrap();
    assert_eq!(rest.len(), 2);
    assert_eq!(rest[0].file.hash, "h3");
    assert!(store.shared_files_since(fourth.seq, 10).unwrap().is_empty());
    // What a reader has yet to apply of others' writes, by root: server-a
    // after the first write has server-b's one version of `repo` to apply;
    // server-b has server-a's later three; nothing is left after the last.
    let pending = |after: i64, origin: &str| {
        store
            .shared_files_pending(after, origin)
            .unwrap()
            .into_iter()
            .collect::<Vec<_>>()
    };
    assert_eq!(
        pending(first.seq, "server-a"),
        vec![("repo".to_string(), 1)]
    );
    assert_eq!(
        pending(first.seq, "server-b"),
        vec![("repo".to_string(), 2)]
    );
    assert_eq!(pending(0, "server-b"), vec![("repo".to_string(), 4)]);
    assert!(pending(fourth.seq, "server-b").is_empty());
    // A file's live version is its newest: b.py's second, a.py's reopening;
    // a path of another root, or never written, has none.
    let b = store.shared_file("repo", "b.py").unwrap().unwrap();
    assert_eq!(
        (b.file.hash.as_str(), b.origin.as_str()),
        ("h3", "server-b")
    );
    let a = store.shared_file("repo", "a.py").unwrap().unwrap();
    assert_eq!((a.seq, a.file.chunks.as_deref()), (fourth.seq, Some("[1]")));
    assert!(store.shared_file("other", "b.py").unwrap().is_none());
    assert!(store.shared_file("repo", "c.py").unwrap().is_none());
    // A file twice in one write is refused, writing nothing.
    assert!(
        store
            .publish_files("x", &[shared("d.py", "1", None), shared("d.py", "2", None)])
            .is_err()
    );
    // Nothing of it is knowledge.
    assert_eq!(store.head().unwrap(), 0);
}

/// Every case of the contract as a `#[test]`, each on a fresh store from
/// `$open`, which returns `(guard, store)` (the guard keeps whatever the
/// store needs alive, such as a temporary folder, and cleans up after
/// it). With `optional`, `$open` returns an `Option` of that, and a case
/// whose store cannot be had (no server configured) passes without
/// running: `$open` says why.
#[macro_export]
macro_rules! contract_suite {
    (optional $open:expr) => {
        $crate::contract_suite!(@all [optional] $open);
    };
    (@all [$mode:ident] $open:expr) => {
        $crate::contract_suite!(@cases [$mode] $open;
            every_change_is_a_new_version_with_its_own_transaction,
            a_stale_expected_version_is_a_conflict_and_changes_nothing,
            an_update_that_changes_nothing_writes_no_transaction,
            bad_input_is_refused_with_a_reason_and_writes_nothing,
            delete_writes_a_tombstone_that_history_and_as_of_reads_still_see_past,
            undo_restores_the_state_before_a_transaction_as_a_new_transaction,
            undo_over_later_changes_is_a_conflict_unless_forced,
            query_filters_by_topic_prefix_tags_confidence_and_text,
            text_search_finds_words_whatever_their_case_accents_and_endings,
            pages_read_one_state_even_while_others_write,
            as_of_reads_see_exactly_the_state_after_a_transaction,
            relating_twice_changes_nothing_and_graph_walks_handle_cycles,
            history_lists_newest_first_and_polls_oldest_first_since_a_transaction,
            the_change_feed_reports_each_transaction_and_how_rows_changed,
            a_batch_is_one_transaction_and_a_bad_item_stores_nothing,
            put_keeps_one_entry_per_topic_and_checks_the_expected_version,
            entries_are_read_by_id_as_of_a_transaction,
            the_embedding_cache_keeps_vectors_by_model_and_hash_outside_history,
            the_head_of_one_kind_moves_only_with_changes_to_that_kind,
            put_many_is_one_transaction_checked_whole_and_undone_whole,
            mirrored_kinds_hold_files_larger_than_a_note,
            relate_many_adds_and_removes_in_one_transaction_and_is_idempotent,
            feedback_names_a_recorded_search_and_one_of_its_results_outside_history,
            a_stamped_transaction_and_the_undo_of_a_transaction_are_found,
            ingest_runs_are_kept_by_id_outside_history,
            task_records_carry_a_cancellation_no_save_clears_and_expire,
            a_lease_has_one_holder_until_released_or_lapsed,
            the_file_log_appends_only_what_moved_and_reads_in_order,
        );
    };
    (@cases [required] $open:expr; $($case:ident,)*) => {
        $(
            #[test]
            fn $case() {
                let (_guard, store) = $open();
                contract::$case(&*store);
            }
        )*
    };
    (@cases [optional] $open:expr; $($case:ident,)*) => {
        $(
            #[test]
            fn $case() {
                let Some((_guard, store)) = $open() else {
                    return;
                };
                contract::$case(&*store);
            }
        )*
    };
    ($open:expr) => {
        $crate::contract_suite!(@all [required] $open);
    };
}
