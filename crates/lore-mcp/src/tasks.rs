//! Long tool calls as Tasks (the `io.modelcontextprotocol/tasks` extension,
//! SEP-2663): when the client declared the extension, a call to one of
//! [`TASK_TOOLS`] answers at once with a task, which `tasks/get` follows
//! to the tool's own answer (its status message saying where it is) and
//! `tasks/cancel` stops. Without the extension the same call runs as
//! before, with progress notifications. `memory_ingest`, which answers a
//! run id at once, runs as a task to the run's end: the task's result is
//! the final `memory_ingest_status`.
//!
//! A task runs in the server that created it (rmcp's `TaskManager`) and
//! is kept for `ttl` after it ends. Over a store shared by several servers
//! (PostgreSQL), [`Tasks`] also keeps each task's record in the store,
//! current every [`MIRROR_EVERY`], so a `tasks/get` or `tasks/cancel`
//! reaching another server (any 2026-07-28 request may land anywhere)
//! answers from the record or asks the owner to stop; a working task whose
//! record went quiet for [`OWNER_GONE`] lost its server and reads as
//! failed.

use std::sync::Arc;
use std::time::Duration;

use lore_store::TaskRecord;
use lore_store::feed::StoreHandle;
use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolResult, DetailedTask, JsonObject, Task, TaskPayload, TaskStatus};
use rmcp::task_manager::{TaskExit, TaskManager, TaskOptions};

use crate::toolkit::{ToolContext, ToolRegistry};

/// How often a running task's record in a shared store is brought up to
/// date (and a cancellation asked for elsewhere is looked for).
pub const MIRROR_EVERY: Duration = Duration::from_millis(500);

/// A working task whose record was not saved for this long lost the
/// server running it.
pub const OWNER_GONE: Duration = Duration::from_secs(30);

/// This server's tasks and, over a shared store, every server's.
pub struct Tasks {
    manager: Arc<TaskManager>,
    /// The store shared with other servers, when there is one.
    shared: Option<Arc<StoreHandle>>,
    /// This server, as task records name it.
    owner: String,
}

impl Default for Tasks {
    fn default() -> Tasks {
        Tasks::new(None)
    }
}

impl Tasks {
    /// Tasks of this server, recorded in `store` when it is shared by
    /// several servers (a database server's; an embedded file is not).
    pub fn new(store: Option<Arc<StoreHandle>>) -> Tasks {
        let host = std::env::var("HOSTNAME")
            .ok()
            .filter(|h| !h.trim().is_empty())
            .unwrap_or_else(|| "localhost".to_string());
        Tasks {
            manager: Arc::new(TaskManager::new()),
            shared: store.filter(|s| s.is_server()),
            owner: format!("{host}:{}", std::process::id()),
        }
    }

    /// Starts `tool` as a task (see [`spawn`]), recorded in the shared
    /// store for the other servers.
    pub fn spawn(
        &self,
        registry: Arc<ToolRegistry>,
        tool: String,
        arguments: Option<JsonObject>,
        ctx: ToolContext,
    ) -> Task {
        let task = spawn(&self.manager, registry, tool, arguments, ctx);
        if let Some(store) = &self.shared {
            tokio::spawn(mirror(
                Arc::clone(&self.manager),
                Arc::clone(store),
                task.task_id.clone(),
                self.owner.clone(),
            ));
        }
        task
    }

    /// `tasks/get`: this server's task, else another server's record.
    pub async fn get(&self, task_id: &str) -> Result<DetailedTask, McpError> {
        let unknown = match self.manager.get_task(task_id) {
            Ok(task) => return Ok(task),
            Err(unknown) => unknown,
        };
        match self.record(task_id).await {
            Some(record) => Ok(as_seen_elsewhere(record)),
            None => Err(unknown),
        }
    }

    /// `tasks/update`: Lore's tasks never ask for input, so there is
    /// nothing to deliver; unknown tasks are refused.
    pub async fn update(
        &self,
        task_id: &str,
        input_responses: impl IntoIterator<Item = (String, serde_json::Value)>,
    ) -> Result<(), McpError> {
        match self.manager.update_task(task_id, input_responses) {
            Ok(()) => Ok(()),
            Err(unknown) => match self.record(task_id).await {
                Some(_) => Ok(()),
                None => Err(unknown),
            },
        }
    }

    /// `tasks/cancel`: this server's task is told at once; another
    /// server's is asked through the store (its server stops it within
    /// [`MIRROR_EVERY`]).
    pub async fn cancel(&self, task_id: &str) -> Result<(), McpError> {
        let unknown = match self.manager.cancel_task(task_id) {
            Ok(()) => return Ok(()),
            Err(unknown) => unknown,
        };
        let Some(store) = &self.shared else {
            return Err(unknown);
        };
        let id = task_id.to_string();
        match store.run(move |s| s.request_task_cancel(&id)).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(unknown),
            Err(report) => Err(McpError::internal_error(report.message, None)),
        }
    }

    async fn record(&self, task_id: &str) -> Option<TaskRecord> {
        let store = self.shared.as_ref()?;
        let id = task_id.to_string();
        store.run(move |s| s.task(&id)).await.ok().flatten()
    }
}

/// Keeps task `id`'s record in `store` current until it ends, and passes
/// on a cancellation another server asked for.
async fn mirror(manager: Arc<TaskManager>, store: Arc<StoreHandle>, id: String, owner: String) {
    let mut cancel_passed_on = false;
    loop {
        let Ok(task) = manager.get_task(&id) else {
            return;
        };
        let ended = task.status().is_terminal();
        let record = record_of(&task, &owner);
        match store.run(move |s| s.save_task(&record)).await {
            Ok(true) if !cancel_passed_on && !ended => {
                let _ = manager.cancel_task(&id);
                cancel_passed_on = true;
            }
            Ok(_) => {}
            // The database is away: the task goes on here, and its record
            // catches up on the next save.
            Err(report) => tracing::debug!(task = %id, "task record not saved: {}", report.message),
        }
        if ended {
            return;
        }
        tokio::time::sleep(MIRROR_EVERY).await;
    }
}

/// `task` as its record in the store.
fn record_of(task: &DetailedTask, owner: &str) -> TaskRecord {
    let now = lore_core::time::UtcMillis::now();
    let status = serde_json::to_value(task.status())
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "working".to_string());
    TaskRecord {
        task_id: task.task.task_id.clone(),
        owner: owner.to_string(),
        status,
        detail: serde_json::to_value(task).unwrap_or_default(),
        cancel_requested: false,
        updated_at: now.to_iso(),
        expires_at: task.status().is_terminal().then(|| {
            lore_core::time::UtcMillis(now.0 + task.task.ttl_ms.unwrap_or(TASK_TTL_MS) as i64)
                .to_iso()
        }),
    }
}

/// Another server's task as its record tells it; a working task whose
/// record went quiet lost its server and reads as failed.
fn as_seen_elsewhere(record: TaskRecord) -> DetailedTask {
    let task = match serde_json::from_value::<DetailedTask>(record.detail) {
        Ok(task) => task,
        Err(e) => {
            let now = lore_core::time::UtcMillis::now().to_iso();
            let task = Task::new(record.task_id.clone(), TaskStatus::Failed, now.clone(), now);
            return failed(task, format!("the task's record cannot be read ({e})"));
        }
    };
    let quiet = lore_core::time::UtcMillis::parse_iso(&record.updated_at)
        .is_some_and(|at| at.seconds_ago() >= OWNER_GONE.as_secs() as i64);
    if !task.status().is_terminal() && quiet {
        let message = format!(
            "the server running this task ({}) stopped answering; call the tool again",
            record.owner
        );
        return failed(task.task, message);
    }
    task
}

fn failed(task: Task, message: String) -> DetailedTask {
    let error = McpError::internal_error(message, None);
    let error = match serde_json::to_value(&error) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => JsonObject::new(),
    };
    DetailedTask::new(task, TaskPayload::Failed { error })
}

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
fn spawn(
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

#[cfg(test)]
mod tests {
    use super::*;

    fn working_record(updated_at: String) -> TaskRecord {
        let now = lore_core::time::UtcMillis::now().to_iso();
        let task = DetailedTask::new(
            Task::new("t-1", TaskStatus::Working, now.clone(), now),
            TaskPayload::Working,
        );
        let mut record = record_of(&task, "host-a:7");
        record.updated_at = updated_at;
        record
    }

    #[test]
    fn another_servers_working_task_reads_as_failed_once_its_record_goes_quiet() {
        let now = lore_core::time::UtcMillis::now();
        let fresh = as_seen_elsewhere(working_record(now.to_iso()));
        assert_eq!(fresh.status(), TaskStatus::Working);
        let quiet = lore_core::time::UtcMillis(now.0 - OWNER_GONE.as_millis() as i64 - 1000);
        let gone = as_seen_elsewhere(working_record(quiet.to_iso()));
        assert_eq!(gone.status(), TaskStatus::Failed);
        let TaskPayload::Failed { error } = &gone.payload else {
            panic!("{gone:?}");
        };
        assert!(
            error["message"].as_str().unwrap().contains("host-a:7"),
            "{error:?}"
        );
    }

    #[test]
    fn an_ended_task_is_recorded_with_its_answer_and_an_expiry() {
        let now = lore_core::time::UtcMillis::now().to_iso();
        let mut task = Task::new("t-2", TaskStatus::Completed, now.clone(), now);
        task.ttl_ms = Some(60_000);
        let mut result = JsonObject::new();
        result.insert("isError".into(), false.into());
        let done = DetailedTask::new(task, TaskPayload::Completed { result });
        let record = record_of(&done, "host-b:9");
        assert_eq!(record.status, "completed");
        assert!(record.expires_at.as_deref() > Some(record.updated_at.as_str()));
        let read = as_seen_elsewhere(record);
        assert_eq!(read, done);
    }
}
