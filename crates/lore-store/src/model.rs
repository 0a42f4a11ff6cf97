//! What the store holds and what its operations take and return.
//!
//! Every type here is part of a public contract (the `memory` toolset and
//! `lore memory` print them), so field names never change; new fields may
//! be added.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::StoreError;

/// A transaction id: positive, strictly increasing, never reused.
pub type TxId = i64;

/// What kind of knowledge an entry is. Memory notes come from agents and
/// users; wiki pages and documents are written by later toolsets through the
/// same store, so they share history, undo and as-of reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// A remembered fact.
    Note,
    /// A wiki page.
    Wiki,
    /// An ingested document.
    Document,
    /// A semantic-layer source file (`semantic-layer/<connection>/*.yaml`).
    Model,
}

impl EntryKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Note => "note",
            EntryKind::Wiki => "wiki",
            EntryKind::Document => "document",
            EntryKind::Model => "model",
        }
    }

    /// Parses a stored name.
    pub fn parse(text: &str) -> Option<EntryKind> {
        match text {
            "note" => Some(EntryKind::Note),
            "wiki" => Some(EntryKind::Wiki),
            "document" => Some(EntryKind::Document),
            "model" => Some(EntryKind::Model),
            _ => None,
        }
    }
}

/// One version of a knowledge entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Entry {
    /// Stable id such as `e-42`.
    pub id: String,
    /// What the entry is about; `query` matches it by prefix (`deployment`
    /// finds `deployment rollback`).
    pub topic: String,
    /// The remembered text.
    pub content: String,
    /// How sure the writer was, 0 to 1.
    pub confidence: f64,
    /// Lower-case labels.
    pub tags: Vec<String>,
    /// Where the fact came from (a URL, a file, a person), if given.
    pub source: Option<String>,
    /// note, wiki or document.
    pub kind: EntryKind,
    /// When the entry was first stored (ISO-8601 UTC).
    pub recorded_at: String,
    /// When this version was written (ISO-8601 UTC).
    pub updated_at: String,
    /// 1 for the first version, +1 for every change; pass it as
    /// `expected_version` to update safely.
    pub version: i64,
    /// The transaction that wrote this version.
    pub tx_id: TxId,
    /// True only for the tombstone version a delete writes (seen in history).
    #[serde(default, skip_serializing_if = "is_false")]
    pub deleted: bool,
}

/// One version of a graph triple `subject —predicate→ object`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Triple {
    /// Stable id such as `t-7`; pass it to `delete` to remove the relation.
    pub id: String,
    /// The node the relation starts from.
    pub subject: String,
    /// The relation's name, e.g. `depends_on`.
    pub predicate: String,
    /// The node the relation points to.
    pub object: String,
    /// How sure the writer was, 0 to 1.
    pub confidence: f64,
    /// Free-form attributes of the relation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<serde_json::Map<String, serde_json::Value>>,
    /// 1 for the first version, +1 for every change.
    pub version: i64,
    /// The transaction that wrote this version.
    pub tx_id: TxId,
    /// True only for the tombstone version a delete writes (seen in history).
    #[serde(default, skip_serializing_if = "is_false")]
    pub deleted: bool,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// One committed transaction of the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Transaction {
    /// The transaction's id.
    pub tx_id: TxId,
    /// When it committed (ISO-8601 UTC).
    pub at: String,
    /// Who wrote it: `mcp`, `cli`, or the name a caller gave.
    pub actor: String,
    /// store, update, delete, relate, unrelate or undo.
    pub kind: String,
    /// One line saying what changed.
    pub summary: String,
    /// For an undo: the transaction it reverted.
    pub reverts_tx_id: Option<TxId>,
    /// The entries and triples it changed (at most [`CHANGED_IDS_CAP`]).
    pub changed_ids: Vec<String>,
    /// True when `changed_ids` was cut at the cap.
    #[serde(default, skip_serializing_if = "is_false")]
    pub changed_ids_truncated: bool,
}

/// How many changed ids a transaction record lists before it is cut.
pub const CHANGED_IDS_CAP: usize = 100;

/// Input of [`crate::KnowledgeStore::store`].
#[derive(Debug, Clone, Default)]
pub struct NewEntry {
    /// Required, at most 200 characters.
    pub topic: String,
    /// Required, at most 64 KiB for a note, 1 MiB for the kinds mirrored
    /// as files (wiki pages, semantic-layer sources, documents).
    pub content: String,
    /// 0 to 1; 1 when not given.
    pub confidence: Option<f64>,
    /// Labels; trimmed, lower-cased, duplicates dropped.
    pub tags: Vec<String>,
    /// Where the fact came from.
    pub source: Option<String>,
    /// note when not given.
    pub kind: Option<EntryKind>,
}

/// One change in a [`crate::KnowledgeStore::put_many`]: the live entry of
/// one kind that a topic names is written (or removed).
#[derive(Debug, Clone, Default)]
pub struct TopicWrite {
    /// The entry: its kind and topic say which one; for a removal only
    /// they count.
    pub entry: NewEntry,
    /// Refuse the whole batch unless the live entry is at this version
    /// (0: must not exist).
    pub expected_version: Option<i64>,
    /// Delete the live entry (nothing when there is none) instead of
    /// writing it.
    pub remove: bool,
}

/// What one [`TopicWrite`] did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TopicWritten {
    /// The topic as written.
    pub topic: String,
    /// The live entry afterwards (`None` when removed or never there).
    pub entry: Option<Entry>,
    /// False when this write changed nothing.
    pub changed: bool,
}

/// What a [`crate::KnowledgeStore::put_many`] did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BatchWritten {
    /// The transaction holding every change, or the newest transaction
    /// when nothing changed.
    pub tx_id: TxId,
    /// False when no write changed anything (no transaction was written).
    pub changed: bool,
    /// One outcome per write, in the order given.
    pub items: Vec<TopicWritten>,
}

/// A relation named by its three parts (what
/// [`crate::KnowledgeStore::relate_many`] removes).
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub struct TripleKey {
    /// The start node.
    pub subject: String,
    /// The relation.
    pub predicate: String,
    /// The end node.
    pub object: String,
}

/// What a [`crate::KnowledgeStore::relate_many`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RelateManyWritten {
    /// The transaction holding every change, or the newest transaction
    /// when nothing changed.
    pub tx_id: TxId,
    /// False when nothing changed (no transaction was written).
    pub changed: bool,
    /// Relations added or changed.
    pub related: usize,
    /// Relations removed.
    pub unrelated: usize,
}

/// Input of [`crate::KnowledgeStore::update`]: the fields to change.
#[derive(Debug, Clone, Default)]
pub struct EntryPatch {
    /// New topic.
    pub topic: Option<String>,
    /// New content.
    pub content: Option<String>,
    /// New confidence.
    pub confidence: Option<f64>,
    /// New tags (replace the old ones).
    pub tags: Option<Vec<String>>,
    /// New source.
    pub source: Option<String>,
    /// Refuse with `conflict` unless the current version is this one.
    pub expected_version: Option<i64>,
}

/// Input of [`crate::KnowledgeStore::relate`].
#[derive(Debug, Clone, Default)]
pub struct NewTriple {
    /// The start node.
    pub subject: String,
    /// The relation.
    pub predicate: String,
    /// The end node.
    pub object: String,
    /// 0 to 1; 1 when not given.
    pub confidence: Option<f64>,
    /// Free-form attributes.
    pub properties: Option<serde_json::Map<String, serde_json::Value>>,
}

/// Filters of [`crate::KnowledgeStore::query`].
#[derive(Debug, Clone, Default)]
pub struct EntryQuery {
    /// Words to find in topic, content and tags (ranked by relevance).
    pub text: Option<String>,
    /// Topic prefix, case-insensitive (`deploy` finds `Deployment rollback`).
    pub topic: Option<String>,
    /// Every one of these tags must be present.
    pub tags: Vec<String>,
    /// Only entries at least this confident.
    pub min_confidence: Option<f64>,
    /// Only entries of this kind.
    pub kind: Option<EntryKind>,
    /// Page size (default 20, at most 200).
    pub limit: Option<usize>,
    /// From a previous page's `next_cursor`.
    pub cursor: Option<String>,
    /// Read the state as it was right after this transaction.
    pub as_of_tx_id: Option<TxId>,
}

/// Filters of [`crate::KnowledgeStore::list_triples`].
#[derive(Debug, Clone, Default)]
pub struct TripleQuery {
    /// Only triples with this subject.
    pub subject: Option<String>,
    /// Only triples with this predicate.
    pub predicate: Option<String>,
    /// Only triples with this object.
    pub object: Option<String>,
    /// Page size (default 20, at most 200).
    pub limit: Option<usize>,
    /// From a previous page's `next_cursor`.
    pub cursor: Option<String>,
    /// Read the state as it was right after this transaction.
    pub as_of_tx_id: Option<TxId>,
}

/// One page of a read, pinned to one transaction.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Page<T> {
    /// The items of this page.
    pub items: Vec<T>,
    /// Pass it back as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
    /// The state read: every page of one listing reads the same state.
    pub as_of_tx_id: TxId,
}

/// Which way [`crate::KnowledgeStore::query_graph`] follows relations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// From subject to object.
    Out,
    /// From object to subject.
    In,
    /// Both ways.
    #[default]
    Both,
}

/// Input of [`crate::KnowledgeStore::query_graph`].
#[derive(Debug, Clone, Default)]
pub struct GraphQuery {
    /// The node to start from.
    pub node: String,
    /// Follow only this predicate.
    pub predicate: Option<String>,
    /// Which way to follow relations.
    pub direction: Direction,
    /// Hops from the start node (default 1, at most 5).
    pub depth: Option<usize>,
    /// Most edges to return (default 100, at most 1000).
    pub limit: Option<usize>,
    /// Read the graph as it was right after this transaction.
    pub as_of_tx_id: Option<TxId>,
}

/// A node reached by a graph walk.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct GraphNode {
    /// The node's name.
    pub id: String,
    /// Hops from the start node (0 for the start node).
    pub depth: usize,
}

/// What a graph walk found.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GraphResult {
    /// Every node reached, nearest first.
    pub nodes: Vec<GraphNode>,
    /// Every relation followed.
    pub edges: Vec<Triple>,
    /// The state read.
    pub as_of_tx_id: TxId,
    /// True when `limit` cut the walk short.
    pub truncated: bool,
}

/// Input of [`crate::KnowledgeStore::history`].
#[derive(Debug, Clone, Default)]
pub struct HistoryQuery {
    /// Only transactions that changed this entry or triple.
    pub id: Option<String>,
    /// Only transactions after this one, oldest first (the polling path).
    pub since_tx_id: Option<TxId>,
    /// Page size (default 20, at most 200).
    pub limit: Option<usize>,
    /// From a previous page's `next_cursor`.
    pub cursor: Option<String>,
    /// Only transactions up to this one (pins a listing; newest first).
    pub as_of_tx_id: Option<TxId>,
}

/// One transaction in a history listing; for a per-id history, `state` is
/// what the entry or triple looked like right after it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HistoryItem {
    /// The transaction.
    #[serde(flatten)]
    pub transaction: Transaction,
    /// For `history {id}`: the version this transaction wrote.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<serde_json::Value>,
}

/// What an undo did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UndoResult {
    /// The transaction that was reverted.
    pub undone_tx_id: TxId,
    /// The new transaction that reverted it.
    pub tx_id: TxId,
    /// The entries and triples it restored.
    pub changed_ids: Vec<String>,
}

/// A write's result: the version written and its transaction.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Written<T> {
    /// The version now current (for a no-op, the unchanged current one).
    pub value: T,
    /// The transaction that wrote it (for a no-op, the one that last did).
    pub tx_id: TxId,
    /// False when the request changed nothing, so no transaction was written.
    pub changed: bool,
}

/// How a row changed in a transaction, for change notifications.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeType {
    /// Created, changed or restored.
    Upsert,
    /// Deleted (a tombstone was written).
    Delete,
}

/// Everything one transaction changed: what change feeds publish.
#[derive(Debug, Clone, PartialEq)]
pub struct TxChanges {
    /// The transaction.
    pub tx_id: TxId,
    /// Changed entry ids with how they changed.
    pub entries: Vec<(String, ChangeType)>,
    /// Changed triple ids with how they changed.
    pub triples: Vec<(String, ChangeType)>,
}

/// The longest node (a triple's subject or object) the store keeps, in
/// characters; a longer one fails the whole write.
pub const MAX_NODE_CHARS: usize = limits::NODE_CHARS;

/// Limits every text field must respect.
pub(crate) mod limits {
    pub const TOPIC_CHARS: usize = 200;
    pub const CONTENT_BYTES: usize = 64 * 1024;
    /// The content limit of the kinds mirrored as files (wiki pages,
    /// semantic-layer sources, documents).
    pub const FILE_CONTENT_BYTES: usize = 1024 * 1024;

    /// The content limit of an entry of `kind`.
    pub fn content_bytes(kind: super::EntryKind) -> usize {
        match kind {
            super::EntryKind::Note => CONTENT_BYTES,
            _ => FILE_CONTENT_BYTES,
        }
    }
    pub const TAGS: usize = 32;
    pub const TAG_CHARS: usize = 64;
    pub const SOURCE_CHARS: usize = 1000;
    pub const NODE_CHARS: usize = 500;
    pub const PAGE_DEFAULT: usize = 20;
    pub const PAGE_MAX: usize = 200;
    pub const GRAPH_DEPTH_DEFAULT: usize = 1;
    pub const GRAPH_DEPTH_MAX: usize = 5;
    pub const GRAPH_LIMIT_DEFAULT: usize = 100;
    pub const GRAPH_LIMIT_MAX: usize = 1000;
}

impl EntryKind {
    /// The most bytes an entry of this kind may hold: a write of more is
    /// refused (`invalid_request`).
    pub fn max_content_bytes(self) -> usize {
        limits::content_bytes(self)
    }
}

/// The most characters of an entry's `source`: a write of more is refused.
pub const MAX_SOURCE_CHARS: usize = limits::SOURCE_CHARS;

/// A page size within bounds (the default when none is asked for).
pub fn page_size(limit: Option<usize>) -> Result<usize, StoreError> {
    match limit {
        None => Ok(limits::PAGE_DEFAULT),
        Some(0) => Err(StoreError::Invalid("limit must be at least 1".to_string())),
        Some(n) if n > limits::PAGE_MAX => Err(StoreError::Invalid(format!(
            "limit must be at most {}; page with next_cursor for more",
            limits::PAGE_MAX
        ))),
        Some(n) => Ok(n),
    }
}

/// The filters of an entry query besides text and kind, checked and
/// normalised as every entry query reads them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EntryFilter {
    /// Topic prefix, lower-cased.
    pub topic: Option<String>,
    /// Tags an entry must all carry, normalised as stored.
    pub tags: Vec<String>,
    /// Least confidence.
    pub min_confidence: Option<f64>,
}

impl EntryFilter {
    /// The filter of a query, or why it cannot be used.
    pub fn new(
        topic: Option<&str>,
        tags: &[String],
        min_confidence: Option<f64>,
    ) -> Result<EntryFilter, StoreError> {
        if let Some(c) = min_confidence
            && !(0.0..=1.0).contains(&c)
        {
            return Err(StoreError::Invalid(format!(
                "min_confidence must be between 0 and 1, got {c}"
            )));
        }
        let topic = topic.map(str::trim).map(str::to_lowercase);
        if topic.as_deref() == Some("") {
            return Err(StoreError::Invalid("topic must not be empty".to_string()));
        }
        Ok(EntryFilter {
            topic,
            tags: normalise_tags(tags)?,
            min_confidence,
        })
    }

    /// Whether `entry` passes (what the store's SQL checks, for entries
    /// ranked elsewhere).
    pub fn admits(&self, entry: &Entry) -> bool {
        self.topic
            .as_deref()
            .is_none_or(|t| entry.topic.to_lowercase().starts_with(t))
            && self.tags.iter().all(|t| entry.tags.contains(t))
            && self.min_confidence.is_none_or(|c| entry.confidence >= c)
    }
}

/// Trimmed, lower-cased, deduplicated tags in first-seen order (what
/// entries keep and filters ask for).
pub(crate) fn normalise_tags(tags: &[String]) -> Result<Vec<String>, StoreError> {
    let mut out: Vec<String> = Vec::new();
    for tag in tags {
        let tag = tag.trim().to_lowercase();
        if tag.is_empty() {
            return Err(StoreError::Invalid(
                "tags must not be empty strings".to_string(),
            ));
        }
        if tag.chars().count() > limits::TAG_CHARS {
            return Err(StoreError::Invalid(format!(
                "tag `{}…` is longer than {} characters",
                tag.chars().take(20).collect::<String>(),
                limits::TAG_CHARS
            )));
        }
        if !out.contains(&tag) {
            out.push(tag);
        }
    }
    if out.len() > limits::TAGS {
        return Err(StoreError::Invalid(format!(
            "at most {} tags per entry, got {}",
            limits::TAGS,
            out.len()
        )));
    }
    Ok(out)
}

/// The result of [`crate::KnowledgeStore::check`].
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StoreHealth {
    /// SQLite's integrity check found nothing wrong.
    pub integrity_ok: bool,
    /// The schema version of the file.
    pub schema_version: i64,
    /// The newest transaction.
    pub head_tx_id: TxId,
    /// Current (not deleted) entries.
    pub entries: i64,
    /// Current (not deleted) triples.
    pub triples: i64,
    /// Transactions whose rows are missing: always 0 unless the file was
    /// damaged (a committed transaction is whole or absent).
    pub transactions_without_rows: i64,
}

/// A search the knowledge gateway answered, kept so feedback can name it
/// (the newest 10,000).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchRecord {
    /// The id the search answered with (`metadata.request_id`).
    pub request_id: String,
    /// The query as asked.
    pub query: String,
    /// The chunks it returned, best first.
    pub chunk_ids: Vec<String>,
    /// When (RFC 3339).
    pub created_at: String,
}

/// A `memory_ingest` run as the store keeps it: who started it, where it
/// is, and what it did (the service's report, as JSON). Operational
/// records, not knowledge: no transaction, no history; the newest 1,000
/// are kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IngestRunRecord {
    /// `run-…`.
    pub run_id: String,
    /// `running`, `done` or `error`.
    pub status: String,
    /// `queued`, `triaging`, `writing`, `done` or `error`.
    pub stage: String,
    /// The connection the content was about, if given.
    pub connection_id: Option<String>,
    /// The content's hash (the content itself is not kept here).
    pub content_hash: String,
    /// Who started it.
    pub actor: String,
    /// The process running it (to tell a run whose process died).
    pub pid: u32,
    /// When it started (ISO-8601 UTC).
    pub started_at: String,
    /// When it last reported progress.
    pub heartbeat_at: String,
    /// When it ended.
    pub finished_at: Option<String>,
    /// The transaction holding its writes.
    pub tx_id: Option<TxId>,
    /// What it captured, skipped and warned about, and its error.
    pub report: serde_json::Value,
}

/// Feedback on one result of a recorded search.
#[derive(Debug, Clone, PartialEq)]
pub struct NewFeedback {
    /// The search (`metadata.request_id`).
    pub request_id: String,
    /// One of its results.
    pub chunk_id: String,
    /// -1 (not useful), 0 (withdraws the voter's earlier vote) or 1
    /// (useful).
    pub vote: i8,
    /// Why, in the voter's words.
    pub note: Option<String>,
    /// What the voter was doing (any JSON object).
    pub context: Option<serde_json::Map<String, serde_json::Value>>,
    /// Who votes (an MCP client, a token's name, `cli`).
    pub voter: String,
}

/// Feedback as stored.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Feedback {
    /// Its id (increasing).
    pub id: i64,
    /// The search.
    pub request_id: String,
    /// The search's query (kept with the feedback, so it outlives the
    /// search's record).
    pub query: String,
    /// The result voted on.
    pub chunk_id: String,
    /// -1, 0 or 1.
    pub vote: i8,
    /// The voter's note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The voter's context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<serde_json::Map<String, serde_json::Value>>,
    /// Who voted.
    pub voter: String,
    /// When (RFC 3339).
    pub created_at: String,
}

/// A long call running as an MCP task, as every server sharing the store
/// sees it: the server running it keeps the record current, any other
/// answers `tasks/get` from it and asks for its cancellation here.
/// Operational records, not knowledge: no transaction, no history; a task
/// is forgotten once `expires_at` has passed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskRecord {
    /// The task's id (as `tasks/get` names it).
    pub task_id: String,
    /// The server running it (host and process), for messages.
    pub owner: String,
    /// Who started it (`token:<name>`, `session:<id>`, …): no one else
    /// sees or cancels it.
    #[serde(default)]
    pub caller: String,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub status: String,
    /// The task as `tasks/get` answers it (JSON).
    pub detail: serde_json::Value,
    /// Whether a `tasks/cancel` reached any server; once set, never
    /// cleared by a save.
    pub cancel_requested: bool,
    /// When the owner last saved it (ISO-8601 UTC): a working task not
    /// saved for long lost its server.
    pub updated_at: String,
    /// When it may be forgotten (ISO-8601 UTC), once it has ended.
    pub expires_at: Option<String>,
}
