//! Leases and the gateway's file log (see `crate::shared`), as the SQLite
//! store's (`sqlite/shared.rs`). Lease times are the server's clock, so
//! hosts whose clocks differ agree on when a lease lapses. Publishers
//! queue on one advisory lock, so the log's sequence numbers commit in
//! order and a follower reading "after N" never skips a row committed
//! late.

use std::collections::HashMap;

use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::session::{Session, get, placeholders};
use crate::error::StoreError;
use crate::shared::*;

/// Versions one `INSERT` writes.
const ROWS_PER_INSERT: usize = 500;

/// The server's clock in ms since the epoch.
const NOW_MS: &str = "(extract(epoch from clock_timestamp()) * 1000)::BIGINT";

fn lease_of(row: &Row) -> Result<Lease, StoreError> {
    Ok(Lease {
        name: get(row, 0)?,
        holder: get(row, 1)?,
        acquired_ms: get(row, 2)?,
        expires_ms: get(row, 3)?,
        released: get(row, 4)?,
    })
}

pub(super) fn acquire(
    session: &mut Session,
    name: &str,
    holder: &str,
    ttl_ms: i64,
) -> Result<LeaseGrant, StoreError> {
    check_lease(name, holder, ttl_ms)?;
    let mut tx = session.begin()?;
    let now: i64 = get(&tx.query_one(&format!("SELECT {NOW_MS}"), &[])?, 0)?;
    let taken = tx.query_opt(
        "INSERT INTO leases (name, holder, acquired_ms, expires_ms, released)
         VALUES ($1, $2, $3::BIGINT, $3::BIGINT + $4::BIGINT, false)
         ON CONFLICT (name) DO UPDATE SET
             acquired_ms = CASE WHEN leases.holder = EXCLUDED.holder
                 AND NOT leases.released AND leases.expires_ms > $3
                 THEN leases.acquired_ms ELSE EXCLUDED.acquired_ms END,
             holder = EXCLUDED.holder, expires_ms = EXCLUDED.expires_ms, released = false
         WHERE leases.holder = EXCLUDED.holder OR leases.released OR leases.expires_ms <= $3
         RETURNING name, holder, acquired_ms, expires_ms, released",
        &[&name, &holder, &now, &ttl_ms],
    )?;
    let grant = match taken {
        Some(row) => LeaseGrant {
            granted: true,
            lease: lease_of(&row)?,
            now_ms: now,
        },
        None => {
            let row = tx.query_one(
                "SELECT name, holder, acquired_ms, expires_ms, released
                 FROM leases WHERE name = $1",
                &[&name],
            )?;
            LeaseGrant {
                granted: false,
                lease: lease_of(&row)?,
                now_ms: now,
            }
        }
    };
    tx.commit()?;
    Ok(grant)
}

pub(super) fn release(session: &mut Session, name: &str, holder: &str) -> Result<bool, StoreError> {
    Ok(session.execute(
        &format!(
            "UPDATE leases SET released = true, expires_ms = least(expires_ms, {NOW_MS})
             WHERE name = $1 AND holder = $2 AND NOT released"
        ),
        &[&name, &holder],
    )? > 0)
}

pub(super) fn list(session: &mut Session, prefix: &str) -> Result<Vec<Lease>, StoreError> {
    let rows = session.query(
        "SELECT name, holder, acquired_ms, expires_ms, released FROM leases
         WHERE left(name, length($1)) = $1 ORDER BY name",
        &[&prefix],
    )?;
    rows.iter().map(lease_of).collect()
}

pub(super) fn publish(
    session: &mut Session,
    origin: &str,
    files: &[SharedFile],
) -> Result<Published, StoreError> {
    check_files(files)?;
    let mut tx = session.begin()?;
    let key = crate::cursor::fingerprint(&["lore-store gateway_files"]) as i64;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&key])?;
    // The live version of each file published (by the index on root,
    // path, seq: a run over a few files reads only theirs).
    let mut by_root: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for file in files {
        by_root.entry(&file.root).or_default().push(&file.path);
    }
    let mut live: HashMap<(String, String), Option<String>> = HashMap::new();
    for (root, paths) in by_root {
        let rows = tx.query(
            "SELECT DISTINCT ON (path) path, hash, chunks IS NULL FROM gateway_files
             WHERE root = $1 AND path = ANY($2) ORDER BY path, seq DESC",
            &[&root, &paths],
        )?;
        for row in &rows {
            let (path, hash, closed): (String, String, bool) =
                (get(row, 0)?, get(row, 1)?, get(row, 2)?);
            live.insert((root.to_string(), path), (!closed).then_some(hash));
        }
    }
    let written = moved(files, &live);
    let now: i64 = get(&tx.query_one(&format!("SELECT {NOW_MS}"), &[])?, 0)?;
    // Some hundreds of rows a statement (a first ingest writes every file).
    for page in written.chunks(ROWS_PER_INSERT) {
        let rows: Vec<[&(dyn ToSql + Sync); 6]> = page
            .iter()
            .map(|f| -> [&(dyn ToSql + Sync); 6] {
                [&f.root, &f.path, &f.hash, &f.chunks, &origin, &now]
            })
            .collect();
        tx.insert_rows(
            "INSERT INTO gateway_files (root, path, hash, chunks, origin, written_ms) VALUES",
            |n| placeholders(n, 6),
            &rows,
        )?;
    }
    let seq: i64 = get(
        &tx.query_one(
            "SELECT coalesce(max(seq), 0)::BIGINT FROM gateway_files",
            &[],
        )?,
        0,
    )?;
    tx.commit()?;
    Ok(Published {
        seq,
        written: written.len(),
    })
}

pub(super) fn since(
    session: &mut Session,
    after: i64,
    limit: usize,
) -> Result<Vec<SharedFileVersion>, StoreError> {
    let rows = session.query(
        "SELECT seq, origin, written_ms, root, path, hash, chunks FROM gateway_files
         WHERE seq > $1 ORDER BY seq LIMIT $2",
        &[&after, &(limit as i64)],
    )?;
    rows.iter().map(version_of).collect()
}

pub(super) fn pending(
    session: &mut Session,
    after: i64,
    origin: &str,
) -> Result<std::collections::BTreeMap<String, u64>, StoreError> {
    let rows = session.query(
        "SELECT root, count(*) FROM gateway_files
         WHERE seq > $1 AND origin <> $2 GROUP BY root",
        &[&after, &origin],
    )?;
    rows.iter()
        .map(|row| {
            let root: String = get(row, 0)?;
            let count: i64 = get(row, 1)?;
            Ok((root, count as u64))
        })
        .collect()
}

pub(super) fn live(
    session: &mut Session,
    root: &str,
    path: &str,
) -> Result<Option<SharedFileVersion>, StoreError> {
    let rows = session.query(
        "SELECT seq, origin, written_ms, root, path, hash, chunks FROM gateway_files
         WHERE root = $1 AND path = $2 ORDER BY seq DESC LIMIT 1",
        &[&root, &path],
    )?;
    rows.first().map(version_of).transpose()
}

fn version_of(row: &Row) -> Result<SharedFileVersion, StoreError> {
    Ok(SharedFileVersion {
        seq: get(row, 0)?,
        origin: get(row, 1)?,
        written_ms: get(row, 2)?,
        file: SharedFile {
            root: get(row, 3)?,
            path: get(row, 4)?,
            hash: get(row, 5)?,
            chunks: get(row, 6)?,
        },
    })
}
