//! The two ways clients reach Lore: stdio (the client spawns `lore mcp
//! stdio`) and Streamable HTTP on `/mcp` (POST for requests, GET for the
//! server's event stream, DELETE to end a session), with `/health` beside it.
//!
//! Every HTTP request passes a Host and Origin check first, which defends a
//! loopback server against DNS rebinding from a browser: the Host must be
//! loopback or explicitly allowed, and a request carrying an `Origin` is
//! refused unless that exact origin is allowed. Clients that are not
//! browsers send no `Origin` and pass.

use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use lore_core::{ErrorCode, ErrorReport};
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::LoreServer;

/// Why a transport stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// The MCP session could not start or ended abnormally.
    #[error("MCP session failed: {0}")]
    Session(String),
    /// The HTTP server failed.
    #[error("HTTP server failed: {0}")]
    Http(#[from] std::io::Error),
}

/// Serves one MCP session over this process's stdin and stdout until the
/// client closes it.
pub async fn serve_stdio(server: LoreServer) -> Result<(), TransportError> {
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| TransportError::Session(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| TransportError::Session(e.to_string()))?;
    Ok(())
}

/// The Host names every server accepts.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Settings of the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpSettings {
    /// Reported by `/health`.
    pub project_dir: PathBuf,
    /// The port actually bound, reported by `/health`.
    pub port: u16,
    /// Host names accepted besides [`LOOPBACK_HOSTS`].
    pub allowed_hosts: Vec<String>,
    /// Browser origins accepted (full `scheme://host[:port]`).
    pub allowed_origins: Vec<String>,
}

struct Gate {
    hosts: Vec<String>,
    origins: Vec<String>,
}

/// Builds the router: `/mcp` and `/health`, both behind the Host and Origin
/// check. Cancelling `shutdown` closes every MCP session.
pub fn http_router(
    server: LoreServer,
    settings: HttpSettings,
    shutdown: CancellationToken,
) -> Router {
    let hosts: Vec<String> = LOOPBACK_HOSTS
        .iter()
        .map(|h| h.to_string())
        .chain(settings.allowed_hosts.iter().map(|h| normalize_host(h)))
        .collect();
    let origins: Vec<String> = settings
        .allowed_origins
        .iter()
        .map(|o| normalize_origin(o))
        .collect();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts.clone())
        .with_allowed_origins(origins.clone())
        .enforce_origin_validation()
        .with_cancellation_token(shutdown);
    let mcp: StreamableHttpService<LoreServer, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(server.for_session()), Default::default(), config);
    let health = serde_json::json!({
        "status": "ok",
        "projectDir": settings.project_dir.display().to_string(),
        "port": settings.port,
    });
    Router::new()
        .route("/health", get(move || async move { axum::Json(health) }))
        .nest_service("/mcp", mcp)
        .layer(middleware::from_fn_with_state(
            Arc::new(Gate { hosts, origins }),
            check_host_and_origin,
        ))
}

async fn check_host_and_origin(
    State(gate): State<Arc<Gate>>,
    request: Request,
    next: Next,
) -> Response {
    if let Err(message) = gate.admit(request.headers()) {
        let report = ErrorReport::new(ErrorCode::Forbidden, message);
        return (StatusCode::FORBIDDEN, axum::Json(report)).into_response();
    }
    next.run(request).await
}

impl Gate {
    fn admit(&self, headers: &HeaderMap) -> Result<(), String> {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .map(normalize_host)
            .ok_or("the request has no Host header")?;
        if !self.hosts.contains(&host) {
            return Err(format!(
                "Host `{host}` is not allowed; add it to mcp.allowed_hosts in lore.yaml if this server is meant to answer it"
            ));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = normalize_origin(origin.to_str().unwrap_or_default());
            if !self.origins.contains(&origin) {
                return Err(format!(
                    "Origin `{origin}` is not allowed; add it to mcp.allowed_origins in lore.yaml to let that page call this server"
                ));
            }
        }
        Ok(())
    }
}

/// Lower case, without port, without IPv6 brackets: `[::1]:7878` → `::1`.
pub fn normalize_host(host: &str) -> String {
    let host = host.trim().to_ascii_lowercase();
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default().to_string();
    }
    match host.rsplit_once(':') {
        // A single colon separates a port; more mean a bare IPv6 address.
        Some((name, port)) if !name.contains(':') && port.chars().all(|c| c.is_ascii_digit()) => {
            name.to_string()
        }
        _ => host,
    }
}

fn normalize_origin(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

/// Checks that `origin` is a full origin: `http(s)://host[:port]` with no path.
pub fn validate_origin(origin: &str) -> Result<(), String> {
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .ok_or_else(|| format!("allowed origin `{origin}` must start with http:// or https://"))?;
    if rest.is_empty() || rest.trim_end_matches('/').contains('/') {
        return Err(format!(
            "allowed origin `{origin}` must be scheme://host[:port] with no path, e.g. http://localhost:3000"
        ));
    }
    Ok(())
}

/// Whether binding `host` keeps the server on this machine.
pub fn is_loopback_host(host: &str) -> bool {
    let host = normalize_host(host);
    LOOPBACK_HOSTS.contains(&host.as_str()) || host.starts_with("127.")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(origins: &[&str]) -> Gate {
        Gate {
            hosts: LOOPBACK_HOSTS.iter().map(|h| h.to_string()).collect(),
            origins: origins.iter().map(|o| normalize_origin(o)).collect(),
        }
    }

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(name.clone(), value.parse().unwrap());
        }
        map
    }

    #[test]
    fn hosts_are_normalized() {
        assert_eq!(normalize_host("[::1]:7878"), "::1");
        assert_eq!(normalize_host("LocalHost:7878"), "localhost");
        assert_eq!(normalize_host("::1"), "::1");
        assert_eq!(normalize_host("127.0.0.1"), "127.0.0.1");
    }

    #[test]
    fn loopback_hosts_pass_and_rebinding_hosts_do_not() {
        let g = gate(&[]);
        assert!(
            g.admit(&headers(&[(header::HOST, "127.0.0.1:7878")]))
                .is_ok()
        );
        assert!(g.admit(&headers(&[(header::HOST, "[::1]:7878")])).is_ok());
        let err = g
            .admit(&headers(&[(header::HOST, "evil.example:7878")]))
            .unwrap_err();
        assert!(err.contains("evil.example"), "{err}");
    }

    #[test]
    fn any_origin_is_refused_unless_allowed() {
        let closed = gate(&[]);
        let request = headers(&[
            (header::HOST, "localhost"),
            (header::ORIGIN, "http://localhost:3000"),
        ]);
        assert!(closed.admit(&request).is_err());
        let open = gate(&["http://localhost:3000/"]);
        assert!(open.admit(&request).is_ok());
    }

    #[test]
    fn origins_must_be_full_origins() {
        assert!(validate_origin("http://localhost:3000").is_ok());
        assert!(validate_origin("localhost:3000").is_err());
        assert!(validate_origin("https://app.example.com/path").is_err());
    }

    #[test]
    fn loopback_binds_are_recognized() {
        assert!(is_loopback_host("127.0.0.1"));
        assert!(is_loopback_host("localhost"));
        assert!(!is_loopback_host("0.0.0.0"));
    }
}
