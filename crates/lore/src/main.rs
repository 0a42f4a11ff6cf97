//! `lore`: gives AI agents the context they need to work on a company's
//! data, over MCP. This binary only parses arguments, wires the library
//! crates together and prints; every capability lives in a library crate.
#![doc = include_str!("../README.md")]

mod commands;
mod render;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

/// Lore: the context layer for data agents, served over MCP.
#[derive(Debug, Parser)]
#[command(name = "lore", version, about, long_about = None, propagate_version = true)]
struct Cli {
    /// Project directory. Default: the nearest directory upwards with a
    /// lore.yaml, else the current directory.
    #[arg(long, global = true, env = "LORE_PROJECT_DIR", value_name = "DIR")]
    project_dir: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Create a Lore project (lore.yaml, wiki/, semantic-layer/, raw-sources/, .lore/).
    Init(commands::init::InitArgs),
    /// Create the demo project with its embedded warehouse, then serve it over MCP.
    Demo(commands::demo::DemoArgs),
    /// Run one read-only SQL query against a connection.
    Sql(commands::sql::SqlArgs),
    /// Snapshot connections: structure, column profiles and relationships.
    Scan(commands::scan::ScanArgs),
    /// List and test connections.
    #[command(subcommand)]
    Connection(commands::connection::ConnectionCommand),
    /// Rebuild the search index (.lore/index) from the latest scans, the semantic layer and the wiki.
    Reindex,
    /// Search what exists: wiki pages, semantic layer, tables, columns (what discover_data answers).
    Search(commands::search::SearchArgs),
    /// Describe tables from the latest scan (what entity_details answers).
    Entity(commands::entity::EntityArgs),
    /// Find which column holds a value (what dictionary_search answers).
    Dictionary(commands::dictionary::DictionaryArgs),
    /// The semantic layer: list, read and validate models, run semantic queries.
    #[command(subcommand)]
    Sl(commands::sl::SlCommand),
    /// The knowledge memory: store, update, query, relate, history, undo.
    #[command(subcommand)]
    Memory(commands::memory::MemoryCommand),
    /// The wiki: search, read, write and sync pages (wiki/ mirrors them).
    #[command(subcommand)]
    Wiki(commands::wiki::WikiCommand),
    /// The knowledge gateway over code and docs: ingest roots, search chunks.
    #[command(subcommand)]
    Gateway(commands::gateway::GatewayCommand),
    /// Back up and restore the knowledge store and the gateway's index.
    #[command(subcommand)]
    Backup(commands::backup::BackupCommand),
    /// The knowledge store: move the embedded store to PostgreSQL.
    #[command(subcommand)]
    Store(commands::store::StoreCommand),
    /// Serve the MCP tools (stdio or Streamable HTTP).
    #[command(subcommand)]
    Mcp(commands::mcp::McpCommand),
    /// Connect agent clients (Claude Code, Cursor, Codex, …) to this project.
    #[command(subcommand)]
    Setup(commands::setup::SetupCommand),
    /// Is everything ready? Config, connections, scans, semantic layer, index, server, agents.
    Status(commands::status::StatusArgs),
    /// Inspect the configuration.
    #[command(subcommand)]
    Config(commands::config::ConfigCommand),
    /// Write or check the generated reference pages (docs/reference/).
    #[command(hide = true)]
    Docs(commands::docs::DocsArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if serves(&cli.command) {
        keep_heap_memory_returned();
    } else {
        die_quietly_on_closed_pipe();
    }
    init_logging(log_setup(&cli.command));
    let outcome = match cli.command {
        Command::Init(args) => commands::init::run(args, cli.project_dir.as_deref()),
        Command::Demo(args) => commands::demo::run(args),
        Command::Sql(args) => commands::sql::run(args, cli.project_dir.as_deref()),
        Command::Scan(args) => commands::scan::run(args, cli.project_dir.as_deref()),
        Command::Connection(command) => {
            commands::connection::run(command, cli.project_dir.as_deref())
        }
        Command::Reindex => commands::reindex::run(cli.project_dir.as_deref()),
        Command::Search(args) => commands::search::run(args, cli.project_dir.as_deref()),
        Command::Entity(args) => commands::entity::run(args, cli.project_dir.as_deref()),
        Command::Dictionary(args) => commands::dictionary::run(args, cli.project_dir.as_deref()),
        Command::Sl(command) => commands::sl::run(command, cli.project_dir.as_deref()),
        Command::Memory(command) => commands::memory::run(command, cli.project_dir.as_deref()),
        Command::Wiki(command) => commands::wiki::run(command, cli.project_dir.as_deref()),
        Command::Gateway(command) => commands::gateway::run(command, cli.project_dir.as_deref()),
        Command::Backup(command) => commands::backup::run(command, cli.project_dir.as_deref()),
        Command::Store(command) => commands::store::run(command, cli.project_dir.as_deref()),
        Command::Mcp(command) => commands::mcp::run(command, cli.project_dir.as_deref()),
        Command::Setup(command) => commands::setup::run(command, cli.project_dir.as_deref()),
        Command::Status(args) => commands::status::run(args, cli.project_dir.as_deref()),
        Command::Config(command) => commands::config::run(command, cli.project_dir.as_deref()),
        Command::Docs(args) => commands::docs::run(args, Cli::command()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Whether the command serves MCP (and must outlive a client that closes
/// its end). `lore mcp status`, `logs`, `stop` and a detached `start` only
/// print, and end quietly when their reader does.
fn serves(command: &Command) -> bool {
    use commands::mcp::McpCommand;
    match command {
        Command::Mcp(McpCommand::Stdio(_) | McpCommand::Serve(_)) | Command::Demo(_) => true,
        Command::Mcp(McpCommand::Start(args)) => args.foreground,
        _ => false,
    }
}

/// A command whose output is piped into `head` (or any reader that stops
/// early) ends quietly when the pipe closes, as Unix tools do, instead of
/// panicking on the failed write: Rust ignores SIGPIPE by default; this
/// restores the default action.
fn die_quietly_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to the default before any
    // other thread exists; no handler runs Rust code.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// A long-running server's resident memory follows its live heap: glibc
/// keeps freed memory in per-thread arenas (one per thread that ever
/// allocated, up to eight per core) and rarely gives it back, so a
/// server whose heap stays under 50 MB grew past 380 MB of RSS in a
/// 10-minute soak. Two arenas, and trimming every 30 s, keep RSS near the
/// heap (BENCHMARKS.md, "Soak"). Other platforms' allocators need
/// neither.
fn keep_heap_memory_returned() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallopt only sets a glibc tunable; called before any
        // other thread exists.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 2);
        }
        let _ = std::thread::Builder::new()
            .name("malloc-trim".into())
            .spawn(|| {
                loop {
                    std::thread::sleep(std::time::Duration::from_secs(30));
                    // SAFETY: malloc_trim only returns free pages to the
                    // OS; it is thread-safe.
                    unsafe {
                        libc::malloc_trim(0);
                    }
                }
            });
    }
}

/// Where and how a command logs.
struct LogSetup {
    json: bool,
    to_stdout: bool,
    default_filter: &'static str,
}

/// `lore mcp start --foreground` logs every call to stdout; the background
/// server (`serve --log-format json`, run by `start`) writes JSON lines;
/// every other command logs warnings to stderr.
fn log_setup(command: &Command) -> LogSetup {
    use commands::mcp::{LogFormat, McpCommand};
    match command {
        Command::Mcp(McpCommand::Start(args)) if args.foreground => LogSetup {
            json: false,
            to_stdout: true,
            default_filter: "info,rmcp=warn",
        },
        Command::Mcp(McpCommand::Serve(args)) => LogSetup {
            json: args.log_format == LogFormat::Json,
            to_stdout: false,
            default_filter: "warn,rmcp=error",
        },
        _ => LogSetup {
            json: false,
            to_stdout: false,
            default_filter: "warn,rmcp=error",
        },
    }
}

/// Logs go to stderr (stdout belongs to the MCP protocol under stdio),
/// filtered by `LORE_LOG` (default: Lore's warnings; the MCP SDK's errors
/// only, since it reports every rejected client request as a warning).
fn init_logging(setup: LogSetup) {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_env("LORE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(setup.default_filter));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    match (setup.json, setup.to_stdout) {
        (true, _) => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_writer(std::io::stderr)
            .init(),
        (false, true) => builder
            .with_writer(std::io::stdout)
            .with_ansi(std::io::stdout().is_terminal())
            .with_target(false)
            .init(),
        (false, false) => builder
            .with_writer(std::io::stderr)
            .with_ansi(std::io::stderr().is_terminal())
            .with_target(false)
            .init(),
    }
}

#[cfg(test)]
mod tests {
    /// Every command's flags are well formed (unique names, valid
    /// conflicts): clap checks this only when a command is parsed, so a
    /// mistake in a rarely used command would otherwise reach users.
    #[test]
    fn every_command_definition_is_valid() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
