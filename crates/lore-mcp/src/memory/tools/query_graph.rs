//! `query_graph`: walk the triples around a node.

use super::*;

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
    #[schemars(range(min = 1, max = 1000))]
    pub limit: Option<usize>,
    /// Read the graph as it was right after this transaction.
    #[serde(default)]
    pub as_of_tx_id: Option<TxId>,
}

/// `query_graph`.
pub struct QueryGraph(pub(crate) Memory);

impl Tool for QueryGraph {
    type Input = QueryGraphInput;
    type Output = QueryGraphOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "query_graph",
        title: "Query Knowledge Graph",
        description: "Walk the relations around a node, up to depth hops, optionally one predicate and direction, now or as of a transaction. Example: {\"node\":\"checkout-service\",\"direction\":\"out\",\"depth\":2}",
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
        let graph = self.0.run(move |m| m.query_graph(&query)).await?;
        Ok(graph.into())
    }
}
