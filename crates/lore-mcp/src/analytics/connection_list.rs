//! `connection_list`: which warehouses this project can query.

use std::sync::Arc;

use lore_core::ErrorReport;
use lore_warehouse::catalog::Catalog;
use lore_warehouse::execute::Warehouses;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::toolkit::{Scope, Tool, ToolContext, ToolDefinition};

/// Lists the configured connections.
pub struct ConnectionList {
    pub(super) warehouses: Arc<Warehouses>,
    pub(super) catalog: Arc<Catalog>,
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
    /// Database driver: sqlite, postgres, mysql or snowflake.
    pub driver: String,
    /// SQL dialect that queries on this connection must be written in.
    pub dialect: String,
    /// What the connection holds, from lore.yaml.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Queries running longer than this are interrupted.
    pub statement_timeout_ms: u64,
    /// The latest `lore scan` of this connection, which entity_details and dictionary_search read; null when never scanned.
    pub last_scan: Option<ScanSummary>,
}

/// A connection's latest scan.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScanSummary {
    /// The snapshot's id (sorts by time).
    pub sync_id: String,
    /// When the structure was read (ISO-8601 UTC).
    pub extracted_at: String,
    /// Tables and views in the snapshot.
    pub table_count: usize,
}

impl Tool for ConnectionList {
    type Input = ConnectionListInput;
    type Output = ConnectionListOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "connection_list",
        title: "Connection List",
        description: "List the project's data connections: id (pass it as connectionId), driver, SQL dialect, description and lastScan (null: never scanned, so entity_details and dictionary_search have nothing to answer from yet). Takes no arguments. Example: {}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    async fn call(
        &self,
        _input: ConnectionListInput,
        _ctx: ToolContext,
    ) -> Result<ConnectionListOutput, ErrorReport> {
        let listed = self.warehouses.list();
        let catalog = Arc::clone(&self.catalog);
        let ids: Vec<String> = listed.iter().map(|c| c.id.clone()).collect();
        // A snapshot that cannot be read shows as no scan here; the tools
        // that read it report the problem.
        let scans: Vec<Option<ScanSummary>> = tokio::task::spawn_blocking(move || {
            ids.iter()
                .map(|id| {
                    catalog.latest(id).ok().flatten().map(|s| ScanSummary {
                        sync_id: s.manifest.sync_id.clone(),
                        extracted_at: s.manifest.extracted_at.clone(),
                        table_count: s.tables.len(),
                    })
                })
                .collect()
        })
        .await
        .unwrap_or_default();
        let mut scans = scans.into_iter();
        let connections = listed
            .into_iter()
            .map(|c| ConnectionSummary {
                id: c.id,
                driver: c.driver.as_str().to_string(),
                dialect: c.dialect.to_string(),
                description: c.description,
                statement_timeout_ms: c.statement_timeout_ms,
                last_scan: scans.next().flatten(),
            })
            .collect();
        Ok(ConnectionListOutput { connections })
    }
}
