//! `km-help`: how to call the tools this server offers, from their
//! `tools/list` entries, and the gateway toolset's reference.

use std::sync::Arc;

use lore_core::{ErrorCode, ErrorReport};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::toolkit::{Scope, Tool, ToolContext, ToolDefinition};

/// The gateway toolset's reference: every tool's request, answer and
/// errors (what `km-help` embeds with `include_spec`).
pub const GATEWAY_REFERENCE: &str = include_str!("../../docs/gateway-tools.md");

/// `km-help`: usage of the tools this server offers.
pub struct KmHelp {
    /// Every tool's `tools/list` entry, filled once all are registered.
    tools: Arc<std::sync::OnceLock<Vec<rmcp::model::Tool>>>,
}

impl KmHelp {
    /// A help tool and the slot to fill with the server's tools once
    /// they are all registered.
    pub fn new() -> (KmHelp, Arc<std::sync::OnceLock<Vec<rmcp::model::Tool>>>) {
        let tools = Arc::new(std::sync::OnceLock::new());
        (
            KmHelp {
                tools: Arc::clone(&tools),
            },
            tools,
        )
    }
}

/// `km-help` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KmHelpInput {
    /// One tool's name (`km-search`); every tool when omitted.
    #[serde(default)]
    pub tool: Option<String>,
    /// Add the gateway toolset's full reference (requests, answers, errors).
    #[serde(default)]
    pub include_spec: Option<bool>,
}

/// What `km-help` answers.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HelpAnswer {
    /// The tools asked about, by name.
    pub tools: Vec<ToolUsage>,
    /// The gateway toolset's reference, in markdown (with `include_spec`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
}

/// How to call one tool.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ToolUsage {
    /// Its name.
    pub name: String,
    /// Its title.
    pub title: Option<String>,
    /// What it does, with an example call.
    pub description: String,
    /// Whether it only reads.
    pub read_only: bool,
    /// The arguments it needs.
    pub required: Vec<ArgumentUsage>,
    /// The arguments it may take.
    pub optional: Vec<ArgumentUsage>,
}

/// One argument of a tool.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ArgumentUsage {
    /// Its name.
    pub name: String,
    /// Its JSON type (`string`, `integer`, `boolean`, `array`, `object`).
    #[serde(rename = "type")]
    pub kind: String,
    /// What it means.
    pub description: Option<String>,
}

fn usage_of(tool: &rmcp::model::Tool) -> ToolUsage {
    let schema = tool.input_schema.as_ref();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(|r| r.as_array())
        .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let mut usage = ToolUsage {
        name: tool.name.to_string(),
        title: tool.title.clone(),
        description: tool.description.as_deref().unwrap_or_default().to_string(),
        read_only: tool
            .annotations
            .as_ref()
            .and_then(|a| a.read_only_hint)
            .unwrap_or(false),
        required: Vec::new(),
        optional: Vec::new(),
    };
    let properties = schema.get("properties").and_then(|p| p.as_object());
    for (name, property) in properties.into_iter().flatten() {
        let argument = ArgumentUsage {
            name: name.clone(),
            kind: json_type(property),
            description: property
                .get("description")
                .and_then(|d| d.as_str())
                .map(str::to_string),
        };
        if required.contains(&name.as_str()) {
            usage.required.push(argument);
        } else {
            usage.optional.push(argument);
        }
    }
    usage
}

/// The JSON type a schema describes, `null` left out (`integer`,
/// `string|array`); `object` when it does not say.
fn json_type(schema: &serde_json::Value) -> String {
    let mut types: Vec<String> = match schema.get("type") {
        Some(serde_json::Value::String(t)) => vec![t.clone()],
        Some(serde_json::Value::Array(list)) => list
            .iter()
            .filter_map(|t| t.as_str().map(str::to_string))
            .collect(),
        _ => schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(|a| a.as_array())
            .map(|list| list.iter().map(json_type).collect())
            .unwrap_or_default(),
    };
    types.retain(|t| t != "null");
    types.dedup();
    if types.is_empty() {
        "object".to_string()
    } else {
        types.join("|")
    }
}

impl Tool for KmHelp {
    type Input = KmHelpInput;
    type Output = HelpAnswer;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "km-help",
        title: "Tool Help",
        description: "How to call this server's tools: each tool's purpose, required and optional arguments with their types, and an example. tool narrows it to one; include_spec adds the gateway toolset's full reference. Example: {\"tool\":\"km-search\"}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    async fn call(&self, input: KmHelpInput, _ctx: ToolContext) -> Result<HelpAnswer, ErrorReport> {
        let tools = self.tools.get().map(Vec::as_slice).unwrap_or_default();
        let chosen: Vec<&rmcp::model::Tool> = match input.tool.as_deref().map(str::trim) {
            None | Some("") => tools.iter().collect(),
            Some(name) => {
                let found: Vec<_> = tools.iter().filter(|t| t.name == name).collect();
                if found.is_empty() {
                    let mut close: Vec<(f64, &str)> = tools
                        .iter()
                        .map(|t| (strsim::jaro_winkler(name, &t.name), t.name.as_ref()))
                        .filter(|(score, _)| *score >= 0.75)
                        .collect();
                    close.sort_by(|a, b| b.0.total_cmp(&a.0));
                    let hint = if close.is_empty() {
                        "call km-help without a tool for the list".to_string()
                    } else {
                        let names: Vec<&str> = close.iter().take(3).map(|(_, n)| *n).collect();
                        format!("did you mean {}?", names.join(", "))
                    };
                    return Err(ErrorReport::new(
                        ErrorCode::NotFound,
                        format!("this server has no tool `{name}`: {hint}"),
                    ));
                }
                found
            }
        };
        Ok(HelpAnswer {
            tools: chosen.into_iter().map(usage_of).collect(),
            spec: (input.include_spec == Some(true)).then(|| GATEWAY_REFERENCE.to_string()),
        })
    }
}
