//! `entity_details`: the exact columns, keys and relationships of tables
//! an agent found, from the latest scan.

use std::sync::Arc;

use lore_core::ErrorReport;
use lore_core::error::{ErrorCode, HasErrorCode};
use lore_warehouse::catalog::{
    Catalog, EntityRequest, EntityResult, SnapshotInfo, TableQuery, entity_details,
};
use lore_warehouse::execute::Warehouses;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::toolkit::{Scope, Tool, ToolContext, ToolDefinition};

/// Most entities per call.
const MAX_ENTITIES: usize = 20;

/// Reads table metadata from the latest scan.
pub struct EntityDetails {
    pub(super) warehouses: Arc<Warehouses>,
    pub(super) catalog: Arc<Catalog>,
}

/// A table named by its parts. Absent parts match anything.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct TableRefInput {
    /// Catalog (a database above schemas); null or omitted matches any.
    #[serde(default)]
    pub catalog: Option<String>,
    /// Schema (PostgreSQL) or database (MySQL); null or omitted matches any.
    #[serde(default)]
    pub db: Option<String>,
    /// Same as `db`, for the {schema, table} convention.
    #[serde(default)]
    pub schema: Option<String>,
    /// Table or view name.
    #[serde(default)]
    pub name: Option<String>,
    /// Same as `name`, for the {schema, table} convention.
    #[serde(default)]
    pub table: Option<String>,
}

/// A table as a display string or a structured reference.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum TableInput {
    /// A display string such as "orders", "sales.orders" or "\"Sales\".\"Order Items\"".
    Display(String),
    /// A structured reference such as {"db": "sales", "name": "orders"} or {"schema": "sales", "table": "orders"}.
    Ref(TableRefInput),
}

/// One table to describe.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct EntitySpec {
    /// The table: a display string ("sales.orders") or {catalog, db, name} (also {schema, table}).
    pub table: TableInput,
    /// Only these columns (all when omitted). Keys and relationships are always the whole table's.
    #[serde(default)]
    pub columns: Option<Vec<String>>,
}

/// An entity: {table, columns?}, or just the table's display string.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum EntityInput {
    /// Just the table, e.g. "sales.orders".
    Name(String),
    /// A table and optionally some of its columns.
    Spec(EntitySpec),
}

/// Arguments of `entity_details`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EntityDetailsInput {
    /// Id of the connection, as returned by connection_list (e.g. "warehouse").
    #[schemars(length(min = 1))]
    pub connection_id: String,
    /// 1 to 20 tables, e.g. [{"table": "sales.orders", "columns": ["status"]}, "customers"].
    #[schemars(length(min = 1, max = 20))]
    pub entities: Vec<EntityInput>,
}

/// Metadata of the requested tables.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EntityDetailsOutput {
    /// The connection.
    pub connection_id: String,
    /// The scan answered from; null before the first scan.
    pub snapshot: Option<SnapshotInfo>,
    /// One result per requested entity, in order: the table (status ok), the table with a column error (partial), or an error with candidates or the command to run (error).
    pub entities: Vec<EntityResult>,
}

fn query_of(input: &EntityInput) -> Result<(TableQuery, Option<Vec<String>>), String> {
    let (table, columns) = match input {
        EntityInput::Name(name) => (TableInput::Display(name.clone()), None),
        EntityInput::Spec(spec) => (spec.table.clone(), spec.columns.clone()),
    };
    let query = match table {
        TableInput::Display(text) => TableQuery::parse(&text).ok_or_else(|| {
            format!(
                "table `{text}` is not a table name: use name, schema.name or catalog.schema.name"
            )
        })?,
        TableInput::Ref(r) => {
            let name = r
                .name
                .or(r.table)
                .filter(|n| !n.trim().is_empty())
                .ok_or("a structured table needs `name` (or `table`)")?;
            TableQuery {
                catalog: r.catalog,
                db: r.db.or(r.schema),
                name,
            }
        }
    };
    Ok((query, columns))
}

impl Tool for EntityDetails {
    type Input = EntityDetailsInput;
    type Output = EntityDetailsOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "entity_details",
        title: "Entity Details",
        description: "Read the exact structure of tables from the latest scan: columns (types, nullability, keys, comments, sample statistics, frequent values), foreign keys and relationships both ways. Each entity answers on its own: ok, partial (unknown columns, with candidates) or error (scan_missing with the command to run, table_not_found or ambiguous_table with candidates). Example: {\"connectionId\":\"warehouse\",\"entities\":[{\"table\":\"accounts\",\"columns\":[\"segment\",\"deleted_at\"]},\"invoices\"]}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    fn check_input(input: &EntityDetailsInput) -> Result<(), String> {
        if input.connection_id.trim().is_empty() {
            return Err("connectionId must not be empty; call connection_list for the ids".into());
        }
        if input.entities.is_empty() || input.entities.len() > MAX_ENTITIES {
            return Err(format!(
                "entities must list 1 to {MAX_ENTITIES} tables, got {}",
                input.entities.len()
            ));
        }
        for entity in &input.entities {
            query_of(entity)?;
        }
        Ok(())
    }

    async fn call(
        &self,
        input: EntityDetailsInput,
        _ctx: ToolContext,
    ) -> Result<EntityDetailsOutput, ErrorReport> {
        self.warehouses
            .get(&input.connection_id)
            .map_err(|e| e.report())?;
        let requests = input
            .entities
            .iter()
            .map(|e| query_of(e).map(|(table, columns)| EntityRequest { table, columns }))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|message| ErrorReport::new(ErrorCode::InvalidArguments, message))?;
        let catalog = Arc::clone(&self.catalog);
        let id = input.connection_id.clone();
        let snapshot = tokio::task::spawn_blocking(move || catalog.latest(&id))
            .await
            .map_err(|e| {
                ErrorReport::new(ErrorCode::Internal, format!("catalog task failed: {e}"))
            })?
            .map_err(|e| e.report())?;
        let entities = entity_details(&input.connection_id, snapshot.as_deref(), &requests);
        Ok(EntityDetailsOutput {
            connection_id: input.connection_id,
            snapshot: snapshot.map(|s| s.info()),
            entities,
        })
    }
}
