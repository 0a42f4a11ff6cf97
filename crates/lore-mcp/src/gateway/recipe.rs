//! `km-recipe-run`: a named recipe (`lore_gateway::recipe::run_named`)
//! whose steps are the gateway's calls (`lore_gateway::recipe::calls`, prepared
//! exactly as an agent's own call of each tool), with a progress
//! notification as each step starts. `lore gateway recipe run` runs the
//! same calls without the notifications.

use std::sync::Arc;
use std::time::Duration;

use lore_core::ErrorReport;
use lore_gateway::Gateway;
use lore_gateway::recipe::calls::GatewayCalls;
use lore_gateway::recipe::{
    RecipeRequest, RecipeRun, RunStatus, Step, StepCaller, failure_report, run_named,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::toolkit::{Scope, Tool, ToolContext, ToolDefinition};

/// The gateway's calls, telling the MCP client of each step.
struct Steps {
    calls: GatewayCalls,
    ctx: ToolContext,
}

impl StepCaller for Steps {
    fn call(
        &self,
        tool: &str,
        params: serde_json::Map<String, Value>,
    ) -> impl Future<Output = Result<Value, ErrorReport>> + Send {
        self.calls.call(tool, params)
    }

    fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        self.calls.sleep(duration)
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

/// `km-recipe-run`.
pub struct KmRecipeRun {
    gateway: Arc<Gateway>,
}

impl KmRecipeRun {
    /// The tool over `gateway`.
    pub fn new(gateway: Arc<Gateway>) -> KmRecipeRun {
        KmRecipeRun { gateway }
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
        let request = RecipeRequest {
            recipe: input.recipe,
            vars: input.vars.unwrap_or_default(),
            dry_run: input.dry_run.unwrap_or(false),
        };
        let steps = Steps {
            calls: GatewayCalls::new(Arc::clone(&self.gateway), ctx.voter()),
            ctx: ctx.clone(),
        };
        let run = run_named(
            &self.gateway,
            request,
            &steps,
            &steps.calls.names(),
            steps.calls.voter(),
        )
        .await?;
        if run.status == RunStatus::Failed {
            return Err(failure_report(&run));
        }
        ctx.progress(1.0, format!("recipe {} done", run.recipe))
            .await;
        Ok(run)
    }
}
