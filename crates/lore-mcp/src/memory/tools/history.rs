//! `history`: the transactions, newest first.

use super::*;

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

/// `history`.
pub struct History(pub(crate) Memory);

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
