//! `sql_execution`: one guarded, read-only query against a connection.

use std::sync::Arc;

use lore_core::ErrorReport;
use lore_core::error::HasErrorCode;
use lore_warehouse::execute::{DEFAULT_MAX_ROWS, MAX_ROWS_LIMIT, Warehouses};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::toolkit::{Scope, Tool, ToolContext, ToolDefinition};

/// Runs read-only SQL.
pub struct SqlExecution {
    pub(super) warehouses: Arc<Warehouses>,
}

/// Arguments of `sql_execution`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SqlExecutionInput {
    /// Id of the connection to query, as returned by connection_list (e.g. "warehouse").
    #[schemars(length(min = 1))]
    pub connection_id: String,
    /// Exactly one read-only query in the connection's dialect: SELECT, WITH … SELECT, VALUES, or EXPLAIN of a query. Writes, DDL, locking clauses, SET, PRAGMA, ATTACH, several statements and side-effecting functions are refused with code read_only_violation.
    #[schemars(length(min = 1))]
    pub sql: String,
    /// Most rows to return, 1 to 10000 (default 1000). When the query has more, the result says truncated: true; aggregate or add a LIMIT rather than raising this.
    #[serde(default = "default_max_rows")]
    #[schemars(range(min = 1, max = 10000))]
    pub max_rows: u32,
}

fn default_max_rows() -> u32 {
    DEFAULT_MAX_ROWS as u32
}

/// The result of a query.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SqlExecutionOutput {
    /// Column names, in order.
    pub headers: Vec<String>,
    /// Driver type names, one per header; omitted when the connector cannot tell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header_types: Option<Vec<String>>,
    /// Rows as arrays of values in header order. Integers beyond 2^53 arrive as strings; binary data as {"$base64": "..."}.
    pub rows: Vec<Vec<serde_json::Value>>,
    /// Number of rows returned.
    pub row_count: usize,
    /// True when the query had more rows than maxRows and the result was cut.
    pub truncated: bool,
    /// The row cap that applied.
    pub max_rows: usize,
    /// Execution and fetch time in milliseconds.
    pub elapsed_ms: u64,
    /// How to get the rest when the result was truncated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
    /// Bytes the warehouse processed (BigQuery bills by them); omitted when it does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_processed: Option<u64>,
}

impl Tool for SqlExecution {
    type Input = SqlExecutionInput;
    type Output = SqlExecutionOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "sql_execution",
        title: "SQL Execution",
        description: "Run one read-only SQL query (checked in the connection's dialect, run in a read-only session with a timeout) for what the semantic layer does not cover. Rows stop at maxRows or a size budget; truncated: true and notice say how to get more. Prefer aggregates. Example: {\"connectionId\":\"warehouse\",\"sql\":\"SELECT region, count(*) AS accounts FROM accounts WHERE deleted_at IS NULL GROUP BY region\"}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    fn check_input(input: &SqlExecutionInput) -> Result<(), String> {
        if input.connection_id.trim().is_empty() {
            return Err("connectionId must not be empty; call connection_list for the ids".into());
        }
        if input.sql.trim().is_empty() {
            return Err("sql must not be empty".into());
        }
        if !(1..=MAX_ROWS_LIMIT as u32).contains(&input.max_rows) {
            return Err(format!(
                "maxRows must be between 1 and {MAX_ROWS_LIMIT}, got {}",
                input.max_rows
            ));
        }
        Ok(())
    }

    fn items(output: &SqlExecutionOutput) -> Option<usize> {
        Some(output.rows.len())
    }

    fn keep_items(output: &mut SqlExecutionOutput, keep: usize, why: &str) {
        output.rows.truncate(keep);
        output.row_count = output.rows.len();
        output.truncated = true;
        output.notice = Some(format!(
            "Only the first {keep} rows are shown: {why}. Select fewer or narrower columns, aggregate, or page through it with ORDER BY a key and WHERE key > the last one shown."
        ));
    }

    async fn call(
        &self,
        input: SqlExecutionInput,
        ctx: ToolContext,
    ) -> Result<SqlExecutionOutput, ErrorReport> {
        let max_rows = input.max_rows as usize;
        ctx.progress(0.0, "Validating SQL").await;
        let prepared = self
            .warehouses
            .prepare(&input.connection_id, &input.sql)
            .map_err(|e| e.report())?;
        ctx.progress(0.3, "Executing").await;
        let result = prepared.run(max_rows).await.map_err(|e| e.report())?;
        let row_count = result.rows.len();
        ctx.progress(1.0, format!("Fetched {row_count} rows")).await;
        let notice = result.truncation_notice(max_rows);
        Ok(SqlExecutionOutput {
            headers: result.headers,
            header_types: result.header_types,
            rows: result.rows,
            row_count,
            truncated: result.truncated,
            max_rows,
            elapsed_ms: result.elapsed_ms,
            notice,
            bytes_processed: result.bytes_processed,
        })
    }
}
