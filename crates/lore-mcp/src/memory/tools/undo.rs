//! `undo`: revert one transaction.

use super::*;

/// Arguments of `undo`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoInput {
    /// The transaction to revert (from a write's result or history).
    #[serde(default)]
    pub tx_id: Option<TxId>,
    /// Or a memory_ingest run (all it wrote).
    #[serde(default)]
    pub run_id: Option<String>,
    /// Revert even though later transactions changed the same entries (their changes to those entries are overwritten).
    #[serde(default)]
    pub force: Option<bool>,
}

/// `undo`.
pub struct Undo(pub(crate) Memory);

impl Tool for Undo {
    type Input = UndoInput;
    type Output = UndoOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "undo",
        title: "Undo Transaction",
        description: "Revert one transaction with a new one that restores what it changed; undoing the undo redoes. If a later transaction changed the same entries, undo answers conflict naming them (undo those first, or force: true). Example: {\"tx_id\":18}",
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

    fn check_input(input: &UndoInput) -> Result<(), String> {
        match (&input.tx_id, &input.run_id) {
            (Some(_), None) | (None, Some(_)) => Ok(()),
            _ => Err(
                "give tx_id (a transaction) or run_id (a memory_ingest run), one of them".into(),
            ),
        }
    }

    async fn call(&self, input: UndoInput, ctx: ToolContext) -> Result<UndoOutput, ErrorReport> {
        let actor = ctx.actor();
        let force = input.force.unwrap_or(false);
        let target = lore_context::memory::service::undo_target(input.tx_id, input.run_id)?;
        let undone = self.0.run(move |m| m.undo(&actor, target, force)).await?;
        Ok(undone.into())
    }
}
