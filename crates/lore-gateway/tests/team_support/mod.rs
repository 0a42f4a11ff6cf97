//! What the team tests share: a PostgreSQL database of a test's own, and
//! server projects (each a folder as on a host of its own) on it.

use std::path::Path;
use std::sync::Arc;

use lore_core::project::Project;
use lore_gateway::Gateway;
use lore_gateway::ingest::{IngestRequest, IngestRun};
use lore_store::feed::StoreHandle;

/// A database of this test's own on the test server, dropped afterwards.
pub struct Database {
    admin: String,
    name: String,
    pub url: String,
}

fn run_sql(url: &str, sql: &str) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .unwrap();
        let driver = tokio::spawn(connection);
        client.batch_execute(sql).await.unwrap();
        drop(client);
        let _ = driver.await;
    });
}

impl Database {
    pub fn create(tag: &str) -> Option<Database> {
        let admin = match std::env::var("LORE_TEST_POSTGRES_URL") {
            Ok(url) if !url.trim().is_empty() => url,
            _ => {
                assert!(
                    std::env::var("LORE_REQUIRE_SERVERS").as_deref() != Ok("1"),
                    "LORE_REQUIRE_SERVERS=1 but LORE_TEST_POSTGRES_URL is not set"
                );
                println!("skipped: set LORE_TEST_POSTGRES_URL to run the gateway's team tests");
                return None;
            }
        };
        let name = format!("lore_gateway_team_{tag}_{}", std::process::id());
        run_sql(
            &admin,
            &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        );
        run_sql(&admin, &format!("CREATE DATABASE {name}"));
        let (base, _) = admin.rsplit_once('/').unwrap();
        let url = format!("{base}/{name}");
        Some(Database { admin, name, url })
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        run_sql(
            &self.admin,
            &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
        );
    }
}

pub fn write(dir: &Path, path: &str, text: &str) {
    let file = dir.join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, text).unwrap();
}

/// A server's project folder (as on a host of its own) with root `name`
/// at `repo/` and the store at `url`.
pub fn server_project(url: &str, root: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "lore.yaml",
        &format!(
            "store:\n  url: \"{url}\"\ngateway:\n  roots:\n    - path: repo\n      name: {root}\n"
        ),
    );
    dir
}

pub fn gateway(dir: &Path) -> Arc<Gateway> {
    let project = Project::load(dir).unwrap();
    let store = Arc::new(StoreHandle::for_project(&project));
    Arc::new(Gateway::for_project(&project).with_store(store))
}

pub fn ingest(gateway: &Gateway) -> IngestRun {
    let run = gateway
        .ingest(&IngestRequest::default(), &mut |_, _| {})
        .unwrap();
    assert!(run.success, "{:?}", run.error);
    run
}
