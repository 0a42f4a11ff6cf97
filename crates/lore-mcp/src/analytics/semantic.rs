//! `sl_read_source` and `sl_query`: the semantic layer of a connection.
//! Agents read how a source is modelled, then ask for measures by
//! dimensions and get rows computed by SQL the planner wrote (fan and chasm
//! traps handled), checked by the same read-only guard as `sql_execution`.

use crate::toolkit::{Scope, Tool, ToolContext, ToolDefinition};
use lore_context::semantic::{ExecutedSemanticQuery, model_of, plan_semantic_query};
use lore_core::ErrorReport;
use lore_core::error::{ErrorCode, HasErrorCode};
use lore_semantic::model::ModelCache;
use lore_semantic::planner::{GroupPlan, OutputColumn};
use lore_semantic::query::SemanticQuery;
use lore_warehouse::execute::{MAX_ROWS_LIMIT, Warehouses};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Reads one source of the semantic layer.
pub struct SlReadSource {
    pub(super) warehouses: Arc<Warehouses>,
    pub(super) models: Arc<ModelCache>,
}

/// Arguments of `sl_read_source`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SlReadSourceInput {
    /// Id of the connection, as returned by connection_list (e.g. "warehouse").
    #[schemars(length(min = 1))]
    pub connection_id: String,
    /// The source to read, e.g. "invoices"; an unknown name lists the sources.
    #[schemars(length(min = 1))]
    pub source_name: String,
}

/// One source as modelled.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SlReadSourceOutput {
    /// The connection.
    pub connection_id: String,
    /// The source.
    pub source_name: String,
    /// The file it is defined in.
    pub file: String,
    /// The source in the model's YAML format: table or sql, grain, columns, joins, measures, segments.
    pub yaml: String,
    /// Its measures as `source.measure`, ready for sl_query.
    pub measures: Vec<String>,
    /// Its columns as `source.column`, usable as dimensions and in filters.
    pub dimensions: Vec<String>,
    /// Its segments as `source.segment`.
    pub segments: Vec<String>,
    /// Model warnings about this source (e.g. no join reaches it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl Tool for SlReadSource {
    type Input = SlReadSourceInput;
    type Output = SlReadSourceOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "sl_read_source",
        title: "Semantic Layer Read Source",
        description: "Read how one semantic-layer source is modelled (table or SQL, grain, columns, joins, measures with their filters, segments) and the exact names sl_query takes. An unknown sourceName lists the sources. Example: {\"connectionId\":\"warehouse\",\"sourceName\":\"invoices\"}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    fn check_input(input: &SlReadSourceInput) -> Result<(), String> {
        if input.connection_id.trim().is_empty() || input.source_name.trim().is_empty() {
            return Err("connectionId and sourceName must not be empty".into());
        }
        Ok(())
    }

    async fn call(
        &self,
        input: SlReadSourceInput,
        _ctx: ToolContext,
    ) -> Result<SlReadSourceOutput, ErrorReport> {
        self.warehouses
            .get(&input.connection_id)
            .map_err(|e| e.report())?;
        let model = model_of(&self.models, &input.connection_id)?;
        let Some(source) = model.source(&input.source_name) else {
            return Err(ErrorReport::new(
                ErrorCode::NotFound,
                format!(
                    "no source `{}` in the semantic layer of `{}`; sources: {}",
                    input.source_name,
                    input.connection_id,
                    model.source_names().join(", ")
                ),
            ));
        };
        let root = self.warehouses.project_root();
        let file = source
            .file
            .strip_prefix(root)
            .unwrap_or(&source.file)
            .display()
            .to_string();
        let name = &source.name;
        Ok(SlReadSourceOutput {
            connection_id: input.connection_id.clone(),
            source_name: name.clone(),
            file,
            yaml: source.to_yaml(),
            measures: source
                .measures
                .iter()
                .map(|m| format!("{name}.{}", m.name))
                .collect(),
            dimensions: source
                .columns
                .iter()
                .filter(|c| c.visibility != lore_semantic::model::Visibility::Hidden)
                .map(|c| format!("{name}.{}", c.name))
                .collect(),
            segments: source
                .segments
                .iter()
                .map(|s| format!("{name}.{}", s.name))
                .collect(),
            warnings: model
                .warnings
                .iter()
                .filter(|w| w.source.as_deref() == Some(name))
                .map(|w| w.message.clone())
                .collect(),
        })
    }
}

/// Queries the semantic layer.
pub struct SlQuery {
    pub(super) warehouses: Arc<Warehouses>,
    pub(super) models: Arc<ModelCache>,
}

/// What to include beyond the rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SlInclude {
    /// The compiled SQL.
    Sql,
    /// How each measure group was computed.
    Plan,
}

/// Arguments of `sl_query`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SlQueryInput {
    /// Id of the connection; may be omitted when the project has exactly one.
    #[serde(default)]
    pub connection_id: Option<String>,
    /// The query: measures, dimensions, filters, segments, order_by, limit.
    #[serde(flatten)]
    pub query: SemanticQuery,
    /// Extras to return: "sql" (the compiled SQL) and/or "plan" (how each measure group was computed).
    #[serde(default)]
    pub include: Vec<SlInclude>,
}

/// The rows of a semantic query.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SlQueryOutput {
    /// The connection queried.
    pub connection_id: String,
    /// Column names, in order: dimensions first, then measures.
    pub headers: Vec<String>,
    /// Whether each column is a dimension or a measure.
    pub columns: Vec<SlColumn>,
    /// Rows as arrays of values in header order.
    pub rows: Vec<Vec<serde_json::Value>>,
    /// Number of rows returned.
    pub row_count: usize,
    /// True when more rows existed than the limit.
    pub truncated: bool,
    /// Execution and fetch time in milliseconds.
    pub elapsed_ms: u64,
    /// How the planner kept the numbers right (fan and chasm traps), in plain words.
    pub notes: Vec<String>,
    /// The compiled SQL, when include has "sql".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sql: Option<String>,
    /// Per measure source: measures, join paths and strategy (direct or distinct_keys), when include has "plan".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<Vec<SlGroupPlan>>,
}

/// One output column.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SlColumn {
    /// Column name.
    pub name: String,
    /// dimension or measure.
    pub kind: String,
}

/// How one source's measures were computed.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SlGroupPlan {
    /// The source aggregated.
    pub source: String,
    /// Its measures in this query.
    pub measures: Vec<String>,
    /// Join paths taken, as "a -> b -> c".
    pub joins: Vec<String>,
    /// direct, or distinct_keys when a one-to-many join had to be neutralised.
    pub strategy: String,
}

impl From<&OutputColumn> for SlColumn {
    fn from(c: &OutputColumn) -> SlColumn {
        SlColumn {
            name: c.name.clone(),
            kind: c.kind.to_string(),
        }
    }
}

impl From<&GroupPlan> for SlGroupPlan {
    fn from(g: &GroupPlan) -> SlGroupPlan {
        SlGroupPlan {
            source: g.source.clone(),
            measures: g.measures.clone(),
            joins: g.joins.clone(),
            strategy: g.strategy.to_string(),
        }
    }
}

impl Tool for SlQuery {
    type Input = SlQueryInput;
    type Output = SlQueryOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "sl_query",
        title: "Semantic Layer Query",
        description: "Get approved metrics from the semantic layer instead of writing SQL: measures by dimensions, with filters, segments, order_by and limit. Every measure is aggregated at its own grain, so one-to-many joins never double count (notes says when that mattered), and the SQL runs read-only. sl_read_source shows a source's names. Example: {\"connectionId\":\"warehouse\",\"measures\":[\"invoices.revenue\"],\"dimensions\":[\"invoices.currency\",{\"field\":\"invoices.issued_at\",\"granularity\":\"quarter\"}],\"order_by\":[\"invoices.revenue desc\"]}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    fn check_input(input: &SlQueryInput) -> Result<(), String> {
        if input
            .connection_id
            .as_deref()
            .is_some_and(|c| c.trim().is_empty())
        {
            return Err(
                "connectionId must not be empty; omit it when the project has one connection"
                    .into(),
            );
        }
        if input.query.measures.is_empty() && input.query.dimensions.is_empty() {
            return Err("ask for at least one measure or dimension".into());
        }
        if input
            .query
            .limit
            .is_some_and(|l| l == 0 || l > MAX_ROWS_LIMIT as u64)
        {
            return Err(format!("limit must be between 1 and {MAX_ROWS_LIMIT}"));
        }
        Ok(())
    }

    fn items(output: &SlQueryOutput) -> Option<usize> {
        Some(output.rows.len())
    }

    fn keep_items(output: &mut SlQueryOutput, keep: usize, why: &str) {
        output.rows.truncate(keep);
        output.row_count = output.rows.len();
        output.truncated = true;
        output.notes.push(format!(
            "Only the first {keep} rows are shown: {why}. Ask for fewer dimensions, filter, or lower the limit."
        ));
    }

    async fn call(
        &self,
        input: SlQueryInput,
        ctx: ToolContext,
    ) -> Result<SlQueryOutput, ErrorReport> {
        ctx.progress(0.0, "Compiling query").await;
        ctx.progress(0.3, "Generating SQL").await;
        let planned = plan_semantic_query(
            &self.warehouses,
            &self.models,
            input.connection_id.as_deref(),
            input.query,
        )?;
        ctx.progress(0.6, "Executing").await;
        let ExecutedSemanticQuery {
            connection_id,
            compiled,
            result,
        } = planned.run().await?;
        let row_count = result.rows.len();
        ctx.progress(1.0, format!("Fetched {row_count} rows")).await;
        let mut notes = compiled.notes.clone();
        if result.cut_at_bytes.is_some() {
            notes.extend(result.truncation_notice(row_count));
        }
        Ok(SlQueryOutput {
            connection_id,
            headers: result.headers,
            columns: compiled.columns.iter().map(SlColumn::from).collect(),
            rows: result.rows,
            row_count,
            truncated: result.truncated,
            elapsed_ms: result.elapsed_ms,
            notes,
            sql: input
                .include
                .contains(&SlInclude::Sql)
                .then(|| compiled.sql.clone()),
            plan: input
                .include
                .contains(&SlInclude::Plan)
                .then(|| compiled.plan.iter().map(SlGroupPlan::from).collect()),
        })
    }
}
