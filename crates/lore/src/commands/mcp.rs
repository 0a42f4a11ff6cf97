//! `lore mcp`: `stdio`, `serve` (foreground HTTP), and the background
//! server's lifecycle: `start`, `stop`, `status`, `logs`.

use std::io::{Read, Seek, SeekFrom, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use super::daemon::{self, DaemonState, Liveness};
use super::foreground::{self, ForegroundServer, Transport};
use super::shutdown::ShutdownSignal;
use anyhow::{Context, bail};
use axum::serve::ListenerExt;
use lore_core::config::Scope;
use lore_core::hold::ProjectHold;
use lore_core::project::{Project, resolve_project_dir};
use lore_core::time::UtcMillis;
use lore_mcp::LoreServer;
use lore_mcp::transport::{
    AccessToken, HttpSettings, STOP_KEY_HEADER, http_router, is_loopback_host, normalize_host,
    serve_stdio, validate_origin,
};
use tokio_util::sync::CancellationToken;

/// The environment variable that carries the token (never a command-line
/// argument of the background process, where `ps` would show it).
pub const TOKEN_ENV: &str = "LORE_MCP_TOKEN";

/// Shortest token accepted.
const MIN_TOKEN_LEN: usize = 16;

/// How long `stop` waits after SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(10);

/// How long `start` waits for the background server to answer `/health`.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// MCP transports and the background server.
#[derive(Debug, clap::Subcommand)]
pub enum McpCommand {
    /// Serve one MCP session over stdin/stdout (for clients that spawn Lore).
    Stdio(StdioArgs),
    /// Serve MCP over Streamable HTTP in the foreground, at http://HOST:PORT/mcp.
    Serve(ServeArgs),
    /// Start the HTTP server in the background (state in .lore/mcp.json, log in .lore/logs/mcp.log).
    Start(StartArgs),
    /// Stop the background server (SIGTERM, then SIGKILL after 10 s).
    ///
    /// A server run in the foreground (`lore mcp stdio` or `serve`) is
    /// left to whoever runs it: Ctrl-C in its terminal, or its agent
    /// client.
    Stop,
    /// Is a server running (background or foreground)? URL, pid, uptime, token mode.
    Status(StatusArgs),
    /// Print the background server's log.
    Logs(LogsArgs),
}

/// Which toolsets a server offers.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ToolsetArgs {
    /// Serve only these toolsets, comma-separated: analytics, memory, gateway
    /// (default: mcp.toolsets in lore.yaml, else analytics, memory, and
    /// gateway when gateway.roots is set or the store is shared; gateway
    /// alone with roots and no connection).
    #[arg(long, value_delimiter = ',', value_name = "TOOLSETS")]
    pub toolsets: Vec<String>,
}

impl ToolsetArgs {
    /// Overrides the project's `mcp.toolsets` with the flag, when given.
    fn apply(&self, project: &mut Project) -> anyhow::Result<()> {
        if self.toolsets.is_empty() {
            return Ok(());
        }
        let mut chosen = Vec::new();
        for name in &self.toolsets {
            let toolset: lore_core::config::Toolset =
                serde_json::from_value(serde_json::json!(name.trim())).map_err(|_| {
                    anyhow::anyhow!(
                        "unknown toolset `{name}`: choose among analytics, memory, gateway [invalid_arguments]"
                    )
                })?;
            if !chosen.contains(&toolset) {
                chosen.push(toolset);
            }
        }
        project.config.mcp.toolsets = Some(chosen);
        Ok(())
    }
}

/// `lore mcp stdio`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct StdioArgs {
    #[command(flatten)]
    pub toolsets: ToolsetArgs,
}

/// Where and how to serve HTTP.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HttpArgs {
    #[command(flatten)]
    pub toolsets: ToolsetArgs,
    /// Address to bind (default: mcp.host in lore.yaml, else 127.0.0.1). Anything but loopback needs a token.
    #[arg(long)]
    pub host: Option<String>,
    /// Port to bind (default: mcp.port in lore.yaml, else 7878).
    #[arg(long)]
    pub port: Option<u16>,
    /// Extra Host header value to accept (repeatable), added to mcp.allowed_hosts.
    #[arg(long = "allowed-host", value_name = "HOST")]
    pub allowed_hosts: Vec<String>,
    /// Browser origin allowed to call the server, e.g. http://localhost:3000 (repeatable).
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    pub allowed_origins: Vec<String>,
    /// Require this bearer token (admin scope) on every /mcp request. Prefer the
    /// LORE_MCP_TOKEN environment variable: a flag shows in the process list.
    #[arg(long, env = TOKEN_ENV, hide_env_values = true, value_name = "TOKEN")]
    pub token: Option<TokenArg>,
}

/// A token given on the command line; its `Debug` form hides it.
#[derive(Clone)]
pub struct TokenArg(String);

impl std::str::FromStr for TokenArg {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(TokenArg(s.to_string()))
    }
}

impl std::fmt::Debug for TokenArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenArg(<redacted>)")
    }
}

/// How logs are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// `lore mcp serve`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub http: HttpArgs,
    /// Log format on stderr.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// Record the server in .lore/mcp.json (what `lore mcp start` runs).
    #[arg(long, hide = true)]
    pub daemon: bool,
}

/// `lore mcp start`.
#[derive(Debug, Clone, clap::Args)]
pub struct StartArgs {
    #[command(flatten)]
    pub http: HttpArgs,
    /// Run in this terminal with logs on stdout instead of in the background.
    #[arg(long)]
    pub foreground: bool,
}

/// `lore mcp status`.
#[derive(Debug, Clone, clap::Args)]
pub struct StatusArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `lore mcp logs`.
#[derive(Debug, Clone, clap::Args)]
pub struct LogsArgs {
    /// Keep printing new lines as they are written (Ctrl-C to stop).
    #[arg(long, short)]
    pub follow: bool,
    /// How many of the last lines to print first.
    #[arg(long, short = 'n', default_value_t = 50)]
    pub lines: usize,
}

pub fn run(command: McpCommand, project_dir: Option<&Path>) -> anyhow::Result<()> {
    // Status, stop and logs read the server's record alone: they must work
    // when lore.yaml is broken, which is when people need them.
    let state_only = || -> anyhow::Result<Project> {
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        Ok(Project::state_only(&resolve_project_dir(project_dir, &cwd)))
    };
    match &command {
        McpCommand::Stop => return stop(&state_only()?),
        McpCommand::Status(args) => return status(&state_only()?, args),
        McpCommand::Logs(args) => return logs(&state_only()?, args),
        _ => {}
    }
    let mut project = super::load_project(project_dir)?;
    match &command {
        McpCommand::Stdio(args) => args.toolsets.apply(&mut project)?,
        McpCommand::Serve(args) => args.http.toolsets.apply(&mut project)?,
        McpCommand::Start(args) => args.http.toolsets.apply(&mut project)?,
        _ => {}
    }
    match command {
        McpCommand::Stdio(_) => {
            let _hold = hold_project(&project);
            let server = LoreServer::for_project(&project);
            // The roots are followed while the server runs (and, with a
            // shared store, what other servers ingest).
            let _follower = server.follow_roots();
            let _store_follower = server.follow_store();
            let project = &project;
            super::block_on(async move {
                let signal = ShutdownSignal::new();
                let announced = foreground::announce(project, Transport::Stdio);
                tokio::select! {
                    served = serve_stdio(server) => served,
                    () = signal.wait() => {
                        // The runtime cannot end while stdin's reader
                        // thread waits for input that may never come: the
                        // record goes, then the process, as the signal asked.
                        drop(announced);
                        std::process::exit(0);
                    }
                }
            })??;
            Ok(())
        }
        McpCommand::Serve(args) => {
            let record = args.daemon;
            serve_http(&project, &args.http, record, |url| {
                if !record {
                    eprintln!(
                        "Lore MCP server for {} listening on {url}",
                        project.root.display()
                    );
                    eprintln!("Press Ctrl-C to stop.");
                }
            })
        }
        McpCommand::Start(args) => start(&project, &args),
        // Answered above, without lore.yaml.
        McpCommand::Stop | McpCommand::Status(_) | McpCommand::Logs(_) => Ok(()),
    }
}

/// Everything an HTTP server needs, checked before anything starts.
struct Plan {
    host: String,
    port: u16,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
    tokens: Vec<AccessToken>,
}

impl Plan {
    fn new(project: &Project, args: &HttpArgs) -> anyhow::Result<Plan> {
        let config = &project.config.mcp;
        // One spelling from here on (`[::1]` → `::1`, `LOCALHOST` →
        // `localhost`): it is bound, recorded in .lore/mcp.json, compared and
        // turned into URLs.
        let host = normalize_host(args.host.as_deref().unwrap_or(&config.host));
        let port = args.port.unwrap_or(config.port);
        let tokens = access_tokens(project, args)?;
        if !is_loopback_host(&host) && tokens.is_empty() {
            bail!(
                "refusing to bind {host} without a token: beyond loopback (127.0.0.1, localhost, ::1) every request must authenticate; set {TOKEN_ENV} (or --token, or mcp.tokens in lore.yaml)"
            );
        }
        // Flags add to lore.yaml's lists rather than replacing them.
        let mut allowed_hosts: Vec<String> = config
            .allowed_hosts
            .iter()
            .chain(&args.allowed_hosts)
            .cloned()
            .collect();
        // A server bound to a named address answers that name.
        if !is_loopback_host(&host) && !matches!(host.as_str(), "0.0.0.0" | "::") {
            allowed_hosts.push(host.clone());
        }
        let allowed_origins: Vec<String> = config
            .allowed_origins
            .iter()
            .chain(&args.allowed_origins)
            .cloned()
            .collect();
        for origin in &allowed_origins {
            validate_origin(origin).map_err(anyhow::Error::msg)?;
        }
        Ok(Plan {
            host,
            port,
            allowed_hosts,
            allowed_origins,
            tokens,
        })
    }

    fn token_auth(&self) -> bool {
        !self.tokens.is_empty()
    }

    fn bind_address(&self) -> anyhow::Result<SocketAddr> {
        let ip = if self.host == "localhost" {
            std::net::IpAddr::from([127, 0, 0, 1])
        } else {
            self.host
                .parse()
                .with_context(|| format!("`{}` is not an IP address or localhost", self.host))?
        };
        Ok(SocketAddr::new(ip, self.port))
    }
}

/// The `--token` / `LORE_MCP_TOKEN` token (admin scope) and mcp.tokens.
fn access_tokens(project: &Project, args: &HttpArgs) -> anyhow::Result<Vec<AccessToken>> {
    let mut tokens = Vec::new();
    if let Some(TokenArg(secret)) = &args.token {
        let secret = secret.trim().to_string();
        check_token_length("the token from --token or LORE_MCP_TOKEN", &secret)?;
        tokens.push(AccessToken {
            name: "cli".to_string(),
            secret,
            scope: Scope::Admin,
        });
    }
    for token in &project.config.mcp.tokens {
        let what = format!("mcp.tokens `{}`", token.name);
        let secret = token
            .token
            .resolve(&what, &project.root)
            .map_err(|e| super::coded(&e))?;
        check_token_length(&what, secret.trim())?;
        tokens.push(AccessToken {
            name: token.name.clone(),
            secret: secret.trim().to_string(),
            scope: token.scope,
        });
    }
    Ok(tokens)
}

fn check_token_length(what: &str, secret: &str) -> anyhow::Result<()> {
    if secret.chars().count() < MIN_TOKEN_LEN {
        bail!(
            "{what} is too short: use at least {MIN_TOKEN_LEN} characters, e.g. from `openssl rand -hex 32`"
        );
    }
    Ok(())
}

/// Serves the project over HTTP until Ctrl-C or SIGTERM; `on_ready` gets
/// the MCP URL once the port is bound. With `record`, the server writes
/// `.lore/mcp.json` once bound and removes it when it stops.
pub fn serve_http(
    project: &Project,
    args: &HttpArgs,
    record: bool,
    on_ready: impl FnOnce(&str),
) -> anyhow::Result<()> {
    serve_plan(project, Plan::new(project, args)?, record, on_ready)
}

/// Serves a checked [`Plan`]; see [`serve_http`].
fn serve_plan(
    project: &Project,
    plan: Plan,
    record: bool,
    on_ready: impl FnOnce(&str),
) -> anyhow::Result<()> {
    let address = plan.bind_address()?;
    let _hold = hold_project(project);
    let server = LoreServer::for_project(project);
    // The roots are followed while the server runs (and, with a shared
    // store, what other servers ingest).
    let _follower = server.follow_roots();
    let _store_follower = server.follow_store();
    let telemetry = server.telemetry();
    let cut_off = server.call_cut_off();
    super::block_on(async move {
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|e| bind_error(&plan.host, plan.port, e))?;
        let bound = listener.local_addr()?;
        let signal = ShutdownSignal::new();
        let sessions = CancellationToken::new();
        // A recorded server can be stopped by `lore mcp stop` through
        // `POST /shutdown` with this key, on any platform.
        let stop_key = record.then(|| {
            format!(
                "{}{}",
                uuid::Uuid::new_v4().simple(),
                uuid::Uuid::new_v4().simple()
            )
        });
        let router = http_router(
            server,
            HttpSettings {
                project_dir: project.root.clone(),
                port: bound.port(),
                allowed_hosts: plan.allowed_hosts.clone(),
                allowed_origins: plan.allowed_origins.clone(),
                tokens: plan.tokens.clone(),
                rate_limit: project.config.mcp.rate_limit,
                session_idle: Duration::from_secs(project.config.mcp.session_idle_seconds),
                stop: stop_key.clone().map(|key| (key, signal.token())),
            },
            sessions.clone(),
        );
        let url = format!(
            "{}/mcp",
            daemon::base_url(&bound.ip().to_string(), bound.port())
        );
        let pid = std::process::id();
        if record {
            daemon::write_state(
                project,
                &DaemonState {
                    pid,
                    host: plan.host.clone(),
                    port: bound.port(),
                    url: url.clone(),
                    token_auth: plan.token_auth(),
                    project_dir: project.root.display().to_string(),
                    started_at: UtcMillis::now().to_iso(),
                    stop_key: stop_key.clone(),
                    log_path: daemon::log_path(project).display().to_string(),
                    version: env!("CARGO_PKG_VERSION").to_string(),
                },
            )?;
        }
        tracing::info!(
            target: "lore::http",
            url = %url,
            pid,
            token_auth = plan.token_auth(),
            "listening"
        );
        // A server `lore mcp start` did not record says so itself.
        let _announced =
            (!record).then(|| foreground::announce(project, Transport::Http { url: url.clone() }));
        on_ready(&url);
        // On a signal: the listener stops accepting while the sessions
        // drain (see `drain`)…
        // …and the drain begins once the listener is closed, so nothing
        // connects after `draining` is logged.
        let (listener_closed, closed) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            let _ = closed.await;
            drain(&telemetry, &cut_off, &sessions).await;
        });
        // Answers are streamed in small writes (headers, then SSE
        // events): without TCP_NODELAY, Nagle's algorithm and the client's
        // delayed ACK hold each answer for ~40 ms.
        let listener = ReportsClose {
            inner: listener,
            closed: Some(listener_closed),
        }
        .tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let served = axum::serve(
            listener,
            router.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(signal.wait())
        .await
        .context("the HTTP server failed");
        tracing::info!(target: "lore::http", "stopped");
        if record {
            daemon::remove_state_of(project, pid);
        }
        served
    })?
}

/// The project's serving hold for as long as this server runs: a restore
/// is refused while it is held (`lore_core::hold`), and a server starting
/// during a restore waits for it. A project whose `.lore/` cannot be
/// written is served without it (said in the log).
fn hold_project(project: &Project) -> Option<ProjectHold> {
    match ProjectHold::serving(&project.state_dir()) {
        Ok(hold) => Some(hold),
        Err(e) => {
            tracing::warn!(
                error = %e,
                "cannot hold .lore/serving.lock; a restore would not know this server runs"
            );
            None
        }
    }
}

/// A listener that says when the server dropped it: axum drops it as soon
/// as a graceful shutdown begins, so from then on no connection is taken.
struct ReportsClose<L> {
    inner: L,
    closed: Option<tokio::sync::oneshot::Sender<()>>,
}

impl<L: axum::serve::Listener> axum::serve::Listener for ReportsClose<L> {
    type Io = L::Io;
    type Addr = L::Addr;

    fn accept(&mut self) -> impl std::future::Future<Output = (Self::Io, Self::Addr)> + Send {
        self.inner.accept()
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

impl<L> Drop for ReportsClose<L> {
    fn drop(&mut self) {
        if let Some(closed) = self.closed.take() {
            let _ = closed.send(());
        }
    }
}

/// Ends a stopping server's work in order: the running tool calls get
/// until one second before `lore mcp stop` would SIGKILL to finish; those
/// still running then answer a retryable `unavailable`; once the answers
/// are written, the sessions and their event streams end, so the open
/// connections close and the server exits.
async fn drain(
    telemetry: &lore_mcp::telemetry::Telemetry,
    cut_off: &CancellationToken,
    sessions: &CancellationToken,
) {
    let running = telemetry.in_flight();
    tracing::info!(target: "lore::http", in_flight = running, "draining");
    let grace_over = Instant::now() + STOP_GRACE - Duration::from_secs(1);
    if running > 0 && !calls_done(telemetry, grace_over).await {
        tracing::warn!(
            target: "lore::http",
            in_flight = telemetry.in_flight(),
            "stop grace period over: the calls still running answer `unavailable`"
        );
        cut_off.cancel();
        calls_done(telemetry, Instant::now() + Duration::from_millis(500)).await;
    }
    if running > 0 {
        // A call's answer goes out on its stream just after the call ends.
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    sessions.cancel();
}

/// Waits until no tool call runs or `deadline` passes; whether none runs.
async fn calls_done(telemetry: &lore_mcp::telemetry::Telemetry, deadline: Instant) -> bool {
    while telemetry.in_flight() > 0 {
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    true
}

fn bind_error(host: &str, port: u16, e: std::io::Error) -> anyhow::Error {
    if e.kind() == std::io::ErrorKind::AddrInUse {
        anyhow::anyhow!(
            "port {port} is already in use on {host}; pass --port to choose another (or stop the other server)"
        )
    } else {
        anyhow::anyhow!("cannot bind {host}:{port}: {e}")
    }
}

/// `lore mcp start`: serves in this terminal (`--foreground`) or starts the
/// server in the background and waits until it answers.
fn start(project: &Project, args: &StartArgs) -> anyhow::Result<()> {
    let plan = Plan::new(project, &args.http)?;
    if already_running(project, &plan)? {
        return Ok(());
    }
    if args.foreground {
        return serve_plan(project, plan, true, |url| {
            println!("Lore MCP server listening on {url} (Ctrl-C to stop)");
        });
    }
    // Check the port here, so a busy port is a clear error and not a line
    // in the log; the server still reports its own bind failure.
    std::net::TcpListener::bind(plan.bind_address()?)
        .map_err(|e| bind_error(&plan.host, plan.port, e))?;
    let log_path = daemon::log_path(project);
    if let Some(dir) = log_path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .with_context(|| format!("cannot open {}", log_path.display()))?;
    let log_start = log.metadata().map(|m| m.len()).unwrap_or(0);
    let mut command = background_command(project, &plan, args)?;
    command
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log);
    detach(&mut command);
    let started = Instant::now();
    let child = command
        .spawn()
        .context("cannot start the background server")?;
    wait_until_ready(project, child, &log_path, log_start, started)
}

/// Settles the server recorded for the project before one is started:
/// true when the one asked for already runs (and says so), an error when
/// a different one runs or one is alive but does not answer; a stale
/// record is removed.
fn already_running(project: &Project, plan: &Plan) -> anyhow::Result<bool> {
    match daemon::liveness(project) {
        Liveness::Running { state, health } => {
            let same = normalize_host(&state.host) == plan.host
                && state.port == plan.port
                && state.token_auth == plan.token_auth();
            if health.is_none() {
                bail!(
                    "the server recorded in {} (pid {}) is alive but does not answer at {}; run `lore mcp stop` first",
                    daemon::state_path(project).display(),
                    state.pid,
                    state.url
                );
            }
            if same {
                println!(
                    "Lore MCP server already running at {} (pid {}).",
                    state.url, state.pid
                );
                return Ok(true);
            }
            bail!(
                "a Lore MCP server already runs for this project at {} (pid {}, token auth {}); it differs from what you asked ({}:{}, token auth {}): run `lore mcp stop` first",
                state.url,
                state.pid,
                on_off(state.token_auth),
                plan.host,
                plan.port,
                on_off(plan.token_auth())
            );
        }
        Liveness::Stale(state) => {
            let _ = std::fs::remove_file(daemon::state_path(project));
            eprintln!(
                "note: removed stale state of pid {} (it was not running)",
                state.pid
            );
        }
        Liveness::Stopped => {}
    }
    Ok(false)
}

/// The `lore mcp serve --daemon` command that serves `plan` in the
/// background: the same options, the token in its environment only when
/// one was passed, and the log level a daemon writes at.
fn background_command(
    project: &Project,
    plan: &Plan,
    args: &StartArgs,
) -> anyhow::Result<std::process::Command> {
    let exe = std::env::current_exe().context("cannot find the lore executable")?;
    let mut command = std::process::Command::new(exe);
    command
        .arg("--project-dir")
        .arg(&project.root)
        .args(["mcp", "serve", "--daemon", "--log-format", "json"])
        .args(["--host", &plan.host, "--port", &plan.port.to_string()]);
    for host in &args.http.allowed_hosts {
        command.args(["--allowed-host", host]);
    }
    if !args.http.toolsets.toolsets.is_empty() {
        command.args(["--toolsets", &args.http.toolsets.toolsets.join(",")]);
    }
    for origin in &args.http.allowed_origins {
        command.args(["--allowed-origin", origin]);
    }
    command.env_remove(TOKEN_ENV);
    if let Some(TokenArg(token)) = &args.http.token {
        command.env(TOKEN_ENV, token);
    }
    if std::env::var_os("LORE_LOG").is_none() {
        command.env("LORE_LOG", "info,rmcp=warn");
    }
    Ok(command)
}

/// Waits until the background server (`child`, logging to `log_path`
/// from `log_start` on) answers `/health`, then says where it runs; an
/// error with the log's first error when it exits first, and it is
/// stopped when it does not answer within [`START_TIMEOUT`].
fn wait_until_ready(
    project: &Project,
    mut child: std::process::Child,
    log_path: &Path,
    log_start: u64,
    started: Instant,
) -> anyhow::Result<()> {
    let pid = child.id();
    loop {
        if let Some(status) = child.try_wait()? {
            let reason = first_error_since(log_path, log_start)
                .unwrap_or_else(|| format!("it exited with {status}"));
            bail!(
                "the server did not start: {reason} (log: {})",
                log_path.display()
            );
        }
        if let Some(state) = daemon::read_state(project).filter(|s| s.pid == pid)
            && daemon::probe_health(&state.host, state.port, Duration::from_secs(1)).is_some()
        {
            println!(
                "Lore MCP server started at {} (pid {pid}, token auth {}, ready in {} ms).",
                state.url,
                on_off(state.token_auth),
                started.elapsed().as_millis()
            );
            println!("Log: {}", log_path.display());
            println!(
                "Next: `lore setup agents --target claude-code` (or cursor, codex, opencode, claude-desktop) so your agent finds it; `lore mcp stop` ends it."
            );
            return Ok(());
        }
        if started.elapsed() > START_TIMEOUT {
            #[cfg(unix)]
            let _ = daemon::signal(pid, libc::SIGTERM);
            bail!(
                "the server did not answer /health within {} s and was stopped; see {}",
                START_TIMEOUT.as_secs(),
                log_path.display()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Puts the child in its own session, so closing the terminal or Ctrl-C in
/// it does not reach the server.
fn detach(command: &mut std::process::Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: setsid is async-signal-safe and touches no memory of the
        // parent; it runs in the forked child before exec.
        unsafe {
            command.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
    }
}

/// The first `error:` line the server wrote after `offset`.
fn first_error_since(log: &Path, offset: u64) -> Option<String> {
    let mut file = std::fs::File::open(log).ok()?;
    file.seek(SeekFrom::Start(offset)).ok()?;
    let mut text = String::new();
    file.read_to_string(&mut text).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("error: "))
        .map(str::to_string)
}

fn on_off(value: bool) -> &'static str {
    if value { "on" } else { "off" }
}

/// `lore mcp stop`: stops the background server. Servers run in the
/// foreground are never signalled: a stdio server belongs to the agent
/// client that spawned it (killing it breaks that client's session), and
/// `lore mcp serve` to the terminal it runs in. With no background server
/// to stop, their presence is a `conflict` that says where to stop them.
fn stop(project: &Project) -> anyhow::Result<()> {
    let in_foreground = foreground::running(project);
    let state = match daemon::liveness(project) {
        Liveness::Running { state, .. } => state,
        Liveness::Stale(state) => {
            let _ = std::fs::remove_file(daemon::state_path(project));
            println!(
                "The server recorded in .lore/mcp.json (pid {}) was not running; removed its stale state.",
                state.pid
            );
            return refuse_foreground(&in_foreground);
        }
        Liveness::Stopped if in_foreground.is_empty() => {
            println!("No Lore MCP server is running for this project.");
            return Ok(());
        }
        Liveness::Stopped => return refuse_foreground(&in_foreground),
    };
    let started = Instant::now();
    // First the server's own stop endpoint (the key in .lore/mcp.json):
    // it works on every platform and cannot reach another process.
    let asked = request_stop(&state);
    if !asked {
        if !is_lore_process(state.pid, project) {
            bail!(
                "the server recorded in .lore/mcp.json (pid {}) does not answer its stop request at {}, and pid {} cannot be confirmed to be this project's Lore server, so nothing was signalled; stop that process yourself if it is Lore, then delete .lore/mcp.json",
                state.pid,
                state.url,
                state.pid
            );
        }
        #[cfg(unix)]
        daemon::signal(state.pid, libc::SIGTERM);
    }
    while daemon::process_alive(state.pid) && started.elapsed() < STOP_GRACE {
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut killed = false;
    if daemon::process_alive(state.pid) {
        if !is_lore_process(state.pid, project) {
            bail!(
                "the Lore MCP server (pid {}) did not stop within {} s; it cannot be confirmed to be Lore's, so it was not killed: stop it yourself",
                state.pid,
                STOP_GRACE.as_secs()
            );
        }
        #[cfg(unix)]
        daemon::signal(state.pid, libc::SIGKILL);
        killed = true;
        let deadline = Instant::now() + Duration::from_secs(2);
        while daemon::process_alive(state.pid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let _ = std::fs::remove_file(daemon::state_path(project));
    if killed {
        println!(
            "The Lore MCP server (pid {}) did not stop within {} s and was killed.",
            state.pid,
            STOP_GRACE.as_secs()
        );
    } else {
        println!(
            "Stopped the Lore MCP server (pid {}) in {:.1} s.",
            state.pid,
            started.elapsed().as_secs_f64()
        );
    }
    if !in_foreground.is_empty() {
        println!(
            "Still running, not started by `lore mcp start` and so not stopped: {}.",
            described(&in_foreground)
        );
    }
    Ok(())
}

/// The refusal to stop servers run in the foreground (none: nothing to
/// refuse).
fn refuse_foreground(servers: &[ForegroundServer]) -> anyhow::Result<()> {
    if servers.is_empty() {
        return Ok(());
    }
    Err(super::coded(&lore_core::error::ErrorReport::new(
        lore_core::error::ErrorCode::Conflict,
        format!(
            "no background server to stop: this project's Lore MCP server runs in the foreground ({}), started by `lore mcp stdio` or `lore mcp serve`, not by `lore mcp start`, so `lore mcp stop` leaves it alone; stop it where it runs (Ctrl-C in its terminal, or quit the agent client that started it)",
            described(servers)
        ),
    )))
}

/// `foreground, pid 42, stdio; foreground, pid 43, http …`.
fn described(servers: &[ForegroundServer]) -> String {
    servers
        .iter()
        .map(ForegroundServer::describe)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Asks the recorded server to stop through `POST /shutdown` with its key;
/// whether it accepted.
fn request_stop(state: &DaemonState) -> bool {
    let Some(key) = &state.stop_key else {
        return false;
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(3)))
        .http_status_as_error(false)
        .build()
        .into();
    agent
        .post(format!(
            "{}/shutdown",
            daemon::base_url(&state.host, state.port)
        ))
        .header(STOP_KEY_HEADER, key)
        .send_empty()
        .is_ok_and(|r| r.status() == 202)
}

/// Whether `pid` is confirmed to run this project's Lore server: its
/// executable is Lore's and its command line names this project or `mcp`
/// (a reused pid is someone else's). Where the process table cannot be
/// read (no `/proc`), nothing is confirmed, so nothing is signalled.
fn is_lore_process(pid: u32, project: &Project) -> bool {
    let Ok(exe) = std::fs::read_link(format!("/proc/{pid}/exe")) else {
        return false;
    };
    let name = exe.file_name().map(|n| n.to_string_lossy().into_owned());
    if !name.is_some_and(|n| n == "lore" || n.starts_with("lore ")) {
        return false;
    }
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
        return false;
    };
    let args: Vec<String> = cmdline
        .split(|b| *b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let root = std::path::absolute(&project.root).unwrap_or_else(|_| project.root.clone());
    args.iter().any(|a| a == "mcp")
        || args
            .iter()
            .any(|a| std::path::absolute(a).is_ok_and(|p| p == root))
}

fn status(project: &Project, args: &StatusArgs) -> anyhow::Result<()> {
    let liveness = daemon::liveness(project);
    let in_foreground = foreground::running(project);
    if args.json {
        let value = status_json(&liveness, &in_foreground);
        println!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(());
    }
    for server in &in_foreground {
        println!("Lore MCP server: running ({})", server.describe());
        println!(
            "  Uptime:     {} (since {})",
            UtcMillis::parse_iso(&server.started_at)
                .map_or_else(|| "?".into(), |t| daemon::format_age(t.seconds_ago())),
            server.started_at
        );
        println!(
            "  Stop:       where it runs (Ctrl-C, or its agent client); `lore mcp stop` stops only the server `lore mcp start` started"
        );
    }
    match &liveness {
        Liveness::Stopped if !in_foreground.is_empty() => {}
        Liveness::Stopped => {
            println!("Lore MCP server: stopped");
            println!("Next: `lore mcp start`");
        }
        Liveness::Stale(state) => {
            println!(
                "Lore MCP server: stale (pid {} in .lore/mcp.json is not running; it did not shut down cleanly)",
                state.pid
            );
            println!(
                "Next: `lore mcp start` (replaces the stale state); `lore mcp logs` shows why it ended"
            );
        }
        Liveness::Running { state, health } => {
            if health.is_some() {
                println!("Lore MCP server: running");
            } else {
                println!("Lore MCP server: running but not answering /health");
            }
            println!("  URL:        {}", state.url);
            println!("  PID:        {}", state.pid);
            println!(
                "  Uptime:     {} (since {})",
                daemon::uptime_seconds(state).map_or_else(|| "?".into(), daemon::format_age),
                state.started_at
            );
            println!(
                "  Token auth: {}",
                if state.token_auth {
                    "on (clients send Authorization: Bearer ${LORE_MCP_TOKEN})"
                } else {
                    "off (loopback only)"
                }
            );
            println!("  Project:    {}", state.project_dir);
            println!("  Log:        {}", state.log_path);
            if health.is_none() {
                println!("Next: `lore mcp logs`, then `lore mcp stop` and `lore mcp start`");
            }
        }
    }
    Ok(())
}

/// The status as JSON: `{state, mode, url, pid, ..., foreground: [...]}`.
/// The top level describes the background server, or, when it does not
/// run, the oldest server run in the foreground (`mode: foreground`);
/// `foreground` lists every server run in the foreground.
fn status_json(liveness: &Liveness, in_foreground: &[ForegroundServer]) -> serde_json::Value {
    let mut value = match (liveness, in_foreground.first()) {
        (Liveness::Stopped | Liveness::Stale(_), Some(oldest)) => {
            let mut value = oldest.to_json();
            value["state"] = serde_json::json!("running");
            value
        }
        _ => background_json(liveness),
    };
    value["mode"] = serde_json::json!(match (liveness, in_foreground.is_empty()) {
        (Liveness::Running { .. }, _) => "background",
        (_, false) => "foreground",
        (_, true) => "none",
    });
    value["foreground"] = in_foreground
        .iter()
        .map(ForegroundServer::to_json)
        .collect();
    value
}

/// The background server's status as JSON: `{state, url, pid, ...}`.
fn background_json(liveness: &Liveness) -> serde_json::Value {
    match liveness {
        Liveness::Stopped => serde_json::json!({"state": "stopped"}),
        Liveness::Stale(state) => serde_json::json!({
            "state": "stale",
            "pid": state.pid,
            "url": state.url,
        }),
        Liveness::Running { state, health } => {
            let uptime = daemon::uptime_seconds(state);
            serde_json::json!({
                "state": if health.is_some() { "running" } else { "unresponsive" },
                "url": state.url,
                "pid": state.pid,
                "host": state.host,
                "port": state.port,
                "tokenAuth": state.token_auth,
                "projectDir": state.project_dir,
                "startedAt": state.started_at,
                "uptimeSeconds": uptime,
                "logPath": state.log_path,
                "version": state.version,
            })
        }
    }
}

fn logs(project: &Project, args: &LogsArgs) -> anyhow::Result<()> {
    let path = daemon::log_path(project);
    if !path.exists() {
        bail!(
            "no log yet at {}: the background server writes it once `lore mcp start` runs",
            path.display()
        );
    }
    let mut out = std::io::stdout().lock();
    for line in daemon::tail(&path, args.lines)? {
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    if !args.follow {
        return Ok(());
    }
    let mut position = std::fs::metadata(&path)?.len();
    loop {
        std::thread::sleep(Duration::from_millis(250));
        let Ok(len) = std::fs::metadata(&path).map(|m| m.len()) else {
            continue;
        };
        if len < position {
            // The log was truncated or replaced: start from its beginning.
            position = 0;
        }
        if len > position {
            let mut file = std::fs::File::open(&path)?;
            file.seek(SeekFrom::Start(position))?;
            let mut chunk = Vec::new();
            file.take(len - position).read_to_end(&mut chunk)?;
            out.write_all(&chunk)?;
            out.flush()?;
            position = len;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(host: &str) -> Plan {
        let project = Project {
            root: std::env::temp_dir(),
            config: Default::default(),
            warnings: Vec::new(),
        };
        let args = HttpArgs {
            host: Some(host.to_string()),
            port: Some(7899),
            ..HttpArgs::default()
        };
        Plan::new(&project, &args).unwrap()
    }

    #[test]
    fn a_host_is_bound_recorded_and_reached_in_one_spelling() {
        for (given, bound, url) in [
            ("[::1]", "[::1]:7899", "http://[::1]:7899"),
            ("::1", "[::1]:7899", "http://[::1]:7899"),
            ("LocalHost", "127.0.0.1:7899", "http://127.0.0.1:7899"),
            ("127.0.0.1", "127.0.0.1:7899", "http://127.0.0.1:7899"),
        ] {
            let plan = plan(given);
            assert_eq!(plan.bind_address().unwrap().to_string(), bound, "{given}");
            assert_eq!(daemon::base_url(&plan.host, plan.port), url, "{given}");
        }
    }
}
