//! `km-recipe-run`: a named recipe (`lore_gateway::recipe::run_named`)
//! whose steps go through the tool registry ([`GatewaySteps`]), so every
//! step is validated and answered exactly as an agent's own call of that
//! tool would be. `lore gateway recipe run` uses the same steps.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use lore_core::ErrorReport;
use lore_gateway::Gateway;
use lore_gateway::recipe::{
    RECIPE_TOOL, RecipeRequest, RecipeRun, RunStatus, Step, StepCaller, failure_report, run_named,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::toolkit::{Scope, Tool, ToolContext, ToolDefinition, ToolRegistry};

/// The tools a recipe's steps may call: the gateway's (`km-…`), not
/// `km-recipe-run` itself.
pub fn step_tools(registry: &ToolRegistry) -> ToolRegistry {
    registry.only(|name| name.starts_with("km-") && name != RECIPE_TOOL)
}

impl StepCaller for GatewaySteps {
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

/// The gateway's tools as a recipe's steps see them, on behalf of one
/// caller: what `km-recipe-run` and `lore gateway recipe run` hand to
/// `lore_gateway::recipe::run_named`.
pub struct GatewaySteps {
    tools: ToolRegistry,
    ctx: ToolContext,
}

impl GatewaySteps {
    /// The steps over `tools` (the registry's `km-` tools are kept).
    pub fn new(tools: &ToolRegistry, ctx: ToolContext) -> GatewaySteps {
        GatewaySteps {
            tools: step_tools(tools),
            ctx,
        }
    }

    /// The steps over a registry of `gateway`'s own tools, for a caller
    /// outside MCP (the CLI).
    pub fn for_gateway(gateway: Arc<Gateway>, ctx: ToolContext) -> GatewaySteps {
        let mut tools = ToolRegistry::new();
        crate::gateway::register_gateway_tools(&mut tools, gateway);
        GatewaySteps::new(&tools, ctx)
    }

    /// The tools steps may call.
    pub fn names(&self) -> Vec<String> {
        self.tools.names().into_iter().map(str::to_string).collect()
    }

    /// Who the steps run for (`token:<name>`, `mcp:<client>`, `cli:<user>`).
    pub fn voter(&self) -> String {
        self.ctx.voter()
    }
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
        let steps = GatewaySteps::new(&tools, ctx.clone());
        let run = run_named(
            &self.gateway,
            request,
            &steps,
            &steps.names(),
            &steps.voter(),
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
