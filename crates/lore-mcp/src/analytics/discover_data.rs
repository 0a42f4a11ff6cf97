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
        description: "Search everything that exists in one ranked list before writing SQL: wiki pages, semantic-layer sources, measures and dimensions, scanned tables and columns (names, comments, expressions, sample values). Returns refs to open with wiki_read, sl_read_source or entity_details (pass tableRef). \"order items\" finds order_items and orderItems. Example: {\"query\":\"revenue by plan\"}",
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
