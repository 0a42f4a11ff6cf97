//! The SQLite backend: the whole store contract (`contract/`), and what
//! only a file-backed store has to say.

#[macro_use]
mod contract;

use contract::code;
use lore_store::{Durability, KnowledgeStore, SqliteStore};

fn open() -> (tempfile::TempDir, Box<dyn KnowledgeStore>) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join(".lore/store.db"), Durability::Process).unwrap();
    (dir, Box::new(store))
}

contract_suite!(open);

#[test]
fn a_file_that_is_not_a_store_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.db");
    std::fs::write(
        &path,
        "this is not sqlite, just text that is long enough to look like a header",
    )
    .unwrap();
    let error = SqliteStore::open(&path, Durability::Process).unwrap_err();
    assert_eq!(code(error), "upstream_error");
}

#[test]
fn an_online_backup_is_a_whole_store_as_of_one_transaction() {
    let (dir, store) = open();
    let first = store
        .store("test", contract::note("deployment", "Blue-green deploys."))
        .unwrap();
    let target = dir.path().join("backup.db");
    let head = store.backup_to(&target).unwrap();
    assert_eq!(head, first.tx_id);
    store
        .store("test", contract::note("later", "not in the backup"))
        .unwrap();
    let copy = SqliteStore::open(&target, Durability::Process).unwrap();
    assert_eq!(copy.head().unwrap(), first.tx_id);
    assert_eq!(copy.check().unwrap().entries, 1);
    assert!(copy.check().unwrap().integrity_ok);
    // An existing target is refused and left alone.
    let error = store.backup_to(&target).unwrap_err();
    assert_eq!(code(error), "conflict");
    assert_eq!(
        SqliteStore::open(&target, Durability::Process)
            .unwrap()
            .head()
            .unwrap(),
        first.tx_id
    );
    assert!(!dir.path().join("backup.partial").exists());
}
