//! The eight memory tools. Each is a thin mapping from its MCP input to a
//! store operation; every success answers with a one-line text summary, the
//! result as an embedded `application/json` resource, and the same result
//! as `structuredContent`.

use std::sync::Arc;

use lore_core::{ErrorCode, ErrorReport};
use lore_store::{
    Direction, Entry, EntryKind, EntryPatch, EntryQuery, GraphNode, GraphQuery, GraphResult,
    HistoryItem, HistoryQuery, KnowledgeStore, NewEntry, NewTriple, Page, Triple, TxId, UndoResult,
    Written,
};
use rmcp::model::{ContentBlock, ResourceContents};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::feed::{ChangeFeed, StoreHandle};
use super::resources::{ENTRIES_URI, HISTORY_URI, TRIPLES_URI, uri_with_query};
use crate::toolkit::{Scope, Tool, ToolContext, ToolDefinition};

/// What every memory tool holds.
#[derive(Clone)]
pub struct Memory {
    pub(super) store: Arc<StoreHandle>,
    pub(super) feed: Arc<ChangeFeed>,
    /// Text queries of the current state through the shared index.
    pub(super) search: Option<Arc<super::search::MemorySearch>>,
}

/// The text block and the embedded resource of a memory result.
fn blocks(summary: String, uri: String, structured: &serde_json::Value) -> Vec<ContentBlock> {
    vec![
        ContentBlock::text(summary),
        ContentBlock::resource(
            ResourceContents::text(structured.to_string(), uri).with_mime_type("application/json"),
        ),
    ]
}

fn entry_uri(id: &str) -> String {
    format!("{ENTRIES_URI}/{id}")
}

fn triple_uri(id: &str) -> String {
    format!("{TRIPLES_URI}/{id}")
}

fn quote(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max {
        line
    } else {
        format!("{}…", line.chars().take(max).collect::<String>())
    }
}

// ---------------------------------------------------------------- store

/// Arguments of `store`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoreInput {
    /// What the fact is about, short (at most 200 characters), e.g. "deployment". `query` matches topics by prefix, so "deployment rollback" is found under "deployment".
    pub topic: String,
    /// The fact to remember, self-contained (at most 64 KiB).
    pub content: String,
    /// How sure you are, 0 to 1 (default 1).
    #[serde(default)]
    pub confidence: Option<f64>,
    /// Labels for filtering; lower-cased, duplicates dropped (at most 32).
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// Where the fact came from: a URL, a file, a person.
    #[serde(default)]
    pub source: Option<String>,
}

/// Result of `store`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EntryOutput {
    /// The entry as now stored.
    pub entry: Entry,
    /// The transaction that wrote it (pass it to `undo` to revert).
    pub tx_id: TxId,
    /// False when an update changed nothing (no transaction was written).
    pub changed: bool,
}

/// `store`.
pub struct Store(pub(super) Memory);

impl Tool for Store {
    type Input = StoreInput;
    type Output = EntryOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "store",
        title: "Store Memory",
        description: "Remember a fact as a new knowledge entry. Every write is a transaction: the result's tx_id can be passed to undo, and history shows every version. \
Before storing, query for an existing entry on the topic and update it instead of creating a duplicate. \
Example: {\"topic\":\"deployment\",\"content\":\"Use blue-green deploys for zero-downtime releases.\",\"confidence\":0.9,\"tags\":[\"ops\"]} → {\"entry\":{\"id\":\"e-42\",\"version\":1,…},\"tx_id\":17}",
        read_only: false,
        scope: Scope::Writer,
        destructive: false,
        idempotent: Some(false),
        open_world: false,
    };

    fn content(output: &EntryOutput, structured: &serde_json::Value) -> Vec<ContentBlock> {
        blocks(
            format!(
                "Stored {} \"{}\" (version {}, transaction {}).",
                output.entry.id,
                quote(&output.entry.topic, 60),
                output.entry.version,
                output.tx_id
            ),
            entry_uri(&output.entry.id),
            structured,
        )
    }

    async fn call(&self, input: StoreInput, ctx: ToolContext) -> Result<EntryOutput, ErrorReport> {
        let actor = ctx.actor();
        let entry = NewEntry {
            topic: input.topic,
            content: input.content,
            confidence: input.confidence,
            tags: input.tags.unwrap_or_default(),
            source: input.source,
            kind: Some(EntryKind::Note),
        };
        let written = self.0.store.run(move |s| s.store(&actor, entry)).await?;
        self.0.feed.committed();
        Ok(written.into())
    }
}

// ---------------------------------------------------------------- update

/// Arguments of `update`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateInput {
    /// The entry's id, e.g. "e-42".
    pub id: String,
    /// New content.
    #[serde(default)]
    pub content: Option<String>,
    /// New topic.
    #[serde(default)]
    pub topic: Option<String>,
    /// New confidence, 0 to 1.
    #[serde(default)]
    pub confidence: Option<f64>,
    /// New tags (replace the old ones).
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// The version you read; if the entry changed since, the update is refused with code conflict (re-read and reapply).
    #[serde(default)]
    pub expected_version: Option<i64>,
}

/// `update`.
pub struct Update(pub(super) Memory);

impl Tool for Update {
    type Input = UpdateInput;
    type Output = EntryOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "update",
        title: "Update Memory",
        description: "Change an entry: writes its next version and keeps the old one in history (undo the returned tx_id to revert). Give only the fields to change. \
Pass expected_version (the version you read) to refuse the update with code conflict if someone changed the entry since. \
Example: {\"id\":\"e-42\",\"content\":\"Use canary deploys.\",\"expected_version\":1} → {\"entry\":{\"id\":\"e-42\",\"version\":2,…},\"tx_id\":18,\"changed\":true}",
        read_only: false,
        scope: Scope::Writer,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    fn content(output: &EntryOutput, structured: &serde_json::Value) -> Vec<ContentBlock> {
        let summary = if output.changed {
            format!(
                "Updated {} to version {} (transaction {}).",
                output.entry.id, output.entry.version, output.tx_id
            )
        } else {
            format!(
                "{} already says that (version {}); nothing was written.",
                output.entry.id, output.entry.version
            )
        };
        blocks(summary, entry_uri(&output.entry.id), structured)
    }

    fn check_input(input: &UpdateInput) -> Result<(), String> {
        if input.content.is_none()
            && input.topic.is_none()
            && input.confidence.is_none()
            && input.tags.is_none()
        {
            return Err("give at least one of content, topic, confidence, tags".to_string());
        }
        Ok(())
    }

    async fn call(&self, input: UpdateInput, ctx: ToolContext) -> Result<EntryOutput, ErrorReport> {
        let actor = ctx.actor();
        let id = input.id.trim().to_string();
        let patch = EntryPatch {
            topic: input.topic,
            content: input.content,
            confidence: input.confidence,
            tags: input.tags,
            source: None,
            expected_version: input.expected_version,
        };
        let written = self
            .0
            .store
            .run(move |s| s.update(&actor, &id, patch))
            .await?;
        if written.changed {
            self.0.feed.committed();
        }
        Ok(written.into())
    }
}

// ---------------------------------------------------------------- query

/// Arguments of `query`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryInput {
    /// Words to look for in topic, content and tags; results are ranked by relevance. Identifiers split into words ("order items" finds orderItems).
    #[serde(default)]
    pub text: Option<String>,
    /// Topic prefix, case-insensitive ("deploy" finds "Deployment rollback").
    #[serde(default)]
    pub topic: Option<String>,
    /// Only entries carrying every one of these tags.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// Only entries at least this confident (0 to 1).
    #[serde(default)]
    pub min_confidence: Option<f64>,
    /// Page size, 1 to 200 (default 20).
    #[serde(default)]
    pub limit: Option<usize>,
    /// next_cursor of the previous page (keep the other arguments the same).
    #[serde(default)]
    pub cursor: Option<String>,
    /// Read the memory as it was right after this transaction (see history).
    #[serde(default)]
    pub as_of_tx_id: Option<TxId>,
}

/// Result of `query`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct QueryOutput {
    /// Matching entries: by relevance when text is given, else most recently changed first.
    pub items: Vec<Entry>,
    /// Pass as cursor for the next page; null on the last page.
    pub next_cursor: Option<String>,
    /// The state read; every page of one listing reads the same state.
    pub as_of_tx_id: TxId,
}

/// `query`.
pub struct Query(pub(super) Memory);

impl Tool for Query {
    type Input = QueryInput;
    type Output = QueryOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "query",
        title: "Query Memory",
        description: "Find remembered entries by words (text), topic prefix, tags and minimum confidence; with no filter, lists the most recently changed entries. \
Pages are pinned to one transaction (as_of_tx_id), so paging with next_cursor is stable while others write; pass as_of_tx_id yourself to read the memory as it was in the past. \
Example: {\"topic\":\"deployment\"} → {\"items\":[{\"id\":\"e-42\",\"topic\":\"deployment\",\"content\":\"Use blue-green deploys…\",\"confidence\":0.92,…}],\"next_cursor\":null,\"as_of_tx_id\":17}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    fn content(output: &QueryOutput, structured: &serde_json::Value) -> Vec<ContentBlock> {
        let summary = match output.items.len() {
            0 => "No entries match.".to_string(),
            1 => "Found 1 entry.".to_string(),
            n => format!(
                "Found {n} entries{}.",
                if output.next_cursor.is_some() {
                    " (more with next_cursor)"
                } else {
                    ""
                }
            ),
        };
        let uri = uri_with_query(
            ENTRIES_URI,
            &[("as_of_tx_id", Some(output.as_of_tx_id.to_string()))],
        );
        blocks(summary, uri, structured)
    }

    async fn call(&self, input: QueryInput, _ctx: ToolContext) -> Result<QueryOutput, ErrorReport> {
        if let Some(search) = &self.0.search {
            let search = Arc::clone(search);
            let store = Arc::clone(&self.0.store);
            let (input, answered) = tokio::task::spawn_blocking(move || {
                let answered = store.open().and_then(|s| search.query(&s, &input));
                (input, answered)
            })
            .await
            .map_err(|_| ErrorReport::new(ErrorCode::Internal, "the query was interrupted"))?;
            if let Some(output) = answered? {
                return Ok(output);
            }
            return self.query_store(input).await;
        }
        self.query_store(input).await
    }
}

impl Query {
    /// The store's own query (filters, listings, reads of the past).
    async fn query_store(&self, input: QueryInput) -> Result<QueryOutput, ErrorReport> {
        let query = EntryQuery {
            text: input.text,
            topic: input.topic,
            tags: input.tags.unwrap_or_default(),
            min_confidence: input.min_confidence,
            kind: None,
            limit: input.limit,
            cursor: input.cursor,
            as_of_tx_id: input.as_of_tx_id,
        };
        let page = self.0.store.run(move |s| s.query(&query)).await?;
        Ok(page.into())
    }
}

// ---------------------------------------------------------------- delete

/// Arguments of `delete`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteInput {
    /// An entry id ("e-42") or a triple id ("t-7").
    pub id: String,
}

/// Result of `delete`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DeleteOutput {
    /// The deleted entry or triple.
    pub id: String,
    /// The transaction that deleted it (undo it to restore).
    pub tx_id: TxId,
}

/// `delete`.
pub struct Delete(pub(super) Memory);

impl Tool for Delete {
    type Input = DeleteInput;
    type Output = DeleteOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "delete",
        title: "Delete Memory",
        description: "Delete an entry (e-…) or a relation (t-…). The deletion is a transaction: history keeps every earlier version, as_of reads still see it, and undo with the returned tx_id restores it. \
Example: {\"id\":\"e-42\"} → {\"id\":\"e-42\",\"tx_id\":19}",
        read_only: false,
        scope: Scope::Writer,
        destructive: true,
        idempotent: Some(false),
        open_world: false,
    };

    fn content(output: &DeleteOutput, structured: &serde_json::Value) -> Vec<ContentBlock> {
        let uri = if output.id.starts_with("t-") {
            triple_uri(&output.id)
        } else {
            entry_uri(&output.id)
        };
        blocks(
            format!(
                "Deleted {} in transaction {} (undo it to restore).",
                output.id, output.tx_id
            ),
            uri,
            structured,
        )
    }

    async fn call(
        &self,
        input: DeleteInput,
        ctx: ToolContext,
    ) -> Result<DeleteOutput, ErrorReport> {
        let actor = ctx.actor();
        let id = input.id.trim().to_string();
        let deleted = id.clone();
        let tx_id = self
            .0
            .store
            .run(move |s| s.delete(&actor, &deleted))
            .await?;
        self.0.feed.committed();
        Ok(DeleteOutput { id, tx_id })
    }
}

// ---------------------------------------------------------------- relate

/// Arguments of `relate`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RelateInput {
    /// The node the relation starts from, e.g. "checkout-service" (any name, or an entry id).
    pub subject: String,
    /// The relation, e.g. "depends_on".
    pub predicate: String,
    /// The node the relation points to, e.g. "payments-db".
    pub object: String,
    /// How sure you are, 0 to 1 (default 1).
    #[serde(default)]
    pub confidence: Option<f64>,
}

/// Result of `relate`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RelateOutput {
    /// The relation as now stored.
    pub triple: Triple,
    /// The transaction that wrote it (for an unchanged relation, the one that last did).
    pub tx_id: TxId,
    /// False when the relation already existed as given (nothing was written).
    pub changed: bool,
}

/// `relate`.
pub struct Relate(pub(super) Memory);

impl Tool for Relate {
    type Input = RelateInput;
    type Output = RelateOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "relate",
        title: "Relate Nodes",
        description: "Record a relation subject —predicate→ object in the knowledge graph. Relating the same three again changes nothing (or only the confidence); remove a relation with delete and its triple id. Explore with query_graph. \
Example: {\"subject\":\"checkout-service\",\"predicate\":\"depends_on\",\"object\":\"payments-db\"} → {\"triple\":{\"id\":\"t-7\",…},\"tx_id\":20,\"changed\":true}",
        read_only: false,
        scope: Scope::Writer,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    fn content(output: &RelateOutput, structured: &serde_json::Value) -> Vec<ContentBlock> {
        let t = &output.triple;
        let verb = if output.changed {
            "Related"
        } else {
            "Already related:"
        };
        blocks(
            format!(
                "{verb} {} —{}→ {} ({}, transaction {}).",
                t.subject, t.predicate, t.object, t.id, output.tx_id
            ),
            triple_uri(&t.id),
            structured,
        )
    }

    async fn call(
        &self,
        input: RelateInput,
        ctx: ToolContext,
    ) -> Result<RelateOutput, ErrorReport> {
        let actor = ctx.actor();
        let triple = NewTriple {
            subject: input.subject,
            predicate: input.predicate,
            object: input.object,
            confidence: input.confidence,
            properties: None,
        };
        let written = self.0.store.run(move |s| s.relate(&actor, triple)).await?;
        if written.changed {
            self.0.feed.committed();
        }
        Ok(written.into())
    }
}

// ---------------------------------------------------------------- query_graph

/// Arguments of `query_graph`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryGraphInput {
    /// The node to start from.
    pub node: String,
    /// Follow only relations with this predicate.
    #[serde(default)]
    pub predicate: Option<String>,
    /// out (subject→object), in (object→subject) or both (default).
    #[serde(default)]
    pub direction: Option<Direction>,
    /// Hops from the start node, 1 to 5 (default 1). Cycles are visited once.
    #[serde(default)]
    pub depth: Option<usize>,
    /// Most relations to return, 1 to 1000 (default 100); truncated says when it was hit.
    #[serde(default)]
    pub limit: Option<usize>,
    /// Read the graph as it was right after this transaction.
    #[serde(default)]
    pub as_of_tx_id: Option<TxId>,
}

/// Result of `query_graph`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct QueryGraphOutput {
    /// Every node reached with its distance; empty when the node has no relations.
    pub nodes: Vec<GraphNode>,
    /// Every relation followed.
    pub edges: Vec<Triple>,
    /// The state read.
    pub as_of_tx_id: TxId,
    /// True when limit cut the walk short.
    pub truncated: bool,
}

/// `query_graph`.
pub struct QueryGraph(pub(super) Memory);

impl Tool for QueryGraph {
    type Input = QueryGraphInput;
    type Output = QueryGraphOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "query_graph",
        title: "Query Knowledge Graph",
        description: "Walk the knowledge graph from a node: the relations around it up to depth hops, optionally one predicate and one direction, now or as of a past transaction. \
Example: {\"node\":\"checkout-service\",\"direction\":\"out\",\"depth\":2} → {\"nodes\":[{\"id\":\"checkout-service\",\"depth\":0},{\"id\":\"payments-db\",\"depth\":1}],\"edges\":[{\"id\":\"t-7\",\"subject\":\"checkout-service\",\"predicate\":\"depends_on\",\"object\":\"payments-db\",…}],\"as_of_tx_id\":20,\"truncated\":false}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    fn content(output: &QueryGraphOutput, structured: &serde_json::Value) -> Vec<ContentBlock> {
        let summary = if output.edges.is_empty() {
            "No relations found for this node.".to_string()
        } else {
            format!(
                "Found {} relations between {} nodes{}.",
                output.edges.len(),
                output.nodes.len(),
                if output.truncated {
                    " (cut at limit)"
                } else {
                    ""
                }
            )
        };
        let node = output.nodes.first().map(|n| n.id.clone());
        blocks(
            summary,
            uri_with_query(TRIPLES_URI, &[("subject", node)]),
            structured,
        )
    }

    async fn call(
        &self,
        input: QueryGraphInput,
        _ctx: ToolContext,
    ) -> Result<QueryGraphOutput, ErrorReport> {
        let query = GraphQuery {
            node: input.node,
            predicate: input.predicate,
            direction: input.direction.unwrap_or_default(),
            depth: input.depth,
            limit: input.limit,
            as_of_tx_id: input.as_of_tx_id,
        };
        let graph = self.0.store.run(move |s| s.query_graph(&query)).await?;
        Ok(graph.into())
    }
}

// ---------------------------------------------------------------- undo

/// Arguments of `undo`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoInput {
    /// The transaction to revert (from a write's result or history).
    pub tx_id: TxId,
    /// Revert even though later transactions changed the same entries (their changes to those entries are overwritten).
    #[serde(default)]
    pub force: Option<bool>,
}

/// Result of `undo`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct UndoOutput {
    /// The transaction that was reverted.
    pub undone_tx_id: TxId,
    /// The new transaction that reverted it (undo this one to redo).
    pub tx_id: TxId,
    /// The entries and relations restored.
    pub changed_ids: Vec<String>,
}

/// `undo`.
pub struct Undo(pub(super) Memory);

impl Tool for Undo {
    type Input = UndoInput;
    type Output = UndoOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "undo",
        title: "Undo Transaction",
        description: "Revert one transaction by writing a new one that restores what it changed (a store is removed, an update rolled back, a delete restored). Nothing is erased: undoing the undo redoes. \
If a later transaction changed the same entries, undo is refused with code conflict naming them: undo those first, or pass force: true. \
Example: {\"tx_id\":18} → {\"undone_tx_id\":18,\"tx_id\":21,\"changed_ids\":[\"e-42\"]}",
        read_only: false,
        scope: Scope::Writer,
        destructive: true,
        idempotent: Some(false),
        open_world: false,
    };

    fn content(output: &UndoOutput, structured: &serde_json::Value) -> Vec<ContentBlock> {
        blocks(
            format!(
                "Undid transaction {} in transaction {}; restored {}.",
                output.undone_tx_id,
                output.tx_id,
                output.changed_ids.join(", ")
            ),
            uri_with_query(
                HISTORY_URI,
                &[("since_tx_id", Some((output.tx_id - 1).to_string()))],
            ),
            structured,
        )
    }

    async fn call(&self, input: UndoInput, ctx: ToolContext) -> Result<UndoOutput, ErrorReport> {
        let actor = ctx.actor();
        let force = input.force.unwrap_or(false);
        let tx_id = input.tx_id;
        let undone = self
            .0
            .store
            .run(move |s| s.undo(&actor, tx_id, force))
            .await?;
        self.0.feed.committed();
        Ok(undone.into())
    }
}

// ---------------------------------------------------------------- history

/// Arguments of `history`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryInput {
    /// Only transactions that changed this entry or triple; each item then carries `state`, the version it wrote.
    #[serde(default)]
    pub id: Option<String>,
    /// Only transactions after this one, oldest first: poll with the last tx_id you saw to follow every change.
    #[serde(default)]
    pub since_tx_id: Option<TxId>,
    /// Page size, 1 to 200 (default 20).
    #[serde(default)]
    pub limit: Option<usize>,
    /// next_cursor of the previous page (keep the other arguments the same).
    #[serde(default)]
    pub cursor: Option<String>,
}

/// Result of `history`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HistoryOutput {
    /// Transactions: newest first, or oldest first with since_tx_id.
    pub items: Vec<HistoryItem>,
    /// Pass as cursor for the next page; null on the last page.
    pub next_cursor: Option<String>,
    /// The newest transaction this answer covers.
    pub as_of_tx_id: TxId,
}

/// `history`.
pub struct History(pub(super) Memory);

impl Tool for History {
    type Input = HistoryInput;
    type Output = HistoryOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "history",
        title: "Memory History",
        description: "List the transaction log: what changed, when, by whom, with the ids each transaction touched. With id: how one entry or relation changed, each item carrying the version written (state). \
With since_tx_id: the transactions after it, oldest first (the polling path for clients without subscriptions). \
Example: {\"id\":\"e-42\"} → {\"items\":[{\"tx_id\":18,\"at\":\"2026-11-23T10:00:00.000Z\",\"kind\":\"update\",\"summary\":\"updated e-42 v2 (content): …\",\"changed_ids\":[\"e-42\"],\"state\":{…}}],\"next_cursor\":null,\"as_of_tx_id\":20}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: None,
        open_world: false,
    };

    fn content(output: &HistoryOutput, structured: &serde_json::Value) -> Vec<ContentBlock> {
        let summary = match output.items.len() {
            0 => "No transactions.".to_string(),
            n => format!(
                "{n} transactions{}.",
                if output.next_cursor.is_some() {
                    " (more with next_cursor)"
                } else {
                    ""
                }
            ),
        };
        blocks(summary, HISTORY_URI.to_string(), structured)
    }

    async fn call(
        &self,
        input: HistoryInput,
        _ctx: ToolContext,
    ) -> Result<HistoryOutput, ErrorReport> {
        let query = HistoryQuery {
            id: input.id,
            since_tx_id: input.since_tx_id,
            limit: input.limit,
            cursor: input.cursor,
            as_of_tx_id: None,
        };
        let page = self.0.store.run(move |s| s.history(&query)).await?;
        Ok(page.into())
    }
}

// The store's results as the tools' outputs (also printed by `lore memory`).

impl From<Written<Entry>> for EntryOutput {
    fn from(written: Written<Entry>) -> Self {
        EntryOutput {
            entry: written.value,
            tx_id: written.tx_id,
            changed: written.changed,
        }
    }
}

impl From<Page<Entry>> for QueryOutput {
    fn from(page: Page<Entry>) -> Self {
        QueryOutput {
            items: page.items,
            next_cursor: page.next_cursor,
            as_of_tx_id: page.as_of_tx_id,
        }
    }
}

impl From<Written<Triple>> for RelateOutput {
    fn from(written: Written<Triple>) -> Self {
        RelateOutput {
            triple: written.value,
            tx_id: written.tx_id,
            changed: written.changed,
        }
    }
}

impl From<GraphResult> for QueryGraphOutput {
    fn from(graph: GraphResult) -> Self {
        QueryGraphOutput {
            nodes: graph.nodes,
            edges: graph.edges,
            as_of_tx_id: graph.as_of_tx_id,
            truncated: graph.truncated,
        }
    }
}

impl From<UndoResult> for UndoOutput {
    fn from(undone: UndoResult) -> Self {
        UndoOutput {
            undone_tx_id: undone.undone_tx_id,
            tx_id: undone.tx_id,
            changed_ids: undone.changed_ids,
        }
    }
}

impl From<Page<HistoryItem>> for HistoryOutput {
    fn from(page: Page<HistoryItem>) -> Self {
        HistoryOutput {
            items: page.items,
            next_cursor: page.next_cursor,
            as_of_tx_id: page.as_of_tx_id,
        }
    }
}
