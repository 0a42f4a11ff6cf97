//! `delete`: retire an entry (a tombstone version).

use super::*;

/// Arguments of `delete`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteInput {
    /// An entry id ("e-42") or a triple id ("t-7").
    pub id: String,
}

/// `delete`.
pub struct Delete(pub(crate) Memory);

impl Tool for Delete {
    type Input = DeleteInput;
    type Output = DeleteOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "delete",
        title: "Delete Memory",
        description: "Delete an entry (e-…) or relation (t-…) as a transaction: history and as-of reads keep it, and undo with the returned tx_id restores it. Example: {\"id\":\"e-42\"}",
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
        let tx_id = self.0.run(move |m| m.delete(&actor, &deleted)).await?;
        Ok(DeleteOutput { id, tx_id })
    }
}
