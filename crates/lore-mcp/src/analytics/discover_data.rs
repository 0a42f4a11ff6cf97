//! `discover_data`: one ranked search over what exists (the discover service).

use std::sync::Arc;

use lore_core::{ErrorCode, ErrorReport};

use crate::toolkit::{Scope, Tool, ToolContext, ToolDefinition};
use lore_context::discover::{
    Discover, DiscoverDataInput, DiscoverDataOutput, check_search, discover_data,
};

/// `discover_data`.
pub struct DiscoverData {
    pub(crate) discover: Arc<Discover>,
}

impl Tool for DiscoverData {
    type Input = DiscoverDataInput;
    type Output = DiscoverDataOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "discover_data",
        title: "Discover Data",
        description: "Search everything that exists in one ranked list: wiki pages (definitions, gotchas), semantic-layer sources, measures and dimensions, and the scanned tables and columns (names, comments, expressions, sample values). Call it first, before writing SQL; it returns refs only, which you dereference with sl_read_source (sl_*), entity_details (table/column: pass tableRef) or wiki_read (wiki). \
Identifiers and prose match each other (\"order items\" finds order_items and orderItems). Always answers from the latest scan, model files and wiki pages. \
Example: {\"query\":\"revenue by plan\"} → {\"refs\":[{\"kind\":\"sl_measure\",\"id\":\"invoices.revenue\",\"score\":1,\"summary\":\"…\",\"snippet\":\"sum(total_cents) / 100.0\",\"matchedOn\":\"name\",\"connectionId\":\"warehouse\"},{\"kind\":\"column\",\"id\":\"plans.name\",…,\"tableRef\":{\"catalog\":null,\"db\":null,\"name\":\"plans\"},\"columnName\":\"name\"}],\"lanes\":[…]}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    fn check_input(input: &DiscoverDataInput) -> Result<(), String> {
        check_search(&input.query, input.limit)
    }

    async fn call(
        &self,
        input: DiscoverDataInput,
        _ctx: ToolContext,
    ) -> Result<DiscoverDataOutput, ErrorReport> {
        let discover = Arc::clone(&self.discover);
        tokio::task::spawn_blocking(move || discover_data(&discover, input))
            .await
            .map_err(|_| ErrorReport::new(ErrorCode::Internal, "the search was interrupted"))?
    }
}
