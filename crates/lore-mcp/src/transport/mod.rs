//! The two ways clients reach Lore: stdio (the client spawns `lore mcp
//! stdio`) and Streamable HTTP on `/mcp` (POST for requests, GET for the
//! server's event stream, DELETE to end a session), with `/health` and
//! `/metrics` beside it.
//!
//! Every HTTP request gets a request id (`X-Request-ID`, echoed), then
//! passes the Host and Origin [`gate`]; `/mcp` requests then pass the
//! token check ([`auth`]: 401 without credentials, 403 with a wrong token or
//! a tool beyond the token's scope) and the per-client rate limit (429 with
//! `Retry-After`) before the MCP SDK sees them.

mod auth;
mod gate;
mod http;
mod limit;

pub use crate::caller::REQUEST_ID_HEADER;
pub use auth::{AccessToken, Caller};
pub use gate::{LOOPBACK_HOSTS, is_loopback_host, normalize_host, validate_origin};
pub use http::{HttpSettings, MAX_BODY_BYTES, STOP_KEY_HEADER, http_router};

use rmcp::ServiceExt;

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
    crate::panics::log_panics();
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
