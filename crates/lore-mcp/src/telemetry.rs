//! What the server counts and logs about every tool call, whichever
//! transport carried it: Prometheus metrics (served on `/metrics` by the
//! HTTP transport) and one structured log event per call, whose argument
//! summary names the arguments and their shapes but never their values.

use std::sync::atomic::AtomicI64;
use std::time::Duration;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use rmcp::model::JsonObject;

/// Latency buckets in seconds: from half a millisecond to ten seconds.
const BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

type Labels2 = [(&'static str, &'static str); 2];
type Labels1 = [(&'static str, &'static str); 1];

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallResult {
    /// The tool answered.
    Ok,
    /// The tool ran and reported an error in-band (`isError: true`).
    Error,
    /// The call was refused before the tool ran: unknown tool, arguments
    /// that do not match the schema, or a scope the caller lacks.
    Rejected,
}

impl CallResult {
    /// The `result` label.
    pub fn as_str(self) -> &'static str {
        match self {
            CallResult::Ok => "ok",
            CallResult::Error => "error",
            CallResult::Rejected => "rejected",
        }
    }
}

/// One finished tool call.
#[derive(Debug, Clone, Copy)]
pub struct CallRecord<'a> {
    /// The tool's registered name, or `unknown` for a name no tool has
    /// (so a client cannot grow the label set without bound).
    pub tool: &'static str,
    /// How it ended.
    pub result: CallResult,
    /// The stable error code of a failure.
    pub code: Option<&'static str>,
    /// Wall time from request to answer.
    pub duration: Duration,
    /// The arguments' summary for the log ([`summarize_arguments`]), made
    /// only when [`logs_calls`] is true; never sent to metrics.
    pub args: Option<&'a str>,
    /// The HTTP request id, when the call came over HTTP.
    pub request_id: Option<&'a str>,
    /// Who called: the token's name over HTTP, else the transport.
    pub client: &'a str,
}

/// The server's metrics.
pub struct Telemetry {
    registry: Registry,
    requests: Family<Labels2, Counter>,
    seconds: Family<Labels1, Histogram, fn() -> Histogram>,
    failures: Family<Labels2, Counter>,
    rejections: Family<Labels1, Counter>,
    sessions: Gauge,
    in_flight: Gauge<i64, AtomicI64>,
}

/// Counts a call as in flight until dropped.
pub struct InFlight(Gauge<i64, AtomicI64>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.dec();
    }
}

fn latency_histogram() -> Histogram {
    Histogram::new(BUCKETS)
}

impl Default for Telemetry {
    fn default() -> Self {
        Telemetry::new()
    }
}

impl Telemetry {
    /// Fresh metrics, all at zero.
    pub fn new() -> Telemetry {
        let mut registry = Registry::default();
        let requests = Family::<Labels2, Counter>::default();
        let seconds = Family::<Labels1, Histogram, fn() -> Histogram>::new_with_constructor(
            latency_histogram as fn() -> Histogram,
        );
        let failures = Family::<Labels2, Counter>::default();
        let rejections = Family::<Labels1, Counter>::default();
        let sessions = Gauge::default();
        let in_flight = Gauge::<i64, AtomicI64>::default();
        registry.register(
            "lore_mcp_requests",
            "MCP tool calls by tool and result (ok, error, rejected)",
            requests.clone(),
        );
        registry.register(
            "lore_mcp_request_seconds",
            "Time from tool call to answer, by tool",
            seconds.clone(),
        );
        registry.register(
            "lore_mcp_failures",
            "Failed tool calls by tool and stable error code (label `error`)",
            failures.clone(),
        );
        registry.register(
            "lore_mcp_http_rejections",
            "HTTP requests refused before reaching MCP, by reason (unauthorized, forbidden, rate_limited, host, origin)",
            rejections.clone(),
        );
        registry.register(
            "lore_mcp_sessions",
            "Open Streamable HTTP sessions",
            sessions.clone(),
        );
        registry.register(
            "lore_mcp_in_flight_calls",
            "Tool calls running now",
            in_flight.clone(),
        );
        Telemetry {
            registry,
            requests,
            seconds,
            failures,
            rejections,
            sessions,
            in_flight,
        }
    }

    /// Marks a call as running until the guard is dropped.
    pub fn call_started(&self) -> InFlight {
        self.in_flight.inc();
        InFlight(self.in_flight.clone())
    }

    /// Tool calls running now (a graceful shutdown waits for zero).
    pub fn in_flight(&self) -> i64 {
        self.in_flight.get()
    }

    /// Counts a finished call and logs it (target `lore::call`, level info).
    pub fn record_call(&self, call: &CallRecord<'_>) {
        self.requests
            .get_or_create(&[("tool", call.tool), ("result", call.result.as_str())])
            .inc();
        self.seconds
            .get_or_create(&[("tool", call.tool)])
            .observe(call.duration.as_secs_f64());
        if let Some(code) = call.code {
            self.failures
                .get_or_create(&[("tool", call.tool), ("error", code)])
                .inc();
        }
        if logs_calls() {
            tracing::info!(
                target: "lore::call",
                tool = call.tool,
                result = call.result.as_str(),
                code = call.code.unwrap_or(""),
                duration_ms = (call.duration.as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0,
                args = call.args.unwrap_or("{}"),
                request_id = call.request_id.unwrap_or(""),
                client = call.client,
                "tool call"
            );
        }
    }

    /// Counts an HTTP request refused before MCP saw it.
    pub fn record_rejection(&self, reason: &'static str) {
        self.rejections.get_or_create(&[("reason", reason)]).inc();
    }

    /// The metrics in the Prometheus text format, with the sessions gauge
    /// set to `sessions`.
    pub fn render(&self, sessions: usize) -> String {
        self.sessions
            .set(i64::try_from(sessions).unwrap_or(i64::MAX));
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut text, &self.registry);
        text
    }
}

/// Whether tool calls are logged (target `lore::call` at info), so callers
/// summarise arguments only when someone reads the summary.
pub fn logs_calls() -> bool {
    tracing::enabled!(target: "lore::call", tracing::Level::INFO)
}

/// The arguments' names and shapes, never their values:
/// `{connectionId: string(9), limit: number, entities: array(2)}`.
pub fn summarize_arguments(arguments: Option<&JsonObject>) -> String {
    let Some(arguments) = arguments else {
        return "{}".to_string();
    };
    let parts: Vec<String> = arguments
        .iter()
        .map(|(name, value)| {
            let name: String = name.chars().take(64).collect();
            let shape = match value {
                serde_json::Value::Null => "null".to_string(),
                serde_json::Value::Bool(_) => "bool".to_string(),
                serde_json::Value::Number(_) => "number".to_string(),
                serde_json::Value::String(s) => format!("string({})", s.chars().count()),
                serde_json::Value::Array(a) => format!("array({})", a.len()),
                serde_json::Value::Object(o) => format!("object({})", o.len()),
            };
            format!("{name}: {shape}")
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_summaries_keep_shapes_and_drop_values() {
        let args: JsonObject = serde_json::from_value(serde_json::json!({
            "sql": "select password from users",
            "limit": 5,
            "entities": [{"table": "t"}],
        }))
        .unwrap();
        let summary = summarize_arguments(Some(&args));
        assert!(summary.contains("sql: string(26)"), "{summary}");
        assert!(summary.contains("limit: number"), "{summary}");
        assert!(summary.contains("entities: array(1)"), "{summary}");
        assert!(!summary.contains("password"), "{summary}");
    }

    #[test]
    fn calls_are_counted_by_tool_result_and_code() {
        let telemetry = Telemetry::new();
        let call = CallRecord {
            tool: "sql_execution",
            result: CallResult::Error,
            code: Some("read_only_violation"),
            duration: Duration::from_millis(3),
            args: None,
            request_id: None,
            client: "test",
        };
        telemetry.record_call(&call);
        telemetry.record_call(&CallRecord {
            result: CallResult::Ok,
            code: None,
            ..call
        });
        let text = telemetry.render(2);
        assert!(
            text.contains(r#"lore_mcp_requests_total{tool="sql_execution",result="error"} 1"#),
            "{text}"
        );
        assert!(
            text.contains(
                r#"lore_mcp_failures_total{tool="sql_execution",error="read_only_violation"} 1"#
            ),
            "{text}"
        );
        assert!(
            text.contains(r#"lore_mcp_request_seconds_count{tool="sql_execution"} 2"#),
            "{text}"
        );
        assert!(text.contains("lore_mcp_sessions 2"), "{text}");
    }
}
