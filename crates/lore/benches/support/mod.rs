//! What the benchmarks share: sample statistics, formatting, the machine
//! description, spawning `lore mcp stdio` and calling a tool.

#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;

/// A count from the environment, or `default`.
pub fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `lore --project-dir ROOT mcp stdio` as an rmcp transport.
pub fn spawn_stdio(root: &Path) -> TokioChildProcess {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_lore"));
    command
        .arg("--project-dir")
        .arg(root)
        .args(["mcp", "stdio"]);
    TokioChildProcess::new(command).expect("spawn lore mcp stdio")
}

/// Calls a tool and fails the benchmark on any error.
pub async fn call_tool(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    name: &'static str,
    arguments: serde_json::Value,
) -> serde_json::Value {
    let result = client
        .call_tool(
            CallToolRequestParams::new(name).with_arguments(arguments.as_object().unwrap().clone()),
        )
        .await
        .expect("call");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    result.structured_content.unwrap_or_default()
}

/// Order statistics of a set of timings.
pub struct Stats {
    pub min: Duration,
    pub median: Duration,
    pub p95: Duration,
    pub p99: Duration,
}

/// The statistics of `samples` (at least one).
pub fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    Stats {
        min: samples[0],
        median: at(0.5),
        p95: at(0.95),
        p99: at(0.99),
    }
}

/// Milliseconds with three decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

/// One Markdown row: name, samples, min, median, p95, p99.
pub fn row(name: &str, samples: Vec<Duration>) -> String {
    let n = samples.len();
    let s = stats(samples);
    format!(
        "| {name} | {n} | {} | {} | {} | {} |",
        ms(s.min),
        ms(s.median),
        ms(s.p95),
        ms(s.p99)
    )
}

/// `Machine: <cpu>, <n> cores; lore <version>`.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    format!(
        "Machine: {cpu}, {cores} cores; lore {}",
        env!("CARGO_PKG_VERSION")
    )
}

/// Resident memory of a process now, in MiB (Linux).
pub fn rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: f64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}
