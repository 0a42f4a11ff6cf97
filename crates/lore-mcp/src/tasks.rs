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
//!
//! A task belongs to its caller ([`caller_of_request`]: the token, else
//! the session, else the client): to anyone else `tasks/get`, `tasks/update`
//! and `tasks/cancel` answer as for a task that does not exist.
//!
//! A task's end says what its work did. `tasks/cancel` stops a
//! `memory_ingest` run that has not begun writing (it writes nothing; the
//! task ends `cancelled`); a run already writing, and the other task tools
//! (which cannot stop half-way), run to their end and the task completes
//! with their answer.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lore_context::memory::ingest::MemoryIngest;
use lore_context::memory::ingest::run::CancelOutcome;
use lore_core::{ErrorCode, ErrorReport};
use lore_store::TaskRecord;
use lore_store::feed::StoreHandle;
use rmcp::ErrorData as McpError;
use rmcp::RoleServer;
use rmcp::model::{CallToolResult, DetailedTask, JsonObject, Task, TaskPayload, TaskStatus};
use rmcp::service::RequestContext;
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
    /// Who started each of this server's tasks.
    callers: Mutex<HashMap<String, String>>,
    /// The ingest service whose runs `memory_ingest` tasks follow (to
    /// cancel them).
    ingest: Option<Arc<MemoryIngest>>,
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
            callers: Mutex::default(),
            ingest: None,
        }
    }

    /// The same, cancelling `memory_ingest` tasks' runs through `ingest`.
    pub fn with_ingest(mut self, ingest: Arc<MemoryIngest>) -> Tasks {
        self.ingest = Some(ingest);
        self
    }

    fn callers(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.callers.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts `tool` as a task of `caller` (see [`spawn`]), recorded in
    /// the shared store for the other servers.
    pub fn spawn(
        &self,
        registry: Arc<ToolRegistry>,
        tool: String,
        arguments: Option<JsonObject>,
        ctx: ToolContext,
        caller: String,
    ) -> Task {
        let ingest = self.ingest.clone();
        let task = spawn(&self.manager, registry, tool, arguments, ctx, ingest);
        {
            let mut callers = self.callers();
            // Tasks the manager forgot (expired) are forgotten here too.
            callers.retain(|id, _| self.manager.get_task(id).is_ok());
            callers.insert(task.task_id.clone(), caller.clone());
        }
        if let Some(store) = &self.shared {
            tokio::spawn(mirror(
                Arc::clone(&self.manager),
                Arc::clone(store),
                task.task_id.clone(),
                self.owner.clone(),
                caller,
            ));
        }
        task
    }

    /// Whether this server runs task `task_id` for someone other than
    /// `caller` (then it is answered as unknown).
    fn foreign(&self, task_id: &str, caller: &str) -> bool {
        self.callers()
            .get(task_id)
            .is_some_and(|owner| owner != caller)
    }

    /// `tasks/get`: this server's task, else another server's record;
    /// unknown to anyone but its caller.
    pub async fn get(&self, task_id: &str, caller: &str) -> Result<DetailedTask, McpError> {
        if self.foreign(task_id, caller) {
            return Err(unknown_task(task_id));
        }
        if let Ok(task) = self.manager.get_task(task_id) {
            return Ok(task);
        }
        match self.record(task_id, caller).await {
            Some(record) => Ok(as_seen_elsewhere(record)),
            None => Err(unknown_task(task_id)),
        }
    }

    /// `tasks/update`: Lore's tasks never ask for input, so there is
    /// nothing to deliver; unknown tasks are refused.
    pub async fn update(
        &self,
        task_id: &str,
        input_responses: impl IntoIterator<Item = (String, serde_json::Value)>,
        caller: &str,
    ) -> Result<(), McpError> {
        if self.foreign(task_id, caller) {
            return Err(unknown_task(task_id));
        }
        match self.manager.update_task(task_id, input_responses) {
            Ok(()) => Ok(()),
            Err(_) => match self.record(task_id, caller).await {
                Some(_) => Ok(()),
                None => Err(unknown_task(task_id)),
            },
        }
    }

    /// `tasks/cancel`: this server's task is told at once; another
    /// server's is asked through the store (its server stops it within
    /// [`MIRROR_EVERY`]).
    pub async fn cancel(&self, task_id: &str, caller: &str) -> Result<(), McpError> {
        if self.foreign(task_id, caller) {
            return Err(unknown_task(task_id));
        }
        if self.manager.cancel_task(task_id).is_ok() {
            return Ok(());
        }
        let Some(store) = &self.shared else {
            return Err(unknown_task(task_id));
        };
        if self.record(task_id, caller).await.is_none() {
            return Err(unknown_task(task_id));
        }
        let id = task_id.to_string();
        match store.run(move |s| s.request_task_cancel(&id)).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(unknown_task(task_id)),
            Err(report) => Err(McpError::internal_error(report.message, None)),
        }
    }

    /// Another server's record of task `task_id`, when `caller` started
    /// it.
    async fn record(&self, task_id: &str, caller: &str) -> Option<TaskRecord> {
        let store = self.shared.as_ref()?;
        let id = task_id.to_string();
        let record = store.run(move |s| s.task(&id)).await.ok().flatten()?;
        (record.caller == caller).then_some(record)
    }
}

/// Who a request comes from, as tasks are owned: the token's name (HTTP
/// with tokens), else the HTTP session, else the client's name; `stdio`
/// for the one client of a stdio server.
pub fn caller_of_request(context: &RequestContext<RoleServer>) -> String {
    let Some((caller, _)) = crate::caller::caller_of(&context.extensions) else {
        return "stdio".to_string();
    };
    if &*caller.name != "local" {
        return format!("token:{}", caller.name);
    }
    let session = context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.headers.get("mcp-session-id"))
        .and_then(|v| v.to_str().ok());
    if let Some(session) = session {
        return format!("session:{session}");
    }
    match context.client_info() {
        Some(info) => format!("client:{}", info.name),
        None => "anonymous".to_string(),
    }
}

/// The answer to a task that does not exist, or is someone else's: the
/// same, so a caller cannot tell the two apart.
fn unknown_task(task_id: &str) -> McpError {
    let report = ErrorReport::new(
        ErrorCode::NotFound,
        format!("no task `{task_id}` of yours: give the taskId your tools/call answered"),
    );
    McpError::invalid_params(
        format!("unknown task: {task_id}"),
        serde_json::to_value(report).ok(),
    )
}

/// Keeps task `id`'s record in `store` current until it ends, and passes
/// on a cancellation another server asked for.
async fn mirror(
    manager: Arc<TaskManager>,
    store: Arc<StoreHandle>,
    id: String,
    owner: String,
    caller: String,
) {
    let mut cancel_passed_on = false;
    loop {
        let Ok(task) = manager.get_task(&id) else {
            return;
        };
        let ended = task.status().is_terminal();
        let record = record_of(&task, &owner, &caller);
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

/// `task` (of `caller`) as its record in the store.
fn record_of(task: &DetailedTask, owner: &str, caller: &str) -> TaskRecord {
    let now = lore_core::time::UtcMillis::now();
    let status = serde_json::to_value(task.status())
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "working".to_string());
    TaskRecord {
        task_id: task.task.task_id.clone(),
        owner: owner.to_string(),
        caller: caller.to_string(),
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
/// `CreateTaskResult`. A `memory_ingest` task follows its run (which
/// `ingest` cancels); the other tools cannot stop half-way, so a cancel
/// lets them finish and the task completes with their answer.
fn spawn(
    tasks: &TaskManager,
    registry: Arc<ToolRegistry>,
    tool: String,
    arguments: Option<JsonObject>,
    ctx: ToolContext,
    ingest: Option<Arc<MemoryIngest>>,
) -> Task {
    let options = TaskOptions::new()
        .with_ttl_ms(TASK_TTL_MS)
        .with_poll_interval_ms(500)
        .with_status_message(format!("{tool}: started"));
    tasks.spawn(options, move |task| {
        Box::pin(async move {
            let work = registry.call_with(&tool, arguments, ctx.clone());
            tokio::pin!(work);
            // Starting a run is quick: a cancel during it is for the run.
            let answer = if tool == "memory_ingest" {
                work.await
            } else {
                tokio::select! {
                    answer = &mut work => answer,
                    () = task.cancelled() => {
                        task.set_status_message(format!(
                            "{tool}: cannot stop half-way, so it runs to its end"
                        ));
                        work.await
                    }
                }
            }
            .map_err(TaskExit::Error)?;
            if tool != "memory_ingest" || answer.is_error == Some(true) {
                return Ok(answer);
            }
            follow_run(&registry, &answer, &ctx, &task, ingest.as_deref()).await
        })
    })
}

/// Polls `memory_ingest_status` for the run `started` names until it is
/// no longer running: its last answer, or `Cancelled` when the run was
/// cancelled before it wrote. A cancel of the task cancels the run.
async fn follow_run(
    registry: &ToolRegistry,
    started: &CallToolResult,
    ctx: &ToolContext,
    task: &rmcp::task_manager::TaskContext,
    ingest: Option<&MemoryIngest>,
) -> Result<CallToolResult, TaskExit> {
    let run_id = started
        .structured_content
        .as_ref()
        .and_then(|v| v.get("runId"))
        .cloned()
        .unwrap_or_default();
    let mut arguments = JsonObject::new();
    arguments.insert("runId".into(), run_id.clone());
    let run_id = run_id.as_str().unwrap_or_default().to_string();
    let mut cancel_asked = false;
    loop {
        let status = registry
            .call_with("memory_ingest_status", Some(arguments.clone()), ctx.clone())
            .await
            .map_err(TaskExit::Error)?;
        let state = status.structured_content.clone().unwrap_or_default();
        if status.is_error == Some(true) || state["status"] != "running" {
            if state["status"] == "cancelled" {
                task.set_status_message(format!(
                    "memory_ingest: run {run_id} was cancelled before it wrote anything"
                ));
                return Err(TaskExit::Cancelled);
            }
            task.set_status_message(format!(
                "memory_ingest: {}",
                state["status"].as_str().unwrap_or("ended")
            ));
            return Ok(status);
        }
        if !cancel_asked && let Some(stage) = state["stage"].as_str() {
            task.set_status_message(format!("memory_ingest: {stage}"));
        }
        tokio::select! {
            () = tokio::time::sleep(RUN_POLL) => {}
            () = task.cancelled(), if !cancel_asked => {
                cancel_asked = true;
                task.set_status_message(match ingest.and_then(|i| i.cancel(&run_id)) {
                    Some(CancelOutcome::Stopped) => {
                        "memory_ingest: cancelling (the run stops before it writes)"
                    }
                    _ => "memory_ingest: too late to cancel (the run is writing), so it runs to its end",
                });
            }
        }
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
        let mut record = record_of(&task, "host-a:7", "token:alice");
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
        let record = record_of(&done, "host-b:9", "token:alice");
        assert_eq!(record.status, "completed");
        assert!(record.expires_at.as_deref() > Some(record.updated_at.as_str()));
        let read = as_seen_elsewhere(record);
        assert_eq!(read, done);
    }
}
