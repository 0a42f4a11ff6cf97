//! `lore wiki …`: the wiki from the terminal. Pages are read and written
//! through the knowledge store (so they have history and undo) and
//! mirrored to `wiki/`; `--json` prints what the MCP tools return.

use std::io::Read;
use std::path::Path;

use anyhow::Context;
use lore_context::discover::Discover;
use lore_context::wiki::page::UsageMode;
use lore_context::wiki::requests::{WikiReadInput, WikiWriteInput, wiki_read, wiki_write};
use lore_context::wiki::{Wiki, wiki_search};

const ACTOR: &str = "cli";

/// `lore wiki` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum WikiCommand {
    /// Search pages (like `wiki_search`).
    Search {
        /// What to look for.
        #[arg(value_name = "TEXT", required = true, num_args = 1..)]
        text: Vec<String>,
        /// Most pages (1-50).
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=50))]
        limit: u32,
        /// Print wiki_search's JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print a page (like `wiki_read`).
    Read {
        /// The page key.
        key: String,
        /// global or user (default: your page first, then the global one).
        #[arg(long)]
        scope: Option<String>,
        /// The page as it was right after this transaction.
        #[arg(long = "as-of", value_name = "TX_ID")]
        as_of: Option<i64>,
        /// Print wiki_read's JSON.
        #[arg(long)]
        json: bool,
    },
    /// Create or replace a page (like `wiki_write`).
    Write(WriteArgs),
    /// List the pages.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Import pages edited on disk, mirror the store's pages to disk, and
    /// report broken [[links]].
    Sync {
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Arguments of `lore wiki write`.
#[derive(Debug, clap::Args)]
pub struct WriteArgs {
    /// The page key (lower-case, `-`, `_`, `.`, `/` for folders).
    pub key: String,
    /// One line saying what the page explains.
    #[arg(long)]
    pub summary: String,
    /// The markdown body.
    #[arg(long, conflicts_with = "body_file")]
    pub body: Option<String>,
    /// Read the body from this file (`-` for stdin).
    #[arg(long, value_name = "FILE")]
    pub body_file: Option<String>,
    /// A tag (repeatable).
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// A related page key (repeatable).
    #[arg(long = "ref", value_name = "KEY")]
    pub refs: Vec<String>,
    /// A semantic-layer source, `connection.source` or `source` (repeatable).
    #[arg(long = "sl-ref", value_name = "SOURCE")]
    pub sl_refs: Vec<String>,
    /// auto, always or never.
    #[arg(long, default_value = "auto")]
    pub usage_mode: String,
    /// Write your own page (wiki/user/<you>/) instead of a global one.
    #[arg(long)]
    pub user: bool,
    /// Refuse unless the page is at this version (0: must not exist yet).
    #[arg(long)]
    pub expected_version: Option<i64>,
}

pub fn run(command: WikiCommand, project_dir: Option<&Path>) -> anyhow::Result<()> {
    let project = super::load_project(project_dir)?;
    let discover = lore_context::services::Services::for_project(&project).discover;
    let wiki = discover
        .wiki()
        .cloned()
        .context("the project has no wiki")?;
    match command {
        WikiCommand::Search { text, limit, json } => search(&discover, &text, limit, json),
        WikiCommand::Read {
            key,
            scope,
            as_of,
            json,
        } => read(&discover, key, scope, as_of, json),
        WikiCommand::Write(args) => write(&wiki, args),
        WikiCommand::List { json } => list(&wiki, json),
        WikiCommand::Sync { json } => {
            let report = wiki.sync().map_err(|e| super::coded(&e))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
                return Ok(());
            }
            print_sync(&report);
            Ok(())
        }
    }
}

/// `lore wiki search`: what wiki_search answers.
fn search(discover: &Discover, text: &[String], limit: u32, json: bool) -> anyhow::Result<()> {
    let query = text.join(" ");
    if query.trim().is_empty() {
        anyhow::bail!("give some text to search for [invalid_request]");
    }
    let found = wiki_search(discover, &query, limit as usize).map_err(|e| super::coded(&e))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&found)?);
    } else if found.results.is_empty() {
        eprintln!("No page matches; list them with `lore wiki list`.");
    } else {
        for hit in &found.results {
            println!("{:>5.3}  {}  ({})", hit.score, hit.key, hit.path);
            if let Some(summary) = &hit.summary {
                println!("       {summary}");
            }
            println!("       matched: {}", hit.match_reasons.join("; "));
        }
    }
    Ok(())
}

/// `lore wiki read`: a page, or what it was at a transaction.
fn read(
    discover: &Discover,
    key: String,
    scope: Option<String>,
    as_of: Option<i64>,
    json: bool,
) -> anyhow::Result<()> {
    let read = wiki_read(
        discover,
        WikiReadInput {
            key,
            scope,
            as_of_tx_id: as_of,
        },
    )
    .map_err(|e| super::coded(&e))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&read)?);
        return Ok(());
    }
    match read.page {
        Some(page) => {
            println!(
                "{} — version {} (transaction {}, {})",
                page.path, page.version, page.tx_id, page.updated_at
            );
            if let Some(summary) = &page.summary {
                println!("summary: {summary}");
            }
            if !page.tags.is_empty() {
                println!("tags: {}", page.tags.join(", "));
            }
            println!("\n{}", page.body.trim_end());
            if !page.broken_links.is_empty() {
                eprintln!(
                    "\nwarning: links to missing pages: {}",
                    page.broken_links.join(", ")
                );
            }
            Ok(())
        }
        None => anyhow::bail!(
            "{} [not_found]",
            read.message.unwrap_or_else(|| "no such page".into())
        ),
    }
}

/// `lore wiki write`: a page written as wiki_write writes it.
fn write(wiki: &Wiki, args: WriteArgs) -> anyhow::Result<()> {
    let body = match (args.body, args.body_file.as_deref()) {
        (Some(body), _) => body,
        (None, Some("-")) => {
            let mut body = String::new();
            std::io::stdin()
                .read_to_string(&mut body)
                .context("cannot read the body from stdin")?;
            body
        }
        (None, Some(file)) => std::fs::read_to_string(file)
            .with_context(|| format!("cannot read the body from {file}"))?,
        (None, None) => {
            anyhow::bail!("give the page's body with --body or --body-file [invalid_request]")
        }
    };
    let usage_mode: UsageMode = serde_json::from_value(serde_json::json!(args.usage_mode.trim()))
        .map_err(|_| {
        anyhow::anyhow!(
            "--usage-mode must be auto, always or never, got `{}` [invalid_request]",
            args.usage_mode
        )
    })?;
    let written = wiki_write(
        wiki,
        ACTOR,
        WikiWriteInput {
            key: args.key,
            summary: args.summary,
            body,
            tags: args.tags,
            refs: args.refs,
            sl_refs: args.sl_refs,
            usage_mode,
            scope: args.user.then(|| "user".to_string()),
            expected_version: args.expected_version,
        },
    )
    .map_err(|e| super::coded(&e))?;
    println!("{}", serde_json::to_string_pretty(&written)?);
    Ok(())
}

/// `lore wiki list`: every page, key and summary.
fn list(wiki: &Wiki, json: bool) -> anyhow::Result<()> {
    let pages = wiki.pages().map_err(|e| super::coded(&e))?;
    if json {
        let list: Vec<serde_json::Value> = pages
            .iter()
            .map(|p| {
                serde_json::json!({
                    "key": p.address.key,
                    "scope": p.address.scope.name(),
                    "path": p.address.path(),
                    "summary": p.front.summary,
                    "version": p.entry.version,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&list)?);
    } else if pages.is_empty() {
        eprintln!("No pages yet: write one with `lore wiki write KEY --summary … --body …`.");
    } else {
        for p in &pages {
            println!(
                "{:<28} {}",
                p.address.key,
                p.front.summary.as_deref().unwrap_or("(no summary)")
            );
        }
    }
    Ok(())
}

fn print_sync(report: &lore_context::wiki::SyncReport) {
    for (what, paths) in [
        ("imported", &report.imported),
        ("mirrored", &report.mirrored),
        ("removed file", &report.removed_files),
        ("deleted page", &report.deleted_pages),
    ] {
        for path in paths {
            println!("{what:<13} {path}");
        }
    }
    for problem in &report.problems {
        eprintln!("warning: {}: {}", problem.path, problem.message);
    }
    for link in &report.broken_links {
        eprintln!(
            "warning: {} links to [[{}]], which does not exist",
            link.path, link.target
        );
    }
    println!(
        "{} pages in step (transaction {}).",
        report.pages, report.tx_id
    );
}

/// Brings every mirrored folder (wiki pages, semantic-layer sources) in
/// step with the store after a write that may have touched their entries
/// (an undo takes a page or a whole model write back).
pub fn mirror(project: &lore_core::project::Project) {
    if let Err(e) = Wiki::for_project(project, None).refresh() {
        eprintln!("warning: the wiki files could not be updated: {e}");
    }
    let files = lore_context::services::Services::for_project(project).model_files;
    if let Err(e) = files.refresh() {
        eprintln!("warning: the semantic-layer files could not be updated: {e}");
    }
}
