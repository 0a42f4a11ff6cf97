//! `lore memory …`: the memory toolset from the terminal, on the same store
//! (`.lore/store.db`) a running server uses, printing the same JSON the
//! MCP tools return. Writes are logged with the actor `cli`, and servers
//! subscribed to the store notify their clients of them.

use std::io::BufRead;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use lore_context::memory::query::QueryOutput;
use lore_context::memory::results::{
    DeleteOutput, EntryOutput, HistoryOutput, QueryGraphOutput, RelateOutput, UndoOutput,
};
use lore_context::memory::service::{Memory, undo_target};
use lore_context::services::Services;
use lore_core::ErrorReport;
use lore_store::{
    Direction, EntryPatch, EntryQuery, GraphQuery, HistoryQuery, KnowledgeStore, NewEntry,
    NewTriple, TxId,
};
use serde::Serialize;

const ACTOR: &str = "cli";

/// `lore memory` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum MemoryCommand {
    /// Remember a fact (like the `store` tool).
    Store(StoreArgs),
    /// Change an entry, writing its next version (like `update`).
    Update(UpdateArgs),
    /// Find entries (like `query`).
    Query(QueryArgs),
    /// Delete an entry (e-…) or relation (t-…) (like `delete`).
    Delete {
        /// The id to delete.
        id: String,
    },
    /// Relate two nodes (like `relate`).
    Relate(RelateArgs),
    /// Remove the relation subject —predicate→ object.
    Unrelate(UnrelateArgs),
    /// Walk the graph from a node (like `query_graph`).
    Graph(GraphArgs),
    /// List transactions (like `history`).
    History(HistoryArgs),
    /// Revert a transaction (like `undo`).
    Undo(UndoArgs),
    /// Store entries from a JSON Lines file (`-` for stdin), one
    /// `{"topic","content","confidence","tags","source"}` object per line,
    /// each its own transaction (or all in one with --atomic).
    Import(ImportArgs),
    /// Verify the store file and count what it holds.
    Check,
    /// Remember a markdown note (like `memory_ingest`): its sections
    /// become wiki pages, its definitions glossary pages, its `Note:`
    /// lines memory notes, in one transaction; waits for the run and
    /// prints what it captured.
    Ingest(IngestArgs),
    /// A memory_ingest run's status (like `memory_ingest_status`).
    IngestStatus {
        /// The run id.
        run_id: String,
    },
}

/// Arguments of `lore memory ingest`.
#[derive(Debug, clap::Args)]
pub struct IngestArgs {
    /// The markdown file, or `-` for stdin.
    pub file: String,
    /// The connection the note is about (semantic-layer YAML is applied
    /// and scanned tables linked only with it). Default: the project's only
    /// connection; with several, none unless named.
    #[arg(short = 'c', long = "connection", value_name = "ID")]
    pub connection_id: Option<String>,
    /// Print the run as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `lore memory store`.
#[derive(Debug, clap::Args)]
pub struct StoreArgs {
    /// What the fact is about.
    #[arg(long)]
    pub topic: String,
    /// The fact (`-` reads it from stdin).
    #[arg(long)]
    pub content: String,
    /// 0 to 1 (default 1).
    #[arg(long)]
    pub confidence: Option<f64>,
    /// A tag (repeatable).
    #[arg(long = "tags", value_name = "TAG")]
    pub tags: Vec<String>,
    /// Where the fact came from.
    #[arg(long)]
    pub source: Option<String>,
}

/// Arguments of `lore memory update`.
#[derive(Debug, clap::Args)]
pub struct UpdateArgs {
    /// The entry's id (e-…).
    #[arg(long)]
    pub id: String,
    /// New content (`-` reads it from stdin).
    #[arg(long)]
    pub content: Option<String>,
    /// New topic.
    #[arg(long)]
    pub topic: Option<String>,
    /// New confidence.
    #[arg(long)]
    pub confidence: Option<f64>,
    /// New tags, replacing the old ones (repeatable).
    #[arg(long = "tags", value_name = "TAG")]
    pub tags: Vec<String>,
    /// Refuse unless the entry is still at this version.
    #[arg(long)]
    pub expected_version: Option<i64>,
}

/// Arguments of `lore memory query`.
#[derive(Debug, clap::Args)]
pub struct QueryArgs {
    /// Words to look for.
    #[arg(long)]
    pub text: Option<String>,
    /// Topic prefix.
    #[arg(long)]
    pub topic: Option<String>,
    /// Required tag (repeatable).
    #[arg(long = "tags", value_name = "TAG")]
    pub tags: Vec<String>,
    /// Confidence floor.
    #[arg(long)]
    pub min_confidence: Option<f64>,
    /// Page size (1-200).
    #[arg(long)]
    pub limit: Option<usize>,
    /// next_cursor of the previous page.
    #[arg(long)]
    pub cursor: Option<String>,
    /// Read as of this transaction.
    #[arg(long)]
    pub as_of_tx_id: Option<TxId>,
}

/// Arguments of `lore memory relate`.
#[derive(Debug, clap::Args)]
pub struct RelateArgs {
    /// Start node.
    #[arg(long)]
    pub subject: String,
    /// Relation.
    #[arg(long)]
    pub predicate: String,
    /// End node.
    #[arg(long)]
    pub object: String,
    /// 0 to 1 (default 1).
    #[arg(long)]
    pub confidence: Option<f64>,
}

/// Arguments of `lore memory unrelate`.
#[derive(Debug, clap::Args)]
pub struct UnrelateArgs {
    /// Start node.
    #[arg(long)]
    pub subject: String,
    /// Relation.
    #[arg(long)]
    pub predicate: String,
    /// End node.
    #[arg(long)]
    pub object: String,
}

/// Arguments of `lore memory graph`.
#[derive(Debug, clap::Args)]
pub struct GraphArgs {
    /// The node to start from.
    #[arg(long)]
    pub node: String,
    /// Follow only this predicate.
    #[arg(long)]
    pub predicate: Option<String>,
    /// out, in or both.
    #[arg(long, value_parser = ["out", "in", "both"], default_value = "both")]
    pub direction: String,
    /// Hops (1-5).
    #[arg(long)]
    pub depth: Option<usize>,
    /// Most relations (1-1000).
    #[arg(long)]
    pub limit: Option<usize>,
    /// Read as of this transaction.
    #[arg(long)]
    pub as_of_tx_id: Option<TxId>,
}

/// Arguments of `lore memory history`.
#[derive(Debug, clap::Args)]
pub struct HistoryArgs {
    /// Only transactions that changed this id.
    #[arg(long)]
    pub id: Option<String>,
    /// Only transactions after this one, oldest first.
    #[arg(long)]
    pub since_tx_id: Option<TxId>,
    /// Page size (1-200).
    #[arg(long)]
    pub limit: Option<usize>,
    /// next_cursor of the previous page.
    #[arg(long)]
    pub cursor: Option<String>,
}

/// Arguments of `lore memory undo`.
#[derive(Debug, clap::Args)]
pub struct UndoArgs {
    /// The transaction to revert.
    #[arg(long, required_unless_present = "run_id", conflicts_with = "run_id")]
    pub tx_id: Option<TxId>,
    /// Or a memory_ingest run: the transaction it wrote.
    #[arg(long = "run")]
    pub run_id: Option<String>,
    /// Revert even over later changes to the same entries.
    #[arg(long)]
    pub force: bool,
}

/// Arguments of `lore memory import`.
#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// The JSON Lines file, or `-` for stdin.
    pub file: String,
    /// Store every line in one transaction (all or nothing).
    #[arg(long)]
    pub atomic: bool,
}

/// One line of an import file.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ImportLine {
    topic: String,
    content: String,
    #[serde(default)]
    confidence: Option<f64>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    source: Option<String>,
}

pub fn run(command: MemoryCommand, project_dir: Option<&Path>) -> anyhow::Result<()> {
    let project = super::load_project(project_dir)?;
    // Through the memory service over the store seam, as the server's
    // tools are: any backend behind `KnowledgeStore` serves the CLI
    // unchanged. Text queries of the current state read the shared index.
    let services = Services::for_project(&project);
    let handle = &services.store;
    // Writes may touch mirrored entries (wiki pages, model files): their files follow.
    let writes = !matches!(
        command,
        MemoryCommand::Query(_)
            | MemoryCommand::Graph(_)
            | MemoryCommand::History(_)
            | MemoryCommand::Check
            | MemoryCommand::IngestStatus { .. }
    );
    let outcome = match command {
        MemoryCommand::Ingest(args) => ingest(&project, Arc::clone(&services.ingest), args),
        MemoryCommand::IngestStatus { run_id } => {
            let status = services
                .ingest
                .status(run_id.trim())
                .map_err(|e| super::coded(&e))?;
            print(&status)
        }
        MemoryCommand::Import(args) => {
            let store = handle.open().map_err(|e| super::coded(&e))?;
            import(store.as_ref(), &args)
        }
        MemoryCommand::Check => {
            let store = handle.open().map_err(|e| super::coded(&e))?;
            let health = store.check().map_err(|e| super::coded(&e))?;
            print(&health)?;
            if !health.integrity_ok {
                anyhow::bail!("the store failed its integrity check [upstream_error]");
            }
            Ok(())
        }
        other => answer(&services.memory, other),
    };
    if writes && outcome.is_ok() {
        super::wiki::mirror(&project);
    }
    outcome
}

/// The memory operations the tools share, printed as the tools answer.
fn answer(memory: &Memory, command: MemoryCommand) -> anyhow::Result<()> {
    let coded = |e: ErrorReport| super::coded(&e);
    match command {
        MemoryCommand::Store(args) => {
            let entry = NewEntry {
                topic: args.topic,
                content: stdin_if_dash(args.content)?,
                confidence: args.confidence,
                tags: args.tags,
                source: args.source,
                kind: None,
            };
            print(&EntryOutput::from(
                memory.store(ACTOR, entry).map_err(coded)?,
            ))
        }
        MemoryCommand::Update(args) => {
            let patch = EntryPatch {
                topic: args.topic,
                content: args.content.map(stdin_if_dash).transpose()?,
                confidence: args.confidence,
                tags: (!args.tags.is_empty()).then_some(args.tags),
                source: None,
                expected_version: args.expected_version,
            };
            let written = memory.update(ACTOR, &args.id, patch).map_err(coded)?;
            print(&EntryOutput::from(written))
        }
        MemoryCommand::Query(args) => query(memory, args),
        MemoryCommand::Delete { id } => {
            let tx_id = memory.delete(ACTOR, &id).map_err(coded)?;
            print(&DeleteOutput {
                id: id.trim().to_string(),
                tx_id,
            })
        }
        MemoryCommand::Relate(args) => {
            let triple = NewTriple {
                subject: args.subject,
                predicate: args.predicate,
                object: args.object,
                confidence: args.confidence,
                properties: None,
            };
            print(&RelateOutput::from(
                memory.relate(ACTOR, triple).map_err(coded)?,
            ))
        }
        MemoryCommand::Unrelate(args) => {
            let (id, tx_id) = memory
                .unrelate(ACTOR, &args.subject, &args.predicate, &args.object)
                .map_err(coded)?;
            print(&DeleteOutput { id, tx_id })
        }
        MemoryCommand::Graph(args) => {
            let direction = match args.direction.as_str() {
                "out" => Direction::Out,
                "in" => Direction::In,
                _ => Direction::Both,
            };
            let graph = memory
                .query_graph(&GraphQuery {
                    node: args.node,
                    predicate: args.predicate,
                    direction,
                    depth: args.depth,
                    limit: args.limit,
                    as_of_tx_id: args.as_of_tx_id,
                })
                .map_err(coded)?;
            print(&QueryGraphOutput::from(graph))
        }
        MemoryCommand::History(args) => {
            let page = memory
                .history(&HistoryQuery {
                    id: args.id,
                    since_tx_id: args.since_tx_id,
                    limit: args.limit,
                    cursor: args.cursor,
                    as_of_tx_id: None,
                })
                .map_err(coded)?;
            print(&HistoryOutput::from(page))
        }
        MemoryCommand::Undo(args) => {
            let Ok(target) = undo_target(args.tx_id, args.run_id) else {
                anyhow::bail!("give --tx-id or --run [invalid_arguments]");
            };
            let undone = memory.undo(ACTOR, target, args.force).map_err(coded)?;
            print(&UndoOutput::from(undone))
        }
        // `run` answers these itself (they need the project).
        MemoryCommand::Ingest(_)
        | MemoryCommand::IngestStatus { .. }
        | MemoryCommand::Import(_)
        | MemoryCommand::Check => {
            anyhow::bail!("this memory command is run by `lore memory` itself [internal]")
        }
    }
}

/// `lore memory query`: ranked by the shared index when it answers the
/// query, else by the store, as the query tool does.
fn query(memory: &Memory, args: QueryArgs) -> anyhow::Result<()> {
    let input = lore_context::memory::query::QueryInput {
        text: args.text.clone(),
        topic: args.topic.clone(),
        tags: Some(args.tags.clone()),
        min_confidence: args.min_confidence,
        limit: args.limit,
        cursor: args.cursor.clone(),
        as_of_tx_id: args.as_of_tx_id,
    };
    if let Some(found) = memory.ranked(&input).map_err(|e| super::coded(&e))? {
        return print(&found);
    }
    let page = memory
        .entries(&EntryQuery {
            text: args.text,
            topic: args.topic,
            tags: args.tags,
            min_confidence: args.min_confidence,
            kind: None,
            limit: args.limit,
            cursor: args.cursor,
            as_of_tx_id: args.as_of_tx_id,
        })
        .map_err(|e| super::coded(&e))?;
    print(&QueryOutput::from(page))
}

fn ingest(
    project: &lore_core::project::Project,
    service: Arc<lore_context::memory::ingest::MemoryIngest>,
    args: IngestArgs,
) -> anyhow::Result<()> {
    let content = if args.file == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .context("cannot read standard input")?;
        text
    } else {
        let bytes =
            std::fs::read(&args.file).with_context(|| format!("cannot read {}", args.file))?;
        String::from_utf8(bytes).map_err(|_| {
            anyhow::anyhow!(
                "{} is not UTF-8 text: give a markdown file [invalid_arguments]",
                args.file
            )
        })?
    };
    let connection_id = match args.connection_id.as_deref() {
        Some(id) => Some(super::pick_connection(project, Some(id))?),
        None if project.config.connections.len() == 1 => {
            Some(super::pick_connection(project, None)?)
        }
        None => None,
    };
    let request = lore_context::memory::ingest::IngestRequest {
        content,
        connection_id,
    };
    // The same path as memory_ingest: the run starts, then its status is
    // polled, each stage shown as it is reached.
    let run_id = service
        .start(request, &super::cli_actor())
        .map_err(|e| super::coded(&e))?;
    let mut shown = String::new();
    let status = loop {
        let status = service.status(&run_id).map_err(|e| super::coded(&e))?;
        if status.stage != shown {
            if !status.done {
                eprintln!("{run_id}: {}…", status.stage);
            }
            shown = status.stage.clone();
        }
        if status.done {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    if args.json {
        print(&status)?;
    } else {
        println!("run {}: {}", status.run_id, status.status);
        for (what, items) in [
            ("wiki", &status.captured.wiki),
            ("semantic layer", &status.captured.sl),
            ("memory", &status.captured.memory),
        ] {
            for item in items.iter() {
                println!(
                    "  {what:<15} {:<9} {} ({})",
                    item.action, item.id, item.what
                );
            }
        }
        for xref in &status.captured.xrefs {
            println!(
                "  {:<15} {:<9} {}{}",
                "table",
                "linked",
                xref.table,
                xref.column
                    .as_deref()
                    .map(|c| format!(".{c}"))
                    .unwrap_or_default()
            );
        }
        for skipped in &status.skipped {
            println!(
                "  skipped {} in {}: {}",
                skipped.what, skipped.section, skipped.reason
            );
        }
        for warning in &status.warnings {
            println!("  warning: {warning}");
        }
        match status.tx_id {
            Some(tx) => println!(
                "transaction {tx} (lore memory undo --run {})",
                status.run_id
            ),
            None => println!("nothing changed"),
        }
    }
    if let Some(error) = &status.error {
        anyhow::bail!("{} [{}]", error.message, error.code);
    }
    Ok(())
}

fn import(store: &dyn KnowledgeStore, args: &ImportArgs) -> anyhow::Result<()> {
    let reader: Box<dyn BufRead> = if args.file == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::io::BufReader::new(
            std::fs::File::open(&args.file)
                .with_context(|| format!("cannot read {}", args.file))?,
        ))
    };
    let mut entries = Vec::new();
    let mut stored = 0usize;
    for (number, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {}", args.file))?;
        if line.trim().is_empty() {
            continue;
        }
        let parsed: ImportLine = serde_json::from_str(&line)
            .map_err(|e| anyhow::anyhow!("{}:{}: {e} [invalid_request]", args.file, number + 1))?;
        let entry = NewEntry {
            topic: parsed.topic,
            content: parsed.content,
            confidence: parsed.confidence,
            tags: parsed.tags,
            source: parsed.source,
            kind: None,
        };
        if args.atomic {
            entries.push(entry);
        } else {
            // One transaction per line: an interrupted import keeps every
            // line before the interruption and nothing half-written.
            store
                .store(ACTOR, entry)
                .map_err(|e| anyhow::anyhow!("{}:{}: {e} [{}]", args.file, number + 1, code(&e)))?;
            stored += 1;
        }
    }
    let (stored, last_tx) = if args.atomic {
        let count = entries.len();
        let (tx, _) = store
            .store_batch(ACTOR, entries)
            .map_err(|e| super::coded(&e))?;
        (count, tx)
    } else {
        (stored, store.head().map_err(|e| super::coded(&e))?)
    };
    print(&serde_json::json!({"stored": stored, "tx_id": last_tx}))
}

fn code(error: &lore_store::StoreError) -> &'static str {
    use lore_core::error::HasErrorCode;
    error.code().as_str()
}

fn stdin_if_dash(value: String) -> anyhow::Result<String> {
    if value != "-" {
        return Ok(value);
    }
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).context("cannot read stdin")?;
    Ok(text)
}

fn print(value: &impl Serialize) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}
