//! `lore sl list|read|validate|query`: the semantic layer from a terminal,
//! answering what `sl_read_source` and `sl_query` answer agents.

use std::path::Path;

use anyhow::{Context, bail};
use lore_context::semantic::plan_semantic_query;
use lore_core::error::HasErrorCode;
use lore_semantic::SemanticError;
use lore_semantic::model::{ModelCache, SemanticModel};
use lore_semantic::query::{DimensionRef, MeasureRef, OrderRef, SemanticQuery};
use lore_warehouse::execute::Warehouses;

use crate::render;

/// `lore sl …` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum SlCommand {
    /// List the sources of a connection's model with their measures.
    List(SlTarget),
    /// Print one source as YAML.
    Read {
        /// The source name.
        source: String,
        #[command(flatten)]
        target: SlTarget,
    },
    /// Load the model and report every problem (exit 1 when there is one).
    Validate(SlTarget),
    /// Compile and run a semantic query.
    Query(SlQueryArgs),
    /// Write a starting model from the latest scan (existing files are
    /// kept) as one transaction of the store (undo it to take it back).
    Generate(SlTarget),
    /// Record edits made to the model files in the store (history, undo)
    /// and bring back files whose entries changed (an undo).
    Sync {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Import the semantic models of another tool (a dbt MetricFlow
    /// project, a LookML project, a Cube project) as Lore sources, in one transaction, with a report of
    /// what came across as it is, approximated or skipped.
    Import(SlImportArgs),
}

/// What `lore sl import` reads.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ImportFormat {
    /// dbt MetricFlow semantic models and metrics.
    Metricflow,
    /// LookML views and explores (*.lkml).
    Lookml,
    /// Cube cubes (YAML model files).
    Cube,
}

/// Arguments of `lore sl import`.
#[derive(Debug, clap::Args)]
pub struct SlImportArgs {
    /// The format.
    #[arg(long, value_enum)]
    pub from: ImportFormat,
    /// The project folder (a dbt project: its models/**/*.yml, and
    /// target/manifest.json when compiled; a Cube project; a LookML
    /// project, or one of its .model.lkml files to read only what that
    /// model includes).
    pub path: String,
    /// Connection id (default: the only connection).
    #[arg(short = 'c', long = "connection", value_name = "ID")]
    pub connection: Option<String>,
    /// Print the report without writing anything.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Which connection's model.
#[derive(Debug, clap::Args)]
pub struct SlTarget {
    /// Connection id (default: the only connection).
    #[arg(short = 'c', long = "connection", value_name = "ID")]
    pub connection: Option<String>,
    /// Print JSON instead of text (`sl query`: the same as `--format json`).
    #[arg(long)]
    pub json: bool,
}

/// Output of `lore sl query`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum QueryFormat {
    /// A text table, then the notes.
    Table,
    /// The rows, notes, SQL and plan as JSON.
    Json,
    /// Only the compiled SQL (nothing runs).
    Sql,
}

/// Arguments of `lore sl query`.
#[derive(Debug, clap::Args)]
pub struct SlQueryArgs {
    #[command(flatten)]
    pub target: SlTarget,
    /// A measure: source.measure, a bare name, or an aggregate like sum(source.column).
    #[arg(short = 'm', long = "measure", value_name = "MEASURE")]
    pub measures: Vec<String>,
    /// A dimension: source.column, or source.column:month (day, week, month, quarter, year).
    #[arg(short = 'd', long = "dimension", value_name = "DIMENSION")]
    pub dimensions: Vec<String>,
    /// A condition over source.column (WHERE) or a measure (HAVING).
    #[arg(short = 'f', long = "filter", value_name = "CONDITION")]
    pub filters: Vec<String>,
    /// A segment: source.segment.
    #[arg(short = 's', long = "segment", value_name = "SEGMENT")]
    pub segments: Vec<String>,
    /// Order by a dimension or measure, e.g. "invoices.revenue desc".
    #[arg(short = 'o', long = "order-by", value_name = "FIELD")]
    pub order_by: Vec<String>,
    /// At most this many rows (default 1000).
    #[arg(long)]
    pub limit: Option<u64>,
    /// The whole query as sl_query JSON instead of the flags above.
    #[arg(long, value_name = "JSON", conflicts_with_all = ["measures", "dimensions", "filters", "segments", "order_by"])]
    pub query: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: QueryFormat,
}

fn model(
    project: &lore_core::project::Project,
    connection: &str,
) -> anyhow::Result<(ModelCache, std::sync::Arc<SemanticModel>)> {
    let cache = ModelCache::new(&project.semantic_layer_dir());
    let model = cache.model(connection).map_err(|e| explain(&e))?;
    if model.sources.is_empty() {
        bail!(
            "connection `{connection}` has no semantic model: write sources in {}/<source>.yaml",
            cache.dir(connection).display()
        );
    }
    Ok((cache, model))
}

fn explain(error: &SemanticError) -> anyhow::Error {
    match error {
        SemanticError::InvalidModel { issues } => {
            let lines: Vec<String> = issues.iter().map(|i| format!("  {i}")).collect();
            anyhow::anyhow!(
                "the semantic model has {} error(s) [{}]:\n{}",
                issues.len(),
                error.code(),
                lines.join("\n")
            )
        }
        other => super::coded(other),
    }
}

pub fn run(command: SlCommand, project_dir: Option<&Path>) -> anyhow::Result<()> {
    let command = match command {
        SlCommand::Query(mut args) => {
            // `--json` (of the shared connection flags) is `--format json`.
            if args.target.json {
                args.format = QueryFormat::Json;
            }
            SlCommand::Query(args)
        }
        other => other,
    };
    let project = super::load_project(project_dir)?;
    match command {
        SlCommand::List(target) => list(&project, target),
        SlCommand::Read { source, target } => read(&project, &source, target),
        SlCommand::Validate(target) => validate(&project, target),
        SlCommand::Query(args) => query(&project, args),
        SlCommand::Import(args) => import(&project, args),
        SlCommand::Generate(target) => generate(&project, target),
        SlCommand::Sync { json } => sync(&project, json),
    }
}

/// `lore sl list`: each source's grain, measures, columns and joins.
fn list(project: &lore_core::project::Project, target: SlTarget) -> anyhow::Result<()> {
    let connection = super::pick_connection(project, target.connection.as_deref())?;
    let (_, model) = model(project, &connection)?;
    let rows: Vec<Vec<String>> = model
        .sources
        .iter()
        .map(|s| {
            vec![
                s.name.clone(),
                s.grain.join(", "),
                s.measures
                    .iter()
                    .map(|m| m.name.clone())
                    .collect::<Vec<_>>()
                    .join(", "),
                s.columns.len().to_string(),
                s.joins
                    .iter()
                    .map(|j| j.name.clone())
                    .collect::<Vec<_>>()
                    .join(", "),
            ]
        })
        .collect();
    let headers = ["source", "grain", "measures", "columns", "joins"].map(String::from);
    if target.json {
        let sources: Vec<serde_json::Value> = model
            .sources
            .iter()
            .map(|s| {
                serde_json::json!({
                    "source": s.name,
                    "grain": s.grain,
                    "measures": s.measures.iter().map(|m| &m.name).collect::<Vec<_>>(),
                    "columns": s.columns.len(),
                    "joins": s.joins.iter().map(|j| &j.name).collect::<Vec<_>>(),
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "connectionId": connection,
                "sources": sources,
                "warnings": model.warnings,
            }))?
        );
        return Ok(());
    }
    print!("{}", render::grid(&headers, &rows));
    for warning in &model.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(())
}

/// `lore sl read`: one source's YAML (or JSON).
fn read(
    project: &lore_core::project::Project,
    source: &str,
    target: SlTarget,
) -> anyhow::Result<()> {
    let connection = super::pick_connection(project, target.connection.as_deref())?;
    let (_, model) = model(project, &connection)?;
    let Some(found) = model.source(source) else {
        bail!(
            "no source `{source}`; sources: {}",
            model.source_names().join(", ")
        );
    };
    if target.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "connectionId": connection,
                "file": found.file,
                "source": found.spec,
            }))?
        );
        return Ok(());
    }
    println!("# {}", found.file.display());
    print!("{}", found.to_yaml());
    Ok(())
}

/// `lore sl validate`: the model loads; its size and warnings.
fn validate(project: &lore_core::project::Project, target: SlTarget) -> anyhow::Result<()> {
    let connection = super::pick_connection(project, target.connection.as_deref())?;
    let (cache, model) = model(project, &connection)?;
    for warning in &model.warnings {
        eprintln!("warning: {warning}");
    }
    let measures: usize = model.sources.iter().map(|s| s.measures.len()).sum();
    if target.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "ok": true,
                "connectionId": connection,
                "sources": model.sources.len(),
                "measures": measures,
                "dir": cache.dir(&connection),
                "warnings": model.warnings,
            }))?
        );
        return Ok(());
    }
    println!(
        "ok: {} sources, {measures} measures in {}",
        model.sources.len(),
        cache.dir(&connection).display()
    );
    Ok(())
}

/// `lore sl sync`: the semantic-layer files and the store brought in step.
fn sync(project: &lore_core::project::Project, json: bool) -> anyhow::Result<()> {
    let files = lore_context::services::Services::for_project(project).model_files;
    let report = files.sync().map_err(|e| super::coded(&e))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    for (what, paths) in [
        ("recorded", &report.imported),
        ("restored", &report.mirrored),
        ("removed file", &report.removed_files),
        ("deleted", &report.deleted),
    ] {
        for path in paths {
            println!("{what:<13} {path}");
        }
    }
    for problem in &report.problems {
        eprintln!("warning: {}: {}", problem.path, problem.message);
    }
    println!(
        "semantic-layer files in step with the store (transaction {}).",
        report.tx_id
    );
    Ok(())
}

fn generate(project: &lore_core::project::Project, target: SlTarget) -> anyhow::Result<()> {
    let connection = super::pick_connection(project, target.connection.as_deref())?;
    let catalog = lore_warehouse::catalog::Catalog::new(&project.root);
    let files = lore_context::services::Services::for_project(project).model_files;
    let generated = lore_context::semantic::generate::generate_model(
        &catalog,
        &files,
        &connection,
        &lore_context::wiki::current_user(),
    )
    .map_err(|e| super::coded(&e))?;
    let models = ModelCache::new(&project.semantic_layer_dir());
    let dir = models.dir(&connection);
    if target.json {
        println!("{}", serde_json::to_string_pretty(&generated)?);
        return models
            .model(&connection)
            .map(|_| ())
            .map_err(|e| explain(&e));
    }
    for path in &generated.written {
        println!("created  {path}");
    }
    for path in &generated.kept {
        println!("kept     {path} (exists; delete it to regenerate)");
    }
    for note in &generated.skipped {
        eprintln!("note: {note}");
    }
    if let Some(tx_id) = generated.tx_id {
        println!(
            "written as transaction {tx_id}; take it back with: lore memory undo --tx-id {tx_id}"
        );
    }
    match models.model(&connection) {
        Ok(model) => {
            for warning in &model.warnings {
                eprintln!("warning: {warning}");
            }
            println!(
                "\n{} sources in {}. Try:\n  lore sl list\n  lore sl query -m {}.count",
                model.sources.len(),
                dir.display(),
                model
                    .sources
                    .first()
                    .map(|s| s.name.as_str())
                    .unwrap_or("source")
            );
            Ok(())
        }
        Err(e) => Err(explain(&e)),
    }
}

fn query(project: &lore_core::project::Project, args: SlQueryArgs) -> anyhow::Result<()> {
    let query: SemanticQuery = match &args.query {
        Some(json) => {
            serde_json::from_str(json).context("--query is not a valid sl_query JSON object")?
        }
        None => SemanticQuery {
            measures: args
                .measures
                .iter()
                .cloned()
                .map(MeasureRef::Name)
                .collect(),
            dimensions: args
                .dimensions
                .iter()
                .map(|d| match d.rsplit_once(':') {
                    Some((field, granularity)) => DimensionRef::Field {
                        field: field.to_string(),
                        granularity: Some(granularity.to_string()),
                    },
                    None => DimensionRef::Name(d.clone()),
                })
                .collect(),
            filters: args.filters.clone(),
            segments: args.segments.clone(),
            order_by: args.order_by.iter().cloned().map(OrderRef::Name).collect(),
            limit: args.limit,
            include_empty: false,
        },
    };
    let connection = match &args.target.connection {
        Some(id) => Some(super::pick_connection(project, Some(id))?),
        None => None,
    };
    let warehouses = Warehouses::for_project(project);
    let models = ModelCache::new(&project.semantic_layer_dir());
    let planned = plan_semantic_query(&warehouses, &models, connection.as_deref(), query)
        .map_err(|e| anyhow::anyhow!("{} [{}]", e.message, e.code))?;
    if matches!(args.format, QueryFormat::Sql) {
        println!("{}", planned.compiled.sql);
        return Ok(());
    }
    let executed = super::block_on(planned.run())?
        .map_err(|e| anyhow::anyhow!("{} [{}]", e.message, e.code))?;
    let (result, compiled) = (executed.result, executed.compiled);
    match args.format {
        QueryFormat::Json => {
            let out = serde_json::json!({
                "connectionId": executed.connection_id,
                "headers": result.headers,
                "rows": result.rows,
                "rowCount": result.rows.len(),
                "truncated": result.truncated,
                "notes": compiled.notes,
                "sql": compiled.sql,
                "plan": compiled.plan,
            });
            println!("{}", serde_json::to_string_pretty(&out)?);
        }
        _ => {
            print!("{}", render::table(&result));
            for note in &compiled.notes {
                eprintln!("note: {note}");
            }
        }
    }
    Ok(())
}

fn import(project: &lore_core::project::Project, args: SlImportArgs) -> anyhow::Result<()> {
    use lore_context::semantic::import;
    use lore_import::{Outcome, metricflow};
    let connection = super::pick_connection(project, args.connection.as_deref())?;
    let path = std::path::Path::new(&args.path);
    let model_file = matches!(args.from, ImportFormat::Lookml)
        && path.is_file()
        && args.path.ends_with(".model.lkml");
    if !path.is_dir() && !model_file {
        anyhow::bail!(
            "{} is not a folder: give the project's folder{} [invalid_arguments]",
            args.path,
            if matches!(args.from, ImportFormat::Lookml) {
                " (or, for LookML, one .model.lkml file)"
            } else {
                ""
            }
        );
    }
    let catalog = lore_warehouse::catalog::Catalog::new(&project.root);
    let scan = catalog.latest(&connection).ok().flatten();
    let imported = match args.from {
        ImportFormat::Metricflow => metricflow::read(path, scan.as_deref()),
        ImportFormat::Cube => lore_import::cube::read(path, scan.as_deref()),
        ImportFormat::Lookml => lore_import::lookml::read(
            path,
            scan.as_deref(),
            lore_context::semantic::dialect(project.config.connections[&connection].driver),
        ),
    }
    .map_err(|e| super::coded(&e))?;
    let files = lore_context::services::Services::for_project(project).model_files;
    let report = import::write(
        &files,
        "cli",
        &connection,
        imported,
        scan.as_deref(),
        args.dry_run,
    )
    .map_err(|e| super::coded(&e))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    for item in &report.items {
        let mark = match item.outcome {
            Outcome::Imported => "imported",
            Outcome::Approximated => "approx",
            Outcome::Skipped => "SKIPPED",
        };
        println!(
            "{mark:<9} {:<15} {:<40} {}",
            item.kind, item.name, item.detail
        );
    }
    for conflict in &report.conflicts {
        eprintln!("conflict: {conflict} was changed by hand; left as it is");
    }
    println!(
        "{} imported, {} approximated, {} skipped; {} file(s) {}",
        report.imported,
        report.approximated,
        report.skipped,
        report.files.len(),
        match (report.dry_run, report.tx_id) {
            (true, _) => "would be written (dry run)".to_string(),
            (false, Some(tx)) =>
                format!("written in transaction {tx} (lore memory undo --tx-id {tx})"),
            (false, None) => "unchanged".to_string(),
        }
    );
    Ok(())
}
