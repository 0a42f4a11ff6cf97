//! Moving a store from SQLite to PostgreSQL: every row of an SQLite store
//! file copied into an empty PostgreSQL store exactly as it was — the
//! same transaction ids, actors, summaries and times, every entry and
//! triple version with its id and validity, the cached vectors, recorded
//! searches, feedback, ingest runs and the gateway's file log — so
//! history, undo and as-of reads answer the same after the move, and the
//! next write continues where the file ended: every counter and sequence
//! goes on after the highest copied number, so a server that has read the
//! file log "up to N" misses nothing written after the move. Leases and
//! MCP task records are not copied: they belong to the processes running
//! now, and the new store starts with none. The opposite of a backup
//! (`backup.rs` writing through `sqlite/restore.rs`); a PostgreSQL store
//! is restored from its backup file by moving the file into a new schema.
//!
//! - **One snapshot.** The file is read inside one read transaction
//!   (`sqlite/snapshot.rs`), so a process writing to it meanwhile neither
//!   tears the copy nor waits for it: the copy holds everything up to the
//!   snapshot's newest transaction, and the report says which.
//! - **One transaction.** Everything is written in one PostgreSQL
//!   transaction that first locks the store's tables (writers in other
//!   processes wait for it, readers see the empty store until it commits)
//!   and refuses a store that holds anything: two histories are never
//!   merged. A refusal or a failure leaves the target as it was.
//! - **Verified before it commits.** The copy is read back inside that
//!   transaction through the store's own reads and compared with the
//!   snapshot's answers (`verify.rs`); any difference rolls everything
//!   back and names the first one.

mod verify;

use std::path::Path;

use tokio_postgres::types::ToSql;

use super::PostgresStore;
use super::session::{Session, placeholders};
use super::versions::{EntryRow, TripleRow, insert_entry_versions, insert_triple_versions};
use crate::error::StoreError;
use crate::model::*;
use crate::shared::SharedFileVersion;
use crate::sqlite::snapshot::{CachedVector, Snapshot, StoredRun};

/// The most rows one `INSERT` writes.
const STATEMENT_ROWS: usize = 200;

/// About the most bytes one `INSERT` sends (entry versions hold up to
/// 1 MiB each).
const STATEMENT_BYTES: usize = 4 * 1024 * 1024;

/// What [`migrate_sqlite_to_postgres`] copied.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct MigrationReport {
    /// The newest transaction copied: the target's head, and the state of
    /// the SQLite file the copy holds (later writes to the file are not
    /// in it).
    pub head_tx_id: TxId,
    /// Transactions copied.
    pub transactions: i64,
    /// Entry versions copied (tombstones included).
    pub entry_versions: i64,
    /// Triple versions copied (tombstones included).
    pub triple_versions: i64,
    /// Cached vectors copied.
    pub vectors: i64,
    /// Recorded searches copied.
    pub searches: i64,
    /// Pieces of feedback copied.
    pub feedback: i64,
    /// `memory_ingest` runs copied.
    pub ingest_runs: i64,
    /// Versions of the gateway's file log copied.
    pub shared_files: i64,
}

/// Copies the SQLite store file `source` into the PostgreSQL store
/// `target`, which must be empty, exactly as it is (see the module
/// documentation): one snapshot of the file, one transaction in the
/// target, compared with the file before it commits.
///
/// Refuses, writing nothing: a target that holds anything (`conflict`:
/// migrate into a new schema, or drop this one), a file that is not a Lore
/// store (`invalid_request`), a store of another schema version (a newer
/// one needs a newer Lore; an older one is brought up to date by opening
/// it once with this Lore), a damaged file, and text PostgreSQL cannot
/// hold (the NUL character). The file is never written to.
///
/// ```no_run
/// use lore_store::{PostgresStore, migrate_sqlite_to_postgres};
/// let target = PostgresStore::open("postgres://lore@db.internal:5432/knowledge").unwrap();
/// let report = migrate_sqlite_to_postgres(".lore/store.db".as_ref(), &target).unwrap();
/// println!("copied {} transactions", report.transactions);
/// ```
pub fn migrate_sqlite_to_postgres(
    source: &Path,
    target: &PostgresStore,
) -> Result<MigrationReport, StoreError> {
    let snapshot = Snapshot::open(source)?;
    let health = snapshot.check()?;
    if !health.integrity_ok {
        return Err(StoreError::Unavailable(format!(
            "{} fails SQLite's integrity check, so it cannot be copied as it is; restore it from a backup (or repair it with sqlite3's .recover), then migrate; nothing was written",
            source.display()
        )));
    }
    target
        .sessions
        .with(|session| copy(&snapshot, session, target.schema()))
}

/// The copy, in one transaction of `session`.
fn copy(
    source: &Snapshot,
    session: &mut Session,
    schema: &str,
) -> Result<MigrationReport, StoreError> {
    let mut tx = session.begin()?;
    tx.batch(
        "LOCK TABLE counters, transactions, entry_versions, triple_versions, embeddings,
             gateway_searches, gateway_feedback, ingest_runs, gateway_files IN EXCLUSIVE MODE",
    )?;
    refuse_unless_empty(&mut tx, schema)?;

    let report = MigrationReport {
        head_tx_id: source.head()?,
        transactions: copy_transactions(source, &mut tx)?,
        entry_versions: copy_entry_versions(source, &mut tx)?,
        triple_versions: copy_triple_versions(source, &mut tx)?,
        vectors: copy_vectors(source, &mut tx)?,
        searches: copy_searches(source, &mut tx)?,
        feedback: copy_feedback(source, &mut tx)?,
        ingest_runs: copy_ingest_runs(source, &mut tx)?,
        shared_files: copy_shared_files(source, &mut tx)?,
    };

    continue_counters(&mut tx, report.head_tx_id)?;
    verify::same_answers(source, &mut tx, &report)?;
    if report.head_tx_id > 0 {
        let channel = tx.channel().to_string();
        tx.execute(
            "SELECT pg_notify($1, $2)",
            &[&channel, &report.head_tx_id.to_string()],
        )?;
    }
    tx.commit()?;
    Ok(report)
}

/// Copies the transaction log; returns how many transactions it holds.
fn copy_transactions(source: &Snapshot, tx: &mut Session) -> Result<i64, StoreError> {
    stream(
        tx,
        |each| {
            source.each_transaction(|t| {
                refuse_nul(
                    || format!("transaction {}", t.tx_id),
                    [&t.at, &t.actor, &t.kind, &t.summary],
                )?;
                each(t)
            })
        },
        |t| 64 + t.actor.len() + t.summary.len(),
        insert_transactions,
    )
}

/// Copies every entry version with its row id and validity; returns how
/// many there are.
fn copy_entry_versions(source: &Snapshot, tx: &mut Session) -> Result<i64, StoreError> {
    stream(
        tx,
        |each| {
            source.each_entry_version(|(vid, entry, to_tx)| {
                let e = &entry;
                refuse_nul(
                    || format!("entry {} (version {})", e.id, e.version),
                    [&e.id, &e.topic, &e.content, &e.recorded_at, &e.updated_at]
                        .into_iter()
                        .chain(&e.source)
                        .chain(&e.tags),
                )?;
                each(EntryRow::new(vid, entry, to_tx))
            })
        },
        EntryRow::size,
        insert_entry_versions,
    )
}

/// Copies every triple version with its row id and validity; returns how
/// many there are.
fn copy_triple_versions(source: &Snapshot, tx: &mut Session) -> Result<i64, StoreError> {
    stream(
        tx,
        |each| {
            source.each_triple_version(|(vid, triple, to_tx)| {
                let t = &triple;
                refuse_nul(
                    || format!("triple {} (version {})", t.id, t.version),
                    [&t.id, &t.subject, &t.predicate, &t.object],
                )?;
                each(TripleRow::new(vid, triple, to_tx))
            })
        },
        TripleRow::size,
        insert_triple_versions,
    )
}

/// Copies the embedding cache; returns how many vectors it holds.
fn copy_vectors(source: &Snapshot, tx: &mut Session) -> Result<i64, StoreError> {
    stream(
        tx,
        |each| {
            source.each_vector(|v| {
                refuse_nul(
                    || format!("the cached vector {} of model {}", v.hash, v.model),
                    [&v.model, &v.hash, &v.created_at],
                )?;
                each(v)
            })
        },
        |v| 64 + v.vector.len(),
        insert_vectors,
    )
}

/// Copies the recorded searches with their numbers; returns how many
/// there are.
fn copy_searches(source: &Snapshot, tx: &mut Session) -> Result<i64, StoreError> {
    stream(
        tx,
        |each| {
            source.each_search(|(seq, s)| {
                refuse_nul(
                    || format!("recorded search {}", s.request_id),
                    [&s.request_id, &s.query, &s.created_at]
                        .into_iter()
                        .chain(&s.chunk_ids),
                )?;
                each((seq, s))
            })
        },
        |(_, s)| 64 + s.query.len() + s.chunk_ids.iter().map(String::len).sum::<usize>(),
        insert_searches,
    )
}

/// Copies the feedback with its ids; returns how many pieces there are.
fn copy_feedback(source: &Snapshot, tx: &mut Session) -> Result<i64, StoreError> {
    stream(
        tx,
        |each| {
            source.each_feedback(|f| {
                let row = FeedbackRow::new(f);
                let f = &row.feedback;
                refuse_nul(
                    || format!("feedback {}", f.id),
                    [
                        &f.request_id,
                        &f.query,
                        &f.chunk_id,
                        &f.voter,
                        &f.created_at,
                    ]
                    .into_iter()
                    .chain(&f.note)
                    .chain(&row.context),
                )?;
                each(row)
            })
        },
        |row| 128 + row.feedback.query.len() + row.context.as_deref().map_or(0, str::len),
        insert_feedback,
    )
}

/// Copies the `memory_ingest` runs with their numbers; returns how many
/// there are.
fn copy_ingest_runs(source: &Snapshot, tx: &mut Session) -> Result<i64, StoreError> {
    stream(
        tx,
        |each| {
            source.each_ingest_run(|run| {
                refuse_nul(
                    || format!("ingest run {}", run.run_id),
                    [&run.run_id, &run.status, &run.record],
                )?;
                each(run)
            })
        },
        |run| 64 + run.record.len(),
        insert_ingest_runs,
    )
}

/// Copies the gateway's file log with its sequence numbers; returns how
/// many versions it holds.
fn copy_shared_files(source: &Snapshot, tx: &mut Session) -> Result<i64, StoreError> {
    stream(
        tx,
        |each| {
            source.each_shared_file(|version| {
                let (v, f) = (&version, &version.file);
                refuse_nul(
                    || format!("the file log's version {} ({}/{})", v.seq, f.root, f.path),
                    [&v.origin, &f.root, &f.path, &f.hash]
                        .into_iter()
                        .chain(&f.chunks),
                )?;
                each(version)
            })
        },
        |v| 128 + v.file.path.len() + v.file.chunks.as_deref().map_or(0, str::len),
        insert_shared_files,
    )
}

/// Refuses a target that holds anything: a migration never merges two
/// histories, and cached rows would collide with the copied ones.
fn refuse_unless_empty(tx: &mut Session, schema: &str) -> Result<(), StoreError> {
    let row = tx.query_one(
        "SELECT (SELECT coalesce(max(tx_id), 0) FROM transactions),
                (SELECT count(*) FROM embeddings), (SELECT count(*) FROM gateway_searches),
                (SELECT count(*) FROM gateway_feedback), (SELECT count(*) FROM ingest_runs),
                (SELECT count(*) FROM gateway_files)",
        &[],
    )?;
    let head: TxId = super::session::get(&row, 0)?;
    let mut held = Vec::new();
    if head > 0 {
        held.push(format!("transactions 1 to {head}"));
    }
    for (column, what) in [
        (1, "cached vectors"),
        (2, "recorded searches"),
        (3, "feedback"),
        (4, "ingest runs"),
        (5, "versions of the gateway's file log"),
    ] {
        let count: i64 = super::session::get(&row, column)?;
        if count > 0 {
            held.push(format!("{count} {what}"));
        }
    }
    if held.is_empty() {
        return Ok(());
    }
    Err(StoreError::Conflict {
        message: format!(
            "the PostgreSQL store in schema {schema} is not empty (it holds {}), and a migration never merges two histories; migrate into a new schema, or drop this one (DROP SCHEMA {schema} CASCADE) if nothing in it is needed; nothing was written",
            held.join(", ")
        ),
        ids: Vec::new(),
    })
}

/// Refuses text PostgreSQL cannot hold, naming the row it is in.
fn refuse_nul<'a>(
    what: impl FnOnce() -> String,
    texts: impl IntoIterator<Item = &'a String>,
) -> Result<(), StoreError> {
    if texts.into_iter().any(|t| t.contains('\0')) {
        return Err(StoreError::Refused(format!(
            "{} holds a NUL character (\\0), which PostgreSQL text cannot hold, so this store cannot move to PostgreSQL as it is (its history keeps that text); nothing was written",
            what()
        )));
    }
    Ok(())
}

/// Feeds the rows `rows` produces to `insert`, several per statement (at
/// most [`STATEMENT_ROWS`], or about [`STATEMENT_BYTES`] as `size`
/// counts them); returns how many there were.
fn stream<R>(
    tx: &mut Session,
    rows: impl FnOnce(&mut dyn FnMut(R) -> Result<(), StoreError>) -> Result<(), StoreError>,
    size: fn(&R) -> usize,
    insert: fn(&mut Session, &[R]) -> Result<(), StoreError>,
) -> Result<i64, StoreError> {
    let (mut batch, mut bytes, mut count) = (Vec::new(), 0, 0);
    rows(&mut |row| {
        bytes += size(&row);
        batch.push(row);
        count += 1;
        if batch.len() >= STATEMENT_ROWS || bytes >= STATEMENT_BYTES {
            insert(tx, &batch)?;
            batch.clear();
            bytes = 0;
        }
        Ok(())
    })?;
    insert(tx, &batch)?;
    Ok(count)
}

fn insert_transactions(tx: &mut Session, rows: &[Transaction]) -> Result<(), StoreError> {
    let params: Vec<_> = rows
        .iter()
        .map(|t| -> [&(dyn ToSql + Sync); 6] {
            [
                &t.tx_id,
                &t.at,
                &t.actor,
                &t.kind,
                &t.summary,
                &t.reverts_tx_id,
            ]
        })
        .collect();
    tx.insert_rows(
        "INSERT INTO transactions (tx_id, at, actor, kind, summary, reverts_tx_id) VALUES",
        |n| placeholders(n, 6),
        &params,
    )
}

fn insert_vectors(tx: &mut Session, rows: &[CachedVector]) -> Result<(), StoreError> {
    let params: Vec<_> = rows
        .iter()
        .map(|v| -> [&(dyn ToSql + Sync); 4] { [&v.model, &v.hash, &v.vector, &v.created_at] })
        .collect();
    tx.insert_rows(
        "INSERT INTO embeddings (model, hash, vector, created_at) VALUES",
        |n| placeholders(n, 4),
        &params,
    )
}

fn insert_searches(tx: &mut Session, rows: &[(i64, SearchRecord)]) -> Result<(), StoreError> {
    let params: Vec<_> = rows
        .iter()
        .map(|(seq, s)| -> [&(dyn ToSql + Sync); 5] {
            [seq, &s.request_id, &s.query, &s.chunk_ids, &s.created_at]
        })
        .collect();
    tx.insert_rows(
        "INSERT INTO gateway_searches (seq, request_id, query, chunk_ids, created_at) VALUES",
        |n| placeholders(n, 5),
        &params,
    )
}

/// A piece of feedback with its columns as PostgreSQL holds them.
struct FeedbackRow {
    feedback: Feedback,
    vote: i16,
    context: Option<String>,
}

impl FeedbackRow {
    fn new(feedback: Feedback) -> FeedbackRow {
        FeedbackRow {
            vote: i16::from(feedback.vote),
            context: feedback
                .context
                .as_ref()
                .map(|c| serde_json::Value::Object(c.clone()).to_string()),
            feedback,
        }
    }
}

fn insert_feedback(tx: &mut Session, rows: &[FeedbackRow]) -> Result<(), StoreError> {
    let params: Vec<_> = rows
        .iter()
        .map(|row| -> [&(dyn ToSql + Sync); 9] {
            let f = &row.feedback;
            [
                &f.id,
                &f.request_id,
                &f.query,
                &f.chunk_id,
                &row.vote,
                &f.note,
                &row.context,
                &f.voter,
                &f.created_at,
            ]
        })
        .collect();
    tx.insert_rows(
        "INSERT INTO gateway_feedback (id, request_id, query, chunk_id, vote, note, context, voter, created_at) VALUES",
        |n| placeholders(n, 9),
        &params,
    )
}

fn insert_ingest_runs(tx: &mut Session, rows: &[StoredRun]) -> Result<(), StoreError> {
    let params: Vec<_> = rows
        .iter()
        .map(|r| -> [&(dyn ToSql + Sync); 4] { [&r.seq, &r.run_id, &r.status, &r.record] })
        .collect();
    tx.insert_rows(
        "INSERT INTO ingest_runs (seq, run_id, status, record) VALUES",
        |n| placeholders(n, 4),
        &params,
    )
}

fn insert_shared_files(tx: &mut Session, rows: &[SharedFileVersion]) -> Result<(), StoreError> {
    let params: Vec<_> = rows
        .iter()
        .map(|v| -> [&(dyn ToSql + Sync); 7] {
            [
                &v.seq,
                &v.file.root,
                &v.file.path,
                &v.file.hash,
                &v.file.chunks,
                &v.origin,
                &v.written_ms,
            ]
        })
        .collect();
    tx.insert_rows(
        "INSERT INTO gateway_files (seq, root, path, hash, chunks, origin, written_ms) VALUES",
        |n| placeholders(n, 7),
        &params,
    )
}

/// Sets the counters and sequences to go on after the copied rows: the
/// next transaction is `head + 1`, the next feedback, search, run and
/// file log numbers follow the copied ones (entry and triple ids follow
/// the highest version row by themselves).
fn continue_counters(tx: &mut Session, head: TxId) -> Result<(), StoreError> {
    tx.execute("UPDATE counters SET value = $1 WHERE name = 'tx'", &[&head])?;
    tx.execute(
        "UPDATE counters SET value = (SELECT coalesce(max(id), 0) FROM gateway_feedback)
         WHERE name = 'feedback'",
        &[],
    )?;
    for table in ["gateway_searches", "ingest_runs", "gateway_files"] {
        tx.query(
            &format!(
                "SELECT setval(pg_get_serial_sequence('{table}', 'seq'), max(seq)) FROM {table}
                 HAVING count(*) > 0"
            ),
            &[],
        )?;
    }
    Ok(())
}
