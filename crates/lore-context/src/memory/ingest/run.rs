//! A run's record kept true to the store.
//!
//! The store's transaction log is the truth about what a run wrote: the
//! run's transaction carries its stamp ([`stamp`], the start of its
//! summary) in the same commit as its pages. So a run whose process died
//! is settled from the log ([`settle`]): `done` with the transaction that
//! carries its stamp, or `error`/`interrupted` when none does (then it
//! wrote nothing). An undo of that transaction (by run or by id) is read
//! from the log too ([`undone_by`]).
//!
//! A run can be cancelled until it starts writing, never after: the
//! process's gates ([`Gates`]) hold, per run it runs, which of the two
//! came first.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use lore_core::time::UtcMillis;
use lore_store::{IngestRunRecord, KnowledgeStore, StoreError, TxId};

use super::{RunError, RunReport, STALE_AFTER_SECONDS};

/// The start of the summary of the transaction a run writes: how the log
/// names the run.
pub fn stamp(run_id: &str) -> String {
    format!("memory_ingest {run_id}:")
}

/// `record` as the store says it ended, saved when it changed: a run
/// still `running` whose process is gone is `done` with the transaction
/// carrying its stamp, else `error`/`interrupted` (nothing was written).
/// Any other record is answered as it is.
pub fn settle(
    store: &dyn KnowledgeStore,
    mut record: IngestRunRecord,
) -> Result<IngestRunRecord, StoreError> {
    if record.status != "running" || !abandoned(&record) {
        return Ok(record);
    }
    let mut report: RunReport = serde_json::from_value(record.report.clone()).unwrap_or_default();
    match store.transaction_stamped(&stamp(&record.run_id))? {
        Some(tx) => {
            report.warnings.push(format!(
                "the run's process (pid {}) ended after its transaction {tx} committed; this record was completed from the transaction log",
                record.pid
            ));
            record.status = "done".into();
            record.stage = "done".into();
            record.tx_id = Some(tx);
        }
        None => {
            report.error = Some(RunError {
                code: "interrupted".into(),
                message: format!(
                    "the run stopped at stage {} when its process (pid {}) ended, before it wrote anything (no transaction carries it): ingest the note again",
                    record.stage, record.pid
                ),
            });
            record.status = "error".into();
            record.stage = "error".into();
        }
    }
    record.finished_at = Some(UtcMillis::now().to_iso());
    record.report = serde_json::to_value(&report).unwrap_or_default();
    store.save_ingest_run(&record)?;
    Ok(record)
}

/// The transaction that took `tx_id` back, when it stands undone: an undo
/// of it that was not itself undone (an undo of the undo redoes).
pub fn undone_by(store: &dyn KnowledgeStore, tx_id: TxId) -> Result<Option<TxId>, StoreError> {
    let mut undone = None;
    let mut current = tx_id;
    // Each step is a later transaction, so the walk ends; the cap only
    // bounds the reads of a pathological chain of undos.
    for _ in 0..1_000 {
        let Some(next) = store.reverted_by(current)? else {
            break;
        };
        undone = match undone {
            None => Some(next),
            Some(_) => None,
        };
        current = next;
    }
    Ok(undone)
}

/// Whether a running run's process is gone: it is this process's and no
/// longer runs here, or another process's that is not alive (Linux: its
/// pid is gone or another program) or has not reported for
/// [`STALE_AFTER_SECONDS`].
pub(super) fn abandoned(record: &IngestRunRecord) -> bool {
    if record.pid == std::process::id() {
        // A restarted server may get its predecessor's pid (the first
        // process of a container): this process knows its own runs.
        return !gates().is_open(&record.run_id);
    }
    let stale = UtcMillis::parse_iso(&record.heartbeat_at)
        .is_none_or(|at| at.seconds_ago() > STALE_AFTER_SECONDS);
    if cfg!(target_os = "linux") {
        let alive = std::fs::read_to_string(format!("/proc/{}/cmdline", record.pid))
            .is_ok_and(|cmd| cmd.contains("lore"));
        !alive || stale
    } else {
        stale
    }
}

/// What asking to cancel a run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelOutcome {
    /// The run had not started writing: it writes nothing and ends
    /// `cancelled`.
    Stopped,
    /// The run is writing or has ended: it runs to its end.
    TooLate,
}

const OPEN: u8 = 0;
const WRITING: u8 = 1;
const CANCELLED: u8 = 2;

/// Per run of this process: open, writing or cancelled, whichever the run
/// (entering its write) or a cancellation reached first.
#[derive(Default)]
pub(super) struct Gates {
    runs: Mutex<HashMap<String, Arc<AtomicU8>>>,
}

/// This process's gates: whether a run is alive is a fact about the
/// process, whichever ingest service started it.
pub(super) fn gates() -> &'static Gates {
    static GATES: OnceLock<Gates> = OnceLock::new();
    GATES.get_or_init(Gates::default)
}

impl Gates {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<AtomicU8>>> {
        self.runs.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn get(&self, run_id: &str) -> Option<Arc<AtomicU8>> {
        self.map().get(run_id).cloned()
    }

    /// A run starts in this process.
    pub(super) fn open(&self, run_id: &str) {
        self.map()
            .insert(run_id.to_string(), Arc::new(AtomicU8::new(OPEN)));
    }

    /// A run of this process ended.
    pub(super) fn close(&self, run_id: &str) {
        self.map().remove(run_id);
    }

    /// Whether the run is running in this process.
    fn is_open(&self, run_id: &str) -> bool {
        self.map().contains_key(run_id)
    }

    /// The run is about to write: `false` when it was cancelled first.
    pub(super) fn enter_writing(&self, run_id: &str) -> bool {
        self.get(run_id).is_none_or(|gate| {
            match gate.compare_exchange(OPEN, WRITING, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => true,
                Err(state) => state == WRITING,
            }
        })
    }

    /// Whether the run was cancelled (before it wrote).
    pub(super) fn was_cancelled(&self, run_id: &str) -> bool {
        self.get(run_id)
            .is_some_and(|gate| gate.load(Ordering::SeqCst) == CANCELLED)
    }

    /// Cancels the run unless it has started writing; `None` when it does
    /// not run in this process.
    pub(super) fn cancel(&self, run_id: &str) -> Option<CancelOutcome> {
        let gate = self.get(run_id)?;
        Some(
            match gate.compare_exchange(OPEN, CANCELLED, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) | Err(CANCELLED) => CancelOutcome::Stopped,
                Err(_) => CancelOutcome::TooLate,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancel_and_a_write_exclude_each_other_whichever_comes_first() {
        let gates = Gates::default();
        gates.open("run-a");
        assert_eq!(gates.cancel("run-a"), Some(CancelOutcome::Stopped));
        assert!(!gates.enter_writing("run-a"));
        assert!(gates.was_cancelled("run-a"));
        assert_eq!(gates.cancel("run-a"), Some(CancelOutcome::Stopped));

        gates.open("run-b");
        assert!(gates.enter_writing("run-b"));
        assert_eq!(gates.cancel("run-b"), Some(CancelOutcome::TooLate));
        assert!(!gates.was_cancelled("run-b"));

        gates.close("run-b");
        assert_eq!(gates.cancel("run-b"), None);
        // A run this process does not run is never held back.
        assert!(gates.enter_writing("run-elsewhere"));
    }
}
