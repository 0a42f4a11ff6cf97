//! The wiki mirror re-syncs when a page or a wiki file changed, not when
//! an agent remembered something else: memory writes leave wiki reads on
//! their fast path.

use std::sync::Arc;

use lore_context::wiki::Wiki;
use lore_core::project::Project;
use lore_store::NewEntry;
use lore_store::feed::StoreHandle;

#[test]
fn memory_writes_do_not_start_a_wiki_sync_but_page_edits_do() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".lore")).unwrap();
    std::fs::create_dir_all(dir.path().join("wiki/global")).unwrap();
    std::fs::write(
        dir.path().join("wiki/global/revenue.md"),
        "---\nsummary: \"Revenue is paid invoices\"\n---\n\n# Revenue\n",
    )
    .unwrap();
    let project = Project::state_only(dir.path());
    let handle = Arc::new(StoreHandle::sqlite(project.store_path()));
    let wiki = Wiki::new(&project, Arc::clone(&handle), "tester".into());
    let first = wiki.refresh().unwrap().expect("the first read syncs");
    assert_eq!(first.imported, vec!["wiki/global/revenue.md".to_string()]);
    // Its own import makes the next read sync once more, finding nothing.
    let _ = wiki.refresh().unwrap();
    assert!(wiki.refresh().unwrap().is_none());

    let store = handle.open().unwrap();
    for n in 0..5 {
        store
            .store(
                "agent",
                NewEntry {
                    topic: "ops".into(),
                    content: format!("fact {n}"),
                    ..Default::default()
                },
            )
            .unwrap();
    }
    assert!(
        wiki.refresh().unwrap().is_none(),
        "memory writes started a wiki sync"
    );

    // An edit on disk is picked up by the next read.
    std::fs::write(
        dir.path().join("wiki/global/revenue.md"),
        "---\nsummary: \"Revenue is paid invoices, net of refunds\"\n---\n\n# Revenue\n",
    )
    .unwrap();
    let report = wiki.refresh().unwrap().expect("an edited file syncs");
    assert_eq!(report.imported, vec!["wiki/global/revenue.md".to_string()]);
}
