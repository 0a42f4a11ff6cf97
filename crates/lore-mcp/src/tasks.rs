//! Long tool calls as Tasks (the `io.modelcontextprotocol/tasks` extension,
//! SEP-2663): when the client declared the extension, a call to one of
//! [`TASK_TOOLS`] answers at once with a task, which `tasks/get` follows
//! to the tool's own answer (its status message saying where it is) and
//! `tasks/cancel` stops. Without the extension the same call runs as
//! before, with progress notifications. `memory_ingest`, which answers a
//! run id at once, runs as a task to the run's end: the task's result is
//! the final `memory_ingest_status`.
//!
//! Tasks live in the server that created them (rmcp's `TaskManager`), for
//! `ttl` after they end; a `tasks/get` reaching another server of the same
//! store answers not found.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolResult, JsonObject, Task};
use rmcp::task_manager::{TaskExit, TaskManager, TaskOptions};

use crate::toolkit::{ToolContext, ToolRegistry};

/// The tools that run as a task for a client that supports them: the
/// calls that may take minutes.
pub const TASK_TOOLS: [&str; 3] = ["memory_ingest", "km-ingest-trigger", "km-backup-trigger"];

/// How long a finished task's answer is kept for `tasks/get`.
pub const TASK_TTL_MS: u64 = 3_600_000;

/// How often a followed `memory_ingest` run is looked at.
const RUN_POLL: Duration = Duration::from_millis(200);

/// Whether a call to `tool` runs as a task (when the client supports it).
pub fn runs_as_task(tool: &str) -> bool {
    TASK_TOOLS.contains(&tool)
}

/// Starts `tool` as a task of `tasks`: its seed state, for the
/// `CreateTaskResult`.
pub fn spawn(
    tasks: &TaskManager,
    registry: Arc<ToolRegistry>,
    tool: String,
    arguments: Option<JsonObject>,
    ctx: ToolContext,
) -> Task {
    let options = TaskOptions::new()
        .with_ttl_ms(TASK_TTL_MS)
        .with_poll_interval_ms(500)
        .with_status_message(format!("{tool}: started"));
    tasks.spawn(options, move |task| {
        Box::pin(async move {
            let work = async {
                let answer = registry
                    .call_with(&tool, arguments, ctx.clone())
                    .await
                    .map_err(TaskExit::Error)?;
                if tool != "memory_ingest" || answer.is_error == Some(true) {
                    return Ok(answer);
                }
                follow_run(&registry, &answer, &ctx, &task).await
            };
            tokio::select! {
                answer = work => answer,
                () = task.cancelled() => Err(TaskExit::Cancelled),
            }
        })
    })
}

/// Polls `memory_ingest_status` for the run `started` names until it is
/// no longer running: its last answer.
async fn follow_run(
    registry: &ToolRegistry,
    started: &CallToolResult,
    ctx: &ToolContext,
    task: &rmcp::task_manager::TaskContext,
) -> Result<CallToolResult, TaskExit> {
    let run_id = started
        .structured_content
        .as_ref()
        .and_then(|v| v.get("runId"))
        .cloned()
        .unwrap_or_default();
    let mut arguments = JsonObject::new();
    arguments.insert("runId".into(), run_id);
    loop {
        let status = registry
            .call_with("memory_ingest_status", Some(arguments.clone()), ctx.clone())
            .await
            .map_err(TaskExit::Error)?;
        let state = status.structured_content.clone().unwrap_or_default();
        if status.is_error == Some(true) || state["status"] != "running" {
            task.set_status_message(format!(
                "memory_ingest: {}",
                state["status"].as_str().unwrap_or("ended")
            ));
            return Ok(status);
        }
        if let Some(stage) = state["stage"].as_str() {
            task.set_status_message(format!("memory_ingest: {stage}"));
        }
        tokio::time::sleep(RUN_POLL).await;
    }
}
