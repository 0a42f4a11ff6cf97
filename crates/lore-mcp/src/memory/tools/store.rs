//! `store`: remember a fact as a new entry.

use super::*;

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

/// `store`.
pub struct Store(pub(crate) Memory);

impl Tool for Store {
    type Input = StoreInput;
    type Output = EntryOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "store",
        title: "Store Memory",
        description: "Remember a fact as a new entry, in a transaction (undo its tx_id; history keeps every version). Query the topic first and update an existing entry rather than duplicating it. Example: {\"topic\":\"deployment\",\"content\":\"Use blue-green deploys.\",\"tags\":[\"ops\"]} → {\"entry\":{\"id\":\"e-42\",…},\"tx_id\":17}",
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
        let written = self.0.run(move |m| m.store(&actor, entry)).await?;
        Ok(written.into())
    }
}
