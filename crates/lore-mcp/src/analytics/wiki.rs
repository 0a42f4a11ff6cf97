//! `wiki_search`, `wiki_read` and `wiki_write` over the wiki service.

use std::sync::Arc;

use lore_core::{ErrorCode, ErrorReport};

use crate::toolkit::{Scope, Tool, ToolContext, ToolDefinition};
use lore_context::discover::{Discover, check_search};
use lore_context::wiki::requests::*;

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ErrorReport> + Send + 'static,
) -> Result<T, ErrorReport> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| ErrorReport::new(ErrorCode::Internal, "the wiki call was interrupted"))?
}

/// `wiki_search`.
pub struct WikiSearch {
    pub(crate) discover: Arc<Discover>,
}

impl Tool for WikiSearch {
    type Input = WikiSearchInput;
    type Output = WikiSearchOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "wiki_search",
        title: "Wiki Search",
        description: "Search the wiki (definitions, gotchas such as amounts in cents or soft deletes, conventions) for page keys with summaries and why they matched; open one with wiki_read. Example: {\"query\":\"how is revenue defined\"}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    fn check_input(input: &WikiSearchInput) -> Result<(), String> {
        check_search(&input.query, input.limit)
    }

    async fn call(
        &self,
        input: WikiSearchInput,
        _ctx: ToolContext,
    ) -> Result<WikiSearchOutput, ErrorReport> {
        let discover = Arc::clone(&self.discover);
        blocking(move || wiki_search(&discover, &input.query, input.limit.unwrap_or(10))).await
    }
}

/// `wiki_read`.
pub struct WikiRead {
    pub(crate) discover: Arc<Discover>,
}

impl Tool for WikiRead {
    type Input = WikiReadInput;
    type Output = WikiReadOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "wiki_read",
        title: "Wiki Read",
        description: "Read a wiki page by key: summary, tags, links, semantic-layer refs, markdown body and version. A missing page answers found: false with the closest keys. Example: {\"key\":\"revenue\"}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    fn check_input(input: &WikiReadInput) -> Result<(), String> {
        if input.key.trim().is_empty() {
            return Err("key must not be empty".to_string());
        }
        Ok(())
    }

    async fn call(
        &self,
        input: WikiReadInput,
        _ctx: ToolContext,
    ) -> Result<WikiReadOutput, ErrorReport> {
        let discover = Arc::clone(&self.discover);
        blocking(move || wiki_read(&discover, input)).await
    }
}

/// `wiki_write`.
pub struct WikiWrite {
    pub(crate) discover: Arc<Discover>,
    pub(crate) feed: Arc<lore_store::feed::ChangeFeed>,
}

impl Tool for WikiWrite {
    type Input = WikiWriteInput;
    type Output = WikiWriteOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "wiki_write",
        title: "Wiki Write",
        description: "Create or replace a wiki page of durable knowledge about the data (a definition, a gotcha). Pass the version you read as expectedVersion (0 for a new page) so no edit is lost; the write is an undoable transaction, mirrored to wiki/<scope>/<key>.md. Example: {\"key\":\"discounts\",\"summary\":\"Discounts are negative invoice lines\",\"body\":\"# Discounts\\nA discount is an invoice_lines row with line_type discount.\",\"expectedVersion\":0}",
        read_only: false,
        scope: Scope::Writer,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    fn check_input(input: &WikiWriteInput) -> Result<(), String> {
        if let Some(scope) = &input.scope
            && scope != "global"
            && scope != "user"
        {
            return Err(format!("scope must be global or user, got `{scope}`"));
        }
        if input.expected_version.is_some_and(|v| v < 0) {
            return Err("expectedVersion must be 0 or more".to_string());
        }
        Ok(())
    }

    async fn call(
        &self,
        input: WikiWriteInput,
        ctx: ToolContext,
    ) -> Result<WikiWriteOutput, ErrorReport> {
        let wiki = Arc::clone(self.discover.wiki().ok_or_else(no_wiki)?);
        let actor = ctx.actor();
        let written = blocking(move || wiki_write(&wiki, &actor, input)).await?;
        if written.changed {
            self.feed.committed();
        }
        Ok(written)
    }
}
