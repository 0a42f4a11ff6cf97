//! Running a recipe: variables, then each step in order (its parameters'
//! templates filled in, the call or the wait, its checks, its captures),
//! then the outputs. The first failing step ends the run; the steps after
//! it are listed as not run.

use std::future::Future;
use std::time::{Duration, Instant};

use lore_core::time::UtcMillis;
use lore_core::{ErrorCode, ErrorReport};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::path::{PARAMS_MAX_BYTES, Scope, TemplateError, Unresolved, json_bytes, short};
use super::{Action, Recipe, RecipeSource, Step, Wait};

/// How a recipe's steps reach the tools. The MCP adapter calls its tool
/// registry; tests call whatever they like.
pub trait StepCaller: Sync {
    /// Calls `tool` with `params`: its answer as JSON, or its error.
    fn call(
        &self,
        tool: &str,
        params: serde_json::Map<String, Value>,
    ) -> impl Future<Output = Result<Value, ErrorReport>> + Send;

    /// Waits between two polls of a `wait` step.
    fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send;

    /// Told before each step starts (`index` from 0 of `total`), for
    /// progress notifications.
    fn step_started(
        &self,
        _index: usize,
        _total: usize,
        _step: &Step,
    ) -> impl Future<Output = ()> + Send {
        std::future::ready(())
    }
}

/// What a run is asked for besides the recipe.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Values for the recipe's variables (over their defaults).
    pub vars: serde_json::Map<String, Value>,
    /// Check the recipe and the variables and show each step's parameters
    /// without calling anything.
    pub dry_run: bool,
    /// The most bytes of JSON the outputs may take together
    /// (`limits.result_bytes`): an output whose templates would write
    /// past it fails the run with `budget_exceeded` before it is built.
    pub output_bytes: usize,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            vars: serde_json::Map::new(),
            dry_run: false,
            output_bytes: lore_core::limits::DEFAULT_RESULT_BYTES,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Every step passed; `outputs` holds the recipe's outputs.
    Success,
    /// A step failed; `error` says which and why.
    Failed,
    /// A dry run: nothing was called.
    Planned,
}

/// How a step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// Called, checked and captured.
    Success,
    /// Its call, a check, a capture or its wait failed.
    Failed,
    /// An earlier step failed.
    NotRun,
    /// A dry run would call it with these parameters.
    Planned,
}

/// One step of a run: what was called with what, and how it went.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StepRecord {
    /// The step's id.
    pub id: String,
    /// The tool it called (or polled, for a wait).
    pub tool: String,
    /// `call` or `wait`.
    pub kind: &'static str,
    /// How it ended.
    pub status: StepStatus,
    /// The parameters it was called with (a parameter set to null is left
    /// out; in a dry run, templates naming earlier answers stay as
    /// written).
    pub params: Value,
    /// How long it took.
    pub duration_seconds: f64,
    /// How many times a wait called its tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The transcript of a run (what `km-recipe-run` answers).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RecipeRun {
    /// The recipe's name.
    pub recipe: String,
    /// Where it was read from.
    pub source: RecipeSource,
    /// `success`, `failed` or `planned`.
    pub status: RunStatus,
    /// The variables the run used (defaults and the values given).
    pub vars: serde_json::Map<String, Value>,
    /// The recipe's outputs (a successful run's).
    pub outputs: serde_json::Map<String, Value>,
    /// Every step, in order.
    pub steps: Vec<StepRecord>,
    /// When it started (ISO-8601 UTC).
    pub started_at: String,
    /// How long it took.
    pub duration_seconds: f64,
    /// Why it failed: `tool_failed`, `assert_failed` or `timeout`, naming
    /// the step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorReport>,
}

impl RecipeRun {
    /// The failed step's id.
    pub fn failed_step(&self) -> Option<&str> {
        self.steps
            .iter()
            .find(|s| s.status == StepStatus::Failed)
            .map(|s| s.id.as_str())
    }
}

/// The variables of a run: the defaults, then the values given. Unknown
/// names and required variables left out are `invalid_arguments`.
fn variables(
    recipe: &Recipe,
    given: &serde_json::Map<String, Value>,
) -> Result<serde_json::Map<String, Value>, ErrorReport> {
    if let Some(unknown) = given.keys().find(|k| !recipe.variables.contains_key(*k)) {
        let declared: Vec<&str> = recipe.variables.keys().map(String::as_str).collect();
        return Err(ErrorReport::new(
            ErrorCode::InvalidArguments,
            format!(
                "recipe `{}` has no variable `{unknown}`; {}",
                recipe.name,
                if declared.is_empty() {
                    "it takes none".to_string()
                } else {
                    format!("it takes {}", declared.join(", "))
                }
            ),
        ));
    }
    let mut vars = serde_json::Map::new();
    for (name, variable) in &recipe.variables {
        let value = given.get(name).cloned().unwrap_or(variable.default.clone());
        if variable.required && value.is_null() {
            return Err(ErrorReport::new(
                ErrorCode::InvalidArguments,
                format!(
                    "recipe `{}` needs the variable `{name}`{}: give it in vars (--var {name}=VALUE)",
                    recipe.name,
                    variable
                        .description
                        .as_deref()
                        .map(|d| format!(" ({d})"))
                        .unwrap_or_default()
                ),
            ));
        }
        vars.insert(name.clone(), value);
    }
    Ok(vars)
}

/// A step's parameters with their templates filled in; parameters that
/// come out null are left out, so the tool's default applies.
fn parameters(
    params: &serde_json::Map<String, Value>,
    scope: &Scope,
    mode: Unresolved,
) -> Result<serde_json::Map<String, Value>, TemplateError> {
    let mut out = serde_json::Map::new();
    let mut left = PARAMS_MAX_BYTES;
    for (key, value) in params {
        let value = scope.resolve(value, mode, left).map_err(|e| match e {
            TemplateError::OverBudget { .. } => TemplateError::OverBudget {
                limit: PARAMS_MAX_BYTES,
            },
            other => other,
        })?;
        left = left.saturating_sub(json_bytes(&value));
        if !value.is_null() {
            out.insert(key.clone(), value);
        }
    }
    Ok(out)
}

/// A step whose parameters could not be filled in: `budget_exceeded`
/// when they would be too large, `assert_failed` otherwise.
fn params_failed(step: &Step, e: TemplateError) -> StepFailure {
    let mut failure = assert_failed(step, format!("its params: {e}"));
    if matches!(e, TemplateError::OverBudget { .. }) {
        failure.report.code = ErrorCode::BudgetExceeded;
    }
    failure
}

/// A failed step: its record and the run's error.
struct StepFailure {
    report: ErrorReport,
    attempts: Option<u32>,
}

fn assert_failed(step: &Step, message: impl std::fmt::Display) -> StepFailure {
    StepFailure {
        report: ErrorReport::new(
            ErrorCode::AssertFailed,
            format!("step `{}` ({}): {message}", step.id, step.tool()),
        ),
        attempts: None,
    }
}

fn tool_failed(step: &Step, report: &ErrorReport) -> StepFailure {
    StepFailure {
        report: ErrorReport {
            code: ErrorCode::ToolFailed,
            message: format!(
                "step `{}`: {} failed with {}: {}",
                step.id,
                step.tool(),
                report.code,
                report.message
            ),
            retryable: report.retryable,
        },
        attempts: None,
    }
}

/// Runs `recipe` over `caller`. `Err` only for variables that do not fit
/// the recipe (nothing ran); a failing step gives a `failed` run whose
/// `error` names it.
pub async fn run<C: StepCaller>(
    recipe: &Recipe,
    options: RunOptions,
    caller: &C,
) -> Result<RecipeRun, ErrorReport> {
    let started = Instant::now();
    let started_at = UtcMillis::now().to_iso();
    let mut scope = Scope {
        vars: variables(recipe, &options.vars)?,
        ..Scope::default()
    };
    let mut records: Vec<StepRecord> = Vec::new();
    let mut error: Option<ErrorReport> = None;
    let total = recipe.steps.len();
    for (index, step) in recipe.steps.iter().enumerate() {
        let (kind, params) = match &step.action {
            Action::Call { params, .. } => ("call", params),
            Action::Wait(wait) => ("wait", &wait.params),
        };
        let mut record = StepRecord {
            id: step.id.clone(),
            tool: step.tool().to_string(),
            kind,
            status: StepStatus::NotRun,
            params: Value::Object(params.clone()),
            duration_seconds: 0.0,
            attempts: None,
            message: None,
        };
        if options.dry_run {
            // Only the variables are known before anything runs.
            if let Ok(resolved) = parameters(params, &scope, Unresolved::Keep) {
                record.params = Value::Object(resolved);
            }
            record.status = StepStatus::Planned;
            records.push(record);
            continue;
        }
        if error.is_some() {
            records.push(record);
            continue;
        }
        caller.step_started(index, total, step).await;
        let step_started = Instant::now();
        let outcome = match parameters(params, &scope, Unresolved::Fail) {
            Err(e) => Err(params_failed(step, e)),
            Ok(resolved) => {
                record.params = Value::Object(resolved.clone());
                run_step(step, resolved, &scope, caller).await
            }
        };
        record.duration_seconds = step_started.elapsed().as_secs_f64();
        match outcome {
            Ok((answer, attempts)) => {
                record.attempts = attempts;
                record.status = StepStatus::Success;
                for capture in &step.captures {
                    match capture.path.lookup(&answer) {
                        Ok(value) => {
                            scope.captures.insert(capture.name.clone(), value.clone());
                        }
                        Err(why) => {
                            let failure = assert_failed(
                                step,
                                format!("capture `{}` found nothing: {why}", capture.name),
                            );
                            record.status = StepStatus::Failed;
                            record.message = Some(failure.report.message.clone());
                            error = Some(failure.report);
                            break;
                        }
                    }
                }
                scope.steps.insert(step.id.clone(), answer);
            }
            Err(failure) => {
                record.attempts = failure.attempts;
                record.status = StepStatus::Failed;
                record.message = Some(failure.report.message.clone());
                error = Some(failure.report);
            }
        }
        records.push(record);
    }
    let status = if options.dry_run {
        RunStatus::Planned
    } else if error.is_some() {
        RunStatus::Failed
    } else {
        RunStatus::Success
    };
    if status == RunStatus::Success {
        error = outputs(recipe, &mut scope, options.output_bytes).err();
    }
    let status = if error.is_some() {
        RunStatus::Failed
    } else {
        status
    };
    Ok(RecipeRun {
        recipe: recipe.name.clone(),
        source: recipe.source.clone(),
        status,
        vars: scope.vars,
        outputs: if status == RunStatus::Success {
            scope.outputs
        } else {
            serde_json::Map::new()
        },
        steps: records,
        started_at,
        duration_seconds: started.elapsed().as_secs_f64(),
        error,
    })
}

/// Fills in the recipe's outputs, in order, within `limit` bytes of JSON
/// together.
fn outputs(recipe: &Recipe, scope: &mut Scope, limit: usize) -> Result<(), ErrorReport> {
    let mut left = limit;
    for (name, template) in &recipe.outputs {
        match scope.resolve(template, Unresolved::Fail, left) {
            Ok(value) => {
                left = left.saturating_sub(json_bytes(&value));
                scope.outputs.insert(name.clone(), value);
            }
            Err(TemplateError::OverBudget { .. }) => {
                return Err(ErrorReport::new(
                    ErrorCode::BudgetExceeded,
                    format!(
                        "output `{name}`: filled in, the outputs would be over the {limit} bytes one answer may take (limits.result_bytes in lore.yaml), so it was not built; have the outputs refer to smaller values, or to each value fewer times"
                    ),
                ));
            }
            Err(why) => {
                return Err(ErrorReport::new(
                    ErrorCode::AssertFailed,
                    format!("output `{name}`: {why}"),
                ));
            }
        }
    }
    Ok(())
}

/// One step: the call (or the polling), then its checks. The answer and,
/// for a wait, how many calls it took.
async fn run_step<C: StepCaller>(
    step: &Step,
    params: serde_json::Map<String, Value>,
    scope: &Scope,
    caller: &C,
) -> Result<(Value, Option<u32>), StepFailure> {
    let (answer, attempts) = match &step.action {
        Action::Call { tool, .. } => {
            let answer = caller
                .call(tool, params)
                .await
                .map_err(|report| tool_failed(step, &report))?;
            (answer, None)
        }
        Action::Wait(wait) => {
            let (answer, attempts) = poll(step, wait, params, scope, caller).await?;
            (answer, Some(attempts))
        }
    };
    for check in &step.checks {
        check.check(&answer, scope).map_err(|why| StepFailure {
            attempts,
            ..assert_failed(step, format!("{} failed: {why}", check.describe(scope)))
        })?;
    }
    Ok((answer, attempts))
}

/// Calls a wait's tool until its condition holds. A call that fails with
/// `not_found` (nothing there yet) or a retryable error is polled again;
/// any other error ends the step. Past the timeout the step fails with
/// `timeout`, saying what the last answer held.
async fn poll<C: StepCaller>(
    step: &Step,
    wait: &Wait,
    params: serde_json::Map<String, Value>,
    scope: &Scope,
    caller: &C,
) -> Result<(Value, u32), StepFailure> {
    let deadline = Instant::now() + wait.timeout;
    let mut attempts = 0u32;
    loop {
        attempts += 1;
        let last = match caller.call(&wait.tool, params.clone()).await {
            Ok(answer) => match wait.until.check(&answer, scope) {
                Ok(()) => return Ok((answer, attempts)),
                Err(why) => why,
            },
            Err(report) if report.retryable || report.code == ErrorCode::NotFound => {
                format!("{}: {}", report.code, report.message)
            }
            Err(report) => {
                return Err(StepFailure {
                    attempts: Some(attempts),
                    ..tool_failed(step, &report)
                });
            }
        };
        if Instant::now() + wait.interval > deadline {
            return Err(StepFailure {
                report: ErrorReport::new(
                    ErrorCode::Timeout,
                    format!(
                        "step `{}`: {} did not reach `{}` within {} s ({attempts} call{}; last: {})",
                        step.id,
                        wait.tool,
                        wait.until.describe(scope),
                        short(&Value::from(wait.timeout.as_secs_f64())),
                        if attempts == 1 { "" } else { "s" },
                        last
                    ),
                ),
                attempts: Some(attempts),
            });
        }
        caller.sleep(wait.interval).await;
    }
}

/// The tool recipes may not call: a recipe running recipes could loop.
pub const RECIPE_TOOL: &str = "km-recipe-run";

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct RecipeRequest {
    /// The recipe's name.
    pub recipe: String,
    /// Values for its variables.
    pub vars: serde_json::Map<String, Value>,
    /// Show the steps without calling anything.
    pub dry_run: bool,
}

/// Finds the recipe in `gateway`'s book, checks that its steps call only
/// `known` tools (never [`RECIPE_TOOL`]), runs it over `caller` and logs
/// the run under `actor`. A failed run is still `Ok`: its `error` says
/// why, and front ends decide how to show it ([`failure_report`]).
pub async fn run_named<C: StepCaller>(
    gateway: &crate::Gateway,
    request: RecipeRequest,
    caller: &C,
    known: &[String],
    actor: &str,
) -> Result<RecipeRun, ErrorReport> {
    let recipe = gateway.recipes().find(&request.recipe)?;
    if let Some(step) = recipe.steps.iter().find(|s| s.tool() == RECIPE_TOOL) {
        return Err(ErrorReport::new(
            ErrorCode::ConfigError,
            format!(
                "recipe `{}`: step `{}` calls {RECIPE_TOOL}, but a recipe cannot run recipes (copy the other recipe's steps instead)",
                recipe.name, step.id
            ),
        ));
    }
    recipe.check_tools(known).map_err(|why| {
        ErrorReport::new(
            ErrorCode::ConfigError,
            format!("recipe `{}`: {why}", recipe.name),
        )
    })?;
    let options = RunOptions {
        vars: request.vars,
        dry_run: request.dry_run,
        output_bytes: gateway.result_bytes(),
    };
    let run = run(&recipe, options, caller).await?;
    if let Err(report) = gateway.log_recipe_run(&run, actor) {
        tracing::warn!(recipe = %run.recipe, error = %report.message, "the recipe run could not be logged");
    }
    Ok(run)
}

/// A failed run as one error: the step's code and message, and which
/// steps passed and which never ran.
pub fn failure_report(run: &RecipeRun) -> ErrorReport {
    let mut report = run
        .error
        .clone()
        .unwrap_or_else(|| ErrorReport::new(ErrorCode::Internal, "the recipe failed"));
    let ids = |status: StepStatus| -> String {
        let ids: Vec<&str> = run
            .steps
            .iter()
            .filter(|s| s.status == status)
            .map(|s| s.id.as_str())
            .collect();
        if ids.is_empty() {
            "none".to_string()
        } else {
            ids.join(", ")
        }
    };
    report.message = format!(
        "recipe `{}`: {} (passed: {}; not run: {})",
        run.recipe,
        report.message,
        ids(StepStatus::Success),
        ids(StepStatus::NotRun)
    );
    report
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use serde_json::json;

    use super::*;
    use crate::recipe::RecipeSource;

    /// Answers from a script: each tool's answers in turn (the last one
    /// repeats), and every call made.
    struct Script {
        answers: Mutex<Vec<(String, Result<Value, ErrorReport>)>>,
        calls: Mutex<Vec<(String, Value)>>,
    }

    impl Script {
        fn new(answers: Vec<(&str, Result<Value, ErrorReport>)>) -> Script {
            Script {
                answers: Mutex::new(
                    answers
                        .into_iter()
                        .map(|(t, a)| (t.to_string(), a))
                        .collect(),
                ),
                calls: Mutex::new(Vec::new()),
            }
        }
    }

    impl StepCaller for Script {
        async fn call(
            &self,
            tool: &str,
            params: serde_json::Map<String, Value>,
        ) -> Result<Value, ErrorReport> {
            self.calls
                .lock()
                .unwrap()
                .push((tool.to_string(), Value::Object(params)));
            let mut answers = self.answers.lock().unwrap();
            let at = answers
                .iter()
                .position(|(t, _)| t == tool)
                .unwrap_or_else(|| panic!("no answer for {tool}"));
            let more = answers.iter().filter(|(t, _)| t == tool).count() > 1;
            if more {
                answers.remove(at).1
            } else {
                answers[at].1.clone()
            }
        }

        async fn sleep(&self, duration: Duration) {
            std::thread::sleep(duration);
        }
    }

    fn recipe(text: &str) -> Recipe {
        Recipe::parse(text, "test", RecipeSource::BuiltIn).unwrap()
    }

    fn block_on<F: Future>(future: F) -> F::Output {
        // The engine needs no runtime: a step's future is ready once its
        // caller's is, and the script's always are.
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        let mut future = std::pin::pin!(future);
        loop {
            if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) {
                return out;
            }
        }
    }

    #[test]
    fn steps_pass_answers_on_through_captures_and_outputs() {
        let recipe = recipe(
            r#"
variables: {query: retries, limit: 2, stale_after_days: null}
steps:
  - id: search
    tool: km-search
    params: {query: "why ${vars.query}", limit: "${vars.limit}"}
    assert: [{path: result.results, at_least: 1}]
    capture: [{name: first, path: "result.results[0].chunk"}]
  - id: node
    tool: km-graph-node
    params: {node_id: "Code:${captures.first.artifact_path}", stale: "${vars.stale_after_days}"}
    expect: {result.node.label: Code}
outputs:
  file: ${captures.first.artifact_path}
  label: ${steps.node.node.label}
  both: "${outputs.file} is ${outputs.label}"
"#,
        );
        let script = Script::new(vec![
            (
                "km-search",
                Ok(json!({"results": [{"chunk": {"artifact_path": "src/retry.py"}}]})),
            ),
            ("km-graph-node", Ok(json!({"node": {"label": "Code"}}))),
        ]);
        let mut vars = serde_json::Map::new();
        vars.insert("limit".into(), json!(5));
        let run = block_on(run(
            &recipe,
            RunOptions {
                vars,
                dry_run: false,
                ..RunOptions::default()
            },
            &script,
        ))
        .unwrap();
        assert_eq!(run.status, RunStatus::Success, "{:?}", run.error);
        assert_eq!(
            Value::Object(run.outputs),
            json!({"file": "src/retry.py", "label": "Code", "both": "src/retry.py is Code"})
        );
        let calls = script.calls.lock().unwrap();
        assert_eq!(calls[0].1, json!({"query": "why retries", "limit": 5}));
        // A parameter that comes out null is left out.
        assert_eq!(calls[1].1, json!({"node_id": "Code:src/retry.py"}));
    }

    #[test]
    fn a_failing_check_names_the_step_and_stops_the_run() {
        let recipe = recipe(
            "steps:\n  - {id: search, tool: km-search, assert: [{path: result.results, at_least: 1}]}\n  - {id: backup, tool: km-backup-trigger}\n",
        );
        let script = Script::new(vec![("km-search", Ok(json!({"results": []})))]);
        let run = block_on(run(&recipe, RunOptions::default(), &script)).unwrap();
        assert_eq!(run.status, RunStatus::Failed);
        let error = run.error.clone().unwrap();
        assert_eq!(error.code, ErrorCode::AssertFailed);
        assert!(
            error
                .message
                .contains("step `search` (km-search): result.results at_least 1 failed: `result.results` has 0 items, expected at least 1"),
            "{}",
            error.message
        );
        assert_eq!(run.steps[1].status, StepStatus::NotRun);
        assert_eq!(run.failed_step(), Some("search"));
        assert!(run.outputs.is_empty());
        assert_eq!(
            script.calls.lock().unwrap().len(),
            1,
            "the backup never ran"
        );
    }

    #[test]
    fn a_tool_error_is_tool_failed_and_keeps_its_retryability() {
        let recipe = recipe("steps:\n  - {id: backup, tool: km-backup-trigger}\n");
        let script = Script::new(vec![(
            "km-backup-trigger",
            Err(ErrorReport::new(ErrorCode::UpstreamError, "disk full")),
        )]);
        let run = block_on(run(&recipe, RunOptions::default(), &script)).unwrap();
        let error = run.error.unwrap();
        assert_eq!(error.code, ErrorCode::ToolFailed);
        assert!(error.retryable);
        assert!(
            error
                .message
                .contains("step `backup`: km-backup-trigger failed with upstream_error: disk full")
        );
    }

    #[test]
    fn a_wait_polls_until_its_condition_holds_and_through_not_yet() {
        let recipe = recipe(
            "steps:\n  - id: ready\n    wait: {tool: km-ingest-status, until: {path: success, equals: true}, interval_seconds: 0.05}\n",
        );
        let script = Script::new(vec![
            (
                "km-ingest-status",
                Err(ErrorReport::new(ErrorCode::NotFound, "no run yet")),
            ),
            ("km-ingest-status", Ok(json!({"success": false}))),
            ("km-ingest-status", Ok(json!({"success": true}))),
        ]);
        let run = block_on(run(&recipe, RunOptions::default(), &script)).unwrap();
        assert_eq!(run.status, RunStatus::Success, "{:?}", run.error);
        assert_eq!(run.steps[0].attempts, Some(3));
    }

    #[test]
    fn a_wait_that_never_holds_times_out_saying_what_it_saw() {
        let recipe = recipe(
            "steps:\n  - id: ready\n    wait: {tool: km-ingest-status, until: {path: success, equals: true}, interval_seconds: 0.05, timeout_seconds: 0.2}\n",
        );
        let script = Script::new(vec![("km-ingest-status", Ok(json!({"success": false})))]);
        let run = block_on(run(&recipe, RunOptions::default(), &script)).unwrap();
        let error = run.error.unwrap();
        assert_eq!(error.code, ErrorCode::Timeout);
        assert!(
            error
                .message
                .contains("did not reach `success equals true`")
                && error.message.contains("last: `success` is false"),
            "{}",
            error.message
        );
        assert!(run.steps[0].attempts.unwrap() > 1);
    }

    #[test]
    fn variables_are_checked_before_anything_runs() {
        let recipe = recipe(
            "variables:\n  subsystem: {required: true, description: the subsystem to inspect}\nsteps: [{id: a, tool: km-graph-subsystem, params: {name: '${vars.subsystem}'}}]\n",
        );
        let script = Script::new(vec![]);
        let missing = block_on(run(&recipe, RunOptions::default(), &script)).unwrap_err();
        assert_eq!(missing.code, ErrorCode::InvalidArguments);
        assert!(
            missing.message.contains("--var subsystem=VALUE"),
            "{}",
            missing.message
        );
        let mut vars = serde_json::Map::new();
        vars.insert("subsytem".into(), json!("api"));
        let unknown = block_on(run(
            &recipe,
            RunOptions {
                vars,
                dry_run: false,
                ..RunOptions::default()
            },
            &script,
        ))
        .unwrap_err();
        assert!(
            unknown
                .message
                .contains("no variable `subsytem`; it takes subsystem")
        );
        assert!(script.calls.lock().unwrap().is_empty());
    }

    #[test]
    fn outputs_and_params_that_would_exceed_their_budget_stop_before_they_are_built() {
        let recipe = recipe(&format!(
            "variables: {{q: x}}\nsteps:\n  - {{id: a, tool: km-search, params: {{query: ok}}}}\noutputs:\n  big: '{}'\n",
            "${vars.q}".repeat(1000)
        ));
        let script = Script::new(vec![("km-search", Ok(json!({"results": []})))]);
        let mut vars = serde_json::Map::new();
        vars.insert("q".into(), json!("q".repeat(1 << 20)));
        let done = block_on(run(
            &recipe,
            RunOptions {
                vars: vars.clone(),
                ..RunOptions::default()
            },
            &script,
        ))
        .unwrap();
        assert_eq!(done.status, RunStatus::Failed);
        let error = done.error.unwrap();
        assert_eq!(error.code, ErrorCode::BudgetExceeded, "{}", error.message);
        assert!(
            error.message.contains("limits.result_bytes"),
            "{}",
            error.message
        );
        assert!(done.outputs.is_empty());

        // The same in a step's parameters: the step fails, nothing is called.
        let recipe = recipe_with_params(&"${vars.q}".repeat(1000));
        let script = Script::new(vec![]);
        let done = block_on(run(
            &recipe,
            RunOptions {
                vars,
                ..RunOptions::default()
            },
            &script,
        ))
        .unwrap();
        assert_eq!(done.error.unwrap().code, ErrorCode::BudgetExceeded);
        assert!(script.calls.lock().unwrap().is_empty());
    }

    fn recipe_with_params(query: &str) -> Recipe {
        recipe(&format!(
            "variables: {{q: x}}\nsteps:\n  - {{id: a, tool: km-search, params: {{query: '{query}'}}}}\n"
        ))
    }

    #[test]
    fn a_dry_run_fills_in_the_variables_and_calls_nothing() {
        let recipe = recipe(
            "variables: {q: retries}\nsteps:\n  - {id: a, tool: km-search, params: {query: '${vars.q}'}, capture: [{name: c, path: results}]}\n  - {id: b, tool: km-graph-node, params: {node_id: '${captures.c}'}}\n",
        );
        let script = Script::new(vec![]);
        let run = block_on(run(
            &recipe,
            RunOptions {
                vars: serde_json::Map::new(),
                dry_run: true,
                ..RunOptions::default()
            },
            &script,
        ))
        .unwrap();
        assert_eq!(run.status, RunStatus::Planned);
        assert_eq!(run.steps[0].params, json!({"query": "retries"}));
        assert_eq!(run.steps[1].params, json!({"node_id": "${captures.c}"}));
        assert!(script.calls.lock().unwrap().is_empty());
    }
}
