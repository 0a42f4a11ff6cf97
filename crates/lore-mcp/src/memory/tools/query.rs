//! `query`: list or search entries, as of any transaction.

use super::*;

/// `query`.
pub struct Query(pub(crate) Memory);

impl Tool for Query {
    type Input = QueryInput;
    type Output = QueryOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "query",
        title: "Query Memory",
        description: "Find remembered entries by words (text), topic prefix, tags or minimum confidence; with no filter, the latest. Pages are pinned to one transaction (as_of_tx_id), so next_cursor stays stable while others write; pass as_of_tx_id to read the past. Example: {\"topic\":\"deployment\"}",
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
        let (input, answered) = self
            .0
            .run(move |m| {
                let answered = m.ranked(&input)?;
                Ok((input, answered))
            })
            .await?;
        match answered {
            Some(output) => Ok(output),
            None => self.query_store(input).await,
        }
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
        let page = self.0.run(move |m| m.entries(&query)).await?;
        Ok(page.into())
    }
}
