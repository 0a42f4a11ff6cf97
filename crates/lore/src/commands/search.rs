//! `lore search TEXT`: what `discover_data` answers, for people.

use std::path::Path;

use lore_context::discover::{DiscoverDataInput, RefKind, discover_data};

/// Arguments of `lore search`.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// What to look for, in words or identifiers.
    #[arg(value_name = "TEXT", required = true, num_args = 1..)]
    pub text: Vec<String>,
    /// Only this connection.
    #[arg(short = 'c', long = "connection", value_name = "ID")]
    pub connection: Option<String>,
    /// Only these kinds (comma-separated): wiki, sl_source, sl_measure, sl_dimension, table, column.
    #[arg(long, value_delimiter = ',', value_name = "KINDS")]
    pub kinds: Option<Vec<String>>,
    /// Most results (1-50).
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u32).range(1..=50))]
    pub limit: u32,
    /// Print discover_data's JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: SearchArgs, project_dir: Option<&Path>) -> anyhow::Result<()> {
    let project = super::load_project(project_dir)?;
    let kinds = args
        .kinds
        .map(|kinds| {
            kinds
                .iter()
                .map(|k| {
                    serde_json::from_value::<RefKind>(serde_json::json!(k.trim())).map_err(|_| {
                        anyhow::anyhow!(
                            "unknown kind `{k}`; kinds are wiki, sl_source, sl_measure, sl_dimension, table, column"
                        )
                    })
                })
                .collect::<anyhow::Result<Vec<_>>>()
        })
        .transpose()?;
    let discover = lore_context::services::Services::for_project(&project).discover;
    let input = DiscoverDataInput {
        query: args.text.join(" "),
        connection_id: args.connection,
        kinds,
        limit: Some(args.limit as usize),
    };
    if input.query.trim().is_empty() {
        anyhow::bail!("give some text to search for [invalid_request]");
    }
    let query = input.query.clone();
    let scope = match &input.connection_id {
        Some(id) => format!("connection: {id}"),
        None if discover.connections().is_empty() => "no connection configured".to_string(),
        None => format!("connections: {}", discover.connections().join(", ")),
    };
    let found = discover_data(&discover, input).map_err(|e| super::coded(&e))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&found)?);
        return Ok(());
    }
    for lane in &found.lanes {
        if lane.lane != lore_context::discover::EMBEDDING_LANE {
            continue;
        }
        if let Some(reason) = &lane.skipped {
            eprintln!("note: the embedding lane was skipped: {reason}");
        } else if let Some(pending) = lane.pending {
            eprintln!("note: {pending} documents are not embedded yet; `lore reindex` embeds them");
        }
    }
    // Nothing matched when no lane but the listing of a small schema
    // found anything.
    let listed_only = found
        .lanes
        .iter()
        .all(|l| l.lane == lore_context::discover::LISTING_LANE || l.candidates == 0);
    if listed_only {
        let searched: Vec<String> = found
            .lanes
            .iter()
            .filter(|l| l.lane != lore_context::discover::LISTING_LANE)
            .map(|l| match &l.skipped {
                Some(reason) => format!("{} (skipped: {reason})", l.lane.replace('_', " ")),
                None => l.lane.replace('_', " "),
            })
            .collect();
        eprintln!(
            "Nothing matches \"{query}\". Searched the lanes {} ({scope}; their latest scans, semantic-layer files and the wiki). Try other words, or run `lore scan` if a connection was never scanned.",
            searched.join(", ")
        );
        if found.refs.is_empty() {
            return Ok(());
        }
        eprintln!("The schema is small: its tables follow, scored low.");
    }
    for r in &found.refs {
        let kind = serde_json::to_value(r.kind).unwrap_or_default();
        println!(
            "{:>5.3}  {:<12} {}{}",
            r.score,
            kind.as_str().unwrap_or_default(),
            r.id,
            r.connection_id
                .as_deref()
                .map(|c| format!("  [{c}]"))
                .unwrap_or_default()
        );
        if let Some(summary) = &r.summary {
            println!("       {summary}");
        }
        if let Some(snippet) = r
            .snippet
            .as_ref()
            .filter(|s| Some(*s) != r.summary.as_ref())
        {
            println!("       {snippet}");
        }
    }
    Ok(())
}
