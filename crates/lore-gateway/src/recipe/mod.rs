//! Recipes: named, repeatable sequences of gateway tool calls — a daily
//! health check, the checks before a release — written in YAML in the
//! original gateway's format:
//!
//! ```yaml
//! version: 1
//! name: stale-audit
//! summary: Stale documents and isolated files.
//! variables:
//!   stale_after_days: 180            # a default, overridden by `vars`
//! steps:
//!   - id: lifecycle
//!     tool: km-lifecycle-report
//!     params: {stale_after_days: "${vars.stale_after_days}"}
//!     expect: {result.summary.dated_by: git}     # path → value
//!     assert: [{path: result.stale_docs, exists: true}]
//!     capture: [{name: lifecycle, path: result.summary}]
//!   - id: wait-ingest
//!     wait: {tool: km-ingest-status, params: {}, until: {path: success, equals: true},
//!            interval_seconds: 2, timeout_seconds: 60}
//! outputs:
//!   stale: ${captures.lifecycle.stale_docs}
//! ```
//!
//! This module parses and checks recipes ([`Recipe::parse`]: every
//! template names a declared variable, an earlier step or an earlier
//! capture, before anything runs), runs them over a [`StepCaller`]
//! (`run`: the front end decides how a tool is called — the MCP adapter
//! through its tool registry, so a step gets exactly what an agent's call
//! would), and finds them (`book`: the built-in recipes and the project's
//! `recipes/` folder, and the log of runs).

mod book;
pub mod calls;
mod path;
mod run;

use std::collections::BTreeMap;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use book::{PROJECT_FOLDER, RecipeBook, RecipeListed, RecipeLogEntry, log_run, logged_runs};
pub use path::{Condition, JsonPath, Test};
pub use run::{
    RECIPE_TOOL, RecipeRequest, RecipeRun, RunOptions, RunStatus, StepCaller, StepRecord,
    StepStatus, failure_report, run, run_named,
};

use path::{Root, expressions};

/// Where a recipe comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RecipeSource {
    /// Shipped with Lore.
    BuiltIn,
    /// A file in the project's `recipes/` folder.
    Project {
        /// The file, relative to the project.
        path: String,
    },
}

/// A recipe variable: its default and what it means.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Variable {
    /// The value used when a run does not give one (`null`: a step's
    /// parameter set to it is left out, so the tool's default applies).
    pub default: Value,
    /// A run must give it.
    pub required: bool,
    /// What it is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// What a step does.
#[derive(Debug, Clone)]
pub enum Action {
    /// Calls a tool once.
    Call {
        /// The tool's name (`km-search`).
        tool: String,
        /// Its arguments, with templates.
        params: serde_json::Map<String, Value>,
    },
    /// Calls a tool until its answer meets a condition.
    Wait(Wait),
}

/// A `wait` step: poll a tool until a condition holds.
#[derive(Debug, Clone)]
pub struct Wait {
    /// The tool polled.
    pub tool: String,
    /// Its arguments, with templates.
    pub params: serde_json::Map<String, Value>,
    /// What ends the wait.
    pub until: Condition,
    /// Time between calls.
    pub interval: Duration,
    /// Time after which the step fails with `timeout`.
    pub timeout: Duration,
}

/// A value a step keeps for later steps and the outputs.
#[derive(Debug, Clone)]
pub struct Capture {
    /// Its name (`${captures.<name>}`).
    pub name: String,
    /// Where in the step's answer (the whole answer when empty).
    pub path: JsonPath,
}

/// One step of a recipe.
#[derive(Debug, Clone)]
pub struct Step {
    /// Its id, unique in the recipe (`${steps.<id>}`).
    pub id: String,
    /// The call or the wait.
    pub action: Action,
    /// Conditions the answer must meet (`expect` and `assert`; a failed
    /// one fails the run with `assert_failed`).
    pub checks: Vec<Condition>,
    /// Values kept from the answer.
    pub captures: Vec<Capture>,
}

impl Step {
    /// The tool the step calls or polls.
    pub fn tool(&self) -> &str {
        match &self.action {
            Action::Call { tool, .. } => tool,
            Action::Wait(wait) => &wait.tool,
        }
    }
}

/// A parsed and checked recipe.
#[derive(Debug, Clone)]
pub struct Recipe {
    /// Its name (`lore gateway recipe run <name>`).
    pub name: String,
    /// What it does, in a sentence.
    pub summary: String,
    /// Its variables, by name.
    pub variables: BTreeMap<String, Variable>,
    /// Its steps, in order.
    pub steps: Vec<Step>,
    /// What a successful run answers: name → template, in the order
    /// written (an output may name those before it).
    pub outputs: Vec<(String, Value)>,
    /// Where it was read from.
    pub source: RecipeSource,
}

/// The recipe format as written (field names of the original gateway).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRecipe {
    #[serde(default)]
    version: Option<u32>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    variables: serde_json::Map<String, Value>,
    #[serde(default)]
    steps: Vec<RawStep>,
    #[serde(default)]
    outputs: Ordered,
}

/// A mapping in the order it is written (outputs may name the outputs
/// before them; `serde_json::Map` would sort them).
#[derive(Debug, Default)]
struct Ordered(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Ordered, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a mapping of names to values")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Ordered, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Value>()? {
                    out.push((k, v));
                }
                Ok(Ordered(out))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Ordered, E> {
                Ok(Ordered::default())
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    id: String,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    params: serde_json::Map<String, Value>,
    #[serde(default)]
    expect: serde_json::Map<String, Value>,
    #[serde(default)]
    assert: Vec<RawCondition>,
    #[serde(default)]
    capture: Vec<RawCapture>,
    #[serde(default)]
    wait: Option<RawWait>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCondition {
    #[serde(default)]
    path: String,
    #[serde(default)]
    equals: Option<Value>,
    #[serde(default)]
    not_equals: Option<Value>,
    #[serde(default)]
    exists: Option<bool>,
    #[serde(default)]
    at_least: Option<Value>,
    #[serde(default)]
    at_most: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCapture {
    name: String,
    #[serde(default)]
    path: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWait {
    tool: String,
    #[serde(default)]
    params: serde_json::Map<String, Value>,
    until: RawCondition,
    #[serde(default)]
    interval_seconds: Option<f64>,
    #[serde(default)]
    timeout_seconds: Option<f64>,
}

/// Longest wait a recipe may ask for: an hour.
const MAX_WAIT_SECONDS: f64 = 3600.0;
/// Longest recipe file read.
pub const MAX_RECIPE_BYTES: u64 = 256 * 1024;

fn condition(raw: RawCondition, context: &str) -> Result<Condition, String> {
    let path = JsonPath::parse(&raw.path)
        .map_err(|e| format!("{context}: {e}"))?
        .under_result();
    let mut tests = Vec::new();
    if let Some(v) = raw.equals {
        tests.push(Test::Equals(v));
    }
    if let Some(v) = raw.not_equals {
        tests.push(Test::NotEquals(v));
    }
    if let Some(b) = raw.exists {
        tests.push(Test::Exists(b));
    }
    if let Some(v) = raw.at_least {
        tests.push(Test::AtLeast(v));
    }
    if let Some(v) = raw.at_most {
        tests.push(Test::AtMost(v));
    }
    match tests.len() {
        0 => Ok(Condition {
            path,
            test: Test::Exists(true),
        }),
        1 => Ok(Condition {
            path,
            test: tests.remove(0),
        }),
        _ => Err(format!(
            "{context}: give one of equals, not_equals, exists, at_least, at_most (split the others into more conditions)"
        )),
    }
}

fn seconds(
    value: Option<f64>,
    default: f64,
    field: &str,
    context: &str,
) -> Result<Duration, String> {
    let s = value.unwrap_or(default);
    if !(0.05..=MAX_WAIT_SECONDS).contains(&s) {
        return Err(format!(
            "{context}: {field} must be between 0.05 and {MAX_WAIT_SECONDS} seconds, not {s}"
        ));
    }
    Ok(Duration::from_secs_f64(s))
}

fn variable(name: &str, value: Value) -> Result<Variable, String> {
    // The long form says what a variable is for or that a run must give
    // it; any other value is the default itself.
    if let Value::Object(map) = &value
        && (map.contains_key("required") || map.contains_key("description"))
        && map
            .keys()
            .all(|k| matches!(k.as_str(), "default" | "required" | "description"))
    {
        let required = match map.get("required") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(format!(
                    "variable `{name}`: required must be true or false, not {other}"
                ));
            }
        };
        let description = match map.get("description") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                return Err(format!(
                    "variable `{name}`: description must be text, not {other}"
                ));
            }
        };
        return Ok(Variable {
            default: map.get("default").cloned().unwrap_or(Value::Null),
            required,
            description,
        });
    }
    Ok(Variable {
        default: value,
        required: false,
        description: None,
    })
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A step as written, checked: its action (one call, or a polling
/// `wait`), its checks (`expect`, then `assert`) and its captures; every
/// problem is reported under `context`.
fn step_of(raw_step: RawStep, id: String, context: &str) -> Result<Step, String> {
    let action = match (raw_step.tool, raw_step.wait) {
        (Some(tool), None) => Action::Call {
            tool: tool.trim().to_string(),
            params: raw_step.params,
        },
        (None, Some(wait)) => {
            if !raw_step.params.is_empty() {
                return Err(format!(
                    "{context}: a wait step's params go under `wait.params`"
                ));
            }
            let wait_context = format!("{context}, wait");
            Action::Wait(Wait {
                tool: wait.tool.trim().to_string(),
                params: wait.params,
                until: condition(wait.until, &format!("{wait_context}.until"))?,
                interval: seconds(
                    wait.interval_seconds,
                    2.0,
                    "interval_seconds",
                    &wait_context,
                )?,
                timeout: seconds(wait.timeout_seconds, 60.0, "timeout_seconds", &wait_context)?,
            })
        }
        (Some(_), Some(_)) => {
            return Err(format!("{context}: give `tool` or `wait`, not both"));
        }
        (None, None) => {
            return Err(format!(
                "{context}: say what it does with `tool` (one call) or `wait` (polling)"
            ));
        }
    };
    let mut checks = Vec::new();
    for (path, value) in raw_step.expect {
        checks.push(condition(
            RawCondition {
                path,
                equals: Some(value),
                not_equals: None,
                exists: None,
                at_least: None,
                at_most: None,
            },
            &format!("{context}, expect"),
        )?);
    }
    for (i, raw_condition) in raw_step.assert.into_iter().enumerate() {
        checks.push(condition(
            raw_condition,
            &format!("{context}, assert {}", i + 1),
        )?);
    }
    let mut captures = Vec::new();
    for raw_capture in raw_step.capture {
        let name = raw_capture.name.trim().to_string();
        if !valid_name(&name) {
            return Err(format!(
                "{context}: capture name `{name}` must be letters, digits, `-` or `_`"
            ));
        }
        let path = JsonPath::parse(&raw_capture.path)
            .map_err(|e| format!("{context}, capture `{name}`: {e}"))?
            .under_result();
        captures.push(Capture { name, path });
    }
    Ok(Step {
        id,
        action,
        checks,
        captures,
    })
}

impl Recipe {
    /// Parses and checks a recipe. `fallback_name` (the file's stem) names
    /// it when it does not say `name`. Every problem is reported with
    /// where it is (`step smoke-search, assert 1: …`).
    pub fn parse(text: &str, fallback_name: &str, source: RecipeSource) -> Result<Recipe, String> {
        let raw: RawRecipe =
            serde_saphyr::from_str(text).map_err(|e| format!("not a recipe: {e}"))?;
        if let Some(v) = raw.version
            && v != 1
        {
            return Err(format!(
                "version {v} is not known; this Lore reads version 1"
            ));
        }
        let name = raw
            .name
            .map(|n| n.trim().to_string())
            .unwrap_or_else(|| fallback_name.to_string());
        if !valid_name(&name) {
            return Err(format!(
                "name `{name}` must be 1-64 letters, digits, `-` or `_`"
            ));
        }
        if raw.steps.is_empty() {
            return Err("a recipe needs at least one step under `steps`".to_string());
        }
        let mut variables = BTreeMap::new();
        for (var, value) in raw.variables {
            if !valid_name(&var) {
                return Err(format!(
                    "variable `{var}` must be named with letters, digits, `-` or `_`"
                ));
            }
            variables.insert(var.clone(), variable(&var, value)?);
        }
        let mut steps: Vec<Step> = Vec::new();
        let mut captured: Vec<String> = Vec::new();
        for (n, raw_step) in raw.steps.into_iter().enumerate() {
            let id = raw_step.id.trim().to_string();
            let context = format!("step {} (`{id}`)", n + 1);
            if !valid_name(&id) {
                return Err(format!(
                    "{context}: its id must be 1-64 letters, digits, `-` or `_`"
                ));
            }
            if steps.iter().any(|s| s.id == id) {
                return Err(format!("{context}: another step has the id `{id}`"));
            }
            let step = step_of(raw_step, id, &context)?;
            // Templates see the variables, the steps before this one and
            // what they captured.
            let earlier: Vec<&str> = steps.iter().map(|s| s.id.as_str()).collect();
            let mut templated: Vec<&Value> = Vec::new();
            let params = match &step.action {
                Action::Call { params, .. } => params,
                Action::Wait(wait) => &wait.params,
            };
            let params_value = Value::Object(params.clone());
            templated.push(&params_value);
            if let Action::Wait(wait) = &step.action {
                templated.extend(wait.until.operand());
            }
            templated.extend(step.checks.iter().filter_map(Condition::operand));
            for value in templated {
                check_templates(value, &context, &variables, &earlier, &captured, None)?;
            }
            captured.extend(step.captures.iter().map(|c| c.name.clone()));
            steps.push(step);
        }
        let all_steps: Vec<&str> = steps.iter().map(|s| s.id.as_str()).collect();
        let mut named: Vec<&str> = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for (output, _) in &raw.outputs.0 {
            if seen.contains(&output.as_str()) {
                return Err(format!("output `{output}` is named twice"));
            }
            seen.push(output);
        }
        for (output, template) in &raw.outputs.0 {
            check_templates(
                template,
                &format!("output `{output}`"),
                &variables,
                &all_steps,
                &captured,
                Some(&named),
            )?;
            named.push(output);
        }
        Ok(Recipe {
            name,
            summary: raw.summary.unwrap_or_default().trim().to_string(),
            variables,
            steps,
            outputs: raw.outputs.0,
            source,
        })
    }

    /// Checks that every step calls a tool `known` accepts; the message
    /// names the step and the tools there are.
    pub fn check_tools(&self, known: &[String]) -> Result<(), String> {
        for step in &self.steps {
            let tool = step.tool();
            if !known.iter().any(|k| k == tool) {
                let mut close: Vec<(f64, &str)> = known
                    .iter()
                    .map(|k| (strsim::jaro_winkler(tool, k), k.as_str()))
                    .filter(|(score, _)| *score >= 0.8)
                    .collect();
                close.sort_by(|a, b| b.0.total_cmp(&a.0));
                let hint = match close.first() {
                    Some((_, name)) => format!("did you mean {name}?"),
                    None => format!("recipes call {}", known.join(", ")),
                };
                return Err(format!(
                    "step `{}` calls `{tool}`, which recipes cannot call: {hint}",
                    step.id
                ));
            }
        }
        Ok(())
    }
}

fn check_templates(
    value: &Value,
    context: &str,
    variables: &BTreeMap<String, Variable>,
    earlier_steps: &[&str],
    captured: &[String],
    outputs: Option<&[&str]>,
) -> Result<(), String> {
    for e in expressions(value).map_err(|why| format!("{context}: {why}"))? {
        let known = match e.root {
            Root::Vars => variables.contains_key(&e.name),
            Root::Steps => earlier_steps.contains(&e.name.as_str()),
            Root::Captures => captured.contains(&e.name),
            Root::Outputs => outputs.is_some_and(|o| o.contains(&e.name.as_str())),
        };
        if !known {
            let what = match e.root {
                Root::Vars => "no variable of that name is declared under `variables`",
                Root::Steps => "no step before it has that id",
                Root::Captures => "no step before it captures that name",
                Root::Outputs => "outputs may name only outputs listed before them",
            };
            return Err(format!("{context}: `${{{}}}`: {what}", e.text));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Recipe, String> {
        Recipe::parse(text, "fallback", RecipeSource::BuiltIn)
    }

    #[test]
    fn the_original_format_parses_with_its_capitalised_booleans() {
        let recipe = parse(
            r#"
version: 1
name: release-prep
summary: Prepare for a release.
variables:
  profile: release
  subsystem: {required: true, description: "the subsystem"}
steps:
  - id: trigger-ingest
    tool: km-ingest-trigger
    params:
      profile: ${vars.profile}
    expect:
      result.success: true
    capture:
      - name: ingest_run
        path: result.run_id
  - id: wait-ingest
    wait:
      tool: km-ingest-status
      params: {profile: "${vars.profile}"}
      until: {path: success, equals: true}
      interval_seconds: 10
      timeout_seconds: 900
  - id: smoke-search
    tool: km-search
    params: {query: "${vars.subsystem}", limit: 3}
    assert:
      - path: result.results
        exists: True
outputs:
  ingest_run: ${captures.ingest_run}
  first: ${steps.smoke-search.results}
"#,
        )
        .unwrap();
        assert_eq!(recipe.name, "release-prep");
        assert_eq!(recipe.steps.len(), 3);
        assert!(recipe.variables["subsystem"].required);
        assert_eq!(recipe.variables["profile"].default, "release");
        match &recipe.steps[1].action {
            Action::Wait(w) => {
                assert_eq!(w.interval, Duration::from_secs(10));
                assert_eq!(w.timeout, Duration::from_secs(900));
            }
            Action::Call { .. } => panic!("a wait step"),
        }
        assert!(matches!(recipe.steps[2].checks[0].test, Test::Exists(true)));
    }

    #[test]
    fn templates_must_name_what_exists_before_them() {
        let later = parse(
            "steps:\n  - {id: a, tool: km-search, params: {query: '${steps.b.x}'}}\n  - {id: b, tool: km-search}\n",
        )
        .unwrap_err();
        assert!(
            later.contains("step 1 (`a`)") && later.contains("no step before it"),
            "{later}"
        );
        let undeclared =
            parse("steps:\n  - {id: a, tool: km-search, params: {query: '${vars.q}'}}\n")
                .unwrap_err();
        assert!(undeclared.contains("under `variables`"), "{undeclared}");
        let capture =
            parse("steps:\n  - {id: a, tool: km-search}\noutputs:\n  x: ${captures.nothing}\n")
                .unwrap_err();
        assert!(capture.contains("output `x`"), "{capture}");
    }

    #[test]
    fn malformed_recipes_say_what_to_fix() {
        for (text, wanted) in [
            ("steps: []\n", "at least one step"),
            (
                "version: 2\nsteps: [{id: a, tool: km-search}]\n",
                "version 2",
            ),
            ("steps: [{id: a}]\n", "`tool` (one call) or `wait`"),
            (
                "steps: [{id: a, tool: x}, {id: a, tool: y}]\n",
                "another step has the id",
            ),
            (
                "steps: [{id: a, tool: x, assert: [{path: p, equals: 1, exists: true}]}]\n",
                "give one of",
            ),
            ("steps: [{id: a, tool: x, retry: 3}]\n", "unknown field"),
            (
                "steps: [{id: a, wait: {tool: x, until: {path: p}, timeout_seconds: 99999}}]\n",
                "timeout_seconds",
            ),
        ] {
            let err = parse(text).unwrap_err();
            assert!(err.contains(wanted), "{text}: {err}");
        }
    }

    #[test]
    fn steps_may_call_only_the_tools_given() {
        let recipe = parse("steps: [{id: a, tool: km-serch}]\n").unwrap();
        let err = recipe
            .check_tools(&["km-search".to_string(), "km-help".to_string()])
            .unwrap_err();
        assert!(err.contains("did you mean km-search?"), "{err}");
    }
}
