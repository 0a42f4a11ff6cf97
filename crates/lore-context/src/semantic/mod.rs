//! The semantic layer as front ends ask for it.
//!
//! - Semantic queries (this module): a connection's model, a query
//!   compiled for its dialect and checked by the read-only guard, then
//!   run. Shared by `sl_query` and `lore sl query`.
//! - [`files`]: the model's files kept in the knowledge store (history,
//!   undo of a multi-file write as one transaction).
//! - [`generate`]: a starting model from a scan, written through
//!   [`files`].
//! - [`import`]: a model the `lore-import` readers produced, written
//!   through [`files`] with a ledger that keeps hand edits.

pub mod files;
pub mod generate;
pub mod import;

use lore_core::ErrorReport;
use lore_core::config::Driver;
use lore_core::error::{ErrorCode, HasErrorCode};
use lore_semantic::dialect::Dialect;
use lore_semantic::model::{ModelCache, SemanticModel};
use lore_semantic::planner::{CompiledQuery, DEFAULT_LIMIT, compile};
use lore_semantic::query::SemanticQuery;
use lore_warehouse::execute::{MAX_ROWS_LIMIT, Warehouses};
use std::sync::Arc;

/// The dialect the planner writes for a connection's driver.
pub fn dialect(driver: Driver) -> Dialect {
    match driver {
        Driver::Sqlite => Dialect::Sqlite,
        Driver::Postgres => Dialect::Postgres,
        Driver::Mysql => Dialect::Mysql,
        Driver::Clickhouse => Dialect::Clickhouse,
        Driver::Snowflake => Dialect::Snowflake,
        Driver::Bigquery => Dialect::Bigquery,
        Driver::Duckdb => Dialect::Duckdb,
    }
}

/// A connection's model, or an error saying how to create one.
pub fn model_of(models: &ModelCache, connection: &str) -> Result<Arc<SemanticModel>, ErrorReport> {
    let model = models.model(connection).map_err(|e| e.report())?;
    if model.sources.is_empty() {
        return Err(ErrorReport::new(
            ErrorCode::NotFound,
            format!(
                "connection `{connection}` has no semantic model yet: describe its tables in {}/<source>.yaml (format in docs/semantic-layer.md), or query with sql_execution",
                models.dir(connection).display()
            ),
        ));
    }
    Ok(model)
}

/// A semantic query compiled for its connection and passed through the
/// read-only guard, ready to [`run`](PlannedSemanticQuery::run).
pub struct PlannedSemanticQuery {
    /// The connection it runs on.
    pub connection_id: String,
    /// The compiled SQL with notes and plan (its LIMIT is one more than
    /// asked, so a cut result says `truncated`).
    pub compiled: CompiledQuery,
    prepared: lore_warehouse::execute::PreparedQuery,
    /// Rows asked for (the query's limit, at most `MAX_ROWS_LIMIT`).
    limit: usize,
}

/// A semantic query and its rows.
pub struct ExecutedSemanticQuery {
    /// The connection it ran on.
    pub connection_id: String,
    /// The compiled SQL with notes and plan.
    pub compiled: CompiledQuery,
    /// At most the asked rows; `truncated` when more existed.
    pub result: lore_warehouse::execute::QueryResult,
}

impl PlannedSemanticQuery {
    /// Runs the statement.
    pub async fn run(self) -> Result<ExecutedSemanticQuery, ErrorReport> {
        let mut result = self
            .prepared
            .run(self.limit)
            .await
            .map_err(|e| e.report())?;
        // The columns are the query's fields, whatever names the dialect
        // had to give them in SQL (BigQuery allows no `.` there).
        if result.headers.len() == self.compiled.columns.len() {
            result.headers = self
                .compiled
                .columns
                .iter()
                .map(|c| c.name.clone())
                .collect();
        }
        Ok(ExecutedSemanticQuery {
            connection_id: self.connection_id,
            compiled: self.compiled,
            result,
        })
    }
}

/// Resolves the connection (the only one when `connection_id` is
/// omitted), compiles `query` against its model and passes the SQL through
/// the same guard as `sql_execution`. Shared by `sl_query` and `lore sl
/// query`.
pub fn plan_semantic_query(
    warehouses: &Warehouses,
    models: &ModelCache,
    connection_id: Option<&str>,
    mut query: SemanticQuery,
) -> Result<PlannedSemanticQuery, ErrorReport> {
    let connection_id = match connection_id {
        Some(id) => id.to_string(),
        None => match warehouses.ids().as_slice() {
            [one] => one.clone(),
            ids => {
                return Err(ErrorReport::new(
                    ErrorCode::InvalidArguments,
                    format!(
                        "the project has {} connections; pass connectionId (one of: {})",
                        ids.len(),
                        ids.join(", ")
                    ),
                ));
            }
        },
    };
    let (config, _) = warehouses.get(&connection_id).map_err(|e| e.report())?;
    let dialect = dialect(config.driver);
    let model = model_of(models, &connection_id)?;
    let limit = query
        .limit
        .unwrap_or(DEFAULT_LIMIT)
        .min(MAX_ROWS_LIMIT as u64);
    query.limit = Some(limit + 1);
    let compiled = compile(&model, &query, dialect, warehouses.limits()).map_err(|e| e.report())?;
    let prepared = warehouses
        .prepare(&connection_id, &compiled.sql)
        .map_err(|e| {
            // The query and the model wrote this SQL: say so, keep the
            // guard's stable code (invalid_sql, read_only_violation).
            let report = e.report();
            ErrorReport::new(
                report.code,
                format!(
                    "the SQL compiled from this query and the semantic model was refused: {}; check the model's expressions with sl_read_source",
                    report.message
                ),
            )
        })?;
    Ok(PlannedSemanticQuery {
        connection_id,
        compiled,
        prepared,
        limit: limit as usize,
    })
}
