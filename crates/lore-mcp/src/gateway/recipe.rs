//! `km-recipe-run`: a named recipe's steps (`lore_gateway::recipe`) run
//! through the tool registry, so every step is validated and answered
//! exactly as an agent's own call of that tool would be. The CLI's
//! `lore gateway recipe run` uses [`run_recipe`] too.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use lore_core::{ErrorCode, ErrorReport};
use lore_gateway::Gateway;
use lore_gateway::recipe::{RecipeRun, RunOptions, RunStatus, Step, StepCaller, StepStatus};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::toolkit::{Scope, Tool, ToolContext, ToolDefinition, ToolRegistry};

/// The tool recipes may not call: a recipe running recipes could loop.
const SELF: &str = "km-recipe-run";

/// The tools a recipe's steps may call: the gateway's (`km-…`), not
/// `km-recipe-run` itself.
pub fn step_tools(registry: &ToolRegistry) -> ToolRegistry {
    registry.only(|name| name.starts_with("km-") && name != SELF)
}

/// Steps calling tools through a registry, on behalf of one caller.
struct RegistryCaller<'a> {
    tools: &'a ToolRegistry,
    ctx: ToolContext,
}

impl StepCaller for RegistryCaller<'_> {
    fn call(
        &self,
        tool: &str,
        params: serde_json::Map<String, Value>,
    ) -> impl Future<Output = Result<Value, ErrorReport>> + Send {
        let tool = tool.to_string();
        let ctx = self.ctx.without_progress();
        async move { self.tools.call_value(&tool, params, ctx).await }
    }

    fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(duration)
    }

    fn step_started(
        &self,
        index: usize,
        total: usize,
        step: &Step,
    ) -> impl Future<Output = ()> + Send {
        let message = format!("step {}/{total}: {} ({})", index + 1, step.id, step.tool());
        let ctx = self.ctx.clone();
        async move { ctx.progress(index as f64 / total as f64, message).await }
    }
}

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

/// Finds the recipe, checks that its steps call tools recipes may call,
/// runs it over `tools` on behalf of `ctx`'s caller and logs the run. A
/// failed run is still `Ok`: its `error` says why, and front ends decide
/// how to show it.
pub async fn run_recipe(
    gateway: &Gateway,
    tools: &ToolRegistry,
    request: RecipeRequest,
    ctx: ToolContext,
) -> Result<RecipeRun, ErrorReport> {
    let recipe = gateway.recipes().find(&request.recipe)?;
    if let Some(step) = recipe.steps.iter().find(|s| s.tool() == SELF) {
        return Err(ErrorReport::new(
            ErrorCode::ConfigError,
            format!(
                "recipe `{}`: step `{}` calls {SELF}, but a recipe cannot run recipes (copy the other recipe's steps instead)",
                recipe.name, step.id
            ),
        ));
    }
    let tools = step_tools(tools);
    let known: Vec<String> = tools.names().into_iter().map(str::to_string).collect();
    recipe.check_tools(&known).map_err(|why| {
        ErrorReport::new(
            ErrorCode::ConfigError,
            format!("recipe `{}`: {why}", recipe.name),
        )
    })?;
    let caller = RegistryCaller {
        tools: &tools,
        ctx: ctx.clone(),
    };
    let options = RunOptions {
        vars: request.vars,
        dry_run: request.dry_run,
    };
    let run = lore_gateway::recipe::run(&recipe, options, &caller).await?;
    if let Err(report) = gateway.log_recipe_run(&run, &ctx.voter()) {
        tracing::warn!(recipe = %run.recipe, error = %report.message, "the recipe run could not be logged");
    }
    Ok(run)
}

/// A failed run as the error `km-recipe-run` answers: the step's code and
/// message, and which steps passed and which never ran.
pub fn run_error(run: &RecipeRun) -> ErrorReport {
    let mut report = run
        .error
        .clone()
        .unwrap_or_else(|| ErrorReport::new(ErrorCode::Internal, "the recipe failed"));
    let ids = |status: StepStatus| -> Vec<&str> {
        run.steps
            .iter()
            .filter(|s| s.status == status)
            .map(|s| s.id.as_str())
            .collect()
    };
    let passed = ids(StepStatus::Success);
    let not_run = ids(StepStatus::NotRun);
    report.message = format!(
        "recipe `{}`: {} (passed: {}; not run: {})",
        run.recipe,
        report.message,
        if passed.is_empty() {
            "none".to_string()
        } else {
            passed.join(", ")
        },
        if not_run.is_empty() {
            "none".to_string()
        } else {
            not_run.join(", ")
        },
    );
    report
}

/// `km-recipe-run`.
pub struct KmRecipeRun {
    gateway: Arc<Gateway>,
    /// The tools steps may call, filled once they are all registered.
    steps: Arc<OnceLock<ToolRegistry>>,
}

impl KmRecipeRun {
    /// The tool and the slot to fill with the tools its steps may call.
    pub fn new(gateway: Arc<Gateway>) -> (KmRecipeRun, Arc<OnceLock<ToolRegistry>>) {
        let steps = Arc::new(OnceLock::new());
        (
            KmRecipeRun {
                gateway,
                steps: Arc::clone(&steps),
            },
            steps,
        )
    }
}

/// `km-recipe-run` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmRecipeRunInput {
    /// The recipe's name: daily-health, release-prep, stale-audit, subsystem-freshness, or one of the project's recipes/*.yaml.
    pub recipe: String,
    /// Values for the recipe's variables, by name (e.g. {"subsystem":"api"}).
    #[serde(default)]
    pub vars: Option<serde_json::Map<String, Value>>,
    /// Check the recipe and variables and show each step's parameters without calling anything.
    #[serde(default)]
    pub dry_run: Option<bool>,
}

impl Tool for KmRecipeRun {
    type Input = KmRecipeRunInput;
    type Output = RecipeRun;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-recipe-run",
        title: "Run Recipe",
        description: "Run a named recipe: a YAML sequence of gateway tool calls with checks, e.g. daily-health (ingest, coverage, smoke search), release-prep (ingest, coverage, lifecycle, search, backup), stale-audit, subsystem-freshness (needs vars.subsystem); a project adds its own in recipes/. Answers {status, outputs, steps[]}; a failing step is tool_failed, assert_failed or timeout naming it. Example: {\"recipe\":\"release-prep\",\"vars\":{\"profile\":\"release\"}}",
        read_only: false,
        scope: Scope::Admin,
        destructive: false,
        idempotent: Some(false),
        open_world: false,
    };

    async fn call(
        &self,
        input: KmRecipeRunInput,
        ctx: ToolContext,
    ) -> Result<RecipeRun, ErrorReport> {
        let tools = self.steps.get().cloned().unwrap_or_default();
        let request = RecipeRequest {
            recipe: input.recipe,
            vars: input.vars.unwrap_or_default(),
            dry_run: input.dry_run.unwrap_or(false),
        };
        let run = run_recipe(&self.gateway, &tools, request, ctx.clone()).await?;
        if run.status == RunStatus::Failed {
            return Err(run_error(&run));
        }
        ctx.progress(1.0, format!("recipe {} done", run.recipe))
            .await;
        Ok(run)
    }
}
