//! Leases and the gateway's file log (see `crate::shared`) in SQLite: one
//! row per lease, rewritten by its holder; the log append-only.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Row, params};

use super::SqliteStore;
use crate::error::StoreError;
use crate::shared::*;

fn lease_of(row: &Row<'_>) -> rusqlite::Result<Lease> {
    Ok(Lease {
        name: row.get(0)?,
        holder: row.get(1)?,
        acquired_ms: row.get(2)?,
        expires_ms: row.get(3)?,
        released: row.get(4)?,
    })
}

/// A file log row read as `seq, origin, written_ms, root, path, hash,
/// chunks`.
pub(super) fn version_of(row: &Row<'_>) -> rusqlite::Result<SharedFileVersion> {
    Ok(SharedFileVersion {
        seq: row.get(0)?,
        origin: row.get(1)?,
        written_ms: row.get(2)?,
        file: SharedFile {
            root: row.get(3)?,
            path: row.get(4)?,
            hash: row.get(5)?,
            chunks: row.get(6)?,
        },
    })
}

pub(super) fn acquire(
    store: &SqliteStore,
    name: &str,
    holder: &str,
    ttl_ms: i64,
) -> Result<LeaseGrant, StoreError> {
    check_lease(name, holder, ttl_ms)?;
    let now = now_ms();
    store.with_writer(|conn| {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        // Taken when free (never held, released or lapsed) or renewed by
        // its holder, who keeps its start.
        let taken = tx
            .prepare_cached(
                "INSERT INTO leases (name, holder, acquired_ms, expires_ms, released)
                 VALUES (?1, ?2, ?3, ?3 + ?4, 0)
                 ON CONFLICT (name) DO UPDATE SET
                     acquired_ms = CASE WHEN leases.holder = excluded.holder
                         AND NOT leases.released AND leases.expires_ms > ?3
                         THEN leases.acquired_ms ELSE excluded.acquired_ms END,
                     holder = excluded.holder, expires_ms = excluded.expires_ms, released = 0
                 WHERE leases.holder = excluded.holder OR leases.released
                     OR leases.expires_ms <= ?3
                 RETURNING name, holder, acquired_ms, expires_ms, released",
            )?
            .query_row(params![name, holder, now, ttl_ms], lease_of)
            .optional()?;
        let grant = match taken {
            Some(lease) => LeaseGrant {
                granted: true,
                lease,
                now_ms: now,
            },
            None => LeaseGrant {
                granted: false,
                lease: tx
                    .prepare_cached(
                        "SELECT name, holder, acquired_ms, expires_ms, released
                         FROM leases WHERE name = ?1",
                    )?
                    .query_row([name], lease_of)?,
                now_ms: now,
            },
        };
        tx.commit()?;
        Ok(grant)
    })
}

pub(super) fn release(store: &SqliteStore, name: &str, holder: &str) -> Result<bool, StoreError> {
    let now = now_ms();
    store.with_writer(|conn| {
        Ok(conn
            .prepare_cached(
                "UPDATE leases SET released = 1, expires_ms = min(expires_ms, ?3)
                 WHERE name = ?1 AND holder = ?2 AND NOT released",
            )?
            .execute(params![name, holder, now])?
            > 0)
    })
}

pub(super) fn list(store: &SqliteStore, prefix: &str) -> Result<Vec<Lease>, StoreError> {
    store.with_reader(|conn| {
        let mut statement = conn.prepare_cached(
            "SELECT name, holder, acquired_ms, expires_ms, released FROM leases
             WHERE substr(name, 1, length(?1)) = ?1 ORDER BY name",
        )?;
        let leases = statement
            .query_map([prefix], lease_of)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(leases)
    })
}

pub(super) fn publish(
    store: &SqliteStore,
    origin: &str,
    files: &[SharedFile],
) -> Result<Published, StoreError> {
    check_files(files)?;
    let now = now_ms();
    store.with_writer(|conn| {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        // The live version of each file published (by the index on root,
        // path, seq).
        let mut live: HashMap<(String, String), Option<String>> = HashMap::new();
        {
            let mut newest = tx.prepare_cached(
                "SELECT hash, chunks IS NULL FROM gateway_files
                 WHERE root = ?1 AND path = ?2 ORDER BY seq DESC LIMIT 1",
            )?;
            for file in files {
                let found: Option<(String, bool)> = newest
                    .query_row(params![file.root, file.path], |row| {
                        Ok((row.get(0)?, row.get(1)?))
                    })
                    .optional()?;
                if let Some((hash, closed)) = found {
                    live.insert(
                        (file.root.clone(), file.path.clone()),
                        (!closed).then_some(hash),
                    );
                }
            }
        }
        let written = moved(files, &live);
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO gateway_files (root, path, hash, chunks, origin, written_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for file in &written {
                insert.execute(params![
                    file.root,
                    file.path,
                    file.hash,
                    file.chunks,
                    origin,
                    now
                ])?;
            }
        }
        let seq: i64 =
            tx.query_row("SELECT coalesce(max(seq), 0) FROM gateway_files", [], |r| {
                r.get(0)
            })?;
        tx.commit()?;
        Ok(Published {
            seq,
            written: written.len(),
        })
    })
}

pub(super) fn since(
    store: &SqliteStore,
    after: i64,
    limit: usize,
) -> Result<Vec<SharedFileVersion>, StoreError> {
    store.with_reader(|conn| {
        let mut statement = conn.prepare_cached(
            "SELECT seq, origin, written_ms, root, path, hash, chunks FROM gateway_files
             WHERE seq > ?1 ORDER BY seq LIMIT ?2",
        )?;
        let rows = statement
            .query_map(params![after, limit as i64], version_of)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })
}

pub(super) fn pending(
    store: &SqliteStore,
    after: i64,
    origin: &str,
) -> Result<std::collections::BTreeMap<String, u64>, StoreError> {
    store.with_reader(|conn| {
        let mut statement = conn.prepare_cached(
            "SELECT root, count(*) FROM gateway_files
             WHERE seq > ?1 AND origin <> ?2 GROUP BY root",
        )?;
        let rows = statement
            .query_map(params![after, origin], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)? as u64))
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    })
}

pub(super) fn live(
    store: &SqliteStore,
    root: &str,
    path: &str,
) -> Result<Option<SharedFileVersion>, StoreError> {
    store.with_reader(|conn| {
        let mut statement = conn.prepare_cached(
            "SELECT seq, origin, written_ms, root, path, hash, chunks FROM gateway_files
             WHERE root = ?1 AND path = ?2 ORDER BY seq DESC LIMIT 1",
        )?;
        let mut rows = statement
            .query_map(params![root, path], version_of)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows.pop())
    })
}
