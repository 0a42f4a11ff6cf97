//! The PostgreSQL backend: the whole store contract (`contract/`) on a
//! real server, and what only a server backend has to say (writers in
//! several processes, a server that is down, notifications, callers on
//! any thread, backups as SQLite files, SQLite stores moved in).
//!
//! Runs against the server `LORE_TEST_POSTGRES_URL` names
//! (e.g. `postgres://postgres@127.0.0.1:5432/test`), each case in a schema
//! of its own that is dropped afterwards, so cases run in parallel. Without
//! the variable the cases pass after printing `skipped: set
//! LORE_TEST_POSTGRES_URL`, unless `LORE_REQUIRE_SERVERS=1` demands a
//! server.

#[macro_use]
#[path = "../contract/mod.rs"]
mod contract;
mod backup;
mod migrate;
mod same_as_sqlite;
mod server;

use std::sync::atomic::{AtomicUsize, Ordering};

use lore_store::*;

/// The test server's url, or `None` (after saying so) when none is set.
pub fn server_url() -> Option<String> {
    match std::env::var("LORE_TEST_POSTGRES_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("LORE_REQUIRE_SERVERS").as_deref() != Ok("1"),
                "LORE_REQUIRE_SERVERS=1 but LORE_TEST_POSTGRES_URL is not set: point it at a PostgreSQL database the tests may create schemas in, e.g. postgres://postgres@127.0.0.1:5432/test"
            );
            println!("skipped: set LORE_TEST_POSTGRES_URL");
            None
        }
    }
}

/// A schema of its own for one case; dropped (with everything in it)
/// when the case ends.
pub struct Schema {
    pub url: String,
    pub name: String,
}

impl Schema {
    pub fn new(url: &str) -> Schema {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        Schema {
            url: url.to_string(),
            name: format!(
                "lore_test_{}_{}_{nanos}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ),
        }
    }

    pub fn open(&self) -> PostgresStore {
        PostgresStore::open_in_schema(&self.url, &self.name).unwrap()
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        let drop = format!("DROP SCHEMA IF EXISTS \"{}\" CASCADE", self.name);
        let _ = run_sql(&self.url, &drop);
    }
}

/// Runs `sql` on a connection of its own (test setup and cleanup).
pub fn run_sql(url: &str, sql: &str) -> Result<(), tokio_postgres::Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
        let driver = tokio::spawn(connection);
        let done = client.batch_execute(sql).await;
        drop(client);
        let _ = driver.await;
        done
    })
}

/// The highest `column` of `table` in `schema` (0 when it is empty), on
/// a connection of its own.
pub fn newest_in(url: &str, schema: &str, table: &str, column: &str) -> i64 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .unwrap();
        let driver = tokio::spawn(connection);
        let sql = format!("SELECT coalesce(max({column}), 0)::BIGINT FROM \"{schema}\".{table}");
        let newest: i64 = client.query_one(&sql, &[]).await.unwrap().get(0);
        drop(client);
        let _ = driver.await;
        newest
    })
}

fn open() -> Option<(Schema, Box<dyn KnowledgeStore>)> {
    let url = server_url()?;
    let schema = Schema::new(&url);
    let store = schema.open();
    Some((schema, Box::new(store)))
}

contract_suite!(optional open);
