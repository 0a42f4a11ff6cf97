//! `lore mcp stdio` and `lore mcp serve`.

use std::net::SocketAddr;
use std::path::Path;

use super::shutdown::ShutdownSignal;
use anyhow::{Context, bail};
use lore_core::project::Project;
use lore_mcp::LoreServer;
use lore_mcp::transport::{
    HttpSettings, http_router, is_loopback_host, serve_stdio, validate_origin,
};

/// MCP transports.
#[derive(Debug, clap::Subcommand)]
pub enum McpCommand {
    /// Serve one MCP session over stdin/stdout (for clients that spawn Lore).
    Stdio,
    /// Serve MCP over Streamable HTTP in the foreground, at http://HOST:PORT/mcp.
    Serve(HttpArgs),
}

/// Where and how to serve HTTP.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HttpArgs {
    /// Address to bind (default: mcp.host in lore.yaml, else 127.0.0.1). Only loopback addresses are accepted.
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
}

pub fn run(command: McpCommand, project_dir: Option<&Path>) -> anyhow::Result<()> {
    let project = super::load_project(project_dir)?;
    match command {
        McpCommand::Stdio => {
            let server = LoreServer::for_project(&project);
            super::block_on(serve_stdio(server))??;
            Ok(())
        }
        McpCommand::Serve(args) => serve_http(&project, &args, |url| {
            eprintln!(
                "Lore MCP server for {} listening on {url}",
                project.root.display()
            );
            eprintln!("Press Ctrl-C to stop.");
        }),
    }
}

/// Serves the project over HTTP until Ctrl-C or SIGTERM; `on_ready` gets
/// the MCP URL once the port is bound.
pub fn serve_http(
    project: &Project,
    args: &HttpArgs,
    on_ready: impl FnOnce(&str),
) -> anyhow::Result<()> {
    let host = args
        .host
        .clone()
        .unwrap_or_else(|| project.config.mcp.host.clone());
    let port = args.port.unwrap_or(project.config.mcp.port);
    if !is_loopback_host(&host) {
        bail!(
            "refusing to bind {host}: without token authentication the server must stay on loopback (127.0.0.1, localhost, ::1)"
        );
    }
    // Flags add to lore.yaml's lists rather than replacing them.
    let merged = |from_config: &[String], from_flags: &[String]| -> Vec<String> {
        from_config.iter().chain(from_flags).cloned().collect()
    };
    let allowed_origins = merged(&project.config.mcp.allowed_origins, &args.allowed_origins);
    for origin in &allowed_origins {
        validate_origin(origin).map_err(anyhow::Error::msg)?;
    }
    let allowed_hosts = merged(&project.config.mcp.allowed_hosts, &args.allowed_hosts);
    let server = LoreServer::for_project(project);
    super::block_on(async move {
        let bind_host = if host == "localhost" {
            "127.0.0.1".to_string()
        } else {
            host.clone()
        };
        let address: SocketAddr = format!("{}:{port}", bracket_ipv6(&bind_host))
            .parse()
            .with_context(|| format!("`{host}` is not an IP address or localhost"))?;
        let listener = tokio::net::TcpListener::bind(address).await.map_err(|e| {
            if e.kind() == std::io::ErrorKind::AddrInUse {
                anyhow::anyhow!("port {port} is already in use on {host}; pass --port to choose another (or stop the other server)")
            } else {
                anyhow::anyhow!("cannot bind {address}: {e}")
            }
        })?;
        let bound = listener.local_addr()?;
        let shutdown = ShutdownSignal::new();
        let router = http_router(
            server,
            HttpSettings {
                project_dir: project.root.clone(),
                port: bound.port(),
                allowed_hosts,
                allowed_origins,
            },
            shutdown.token(),
        );
        on_ready(&format!(
            "http://{}:{}/mcp",
            bracket_ipv6(&bound.ip().to_string()),
            bound.port()
        ));
        axum::serve(listener, router)
            .with_graceful_shutdown(shutdown.wait())
            .await
            .context("the HTTP server failed")
    })?
}

fn bracket_ipv6(host: &str) -> String {
    if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_string()
    }
}
