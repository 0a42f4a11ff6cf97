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
    #[schemars(range(min = 1, max = 200))]
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
        description: "The transaction log, newest first: what changed, when and by whom. With id: the versions of one entry or relation; with since_tx_id: the transactions after it, oldest first. Example: {\"id\":\"e-42\"}",
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
        let page = self.0.run(move |m| m.history(&query)).await?;
        Ok(page.into())
    }
}
