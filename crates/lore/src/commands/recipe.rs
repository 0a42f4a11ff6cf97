//! `lore gateway recipe …`: list, show and run recipes from a terminal.
//! A run is `lore_gateway::recipe::run_named` over the gateway's tools
//! called by name (`lore_gateway::recipe::calls::GatewayCalls`, the
//! steps recipes may call), as for `km-recipe-run`.

use anyhow::bail;
use lore_gateway::Gateway;
use lore_gateway::recipe::calls::GatewayCalls;
use lore_gateway::recipe::{
    RecipeRequest, RecipeRun, RecipeSource, RunStatus, StepStatus, failure_report, run_named,
};

/// `lore gateway recipe …` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum RecipeCommand {
    /// Every recipe: name, source, summary, variables, last run.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// A recipe's YAML (copy it into recipes/<name>.yaml to adapt it).
    Show {
        /// The recipe's name.
        name: String,
    },
    /// Run a recipe (what km-recipe-run does).
    Run {
        /// The recipe's name.
        name: String,
        /// A variable, as NAME=VALUE (repeatable); VALUE is read as JSON
        /// when it is (3, true, ["a"]), else as text.
        #[arg(long = "var", value_name = "NAME=VALUE")]
        vars: Vec<String>,
        /// Check the recipe and variables and show each step's
        /// parameters without calling anything.
        #[arg(long)]
        dry_run: bool,
        /// Print the run as JSON.
        #[arg(long)]
        json: bool,
    },
}

fn source_text(source: &RecipeSource) -> String {
    match source {
        RecipeSource::BuiltIn => "built-in".to_string(),
        RecipeSource::Project { path } => path.clone(),
    }
}

/// `NAME=VALUE` pairs as variables: JSON when the value parses as JSON,
/// text otherwise.
fn parse_vars(pairs: &[String]) -> anyhow::Result<serde_json::Map<String, serde_json::Value>> {
    let mut vars = serde_json::Map::new();
    for pair in pairs {
        let Some((name, value)) = pair.split_once('=') else {
            bail!("--var takes NAME=VALUE, not `{pair}` [invalid_arguments]");
        };
        let value = serde_json::from_str(value)
            .unwrap_or_else(|_| serde_json::Value::String(value.to_string()));
        vars.insert(name.trim().to_string(), value);
    }
    Ok(vars)
}

pub fn run(command: RecipeCommand, gateway: Gateway) -> anyhow::Result<()> {
    match command {
        RecipeCommand::List { json } => {
            let listed = gateway.recipes().list(&gateway.recipe_runs());
            if json {
                println!("{}", serde_json::to_string_pretty(&listed)?);
                return Ok(());
            }
            for recipe in &listed {
                let replaces = if recipe.replaces_built_in {
                    ", replaces the built-in"
                } else {
                    ""
                };
                println!(
                    "{}  ({}{replaces})",
                    recipe.name,
                    source_text(&recipe.source)
                );
                if let Some(error) = &recipe.error {
                    println!("    cannot run: {error}");
                    continue;
                }
                println!("    {}", recipe.summary);
                for (name, variable) in &recipe.variables {
                    let default = if variable.required {
                        "required".to_string()
                    } else if variable.default.is_null() {
                        "optional".to_string()
                    } else {
                        format!("default {}", variable.default)
                    };
                    let about = variable
                        .description
                        .as_deref()
                        .map(|d| format!(": {d}"))
                        .unwrap_or_default();
                    println!("    --var {name}  ({default}){about}");
                }
                if let Some(last) = &recipe.last_run {
                    println!(
                        "    last run {} at {} by {} ({:.1} s){}",
                        last.status,
                        last.started_at,
                        last.actor,
                        last.duration_seconds,
                        last.failed_step
                            .as_deref()
                            .map(|s| format!(", failed at {s}"))
                            .unwrap_or_default()
                    );
                }
            }
            Ok(())
        }
        RecipeCommand::Show { name } => {
            let text = gateway
                .recipes()
                .text(&name)
                .map_err(|e| super::coded(&e))?;
            print!("{text}");
            if !text.ends_with('\n') {
                println!();
            }
            Ok(())
        }
        RecipeCommand::Run {
            name,
            vars,
            dry_run,
            json,
        } => {
            let request = RecipeRequest {
                recipe: name,
                vars: parse_vars(&vars)?,
                dry_run,
            };
            // The service runs the recipe; its steps are the gateway's
            // calls, their arguments prepared as an agent's are.
            let gateway = std::sync::Arc::new(gateway);
            let steps = GatewayCalls::new(std::sync::Arc::clone(&gateway), super::cli_actor());
            let run = super::block_on(run_named(
                &gateway,
                request,
                &steps,
                &steps.names(),
                steps.voter(),
            ))?
            .map_err(|e| super::coded(&e))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&run)?);
            } else {
                print_run(&run);
            }
            if run.status == RunStatus::Failed {
                return Err(super::coded(&failure_report(&run)));
            }
            Ok(())
        }
    }
}

fn print_run(run: &RecipeRun) {
    println!("recipe {} ({})", run.recipe, source_text(&run.source));
    let width = run.steps.iter().map(|s| s.id.len()).max().unwrap_or(0);
    for step in &run.steps {
        let (mark, how) = match step.status {
            StepStatus::Success => ("ok", format!("{:.2} s", step.duration_seconds)),
            StepStatus::Failed => ("FAILED", format!("{:.2} s", step.duration_seconds)),
            StepStatus::NotRun => ("-", "not run".to_string()),
            StepStatus::Planned => ("plan", step.params.to_string()),
        };
        let calls = step
            .attempts
            .map(|n| format!(", {n} call{}", if n == 1 { "" } else { "s" }))
            .unwrap_or_default();
        println!(
            "  {mark:<6} {:<width$}  {:<22} {how}{calls}",
            step.id, step.tool
        );
        if let Some(message) = &step.message {
            println!("         {message}");
        }
    }
    if !run.outputs.is_empty() {
        println!("outputs:");
        for (name, value) in &run.outputs {
            let text = match value {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let text = if text.chars().count() > 160 {
                format!(
                    "{}… (--json for all)",
                    text.chars().take(157).collect::<String>()
                )
            } else {
                text
            };
            println!("  {name}: {text}");
        }
    }
    if run.status != RunStatus::Planned {
        eprintln!(
            "{} in {:.1} s",
            match run.status {
                RunStatus::Success => "succeeded",
                _ => "failed",
            },
            run.duration_seconds
        );
    }
}
