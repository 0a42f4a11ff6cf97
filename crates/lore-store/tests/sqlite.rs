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

#[test]
fn a_restored_backup_keeps_the_file_log_and_numbers_on_after_it_without_leases() {
    use contract::numbering::*;
    let (dir, store) = open();
    write_numbered_rows(&*store);
    let newest_in = |path: std::path::PathBuf| {
        move |table: &str, column: &str| -> i64 {
            rusqlite::Connection::open(&path)
                .unwrap()
                .query_row(&format!("SELECT max({column}) FROM {table}"), [], |r| {
                    r.get(0)
                })
                .unwrap()
        }
    };
    let source_newest = newest_of_each(newest_in(dir.path().join(".lore/store.db")));

    // A restore puts the backup file in the store's place.
    let target = dir.path().join("restored.db");
    store.backup_to(&target).unwrap();
    let copy = SqliteStore::open(&target, Durability::Process).unwrap();
    assert_copied_without_leases(&*store, &copy);
    assert_numbering_goes_on(&copy, source_newest, newest_in(target.clone()));
}
