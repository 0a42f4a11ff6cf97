//! `lore demo [DIR]`: a ready project over the generated demo warehouse,
//! served over MCP unless `--no-serve`.

use std::path::{Path, PathBuf};

use anyhow::Context;
use lore_core::project::init_project;
use lore_demo::{
    DEMO_CONNECTION_ID, DEMO_DATABASE_PATH, demo_project_config, generate_demo_warehouse,
};

use super::mcp::{HttpArgs, serve_http};

/// Arguments of `lore demo`.
#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// Directory of the demo project (default: ./lore-demo).
    pub dir: Option<PathBuf>,
    /// Only create the project; do not start the server.
    #[arg(long)]
    pub no_serve: bool,
    /// Regenerate the warehouse even if it exists.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub http: HttpArgs,
}

pub fn run(args: DemoArgs) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let root = cwd.join(args.dir.as_deref().unwrap_or(Path::new("lore-demo")));
    init_project(&root, &demo_project_config())?;
    let database = root.join(DEMO_DATABASE_PATH);
    if args.force || !database.is_file() {
        eprintln!("Generating the demo warehouse at {} …", database.display());
        let summary = generate_demo_warehouse(&database)?;
        for (table, rows) in &summary.tables {
            eprintln!("  {table:<16} {rows:>7} rows");
        }
        eprintln!("  {:<16} {:>7} rows", "total", summary.total_rows());
    } else {
        eprintln!(
            "Using the existing demo warehouse at {} (--force regenerates it)",
            database.display()
        );
    }
    let written = lore_demo::write_demo_semantic_model(&root)
        .context("cannot write the demo's semantic model")?;
    if !written.is_empty() {
        eprintln!(
            "Wrote the semantic model ({} sources) to {}",
            written.len(),
            root.join("semantic-layer")
                .join(DEMO_CONNECTION_ID)
                .display()
        );
    }
    let pages = lore_demo::write_demo_wiki(&root).context("cannot write the demo's wiki pages")?;
    if !pages.is_empty() {
        eprintln!(
            "Wrote {} wiki pages to {}",
            pages.len(),
            root.join("wiki").join("global").display()
        );
    }
    let project = super::load_project(Some(&root))?;
    let snapshots = lore_warehouse::snapshot::snapshots_dir(&root, DEMO_CONNECTION_ID);
    let scanned = lore_warehouse::snapshot::latest_sync_id(&snapshots)
        .map_err(|e| super::coded(&e))?
        .is_some();
    if args.force || !scanned {
        eprintln!("Scanning it so agents can read its tables and values …");
        super::scan::scan_and_summarize(&project, DEMO_CONNECTION_ID)?;
    }
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "lore".into());
    let try_it = format!(
        "Try it from a terminal:\n  cd {dir}\n  {exe} search how is revenue defined\n  {exe} wiki read revenue\n  {exe} entity accounts\n  {exe} dictionary Acme\n  {exe} sl query -m invoices.revenue -d accounts.segment -d invoices.issued_at:quarter\n  {exe} sql -c {DEMO_CONNECTION_ID} \"SELECT segment, count(*) AS accounts FROM accounts WHERE deleted_at IS NULL GROUP BY segment\"\n  {exe} memory store --topic billing --content \"Invoice amounts are in cents.\"\n  {exe} memory history",
        dir = root.display()
    );
    if args.no_serve {
        eprintln!(
            "\nDemo project ready at {}.\n{try_it}\nServe it to agents with:\n  {exe} --project-dir {} mcp serve",
            root.display(),
            root.display()
        );
        return Ok(());
    }
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "lore".into());
    // One record of the running server, whoever started it: the demo's
    // server is the one `lore mcp status|stop` and `lore status` see, and a
    // server already running for the project is reused, not doubled.
    match super::daemon::liveness(&project) {
        super::daemon::Liveness::Running {
            state,
            health: Some(_),
        } => {
            eprintln!(
                "\nA Lore server already serves the demo project at {} (pid {}); `lore mcp stop` stops it.\n",
                state.url, state.pid
            );
            eprintln!("{}", connect_instructions(&state.url, &exe, &root));
            eprintln!("{try_it}");
            return Ok(());
        }
        super::daemon::Liveness::Stale(_) => {
            let _ = std::fs::remove_file(super::daemon::state_path(&project));
        }
        _ => {}
    }
    serve_http(&project, &args.http, true, |url| {
        eprintln!("\nLore is serving the demo project at {url}\n");
        eprintln!("{}", connect_instructions(url, &exe, &root));
        eprintln!("{try_it}\n\nPress Ctrl-C to stop.");
    })
}

/// How to point each agent client at this server.
fn connect_instructions(url: &str, exe: &str, root: &Path) -> String {
    let root = root.display();
    format!(
        "Connect an agent:\n\
         \n  Claude Code:  claude mcp add --transport http lore {url}\n\
         \n  Cursor:       add to .cursor/mcp.json (or ~/.cursor/mcp.json)\n\
         \x20               {{ \"mcpServers\": {{ \"lore\": {{ \"url\": \"{url}\" }} }} }}\n\
         \n  Codex:        add to ~/.codex/config.toml (stdio: Codex starts Lore itself)\n\
         \x20               [mcp_servers.lore]\n\
         \x20               command = \"{exe}\"\n\
         \x20               args = [\"--project-dir\", \"{root}\", \"mcp\", \"stdio\"]\n"
    )
}
