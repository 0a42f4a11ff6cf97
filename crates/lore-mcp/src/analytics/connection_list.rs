//! `connection_list`: which warehouses this project can query.

use std::sync::Arc;

use lore_core::ErrorReport;
use lore_warehouse::execute::Warehouses;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::toolkit::{Tool, ToolContext, ToolDefinition};

/// Lists the configured connections.
pub struct ConnectionList {
    pub(super) warehouses: Arc<Warehouses>,
}

/// `connection_list` takes no arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct ConnectionListInput {}

/// The project's connections.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ConnectionListOutput {
    /// Every configured connection, sorted by id.
    pub connections: Vec<ConnectionSummary>,
}

/// One connection, without secrets.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionSummary {
    /// Pass this as `connectionId` to other tools.
    pub id: String,
    /// Database driver: sqlite, postgres or mysql.
    pub driver: String,
    /// SQL dialect that queries on this connection must be written in.
    pub dialect: String,
    /// What the connection holds, from lore.yaml.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Queries running longer than this are interrupted.
    pub statement_timeout_ms: u64,
}

impl Tool for ConnectionList {
    type Input = ConnectionListInput;
    type Output = ConnectionListOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "connection_list",
        title: "Connection List",
        description: "List the data connections configured in this Lore project, with their id, driver, SQL dialect and description. \
Call this first in a project with several warehouses, then pass the chosen `id` as `connectionId` to sql_execution. \
Takes no arguments. Example result: {\"connections\":[{\"id\":\"warehouse\",\"driver\":\"sqlite\",\"dialect\":\"sqlite\",\"description\":\"Demo warehouse…\",\"statementTimeoutMs\":30000,\"queryable\":true}]}",
        read_only: true,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    async fn call(
        &self,
        _input: ConnectionListInput,
        _ctx: ToolContext,
    ) -> Result<ConnectionListOutput, ErrorReport> {
        let connections = self
            .warehouses
            .list()
            .into_iter()
            .map(|c| ConnectionSummary {
                id: c.id,
                driver: c.driver.as_str().to_string(),
                dialect: c.dialect.to_string(),
                description: c.description,
                statement_timeout_ms: c.statement_timeout_ms,
            })
            .collect();
        Ok(ConnectionListOutput { connections })
    }
}
