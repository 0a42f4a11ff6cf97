//! The PostgreSQL store answers as the SQLite store does, operation by
//! operation, over a long random session run on both.

use lore_store::*;

use crate::contract::code;
use crate::{Schema, server_url};

/// A small deterministic generator (xorshift), so a failing sequence can
/// be replayed.
struct Dice(u64);

impl Dice {
    fn roll(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.roll(items.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.roll(100) < percent
    }
}

/// `value` as JSON without the wall-clock times (the two stores write at
/// different instants).
fn timeless(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => map
            .into_iter()
            .map(|(k, v)| match k.as_str() {
                "at" | "recorded_at" | "updated_at" | "created_at" => (k, serde_json::Value::Null),
                _ => (k, timeless(v)),
            })
            .collect(),
        serde_json::Value::Array(items) => items.into_iter().map(timeless).collect(),
        other => other,
    }
}

/// The same answer from both stores: equal values (times aside), or
/// errors with the same code and message.
pub fn same<T: serde::Serialize>(
    what: &str,
    sqlite: Result<T, StoreError>,
    postgres: Result<T, StoreError>,
) -> Option<T> {
    compare(what, sqlite, postgres, timeless)
}

/// The same answer from both stores, times included: what a store copied
/// from the other answers.
pub fn identical<T: serde::Serialize>(
    what: &str,
    sqlite: Result<T, StoreError>,
    postgres: Result<T, StoreError>,
) -> Option<T> {
    compare(what, sqlite, postgres, |v| v)
}

/// Both answers as `view` shows their JSON: equal values, or errors with
/// the same code and message; the PostgreSQL store's value.
fn compare<T: serde::Serialize>(
    what: &str,
    sqlite: Result<T, StoreError>,
    postgres: Result<T, StoreError>,
    view: fn(serde_json::Value) -> serde_json::Value,
) -> Option<T> {
    match (sqlite, postgres) {
        (Ok(a), Ok(b)) => {
            let (ja, jb) = (
                view(serde_json::to_value(&a).unwrap()),
                view(serde_json::to_value(&b).unwrap()),
            );
            assert_eq!(ja, jb, "{what}");
            Some(b)
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string(), "{what}");
            assert_eq!(code(a), code(b), "{what}");
            None
        }
        (a, b) => panic!(
            "{what}: SQLite answered {:?}, PostgreSQL {:?}",
            a.map(|v| view(serde_json::to_value(v).unwrap())),
            b.map(|v| view(serde_json::to_value(v).unwrap()))
        ),
    }
}

#[test]
fn the_postgres_store_answers_a_long_random_session_as_the_sqlite_store_does() {
    let Some(url) = server_url() else { return };
    let schema = Schema::new(&url);
    let postgres = schema.open();
    let dir = tempfile::tempdir().unwrap();
    let sqlite = SqliteStore::open(&dir.path().join("store.db"), Durability::Process).unwrap();
    let stores: [&dyn KnowledgeStore; 2] = [&sqlite, &postgres];

    let topics = [
        "deploy",
        "Deploy rollback",
        "billing",
        "oncall",
        "wiki/a",
        "wiki/b",
    ];
    let words = [
        "blue", "green", "canary", "invoices", "cents", "page", "Ana", "rollback",
    ];
    let tags = ["ops", "sre", "finance"];
    let nodes = ["api", "db", "disk", "web", "queue"];
    let predicates = ["depends_on", "calls"];
    let mut dice = Dice(0x5eed_1234_abcd_ef01);
    for step in 0..400 {
        let text = |dice: &mut Dice| -> String {
            (0..1 + dice.roll(4))
                .map(|_| dice.pick(&words))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let head = postgres.head().unwrap();
        let some_tx = |dice: &mut Dice| dice.roll(head as usize + 3) as i64 - 1;
        let entry_id = |dice: &mut Dice| format!("e-{}", 1 + dice.roll(head as usize + 2));
        let what = format!("step {step}");
        match dice.roll(16) {
            0 | 1 => {
                let entry = NewEntry {
                    topic: dice.pick(&topics).to_string(),
                    content: text(&mut dice),
                    confidence: [None, Some(0.5), Some(0.9), Some(1.5)][dice.roll(4)],
                    tags: (0..dice.roll(3))
                        .map(|_| dice.pick(&tags).to_uppercase())
                        .collect(),
                    ..Default::default()
                };
                let [a, b] = stores.map(|s| s.store("test", entry.clone()));
                same(&format!("{what} store"), a, b);
            }
            2 => {
                let id = entry_id(&mut dice);
                let patch = EntryPatch {
                    content: dice.chance(60).then(|| text(&mut dice)),
                    topic: dice.chance(20).then(|| dice.pick(&topics).to_string()),
                    confidence: dice.chance(30).then_some(0.7),
                    tags: dice.chance(30).then(|| vec![dice.pick(&tags).to_string()]),
                    expected_version: dice.chance(30).then(|| dice.roll(3) as i64 + 1),
                    ..Default::default()
                };
                let [a, b] = stores.map(|s| s.update("test", &id, patch.clone()));
                same(&format!("{what} update {id}"), a, b);
            }
            3 => {
                let entry = NewEntry {
                    topic: dice.pick(&["wiki/a", "WIKI/A", "wiki/b"]).to_string(),
                    content: text(&mut dice),
                    kind: Some(EntryKind::Wiki),
                    ..Default::default()
                };
                let expected = [None, Some(0), Some(1), Some(2)][dice.roll(4)];
                let [a, b] = stores.map(|s| s.put("test", entry.clone(), expected));
                same(&format!("{what} put"), a, b);
            }
            4 => {
                let writes: Vec<TopicWrite> = (0..1 + dice.roll(3))
                    .map(|_| TopicWrite {
                        entry: NewEntry {
                            topic: format!("models/{}.yaml", dice.pick(&nodes)),
                            content: text(&mut dice),
                            kind: Some(EntryKind::Model),
                            ..Default::default()
                        },
                        expected_version: dice.chance(20).then(|| dice.roll(2) as i64),
                        remove: dice.chance(25),
                    })
                    .collect();
                let [a, b] = stores.map(|s| s.put_many("test", "", writes.clone()));
                same(&format!("{what} put_many"), a, b);
            }
            5 | 6 => {
                let triple = NewTriple {
                    subject: dice.pick(&nodes).to_string(),
                    predicate: dice.pick(&predicates).to_string(),
                    object: dice.pick(&nodes).to_string(),
                    confidence: [None, Some(0.4)][dice.roll(2)],
                    properties: None,
                };
                let [a, b] = stores.map(|s| s.relate("test", triple.clone()));
                same(&format!("{what} relate"), a, b);
            }
            7 => {
                let relate: Vec<NewTriple> = (0..dice.roll(3))
                    .map(|_| NewTriple {
                        subject: "api".into(),
                        predicate: dice.pick(&predicates).to_string(),
                        object: dice.pick(&nodes).to_string(),
                        ..Default::default()
                    })
                    .collect();
                let unrelate: Vec<TripleKey> = (0..dice.roll(3))
                    .map(|_| TripleKey {
                        subject: "api".into(),
                        predicate: dice.pick(&predicates).to_string(),
                        object: dice.pick(&nodes).to_string(),
                    })
                    .collect();
                let [a, b] = stores
                    .map(|s| s.relate_many("test", "graph", relate.clone(), unrelate.clone()));
                same(&format!("{what} relate_many"), a, b);
            }
            8 => {
                let id = if dice.chance(50) {
                    entry_id(&mut dice)
                } else {
                    format!("t-{}", 1 + dice.roll(head as usize + 2))
                };
                let [a, b] = stores.map(|s| s.delete("test", &id));
                same(&format!("{what} delete {id}"), a, b);
            }
            9 => {
                let (s, p, o) = (dice.pick(&nodes), dice.pick(&predicates), dice.pick(&nodes));
                let [a, b] = stores.map(|st| st.unrelate("test", s, p, o));
                same(&format!("{what} unrelate"), a, b);
            }
            10 => {
                let tx = some_tx(&mut dice);
                let force = dice.chance(30);
                let [a, b] = stores.map(|s| s.undo("test", tx, force));
                same(&format!("{what} undo {tx} force {force}"), a, b);
            }
            11 => {
                let id = if dice.chance(70) {
                    entry_id(&mut dice)
                } else {
                    format!("t-{}", 1 + dice.roll(head as usize + 2))
                };
                let as_of = dice.chance(50).then(|| some_tx(&mut dice));
                let [a, b] = stores.map(|s| s.get(&id, as_of));
                same(&format!("{what} get {id} as of {as_of:?}"), a, b);
            }
            12 => {
                // Page through a listing in both, cursor by cursor.
                let mut query = EntryQuery {
                    topic: dice
                        .chance(30)
                        .then(|| dice.pick(&["dep", "wiki", "b"]).into()),
                    tags: if dice.chance(20) {
                        vec!["ops".into()]
                    } else {
                        Vec::new()
                    },
                    min_confidence: dice.chance(20).then_some(0.8),
                    kind: dice.chance(20).then_some(EntryKind::Wiki),
                    limit: Some(1 + dice.roll(4)),
                    as_of_tx_id: dice.chance(30).then(|| some_tx(&mut dice)),
                    ..Default::default()
                };
                for page in 0..5 {
                    let [a, b] = stores.map(|s| s.query(&query));
                    let Some(got) = same(&format!("{what} query page {page}"), a, b) else {
                        break;
                    };
                    let Some(cursor) = got.next_cursor else { break };
                    query.cursor = Some(cursor);
                    query.as_of_tx_id = None;
                }
            }
            13 => {
                // Text search: the same entries match (ranked each its
                // own way).
                let query = EntryQuery {
                    text: Some(text(&mut dice)),
                    limit: Some(200),
                    ..Default::default()
                };
                let [a, b] = stores.map(|s| {
                    s.query(&query).map(|p| {
                        let mut ids: Vec<String> = p.items.into_iter().map(|e| e.id).collect();
                        ids.sort();
                        ids
                    })
                });
                same(&format!("{what} text query"), a, b);
            }
            14 => {
                let history = HistoryQuery {
                    id: dice.chance(40).then(|| entry_id(&mut dice)),
                    since_tx_id: dice.chance(30).then(|| some_tx(&mut dice)),
                    limit: Some(1 + dice.roll(5)),
                    ..Default::default()
                };
                let [a, b] = stores.map(|s| s.history(&history));
                if let Some(page) = same(&format!("{what} history"), a, b)
                    && let Some(cursor) = page.next_cursor
                {
                    let next = HistoryQuery {
                        cursor: Some(cursor),
                        ..history
                    };
                    let [a, b] = stores.map(|s| s.history(&next));
                    same(&format!("{what} history next page"), a, b);
                }
                let graph = GraphQuery {
                    node: dice.pick(&nodes).to_string(),
                    direction: [Direction::Out, Direction::In, Direction::Both][dice.roll(3)],
                    depth: Some(1 + dice.roll(3)),
                    limit: Some(1 + dice.roll(6)),
                    predicate: dice.chance(30).then(|| dice.pick(&predicates).to_string()),
                    as_of_tx_id: dice.chance(30).then(|| some_tx(&mut dice)),
                };
                let [a, b] = stores.map(|s| s.query_graph(&graph));
                same(&format!("{what} graph"), a, b);
                let triples = TripleQuery {
                    subject: dice.chance(50).then(|| dice.pick(&nodes).to_string()),
                    limit: Some(1 + dice.roll(5)),
                    ..Default::default()
                };
                let [a, b] = stores.map(|s| s.list_triples(&triples));
                same(&format!("{what} triples"), a, b);
            }
            _ => {
                let as_of = dice.chance(50).then(|| some_tx(&mut dice));
                let kind = dice.chance(50).then_some(EntryKind::Model);
                let [a, b] = stores.map(|s| s.entries_at(kind, as_of));
                same(&format!("{what} entries_at"), a, b);
                let after = some_tx(&mut dice).max(0);
                let [a, b] = stores.map(|s| s.changes_since(after, 5));
                assert_eq!(a.unwrap(), b.unwrap(), "{what} changes_since");
                let ids: Vec<String> = (1..6).map(|i| format!("e-{i}")).collect();
                let [a, b] = stores.map(|s| s.entries_by_id(&ids, head));
                let sorted = |r: Result<Vec<Entry>, StoreError>| {
                    r.map(|mut v| {
                        v.sort_by(|x, y| x.id.cmp(&y.id));
                        v
                    })
                };
                same(&format!("{what} entries_by_id"), sorted(a), sorted(b));
            }
        }
    }
    let [a, b] = stores.map(|s| s.changes_since(0, usize::MAX));
    assert_eq!(a.unwrap(), b.unwrap(), "the whole change feed");
    let [a, b] = stores.map(|s| s.check().map(|h| (h.head_tx_id, h.entries, h.triples)));
    same("check", a, b);
    assert!(postgres.head().unwrap() > 100, "the session wrote a lot");
}
