//! `lore gateway …`: the knowledge gateway over code and document
//! repositories, from a terminal (ingest, status, search, the graph, and
//! files added to a root).

use std::path::Path;

use lore_core::ErrorCode;
use lore_core::project::Project;

use anyhow::{Context, bail};
use lore_gateway::graph::explore::Relationships;
use lore_gateway::ingest::follow::{FollowMode, RootFreshness};
use lore_gateway::search::SearchFilters;
use lore_gateway::{Gateway, IngestRequest, SearchRequest};

/// `lore gateway …` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum GatewayCommand {
    /// Ingest the roots; a folder that is not a root yet becomes one
    /// (added to lore.yaml), a file inside a root is ingested alone.
    Ingest(IngestArgs),
    /// The last ingest run: counts, skipped files, duration.
    Status {
        /// Only runs of this profile.
        #[arg(long)]
        profile: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Search the ingested chunks (what km-search answers).
    Search(SearchArgs),
    /// A graph node and its relations (what km-graph-node answers).
    Node {
        /// Code:<root>/<path> (TestCase:, DesignDoc:, Config: alike),
        /// Symbol:<root>/<path>::<name> or Subsystem:<name>; a path
        /// without its root when one root has it.
        #[arg(value_name = "NODE_ID")]
        id: String,
        /// outgoing, incoming, all or none.
        #[arg(long, default_value = "all")]
        relationships: String,
        /// Most relations (1-200).
        #[arg(long, default_value_t = 50)]
        limit: usize,
        /// Only these roots, by name (repeatable).
        #[arg(long = "root", value_name = "ROOT")]
        roots: Vec<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// A subsystem, its neighbours and files (what km-graph-subsystem answers).
    Subsystem {
        /// The subsystem's name.
        name: String,
        /// Hops of DEPENDS_ON to follow (1-5).
        #[arg(long, default_value_t = 1)]
        depth: usize,
        /// Leave its files out.
        #[arg(long)]
        no_artifacts: bool,
        /// Most related nodes and files (1-100).
        #[arg(long, default_value_t = 100)]
        limit: usize,
        /// Only these roots, by name (repeatable).
        #[arg(long = "root", value_name = "ROOT")]
        roots: Vec<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Copy a text file into a root and ingest it (what km-upload does).
    Upload(UploadArgs),
    /// Write text as a markdown document in a root, with front matter, and
    /// ingest it (what km-storetext does). The text comes from --content
    /// or standard input.
    StoreText(StoreTextArgs),
    /// The tests of a file or symbol, or the code a test covers.
    TestsOf {
        /// A path (<root>/<path>, or the path alone when one root has
        /// it) or a node id.
        target: String,
        /// Only these roots, by name (repeatable).
        #[arg(long = "root", value_name = "ROOT")]
        roots: Vec<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// A symbol's definitions, callers and callees, with the line of each
    /// call site (what km-graph-references answers).
    References {
        /// A name (Invoice.total, total), path::name or a Symbol: node id.
        symbol: String,
        /// Only definitions in these roots (repeatable).
        #[arg(long = "root", value_name = "ROOT")]
        roots: Vec<String>,
        /// Most callers and most callees (1-200).
        #[arg(long, default_value_t = 50)]
        limit: usize,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Say whether a search result helped: later searches with alike
    /// words rank it higher (1) or lower (-1); 0 withdraws your vote
    /// (what km-feedback-submit does).
    Feedback {
        /// The search's request id (printed after its results).
        request_id: String,
        /// One of its results' chunk id (`lore gateway search --json`).
        chunk_id: String,
        /// 1, -1 or 0.
        #[arg(long, allow_hyphen_values = true)]
        vote: i8,
        /// Why.
        #[arg(long)]
        note: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// What the index holds, what was skipped or removed, what the
    /// catalog expects and is missing (what km-coverage-summary answers).
    Coverage {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Recipes: named sequences of gateway tool calls with checks, built
    /// in or in the project's recipes/ folder (what km-recipe-run runs).
    #[command(subcommand)]
    Recipe(super::recipe::RecipeCommand),
    /// Stale documents, subsystems without tests, isolated files and
    /// documents naming removed files (what km-lifecycle-report answers).
    Lifecycle {
        /// Days after which an unchanged document is stale (default
        /// gateway.lifecycle.stale_after_days, 180).
        #[arg(long)]
        stale_after_days: Option<u32>,
        /// Most entries per list, 1 to 200 (default 50).
        #[arg(long)]
        limit: Option<usize>,
        /// Also report test fixtures and web assets (left out by default).
        #[arg(long)]
        include_fixtures: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Arguments of `lore gateway ingest`.
#[derive(Debug, clap::Args)]
pub struct IngestArgs {
    /// Folders to add as roots, or files inside a root to ingest alone
    /// (default: every root).
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,
    /// The label recorded with the run.
    #[arg(long, default_value = "manual")]
    pub profile: String,
    /// Read and count, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the run as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Where `upload` and `store-text` write, and whether they ingest.
#[derive(Debug, clap::Args)]
pub struct StoreArgs {
    /// A folder (ending in `/`) or file path inside the root (default:
    /// gateway.uploads.folder, docs/uploads/).
    #[arg(long)]
    pub destination: Option<String>,
    /// The root to write into, by name (default: the first).
    #[arg(long)]
    pub root: Option<String>,
    /// Replace a file already there (its text is kept under
    /// .lore/gateway/replaced/).
    #[arg(long)]
    pub overwrite: bool,
    /// Do not ingest the file now.
    #[arg(long)]
    pub no_ingest: bool,
    /// Print the answer as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `lore gateway upload`.
#[derive(Debug, clap::Args)]
pub struct UploadArgs {
    /// The text file to copy (inside the project, a root, or a folder of
    /// gateway.uploads.sources).
    pub source: String,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Arguments of `lore gateway store-text`.
#[derive(Debug, clap::Args)]
pub struct StoreTextArgs {
    /// The title (front matter, and the file name's words).
    #[arg(long)]
    pub title: Option<String>,
    /// The text (markdown); read from standard input when left out.
    #[arg(long)]
    pub content: Option<String>,
    /// The subsystem it belongs to.
    #[arg(long)]
    pub subsystem: Option<String>,
    /// Tags.
    #[arg(long = "tag", value_delimiter = ',', value_name = "TAG")]
    pub tags: Vec<String>,
    /// More front matter, as KEY=VALUE (repeatable).
    #[arg(long = "meta", value_name = "KEY=VALUE")]
    pub metadata: Vec<String>,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Arguments of `lore gateway search`.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// What to look for: words, identifiers, an issue, a stack trace.
    #[arg(value_name = "TEXT", required = true, num_args = 1..)]
    pub text: Vec<String>,
    /// Most results (1-25).
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// Only these artifact types: code, test, doc, config, other.
    #[arg(long = "type", value_delimiter = ',', value_name = "TYPE")]
    pub types: Vec<String>,
    /// Only these subsystems.
    #[arg(long = "subsystem", value_delimiter = ',', value_name = "NAME")]
    pub subsystems: Vec<String>,
    /// Only these languages.
    #[arg(long = "lang", value_delimiter = ',', value_name = "LANGUAGE")]
    pub languages: Vec<String>,
    /// Only under these top-level folders, or of these roots.
    #[arg(long = "namespace", value_delimiter = ',', value_name = "FOLDER")]
    pub namespaces: Vec<String>,
    /// Only chunks defining these symbols (`Invoice.total` or `total`).
    #[arg(long = "symbol", value_delimiter = ',', value_name = "NAME")]
    pub symbols: Vec<String>,
    /// Only chunks defining symbols of these kinds: class, function,
    /// method, interface, type, module.
    #[arg(long = "kind", value_delimiter = ',', value_name = "KIND")]
    pub kinds: Vec<String>,
    /// Only files with these tags.
    #[arg(long = "tag", value_delimiter = ',', value_name = "TAG")]
    pub tags: Vec<String>,
    /// Only files of these roots, by name.
    #[arg(long = "root", value_delimiter = ',', value_name = "ROOT")]
    pub roots: Vec<String>,
    /// Add each result's graph context (tests, imports, documents).
    #[arg(long)]
    pub graph: bool,
    /// Rank by the embedding lane alone (gateway.embeddings).
    #[arg(long)]
    pub sort_by_vector: bool,
    /// Print km-search's JSON.
    #[arg(long)]
    pub json: bool,
}

/// The project's gateway over its store (the code graph lives there).
pub(super) fn gateway_of(project: &lore_core::project::Project) -> Gateway {
    Gateway::for_project(project).with_store(std::sync::Arc::new(
        lore_store::feed::StoreHandle::for_project(project),
    ))
}

fn plain(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub fn run(command: GatewayCommand, project_dir: Option<&Path>) -> anyhow::Result<()> {
    let project = super::load_project(project_dir)?;
    match command {
        GatewayCommand::Ingest(args) => ingest(project, args),
        GatewayCommand::Status { profile, json } => status(&project, profile.as_deref(), json),
        GatewayCommand::Search(args) => search(&project, args),
        GatewayCommand::Feedback {
            request_id,
            chunk_id,
            vote,
            note,
            json,
        } => {
            let feedback = lore_store::NewFeedback {
                request_id,
                chunk_id,
                vote,
                note,
                context: None,
                voter: super::cli_actor(),
            };
            submit_feedback(&project, feedback, json)
        }
        GatewayCommand::Node {
            id,
            relationships,
            limit,
            roots,
            json,
        } => node(&project, &id, &relationships, limit, &roots, json),
        GatewayCommand::Subsystem {
            name,
            depth,
            no_artifacts,
            limit,
            roots,
            json,
        } => {
            let answer = gateway_of(&project)
                .subsystem(&name, Some(depth), !no_artifacts, None, Some(limit), &roots)
                .map_err(|e| super::coded(&e))?;
            print_subsystem(&answer, json)
        }
        GatewayCommand::Upload(args) => upload(&project, args),
        GatewayCommand::StoreText(args) => store_text(&project, args),
        GatewayCommand::TestsOf {
            target,
            roots,
            json,
        } => tests_of(&project, &target, &roots, json),
        GatewayCommand::References {
            symbol,
            roots,
            limit,
            json,
        } => super::references::run(&gateway_of(&project), &symbol, &roots, limit, json),
        GatewayCommand::Coverage { json } => {
            let coverage = gateway_of(&project)
                .coverage()
                .map_err(|e| super::coded(&e))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&coverage)?);
            } else {
                print_coverage(&coverage);
            }
            Ok(())
        }
        GatewayCommand::Lifecycle {
            stale_after_days,
            limit,
            include_fixtures,
            json,
        } => {
            let request = lore_gateway::graph::report::LifecycleRequest {
                stale_after_days,
                limit,
                include_fixtures,
            };
            let report = gateway_of(&project)
                .lifecycle(&request)
                .map_err(|e| super::coded(&e))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print_lifecycle(&report);
            }
            Ok(())
        }
        GatewayCommand::Recipe(command) => super::recipe::run(command, gateway_of(&project)),
    }
}

/// `lore gateway status`: what km-ingest-status answers: the last ingest
/// run and how fresh each root is (with a shared store, the roots other
/// servers ingest too).
fn status(project: &Project, profile: Option<&str>, json: bool) -> anyhow::Result<()> {
    let gateway = gateway_of(project);
    let input = lore_gateway::recipe::calls::KmIngestStatusInput {
        profile: profile.map(str::to_string),
    };
    let answer = match lore_gateway::recipe::calls::ingest_status(&gateway, input) {
        Ok(answer) => answer,
        Err(e) if e.code == ErrorCode::NotFound && profile.is_none() => {
            bail!("no ingest has run yet; run `lore gateway ingest PATH` [not_found]")
        }
        Err(e) => return Err(super::coded(&e)),
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&answer)?);
        return Ok(());
    }
    match &answer.status.run {
        Some(run) => print_run(run),
        None => println!("no ingest has run on this server"),
    }
    for root in &answer.status.freshness {
        println!("  {}", root_freshness(root));
    }
    Ok(())
}

/// One root's freshness in a few words (`lore status`, `lore gateway
/// status`).
pub(super) fn root_freshness(root: &RootFreshness) -> String {
    let state = if root.fresh {
        "fresh".to_string()
    } else if root.pending > 0 && root.follow == FollowMode::Store {
        format!("{} version(s) from the store not applied yet", root.pending)
    } else if root.pending > 0 {
        format!("{} changed file(s) not ingested", root.pending)
    } else if root.ok == Some(false) {
        "its last re-ingest failed".to_string()
    } else {
        "not fresh".to_string()
    };
    let how = match root.follow {
        FollowMode::Inotify => "followed by the server (inotify)".to_string(),
        FollowMode::Walk => "followed by the server (walking)".to_string(),
        FollowMode::Off => "not followed (gateway.follow.enabled: false)".to_string(),
        FollowMode::None => "not followed (no server running)".to_string(),
        FollowMode::Store => format!(
            "answered from the store as {} ingested it{}",
            root.ingested_by.as_deref().unwrap_or("another server"),
            root.ingested_at
                .as_deref()
                .map(|at| format!(" ({})", lore_core::time::age(at)))
                .unwrap_or_default()
        ),
    };
    let seen = root
        .changed_at
        .as_deref()
        .map(|at| format!(", last change {}", lore_core::time::age(at)))
        .unwrap_or_default();
    format!("{} {state}, {how}{seen}", root.root)
}

/// `lore gateway search`: what km-search answers, one line per chunk.
fn search(project: &Project, args: SearchArgs) -> anyhow::Result<()> {
    let gateway = gateway_of(project);
    let request = SearchRequest {
        query: args.text.join(" "),
        limit: Some(args.limit),
        filters: SearchFilters {
            artifact_types: args.types,
            subsystems: args.subsystems,
            symbol_languages: args.languages,
            namespaces: args.namespaces,
            symbols: args.symbols,
            symbol_kinds: args.kinds,
            tags: args.tags,
            roots: args.roots,
            ..Default::default()
        },
        sort_by_vector: args.sort_by_vector,
        include_graph: args.graph,
        // The terminal shows places; --json prints the whole chunks.
        detail: if args.json {
            lore_gateway::search::Detail::Full
        } else {
            lore_gateway::search::Detail::Compact
        },
    };
    let found = gateway.search(&request).map_err(|e| super::coded(&e))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&found)?);
        return Ok(());
    }
    for warning in &found.metadata.warnings {
        eprintln!("note: {warning}");
    }
    // With several roots, a path is written with its root (as ids are).
    let several_roots = gateway.roots().len() > 1;
    for result in &found.results {
        print_result(result, several_roots);
    }
    if found.results.is_empty() {
        eprintln!("nothing matched `{}`", request.query);
    } else {
        eprintln!(
            "request {}: say what helped with `lore gateway feedback {} {} --vote 1` (chunk ids: --json)",
            found.metadata.request_id, found.metadata.request_id, found.results[0].chunk.chunk_id
        );
    }
    Ok(())
}

/// One search result: score, place (`<root>/<path>` when the project has
/// several roots), type, its first symbols and its graph context.
fn print_result(result: &lore_gateway::search::SearchResult, several_roots: bool) {
    let c = &result.chunk;
    let place = if several_roots {
        format!("{}/{}", c.root, c.artifact_path)
    } else {
        c.artifact_path.clone()
    };
    println!(
        "{:.2}  {}:{}-{}  [{}{}]",
        result.score,
        place,
        c.start_line,
        c.end_line,
        c.artifact_type,
        c.subsystem
            .as_deref()
            .map(|s| format!(", {s}"))
            .unwrap_or_default()
    );
    if !c.symbols.is_empty() {
        let names: Vec<String> = c
            .symbols
            .iter()
            .take(6)
            .map(|s| format!("{} {}", s.kind, s.qualified_name))
            .collect();
        let more = c.symbols.len().saturating_sub(names.len());
        let more = if more > 0 {
            format!(" (+{more})")
        } else {
            String::new()
        };
        println!("      {}{more}", names.join(", "));
    }
    if let Some(context) = &result.graph_context {
        for (what, nodes) in [
            ("tests", &context.tests),
            ("imports", &context.imports),
            ("imported by", &context.imported_by),
            ("described by", &context.described_by),
        ] {
            if !nodes.is_empty() {
                println!("      {what}: {}", nodes.join(", "));
            }
        }
    }
}

/// `lore gateway feedback`: a vote on a search result.
fn submit_feedback(
    project: &Project,
    feedback: lore_store::NewFeedback,
    json: bool,
) -> anyhow::Result<()> {
    let stored = gateway_of(project)
        .submit_feedback(feedback)
        .map_err(|e| super::coded(&e))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&stored)?);
    } else {
        println!(
            "recorded vote {} on {} (search {}) at {}",
            stored.vote, stored.chunk_id, stored.request_id, stored.created_at
        );
    }
    Ok(())
}

/// `lore gateway node`: a graph node and its relations.
fn node(
    project: &Project,
    id: &str,
    relationships: &str,
    limit: usize,
    roots: &[String],
    json: bool,
) -> anyhow::Result<()> {
    let relationships: Relationships =
        serde_json::from_value(serde_json::Value::String(relationships.to_string())).map_err(
            |_| {
                anyhow::anyhow!(
                    "--relationships must be outgoing, incoming, all or none, not `{relationships}` [invalid_arguments]"
                )
            },
        )?;
    let answer = gateway_of(project)
        .node(id, relationships, Some(limit), roots)
        .map_err(|e| super::coded(&e))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&answer)?);
        return Ok(());
    }
    println!("{} ({})", answer.node.id, answer.node.label);
    for (key, value) in &answer.node.properties {
        println!("  {key}: {}", plain(value));
    }
    for r in &answer.relationships {
        let arrow = if r.direction == "outgoing" {
            "->"
        } else {
            "<-"
        };
        println!("  {arrow} {} {}", r.predicate, r.node);
    }
    if answer.truncated {
        eprintln!("note: more relations than --limit {limit}");
    }
    Ok(())
}

/// `lore gateway subsystem`: a subsystem, its neighbours and files.
fn print_subsystem(
    answer: &lore_gateway::graph::explore::SubsystemAnswer,
    json: bool,
) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(answer)?);
        return Ok(());
    }
    println!("{}", answer.subsystem.id);
    for (key, value) in &answer.subsystem.properties {
        println!("  {key}: {}", plain(value));
    }
    for r in &answer.related {
        println!(
            "  {} {} ({} hop{})",
            r.relation,
            r.id,
            r.hops,
            if r.hops == 1 { "" } else { "s" }
        );
    }
    for a in &answer.artifacts {
        println!("  [{}] {}/{}", a.artifact_type, a.root, a.path);
    }
    if answer.next_cursor.is_some() {
        eprintln!(
            "note: {} related and {} files in all; raise --limit",
            answer.total_related, answer.total_artifacts
        );
    }
    Ok(())
}

/// `lore gateway upload`: copy a file into a root (a path typed in a
/// terminal is the terminal's).
fn upload(project: &Project, args: UploadArgs) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let request = lore_gateway::UploadRequest {
        source_path: cwd.join(&args.source).display().to_string(),
        destination: args.store.destination,
        root: args.store.root,
        overwrite: args.store.overwrite,
        ingest: args.store.no_ingest.then_some(false),
    };
    let stored = gateway_of(project)
        .upload(&request)
        .map_err(|e| super::coded(&e))?;
    print_stored(&stored, args.store.json)
}

/// `lore gateway store-text`: a markdown note with front matter.
fn store_text(project: &Project, args: StoreTextArgs) -> anyhow::Result<()> {
    let content = match args.content {
        Some(content) => content,
        None => {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .context("cannot read the text from standard input")?;
            text
        }
    };
    let mut metadata = serde_json::Map::new();
    for pair in &args.metadata {
        let Some((key, value)) = pair.split_once('=') else {
            bail!("--meta takes KEY=VALUE, got `{pair}` [invalid_arguments]");
        };
        metadata.insert(
            key.trim().to_string(),
            serde_json::Value::String(value.to_string()),
        );
    }
    let request = lore_gateway::StoreTextRequest {
        content,
        title: args.title,
        destination: args.store.destination,
        root: args.store.root,
        subsystem: args.subsystem,
        tags: args.tags,
        metadata: (!metadata.is_empty()).then_some(metadata),
        overwrite: args.store.overwrite,
        ingest: args.store.no_ingest.then_some(false),
    };
    let stored = gateway_of(project)
        .store_text(&request)
        .map_err(|e| super::coded(&e))?;
    print_stored(&stored, args.store.json)
}

/// `lore gateway tests-of`: the tests of a file or symbol, or the code a
/// test covers.
fn tests_of(project: &Project, target: &str, roots: &[String], json: bool) -> anyhow::Result<()> {
    let answer = gateway_of(project)
        .tests_of(target, roots)
        .map_err(|e| super::coded(&e))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&answer)?);
        return Ok(());
    }
    for r in &answer.results {
        let symbols = if r.symbols.is_empty() {
            String::new()
        } else {
            format!(" ({})", r.symbols.join(", "))
        };
        println!("{}  [{}]{symbols}", r.path, r.via.join(", "));
    }
    if answer.results.is_empty() {
        let what = if answer.direction == "covers" {
            "covers no code the graph knows"
        } else {
            "has no tests the graph knows"
        };
        eprintln!("{} {what}", answer.target);
    }
    Ok(())
}

fn breakdown(counts: &std::collections::BTreeMap<String, u64>) -> String {
    counts
        .iter()
        .map(|(kind, n)| format!("{n} {kind}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn print_coverage(c: &lore_gateway::graph::report::CoverageSummary) {
    println!(
        "{} files ({}), {} chunks, {} root(s)",
        c.summary.artifact_total,
        breakdown(&c.summary.artifact_breakdown),
        c.summary.chunk_count,
        c.summary.roots
    );
    for a in &c.artifacts {
        println!(
            "  {:<28} {:>6}  {}",
            a.subsystem.as_deref().unwrap_or("(no subsystem)"),
            a.artifact_total,
            breakdown(&a.artifact_breakdown)
        );
    }
    if let Some(run) = &c.freshness.last_run {
        println!(
            "last run {} ({}) started {}{}",
            run.run_id,
            run.profile,
            run.started_at,
            if run.success { "" } else { ", failed" }
        );
    }
    if let (Some(old), Some(new)) = (&c.freshness.oldest_artifact, &c.freshness.newest_artifact) {
        println!(
            "oldest file {} ({}), newest {} ({})",
            old.path, old.modified_at, new.path, new.modified_at
        );
    }
    if c.skipped_total > 0 {
        println!("skipped ({}):", c.skipped_total);
        for s in &c.skipped {
            println!("  {}/{}: {}", s.root, s.path, skip_reason(s));
        }
    }
    if !c.missing_artifacts.is_empty() {
        println!("catalog globs matching no file:");
        for m in &c.missing_artifacts {
            println!("  {} in root {}: {}", m.subsystem, m.root, m.pattern);
        }
    }
    if c.removed_total > 0 {
        println!("removed since ingested ({}):", c.removed_total);
        for r in &c.removed_artifacts {
            println!(
                "  {}/{} ({}) at {}",
                r.root, r.path, r.artifact_type, r.removed_at
            );
        }
    }
}

fn print_lifecycle(r: &lore_gateway::graph::report::LifecycleReport) {
    let dated: Vec<String> = r
        .summary
        .dated_by
        .iter()
        .map(|(root, by)| format!("{root}: {by}"))
        .collect();
    println!(
        "{} stale document(s) (threshold {} days; dated by {}), {} subsystem(s) without tests, {} mention(s) of removed files",
        r.summary.stale_docs,
        r.summary.stale_after_days,
        dated.join(", "),
        r.summary.missing_tests,
        r.summary.removed_references
    );
    for d in &r.stale_docs {
        println!(
            "  {} — last changed {} ({} days): {}",
            d.path,
            d.last_changed,
            d.age_days,
            d.reasons.join(", ")
        );
        for c in &d.changed_code {
            println!("      {} changed {}", c.path, c.last_changed);
        }
    }
    if !r.missing_tests.is_empty() {
        println!("subsystems without tests:");
        for m in &r.missing_tests {
            println!(
                "  {} ({} code files, e.g. {})",
                m.subsystem,
                m.code_files,
                m.examples.join(", ")
            );
        }
    }
    for (label, total) in &r.summary.isolated_nodes {
        println!("isolated {label}: {total}");
        for id in r.isolated_nodes.get(label).into_iter().flatten().take(10) {
            println!("  {id}");
        }
    }
    for m in &r.removed_references {
        println!(
            "{} names removed {} (removed {})",
            m.doc, m.removed_path, m.removed_at
        );
    }
}

fn print_stored(stored: &lore_gateway::StoredFile, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(stored)?);
    } else {
        println!(
            "{} {} in root `{}` ({} bytes{})",
            if stored.overwritten {
                "replaced"
            } else {
                "wrote"
            },
            stored.relative_path,
            stored.root,
            stored.bytes,
            if stored.ingest_run.as_ref().is_some_and(|r| r.success) {
                ", ingested"
            } else {
                ""
            }
        );
        if let Some(previous) = &stored.previous_saved_to {
            println!("the old text is kept at {previous}");
        }
    }
    for warning in &stored.warnings {
        eprintln!("note: {warning}");
    }
    Ok(())
}

fn ingest(mut project: lore_core::project::Project, args: IngestArgs) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let mut files = Vec::new();
    for asked in &args.paths {
        let path = cwd.join(asked);
        let path = path
            .canonicalize()
            .with_context(|| format!("{asked} does not exist [not_found]"))?;
        if path.is_file() {
            files.push(path.display().to_string());
            continue;
        }
        let gateway = Gateway::for_project(&project);
        if gateway.roots().iter().any(|r| r.path == path) {
            continue;
        }
        let given_relative = Path::new(asked).is_relative();
        project = add_root(&project, &path, given_relative, args.dry_run)?;
    }
    let gateway = gateway_of(&project);
    if !gateway.is_configured() {
        bail!(
            "no gateway roots: run `lore gateway ingest PATH` to add a folder (`lore gateway ingest .` for this one) [invalid_request]"
        );
    }
    // Files are named by the root that holds them.
    let mut paths = Vec::new();
    for file in &files {
        let inside = gateway
            .roots()
            .iter()
            .find_map(|r| lore_gateway::ingest::root_relative(&r.path, file));
        match inside {
            Some(relative) => paths.push(relative),
            None => {
                bail!("{file} is not inside a gateway root; ingest its folder instead [forbidden]")
            }
        }
    }
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} files {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let run = gateway
        .ingest(
            &IngestRequest {
                profile: Some(args.profile.clone()),
                dry_run: args.dry_run,
                paths,
            },
            &mut |done, total| {
                bar.set_length(total);
                bar.set_position(done);
            },
        )
        .map_err(|e| super::coded(&e))?;
    bar.finish_and_clear();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&run)?);
    } else {
        print_run(&run);
    }
    if !run.success {
        bail!(
            "the ingest failed: {} [upstream_error]",
            run.error.as_deref().unwrap_or("unknown")
        );
    }
    Ok(())
}

/// Adds `folder` to `gateway.roots` in lore.yaml and reloads the project;
/// in a dry run, to the project in memory only (lore.yaml is unchanged).
fn add_root(
    project: &lore_core::project::Project,
    folder: &Path,
    given_relative: bool,
    dry_run: bool,
) -> anyhow::Result<lore_core::project::Project> {
    let config_path = project.config_path();
    let text = std::fs::read_to_string(&config_path)
        .with_context(|| format!("cannot read {}", config_path.display()))?;
    let shown = root_as_written(&project.root, folder, given_relative);
    let taken: Vec<String> = Gateway::for_project(project)
        .roots()
        .iter()
        .map(|r| r.name.clone())
        .collect();
    let base = lore_gateway::ingest::default_root_name(folder);
    let name = (1..)
        .map(|n| {
            if n == 1 {
                base.clone()
            } else {
                format!("{base}-{n}")
            }
        })
        .find(|n| !taken.contains(n))
        .unwrap_or(base);
    if dry_run {
        let mut project = project.clone();
        project
            .config
            .gateway
            .roots
            .push(lore_core::config::GatewayRoot {
                path: shown.clone(),
                name: Some(name.clone()),
            });
        eprintln!("would add gateway root `{name}` ({shown}) to lore.yaml (dry run: unchanged)");
        return Ok(project);
    }
    let Some(updated) = lore_core::config::with_root_added(&text, &shown, Some(&name)) else {
        bail!(
            "cannot add the root to {}: write it under gateway.roots by hand (- path: {shown}) [config_error]",
            config_path.display()
        );
    };
    lore_core::project::write_atomically(&config_path, &updated).map_err(|e| super::coded(&e))?;
    match lore_core::project::Project::load(&project.root) {
        Ok(reloaded) => {
            eprintln!("added gateway root `{name}` ({shown}) to lore.yaml");
            Ok(reloaded)
        }
        Err(e) => {
            // Never leave a broken lore.yaml behind.
            lore_core::project::write_atomically(&config_path, &text)
                .map_err(|e| super::coded(&e))?;
            bail!(
                "adding the root made lore.yaml invalid ({e}); it is unchanged: write it under gateway.roots by hand [config_error]"
            )
        }
    }
}

/// How lore.yaml names `folder`: relative to the project (`.`, `repo`,
/// `../sphinx`) when it was given relative, or the two share a folder
/// below the file system's root, so the project can move with its
/// neighbours; absolute when it was given absolute and is not near (or
/// when no relative path leads there, another drive).
fn root_as_written(project_root: &Path, folder: &Path, given_relative: bool) -> String {
    let base = project_root
        .canonicalize()
        .unwrap_or_else(|_| project_root.to_path_buf());
    let base: Vec<_> = base.components().collect();
    let target: Vec<_> = folder.components().collect();
    let shared = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    // Sharing only the file system's root (or a drive) is not a neighbour.
    let leading = base
        .iter()
        .take_while(|c| !matches!(c, std::path::Component::Normal(_)))
        .count();
    let same_prefix = shared >= leading;
    if !same_prefix || (shared == leading && !given_relative) {
        return folder.display().to_string();
    }
    let mut parts: Vec<String> = vec!["..".to_string(); base.len() - shared];
    parts.extend(
        target[shared..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

/// Why a file was left out, with what exactly when the run says.
fn skip_reason(skipped: &lore_gateway::ingest::Skipped) -> String {
    match &skipped.detail {
        Some(detail) => format!("{}: {detail}", skipped.reason.as_str()),
        None => skipped.reason.as_str().to_string(),
    }
}

fn print_run(run: &lore_gateway::IngestRun) {
    if run.dry_run && run.success {
        println!(
            "dry run of {} in {:.2} s: {} files seen; an ingest would read {} new or changed files and remove {} files' chunks; nothing was written",
            run.roots.join(", "),
            run.duration_seconds,
            run.files_seen,
            run.files_changed,
            run.files_removed,
        );
        print_skipped(run);
        return;
    }
    let counts: Vec<String> = run
        .artifact_counts
        .iter()
        .map(|(kind, n)| format!("{n} {kind}"))
        .collect();
    println!(
        "{} {} ({}) in {:.2} s: {} files seen, {} changed, {} removed; {} chunks; {}",
        if run.success { "ingested" } else { "FAILED" },
        run.roots.join(", "),
        run.run_id,
        run.duration_seconds,
        run.files_seen,
        run.files_changed,
        run.files_removed,
        run.chunk_count,
        if counts.is_empty() {
            "no files".to_string()
        } else {
            counts.join(", ")
        }
    );
    print_skipped(run);
    for (root, head) in &run.repo_head {
        println!("{root} at {head}");
    }
    if let Some(lane) = &run.embeddings {
        println!(
            "embeddings ({}): {} chunk texts, {} embedded now, {} from the cache, {} pending",
            lane.model, lane.chunks, lane.embedded, lane.from_cache, lane.pending
        );
        if let Some(error) = &lane.error {
            eprintln!(
                "warning: embeddings incomplete: {error}; search ranks the rest lexically until the next ingest"
            );
        }
    }
    if let Some(error) = &run.error {
        println!("error: {error}");
    }
}

/// The files a run left out (the first 20).
fn print_skipped(run: &lore_gateway::IngestRun) {
    if run.skipped.is_empty() {
        return;
    }
    println!("skipped {} files:", run.skipped.len());
    for skipped in run.skipped.iter().take(20) {
        println!(
            "  {}/{} ({})",
            skipped.root,
            skipped.path,
            skip_reason(skipped)
        );
    }
    if run.skipped.len() > 20 {
        println!(
            "  … and {} more (--json lists them all)",
            run.skipped.len() - 20
        );
    }
}
