//! The semantic model's files kept in the knowledge store: hand edits
//! become versions, a multi-file write is one transaction that one undo
//! takes back (files included), and nothing half-written is ever left.

use std::path::Path;
use std::sync::Arc;

use lore_context::semantic::files::{SemanticFiles, SourceFile};
use lore_core::project::Project;
use lore_store::feed::StoreHandle;
use lore_store::{EntryKind, KnowledgeStore};

const ORDERS: &str = "name: orders\ntable: orders\ngrain: [id]\ncolumns:\n  - { name: id, type: number }\n  - { name: amount, type: number }\nmeasures:\n  - { name: revenue, expr: sum(amount) }\n";
const CUSTOMERS: &str =
    "name: customers\ntable: customers\ngrain: [id]\ncolumns:\n  - { name: id, type: number }\n";

struct Fixture {
    dir: tempfile::TempDir,
    files: SemanticFiles,
    store: Arc<dyn KnowledgeStore>,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".lore")).unwrap();
        let project = Project::state_only(dir.path());
        let handle = Arc::new(StoreHandle::sqlite(project.store_path()));
        let files = SemanticFiles::new(&project, Some(Arc::clone(&handle)));
        let store = handle.open().unwrap();
        Fixture { dir, files, store }
    }

    fn path(&self, file: &str) -> std::path::PathBuf {
        self.dir.path().join("semantic-layer/wh").join(file)
    }

    fn write_disk(&self, file: &str, text: &str) {
        std::fs::create_dir_all(self.path(file).parent().unwrap()).unwrap();
        std::fs::write(self.path(file), text).unwrap();
    }

    fn stored(&self) -> Vec<(String, String)> {
        let (_, entries) = self.store.entries_at(Some(EntryKind::Model), None).unwrap();
        let mut out: Vec<_> = entries.into_iter().map(|e| (e.topic, e.content)).collect();
        out.sort();
        out
    }
}

fn file(name: &str, text: Option<&str>) -> SourceFile {
    SourceFile {
        file: name.into(),
        content: text.map(str::to_string),
        expected_version: None,
    }
}

fn exists(path: &Path) -> bool {
    path.is_file()
}

#[test]
fn hand_edits_become_versions_with_history() {
    let f = Fixture::new();
    f.write_disk("orders.yaml", ORDERS);
    let first = f.files.sync().unwrap();
    assert_eq!(first.imported, vec!["semantic-layer/wh/orders.yaml"]);
    let recorded = f.store.head().unwrap();

    f.write_disk("orders.yaml", &format!("{ORDERS}# reviewed\n"));
    let second = f.files.sync().unwrap();
    assert_eq!(second.imported, vec!["semantic-layer/wh/orders.yaml"]);
    assert!(f.stored()[0].1.ends_with("# reviewed\n"));
    // The earlier text is still there as of its transaction.
    let (_, then) = f
        .store
        .entries_at(Some(EntryKind::Model), Some(recorded))
        .unwrap();
    assert_eq!(then[0].content, ORDERS);
    // Nothing moved: nothing to do.
    assert!(
        f.files
            .refresh()
            .unwrap()
            .is_none_or(|r| !r.changed_anything())
    );
}

#[test]
fn a_write_of_several_files_is_one_transaction_one_undo_takes_back() {
    let f = Fixture::new();
    f.write_disk("orders.yaml", ORDERS);
    f.files.sync().unwrap();
    let written = f
        .files
        .write(
            "importer",
            "wh",
            "import two sources",
            vec![
                file("customers.yaml", Some(CUSTOMERS)),
                file("orders.yaml", Some(&format!("{ORDERS}# imported\n"))),
            ],
            true,
        )
        .unwrap();
    assert!(written.changed);
    assert!(exists(&f.path("customers.yaml")));
    assert!(
        std::fs::read_to_string(f.path("orders.yaml"))
            .unwrap()
            .ends_with("# imported\n")
    );
    let history = f.store.history(&Default::default()).unwrap();
    assert_eq!(history.items[0].transaction.summary, "import two sources");

    // One undo takes both files back: the new one goes, the edited one
    // returns to what it was.
    f.store.undo("agent", written.tx_id, false).unwrap();
    let synced = f.files.sync().unwrap();
    assert_eq!(
        synced.removed_files,
        vec!["semantic-layer/wh/customers.yaml"]
    );
    assert_eq!(synced.mirrored, vec!["semantic-layer/wh/orders.yaml"]);
    assert!(!exists(&f.path("customers.yaml")));
    assert_eq!(
        std::fs::read_to_string(f.path("orders.yaml")).unwrap(),
        ORDERS
    );
}

#[test]
fn a_write_that_would_break_the_model_writes_nothing() {
    let f = Fixture::new();
    f.write_disk("orders.yaml", ORDERS);
    f.files.sync().unwrap();
    let head = f.store.head().unwrap();
    // A join to a source that does not exist: the model would not load.
    let broken = "name: refunds\ntable: refunds\ngrain: [id]\ncolumns:\n  - { name: id, type: number }\n  - { name: order_id, type: number }\njoins:\n  - { to: nowhere, on: order_id = nowhere.id, relationship: many_to_one }\n";
    let refused = f
        .files
        .write(
            "importer",
            "wh",
            "",
            vec![
                file("customers.yaml", Some(CUSTOMERS)),
                file("refunds.yaml", Some(broken)),
            ],
            true,
        )
        .unwrap_err();
    assert_eq!(refused.code.as_str(), "invalid_request");
    assert!(refused.message.contains("nowhere"), "{}", refused.message);
    assert_eq!(f.store.head().unwrap(), head);
    assert!(!exists(&f.path("customers.yaml")));

    // YAML that does not parse is refused even without model validation.
    let refused = f
        .files
        .write(
            "importer",
            "wh",
            "",
            vec![file("x.yaml", Some("a: [1"))],
            false,
        )
        .unwrap_err();
    assert_eq!(refused.code.as_str(), "invalid_request");
    // So is a name that is not a file of the connection's folder.
    let refused = f
        .files
        .write(
            "importer",
            "wh",
            "",
            vec![file("../x.yaml", Some(CUSTOMERS))],
            false,
        )
        .unwrap_err();
    assert_eq!(refused.code.as_str(), "invalid_arguments");
    assert_eq!(f.store.head().unwrap(), head);
}

#[test]
fn a_stale_expected_version_refuses_the_whole_write() {
    let f = Fixture::new();
    f.write_disk("orders.yaml", ORDERS);
    f.files.sync().unwrap();
    let head = f.store.head().unwrap();
    let refused = f
        .files
        .write(
            "importer",
            "wh",
            "",
            vec![
                file("customers.yaml", Some(CUSTOMERS)),
                SourceFile {
                    // orders.yaml exists: "must not exist" is stale.
                    expected_version: Some(0),
                    ..file("orders.yaml", Some(CUSTOMERS))
                },
            ],
            false,
        )
        .unwrap_err();
    assert_eq!(refused.code.as_str(), "conflict");
    assert_eq!(f.store.head().unwrap(), head);
    assert!(!exists(&f.path("customers.yaml")));
    assert_eq!(
        std::fs::read_to_string(f.path("orders.yaml")).unwrap(),
        ORDERS
    );
}

#[test]
fn a_broken_file_is_reported_and_left_alone() {
    let f = Fixture::new();
    f.write_disk("orders.yaml", ORDERS);
    f.files.sync().unwrap();
    f.write_disk("orders.yaml", "name: orders\ncolumns: [\n");
    let report = f.files.sync().unwrap();
    assert!(report.imported.is_empty());
    assert_eq!(report.problems.len(), 1);
    assert!(report.problems[0].message.contains("lore sl validate"));
    // The file is not overwritten with the stored version, and the store
    // keeps the last good one.
    assert_eq!(
        std::fs::read_to_string(f.path("orders.yaml")).unwrap(),
        "name: orders\ncolumns: [\n"
    );
    assert_eq!(f.stored()[0].1, ORDERS);
    // Files deeper than a connection's folder are not model files.
    f.write_disk("nested/deep.yaml", CUSTOMERS);
    assert!(f.files.sync().unwrap().imported.is_empty());
}

#[test]
fn a_deleted_file_is_deleted_in_the_store_and_comes_back_with_undo() {
    let f = Fixture::new();
    f.write_disk("orders.yaml", ORDERS);
    f.files.sync().unwrap();
    std::fs::remove_file(f.path("orders.yaml")).unwrap();
    let report = f.files.sync().unwrap();
    assert_eq!(report.deleted, vec!["semantic-layer/wh/orders.yaml"]);
    assert!(f.stored().is_empty());
    let deleted = f.store.head().unwrap();
    f.store.undo("agent", deleted, false).unwrap();
    f.files.sync().unwrap();
    assert_eq!(
        std::fs::read_to_string(f.path("orders.yaml")).unwrap(),
        ORDERS
    );
}
