//! `relate`: record a subject–predicate–object triple.

use super::*;

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

/// `relate`.
pub struct Relate(pub(crate) Memory);

impl Tool for Relate {
    type Input = RelateInput;
    type Output = RelateOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "relate",
        title: "Relate Nodes",
        description: "Record a relation subject -predicate-> object; relating the same three again changes nothing. Remove it with delete and its triple id; explore with query_graph. Example: {\"subject\":\"checkout-service\",\"predicate\":\"depends_on\",\"object\":\"payments-db\"} → {\"triple\":{\"id\":\"t-7\",…},\"tx_id\":20}",
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
        let written = self.0.run(move |m| m.relate(&actor, triple)).await?;
        Ok(written.into())
    }
}
