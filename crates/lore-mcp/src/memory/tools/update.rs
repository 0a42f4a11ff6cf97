//! `update`: change an entry, guarded by its version.

use super::*;

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
pub struct Update(pub(crate) Memory);

impl Tool for Update {
    type Input = UpdateInput;
    type Output = EntryOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "update",
        title: "Update Memory",
        description: "Write the next version of an entry (only the fields given); the old one stays in history. Pass expected_version (the version you read) to get a conflict instead of overwriting someone's change. Example: {\"id\":\"e-42\",\"content\":\"Use canary deploys.\",\"expected_version\":1} → {\"entry\":{\"id\":\"e-42\",…},\"tx_id\":18}",
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
        let written = self.0.run(move |m| m.update(&actor, &id, patch)).await?;
        Ok(written.into())
    }
}
