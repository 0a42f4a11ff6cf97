//! Who is calling: the identity the HTTP transport establishes (a token's
//! name and scope) and carries in each request's extensions, read by the
//! tool registry (scopes, voters) and tasks (a task belongs to its
//! caller). Stdio callers carry none and act as the local user.

use std::sync::Arc;

use lore_core::config::Scope;

/// The header that carries a request's id, given by the client or made up.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// Who is calling, as established by the transport. HTTP requests carry it
/// in their extensions; stdio callers have none and act as the local user.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The token's name, or `local` when the server has no tokens.
    pub name: Arc<str>,
    /// What the caller may do.
    pub scope: Scope,
}

/// The caller an MCP request came with: `None` for stdio.
pub(crate) fn caller_of(extensions: &rmcp::model::Extensions) -> Option<(&Caller, Option<&str>)> {
    let parts = extensions.get::<axum::http::request::Parts>()?;
    let caller = parts.extensions.get::<Caller>()?;
    let request_id = parts
        .headers
        .get(REQUEST_ID_HEADER)
        .and_then(|v| v.to_str().ok());
    Some((caller, request_id))
}
