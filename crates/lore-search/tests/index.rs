//! The index as its callers see it: identifier-aware matching, weighted
//! fields, kind and connection filters, whole-group replacement with
//! stamps, and recovery from a missing or damaged index.

use lore_search::*;
use serde_json::json;

fn doc(
    kind: DocKind,
    connection: Option<&str>,
    id: &str,
    fields: &[(MatchField, &str)],
) -> SearchDoc {
    SearchDoc {
        kind,
        connection: connection.map(String::from),
        id: id.to_string(),
        fields: fields.iter().map(|(f, t)| (*f, t.to_string())).collect(),
        payload: json!({"id": id}),
    }
}

fn schema_docs() -> Vec<SearchDoc> {
    vec![
        doc(
            DocKind::Table,
            Some("warehouse"),
            "order_items",
            &[
                (MatchField::Name, "order_items"),
                (MatchField::Comment, "One row per product line of an order"),
            ],
        ),
        doc(
            DocKind::Column,
            Some("warehouse"),
            "orders.total_cents",
            &[
                (MatchField::Name, "total_cents"),
                (MatchField::Display, "orders.total_cents"),
            ],
        ),
        doc(
            DocKind::Column,
            Some("warehouse"),
            "plans.name",
            &[
                (MatchField::Name, "name"),
                (MatchField::Display, "plans.name"),
                (MatchField::SampleValue, "Starter Pro Enterprise"),
            ],
        ),
        doc(
            DocKind::Table,
            Some("crm"),
            "support_tickets",
            &[
                (MatchField::Name, "supportTickets"),
                (MatchField::Description, "Tickets opened by each account"),
            ],
        ),
    ]
}

fn search(index: &SearchIndex, text: &str) -> Vec<SearchHit> {
    index
        .search(&SearchQuery {
            text: text.into(),
            limit: 10,
            ..Default::default()
        })
        .unwrap()
}

#[test]
fn prose_finds_identifiers_and_says_what_matched() {
    let index = SearchIndex::in_memory().unwrap();
    index
        .replace_group("schema:all", "s1", &schema_docs())
        .unwrap();
    let hits = search(&index, "order items");
    assert_eq!(hits[0].id, "order_items");
    assert_eq!(hits[0].matched_on, MatchField::Name);
    let hits = search(&index, "support ticket");
    assert_eq!(hits[0].id, "support_tickets");
    let hits = search(&index, "enterprise");
    assert_eq!(hits[0].id, "plans.name");
    assert_eq!(hits[0].matched_on, MatchField::SampleValue);
    assert_eq!(hits[0].payload, json!({"id": "plans.name"}));
    assert!(search(&index, "nothing-like-this").is_empty());
    assert!(search(&index, " -- ").is_empty());
}

#[test]
fn kinds_and_connection_narrow_the_search() {
    let index = SearchIndex::in_memory().unwrap();
    let mut docs = schema_docs();
    docs.push(doc(
        DocKind::Wiki,
        None,
        "tickets-guide",
        &[(MatchField::Body, "How support tickets are triaged")],
    ));
    index.replace_group("all", "1", &docs).unwrap();
    let ids = |kinds: Vec<DocKind>, connection: Option<&str>| -> Vec<String> {
        let mut ids: Vec<String> = index
            .search(&SearchQuery {
                text: "tickets".into(),
                kinds,
                connection: connection.map(String::from),
                limit: 10,
            })
            .unwrap()
            .into_iter()
            .map(|h| h.id)
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(vec![], None), ["support_tickets", "tickets-guide"]);
    assert_eq!(ids(vec![DocKind::Wiki], None), ["tickets-guide"]);
    // Scoping to a connection keeps documents of no connection.
    assert_eq!(ids(vec![], Some("warehouse")), ["tickets-guide"]);
    assert_eq!(ids(vec![DocKind::Table], Some("crm")), ["support_tickets"]);
}

#[test]
fn a_group_is_replaced_whole_and_its_stamp_survives_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index");
    {
        let index = SearchIndex::open(&path).unwrap();
        assert!(index.was_rebuilt(), "a new index starts empty");
        index
            .replace_group("schema:warehouse", "sync-1", &schema_docs()[..3])
            .unwrap();
        index
            .replace_group("schema:crm", "sync-9", &schema_docs()[3..])
            .unwrap();
        assert_eq!(index.len(), 4);
        index
            .replace_group(
                "schema:warehouse",
                "sync-2",
                &[doc(
                    DocKind::Table,
                    Some("warehouse"),
                    "invoices",
                    &[(MatchField::Name, "invoices")],
                )],
            )
            .unwrap();
        assert!(search(&index, "order items").is_empty());
        assert_eq!(search(&index, "invoice")[0].id, "invoices");
    }
    let index = SearchIndex::open(&path).unwrap();
    assert!(!index.was_rebuilt());
    assert_eq!(
        index.stamp("schema:warehouse").unwrap().as_deref(),
        Some("sync-2")
    );
    assert_eq!(
        index.stamp("schema:crm").unwrap().as_deref(),
        Some("sync-9")
    );
    assert_eq!(index.len(), 2);
    index.replace_groups(&[], &["schema:crm"]).unwrap();
    assert_eq!(index.len(), 1);
    assert_eq!(index.stamp("schema:crm").unwrap(), None);
}

#[test]
fn a_missing_or_damaged_index_is_rebuilt_empty() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index");
    {
        let index = SearchIndex::open(&path).unwrap();
        index.replace_group("g", "1", &schema_docs()).unwrap();
    }
    std::fs::remove_dir_all(&path).unwrap();
    let index = SearchIndex::open(&path).unwrap();
    assert!(index.was_rebuilt());
    assert_eq!(index.stamp("g").unwrap(), None);
    index.replace_group("g", "1", &schema_docs()).unwrap();
    drop(index);
    // Garbage in every file of the index.
    for entry in std::fs::read_dir(&path).unwrap() {
        let file = entry.unwrap().path();
        if file.is_file() {
            std::fs::write(&file, b"garbage").unwrap();
        }
    }
    let index = SearchIndex::open(&path).unwrap();
    assert!(index.was_rebuilt());
    assert!(index.is_empty());
    index.replace_group("g", "2", &schema_docs()).unwrap();
    assert_eq!(search(&index, "order items")[0].id, "order_items");
}

#[test]
fn commits_of_another_handle_are_seen_after_sync() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index");
    let server = SearchIndex::open(&path).unwrap();
    let cli = SearchIndex::open(&path).unwrap();
    server
        .replace_group("schema:warehouse", "sync-1", &schema_docs())
        .unwrap();
    assert!(search(&cli, "order items").is_empty(), "not yet synced");
    let stamps = cli.sync().unwrap();
    assert_eq!(
        stamps.get("schema:warehouse").map(String::as_str),
        Some("sync-1")
    );
    assert_eq!(search(&cli, "order items")[0].id, "order_items");
    // Either handle can write next; both see every group.
    cli.replace_group(
        "sl:warehouse",
        "m-1",
        &[doc(
            DocKind::SlMeasure,
            Some("warehouse"),
            "invoices.revenue",
            &[(MatchField::Name, "revenue")],
        )],
    )
    .unwrap();
    server.sync().unwrap();
    assert_eq!(search(&server, "revenue")[0].id, "invoices.revenue");
    assert_eq!(server.stamps().unwrap().len(), 2);
}

#[test]
fn update_group_changes_only_the_documents_named() {
    let index = SearchIndex::in_memory().unwrap();
    let page = |id: &str, body: &str| {
        doc(
            DocKind::Wiki,
            None,
            id,
            &[(MatchField::Name, id), (MatchField::Body, body)],
        )
    };
    index
        .replace_group(
            "store",
            "3",
            &[
                page("revenue", "paid invoices"),
                page("churn", "lost accounts"),
            ],
        )
        .unwrap();
    let find = |text: &str| -> Vec<String> {
        index
            .search(&SearchQuery {
                text: text.into(),
                limit: 10,
                ..Default::default()
            })
            .unwrap()
            .into_iter()
            .map(|h| h.id)
            .collect()
    };
    assert_eq!(find("invoices"), ["revenue"]);
    // Edit one page, remove the other, add a third: one commit.
    let removed = vec![page("churn", "").key()];
    index
        .update_group(
            "store",
            "5",
            &removed,
            &[
                page("revenue", "recognised on payment"),
                page("nrr", "net revenue retention"),
            ],
        )
        .unwrap();
    assert!(find("invoices").is_empty(), "the old text is gone");
    assert_eq!(find("payment"), ["revenue"]);
    assert!(find("lost").is_empty());
    assert_eq!(find("retention"), ["nrr"]);
    assert_eq!(index.stamp("store").unwrap().as_deref(), Some("5"));
    assert_eq!(index.len(), 2);
}

#[test]
fn a_name_typed_exactly_comes_first() {
    let index = SearchIndex::in_memory().unwrap();
    let docs = vec![
        doc(
            DocKind::SlMeasure,
            Some("w"),
            "src_0042.revenue_0042",
            &[
                (MatchField::Name, "revenue_0042"),
                (MatchField::Display, "src_0042 revenue_0042"),
            ],
        ),
        doc(
            DocKind::SlSource,
            Some("w"),
            "src_0042",
            &[(MatchField::Name, "src_0042")],
        ),
    ];
    index.replace_group("sl:w", "1", &docs).unwrap();
    let hits = index
        .search(&SearchQuery {
            text: " SRC_0042 ".into(),
            limit: 5,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(hits[0].id, "src_0042");
}

#[test]
fn documents_read_back_as_they_were_indexed_by_group_and_by_key() {
    let index = SearchIndex::in_memory().unwrap();
    let docs = schema_docs();
    index
        .replace_group("schema:warehouse", "s1", &docs[..3])
        .unwrap();
    index.replace_group("schema:crm", "s2", &docs[3..]).unwrap();
    let mut back = index.group_docs("schema:warehouse").unwrap();
    back.sort_by_key(|d| d.key());
    let mut expected = docs[..3].to_vec();
    expected.sort_by_key(|d| d.key());
    assert_eq!(
        back, expected,
        "kind, connection, id, every field and the payload"
    );
    let keys = vec![docs[3].key(), "table:warehouse:nope".to_string()];
    let found = index.docs_by_key(&keys).unwrap();
    assert_eq!(found, vec![docs[3].clone()]);
    assert!(index.group_docs("sl:warehouse").unwrap().is_empty());
}
