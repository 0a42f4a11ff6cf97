//! The HTTP router: `/mcp` (the MCP SDK's Streamable HTTP service, with
//! stateful sessions), `/health` and `/metrics`, behind the request-id,
//! gate, token and rate-limit layers.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use lore_core::config::{RateLimitConfig, Scope};
use lore_core::{ErrorCode, ErrorReport};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::auth::{self, AccessToken, Denied, Tokens};
use super::gate::Gate;
use super::limit::RateLimiter;
use crate::LoreServer;
use crate::caller::REQUEST_ID_HEADER;
use crate::telemetry::Telemetry;

/// The largest request body `/mcp` accepts (413 beyond).
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Settings of the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpSettings {
    /// Reported by `/health`.
    pub project_dir: PathBuf,
    /// The port actually bound, reported by `/health`.
    pub port: u16,
    /// Host names accepted besides the loopback names.
    pub allowed_hosts: Vec<String>,
    /// Browser origins accepted (full `scheme://host[:port]`).
    pub allowed_origins: Vec<String>,
    /// Accepted tokens; none means no authentication (loopback only).
    pub tokens: Vec<AccessToken>,
    /// Requests per client and window.
    pub rate_limit: RateLimitConfig,
    /// How long an idle session lives.
    pub session_idle: Duration,
    /// `POST /shutdown` with this key (header `X-Lore-Stop-Key`) cancels
    /// this token: how `lore mcp stop` ends a recorded server on any
    /// platform, without signalling a process id. `None`: no such route.
    pub stop: Option<(String, CancellationToken)>,
}

/// The header `POST /shutdown` checks.
pub const STOP_KEY_HEADER: &str = "x-lore-stop-key";

struct Shared {
    gate: Gate,
    tokens: Tokens,
    limiter: RateLimiter,
    telemetry: Arc<Telemetry>,
    scopes: BTreeMap<&'static str, Scope>,
    sessions: Arc<LocalSessionManager>,
    health: serde_json::Value,
}

/// Builds the router. Cancelling `shutdown` closes every MCP session (and
/// so every event stream), which lets a graceful shutdown finish.
pub fn http_router(
    server: LoreServer,
    settings: HttpSettings,
    shutdown: CancellationToken,
) -> Router {
    crate::panics::log_panics();
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(settings.session_idle);
    let sessions = Arc::new(sessions);
    // Lore's own gate checks Host and Origin on every route, with the
    // normalisation the daemon documents, so the SDK's copy is off.
    let config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .with_cancellation_token(shutdown)
        .with_max_request_body_bytes(MAX_BODY_BYTES);
    let shared = Arc::new(Shared {
        gate: Gate::new(&settings.allowed_hosts, &settings.allowed_origins),
        tokens: Tokens::new(settings.tokens.clone()),
        limiter: RateLimiter::new(
            settings.rate_limit.requests,
            Duration::from_secs(u64::from(settings.rate_limit.window_seconds)),
        ),
        telemetry: server.telemetry(),
        scopes: server.tool_scopes(),
        sessions: sessions.clone(),
        health: serde_json::json!({
            "status": "ok",
            "projectDir": settings.project_dir.display().to_string(),
            "port": settings.port,
            "version": env!("CARGO_PKG_VERSION"),
            "pid": std::process::id(),
            "tokenAuth": !settings.tokens.is_empty(),
        }),
    });
    let mcp: StreamableHttpService<LoreServer, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(server.for_session()), sessions, config);
    let mcp = Router::new()
        .nest_service("/mcp", mcp)
        .layer(middleware::from_fn(shape_mcp_responses))
        .layer(middleware::from_fn_with_state(shared.clone(), authorize));
    let mut routes = Router::new()
        .route("/health", get(health))
        .route("/metrics", get(metrics));
    if let Some((key, token)) = settings.stop.clone() {
        routes = routes.route(
            "/shutdown",
            axum::routing::post(move |request: Request| {
                stop_server(key.clone(), token.clone(), request)
            }),
        );
    }
    routes
        .with_state(shared.clone())
        .merge(mcp)
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(shared, check_gate))
        .layer(middleware::from_fn(request_id))
}

/// `POST /shutdown`: begins the graceful stop when the request carries the
/// key recorded in `.lore/mcp.json` (readable by the project's owner only).
async fn stop_server(key: String, token: CancellationToken, request: Request) -> Response {
    let given = request
        .headers()
        .get(STOP_KEY_HEADER)
        .map(|v| v.as_bytes())
        .unwrap_or_default();
    if !auth::constant_time_eq(given, key.as_bytes()) {
        let report = ErrorReport::new(
            ErrorCode::Forbidden,
            "stopping the server needs the key recorded in .lore/mcp.json; use `lore mcp stop`",
        );
        return (StatusCode::FORBIDDEN, axum::Json(report)).into_response();
    }
    tracing::info!(target: "lore::http", "stop requested");
    token.cancel();
    (
        StatusCode::ACCEPTED,
        axum::Json(serde_json::json!({"status": "stopping"})),
    )
        .into_response()
}

/// What a path the server does not have answers: a JSON refusal like
/// every other.
async fn not_found(request: Request) -> Response {
    let report = ErrorReport::new(
        ErrorCode::NotFound,
        format!(
            "no such path {}: the MCP endpoint is /mcp (also /health and /metrics)",
            request.uri().path()
        ),
    );
    (StatusCode::NOT_FOUND, axum::Json(report)).into_response()
}

/// Keeps the `/mcp` answers the SDK gives in one shape: a POST whose body
/// is not sent as JSON is refused with 415 before the SDK sees it, and one
/// that is not a JSON-RPC message (broken JSON, a batch) with 400 and a
/// JSON-RPC error ([`malformed_json_rpc`]); ending a session
/// answers 204 (no content) instead of 202; and every refusal (4xx) carries
/// a JSON `{code, message, retryable}` body instead of plain text.
async fn shape_mcp_responses(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    if method == Method::POST {
        let content_type = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let media = content_type.split(';').next().unwrap_or("").trim();
        if !media.eq_ignore_ascii_case("application/json") {
            let report = ErrorReport::new(
                ErrorCode::InvalidRequest,
                format!(
                    "POST /mcp takes JSON-RPC as `Content-Type: application/json`, not `{}`",
                    if media.is_empty() { "(none)" } else { media }
                ),
            );
            return (StatusCode::UNSUPPORTED_MEDIA_TYPE, axum::Json(report)).into_response();
        }
    }
    let request = if method == Method::POST {
        let (parts, body) = request.into_parts();
        let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY_BYTES).await else {
            let report = ErrorReport::new(
                ErrorCode::InvalidRequest,
                format!("the request body is larger than {MAX_BODY_BYTES} bytes"),
            );
            return (StatusCode::PAYLOAD_TOO_LARGE, axum::Json(report)).into_response();
        };
        if let Some(refusal) = malformed_json_rpc(&bytes) {
            return refusal;
        }
        Request::from_parts(parts, Body::from(bytes))
    } else {
        request
    };
    let response = next.run(request).await;
    let status = response.status();
    if method == Method::DELETE && status == StatusCode::ACCEPTED {
        let (mut parts, _) = response.into_parts();
        parts.status = StatusCode::NO_CONTENT;
        parts.headers.remove(header::CONTENT_TYPE);
        parts.headers.remove(header::CONTENT_LENGTH);
        return Response::from_parts(parts, Body::empty());
    }
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !status.is_client_error() || is_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 64 * 1024)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let code = match status {
        StatusCode::NOT_FOUND => ErrorCode::NotFound,
        StatusCode::UNAUTHORIZED => ErrorCode::Unauthorized,
        StatusCode::FORBIDDEN => ErrorCode::Forbidden,
        StatusCode::CONFLICT => ErrorCode::Conflict,
        StatusCode::TOO_MANY_REQUESTS => ErrorCode::RateLimited,
        _ => ErrorCode::InvalidRequest,
    };
    let message = match (status, text.is_empty()) {
        (StatusCode::NOT_FOUND, _) => format!(
            "{}: the session ended or never existed; start a new one with initialize",
            if text.is_empty() {
                "unknown session"
            } else {
                text.as_str()
            }
        ),
        (_, true) => status.canonical_reason().unwrap_or("refused").to_string(),
        (_, false) => text,
    };
    let mut shaped = (status, axum::Json(ErrorReport::new(code, message))).into_response();
    for (name, value) in parts.headers.iter() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            shaped.headers_mut().insert(name.clone(), value.clone());
        }
    }
    shaped
}

/// A 400 with a JSON-RPC error body for a POST body that is not one
/// JSON-RPC message: -32700 (parse error) when it is not JSON, -32600
/// (invalid request) for a batch (the protocol since 2025-06-18 takes one
/// message per request) or JSON that is no JSON-RPC message. `None` when
/// the body is a message the SDK can read.
fn malformed_json_rpc(body: &[u8]) -> Option<Response> {
    let (code, message) = match serde_json::from_slice::<serde_json::Value>(body) {
        Err(e) => (
            -32700,
            format!("Parse error: the request body is not JSON ({e}); send one JSON-RPC message"),
        ),
        Ok(serde_json::Value::Array(_)) => (
            -32600,
            "Invalid Request: JSON-RPC batches are not accepted; send one message per request"
                .to_string(),
        ),
        // Read as the SDK reads it.
        Ok(_) => match serde_json::from_slice::<rmcp::model::ClientJsonRpcMessage>(body) {
            Ok(_) => return None,
            Err(e) => (
                -32600,
                format!(
                    "Invalid Request: not a JSON-RPC message ({e}); send {{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": …}}"
                ),
            ),
        },
    };
    let report = ErrorReport::new(ErrorCode::InvalidRequest, message.clone());
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message, "data": report},
    });
    Some((StatusCode::BAD_REQUEST, axum::Json(body)).into_response())
}

async fn health(State(shared): State<Arc<Shared>>) -> Response {
    axum::Json(shared.health.clone()).into_response()
}

/// `/metrics`: the admin scope when the server has tokens, else loopback
/// callers only.
async fn metrics(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    if shared.tokens.required() {
        match shared.tokens.authenticate(request.headers()) {
            Err(denied) => return denial(&shared, denied),
            Ok(caller) if caller.scope < Scope::Admin => {
                return refuse(
                    &shared,
                    StatusCode::FORBIDDEN,
                    ErrorCode::Forbidden,
                    format!(
                        "/metrics needs an admin token; token `{}` has the {} scope",
                        caller.name,
                        caller.scope.as_str()
                    ),
                );
            }
            Ok(_) => {}
        }
    } else if remote(&request).is_some_and(|addr| !addr.ip().is_loopback()) {
        return refuse(
            &shared,
            StatusCode::FORBIDDEN,
            ErrorCode::Forbidden,
            "/metrics answers loopback callers only when the server has no tokens".to_string(),
        );
    }
    let sessions = shared.sessions.sessions.read().await.len();
    let mut response = shared.telemetry.render(sessions).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
    );
    response
}

/// Gives every request an id (the client's `X-Request-ID` when it is
/// sensible, else a fresh one) and echoes it on the response.
async fn request_id(mut request: Request, next: Next) -> Response {
    let id = request
        .headers()
        .get(REQUEST_ID_HEADER)
        .filter(|v| {
            let bytes = v.as_bytes();
            !bytes.is_empty()
                && bytes.len() <= 128
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(b))
        })
        .cloned()
        .unwrap_or_else(|| {
            HeaderValue::from_str(&uuid::Uuid::new_v4().simple().to_string())
                .unwrap_or_else(|_| HeaderValue::from_static("unknown"))
        });
    request.headers_mut().insert(REQUEST_ID_HEADER, id.clone());
    let mut response = next.run(request).await;
    response.headers_mut().insert(REQUEST_ID_HEADER, id);
    response
}

async fn check_gate(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    if let Err(refusal) = shared.gate.admit(request.headers()) {
        log_refusal(&request, refusal.reason);
        shared.telemetry.record_rejection(refusal.reason);
        let report = ErrorReport::new(ErrorCode::Forbidden, refusal.message);
        return (StatusCode::FORBIDDEN, axum::Json(report)).into_response();
    }
    next.run(request).await
}

/// Authenticates a `/mcp` request, applies the rate limit, refuses a
/// `tools/call` beyond the caller's scope, and hands the caller to the MCP
/// handler in the request's extensions.
async fn authorize(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let caller = match shared.tokens.authenticate(request.headers()) {
        Ok(caller) => caller,
        Err(denied) => {
            log_refusal(&request, denied_reason(denied));
            // Failed attempts count against the address, which slows
            // down guessing.
            let key = format!("addr:{}", client_address(&request));
            if let Err(wait) = shared.limiter.hit(&key) {
                return too_many(&shared, wait);
            }
            return denial(&shared, denied);
        }
    };
    let key = if shared.tokens.required() {
        format!("token:{}", caller.name)
    } else {
        format!("addr:{}", client_address(&request))
    };
    if let Err(wait) = shared.limiter.hit(&key) {
        log_refusal(&request, "rate_limited");
        return too_many(&shared, wait);
    }
    let mut request = if request.method() == Method::POST && caller.scope < Scope::Admin {
        let (parts, body) = request.into_parts();
        let bytes = match axum::body::to_bytes(body, MAX_BODY_BYTES).await {
            Ok(bytes) => bytes,
            Err(_) => {
                return refuse(
                    &shared,
                    StatusCode::PAYLOAD_TOO_LARGE,
                    ErrorCode::InvalidRequest,
                    format!("the request body is larger than {MAX_BODY_BYTES} bytes"),
                );
            }
        };
        if let Some((tool, needed)) = beyond_scope(&bytes, &shared.scopes, caller.scope) {
            let request = Request::from_parts(parts, Body::empty());
            log_refusal(&request, "forbidden");
            return refuse(
                &shared,
                StatusCode::FORBIDDEN,
                ErrorCode::Forbidden,
                format!(
                    "tool `{tool}` needs the {} scope; token `{}` has the {} scope (ask for a token with more rights)",
                    needed.as_str(),
                    caller.name,
                    caller.scope.as_str()
                ),
            );
        }
        Request::from_parts(parts, Body::from(bytes))
    } else {
        request
    };
    request.extensions_mut().insert(caller);
    next.run(request).await
}

/// The first `tools/call` in a JSON-RPC message (or batch) whose tool needs
/// more than `scope`. Unknown tools pass: the server answers them itself.
fn beyond_scope(
    body: &[u8],
    scopes: &BTreeMap<&'static str, Scope>,
    scope: Scope,
) -> Option<(String, Scope)> {
    let message: serde_json::Value = serde_json::from_slice(body).ok()?;
    let messages = match &message {
        serde_json::Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    messages.into_iter().find_map(|m| {
        if m.get("method")?.as_str()? != "tools/call" {
            return None;
        }
        let name = m.get("params")?.get("name")?.as_str()?;
        let needed = *scopes.get(name)?;
        (needed > scope).then(|| (name.to_string(), needed))
    })
}

fn denied_reason(denied: Denied) -> &'static str {
    match denied {
        Denied::Missing => "unauthorized",
        Denied::Invalid => "forbidden",
    }
}

fn denial(shared: &Shared, denied: Denied) -> Response {
    match denied {
        Denied::Missing => {
            let mut response = refuse(
                shared,
                StatusCode::UNAUTHORIZED,
                ErrorCode::Unauthorized,
                "this server needs a token: send `Authorization: Bearer <token>` (the token given to `lore mcp start --token`, LORE_MCP_TOKEN, or one of mcp.tokens)".to_string(),
            );
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(r#"Bearer realm="lore""#),
            );
            response
        }
        Denied::Invalid => refuse(
            shared,
            StatusCode::FORBIDDEN,
            ErrorCode::Forbidden,
            "the bearer token is not one this server accepts; check LORE_MCP_TOKEN in the client's environment".to_string(),
        ),
    }
}

fn too_many(shared: &Shared, wait: Duration) -> Response {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let seconds = seconds.max(1);
    let mut response = refuse(
        shared,
        StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::RateLimited,
        format!(
            "too many requests from this client; retry in {seconds} s (the limit is mcp.rate_limit in lore.yaml)"
        ),
    );
    if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

fn refuse(shared: &Shared, status: StatusCode, code: ErrorCode, message: String) -> Response {
    shared.telemetry.record_rejection(code.as_str());
    (status, axum::Json(ErrorReport::new(code, message))).into_response()
}

fn remote(request: &Request) -> Option<SocketAddr> {
    request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0)
}

fn client_address(request: &Request) -> String {
    remote(request)
        .map(|a| a.ip().to_string())
        .unwrap_or_else(|| "local".to_string())
}

/// Logs a refused request: method, path, request id and reason, never
/// headers (they may hold a token).
fn log_refusal(request: &Request, reason: &'static str) {
    tracing::info!(
        target: "lore::http",
        method = %request.method(),
        path = request.uri().path(),
        request_id = request
            .headers()
            .get(REQUEST_ID_HEADER)
            .and_then(|v| v.to_str().ok())
            .unwrap_or(""),
        client = %client_address(request),
        reason,
        "request refused"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_beyond_the_scope_are_found_in_single_and_batched_messages() {
        let scopes: BTreeMap<&'static str, Scope> =
            [("query", Scope::Reader), ("store", Scope::Writer)].into();
        let call = |name: &str| serde_json::json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":name}});
        let body = |v: serde_json::Value| serde_json::to_vec(&v).unwrap();
        assert_eq!(
            beyond_scope(&body(call("store")), &scopes, Scope::Reader),
            Some(("store".to_string(), Scope::Writer))
        );
        assert_eq!(
            beyond_scope(&body(call("store")), &scopes, Scope::Writer),
            None
        );
        assert_eq!(
            beyond_scope(&body(call("query")), &scopes, Scope::Reader),
            None
        );
        assert_eq!(
            beyond_scope(&body(call("nope")), &scopes, Scope::Reader),
            None
        );
        let batch = serde_json::json!([call("query"), call("store")]);
        assert!(beyond_scope(&body(batch), &scopes, Scope::Reader).is_some());
        assert_eq!(beyond_scope(b"not json", &scopes, Scope::Reader), None);
    }
}
