//! The declarative tool kit: every Lore tool is a type implementing
//! [`Tool`], and registering it in a [`ToolRegistry`] gives it the whole
//! polish kit without further code:
//!
//! - `title` and annotations (`readOnlyHint`, `destructiveHint`,
//!   `idempotentHint`, `openWorldHint`) from [`ToolDefinition`];
//! - an `inputSchema` and an `outputSchema` generated from the input and
//!   output types (JSON Schema 2020-12, field docs become descriptions);
//! - results as `structuredContent` plus a compact JSON text block for
//!   text-only clients (or the blocks a tool's [`Tool::content`] gives);
//! - the argument shapes models commonly drift into (a wrapper object,
//!   the other case convention, one value for a list) reshaped to the
//!   schema's first (`lore_core::arguments`);
//! - input that does not match the schema (an unknown argument, a wrong
//!   type, a NUL byte, a failed `check_input`) answered in-band as
//!   `invalid_arguments`, naming the field and what it expects, before the
//!   tool runs;
//! - failures inside the tool answered in-band (`isError: true`) with a text
//!   block holding `{code, message, retryable}` as JSON;
//! - progress notifications through [`ToolContext::progress`] when the
//!   request carries a progress token;
//! - every result within its size budget as sent ([`budget`]): answers
//!   that list rows or results keep their first items and say so, others
//!   over it are `budget_exceeded`.

pub mod budget;

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use lore_core::error::{ErrorCode, ErrorReport};
use rmcp::handler::server::common::{schema_for_input, schema_for_output};
use rmcp::model::{
    CallToolResult, ContentBlock, JsonObject, ProgressNotificationParam, ProgressToken,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, Peer, RoleServer};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use budget::AnswerBudget;
pub use lore_core::config::Scope;

/// Static facts about a tool: what clients see in `tools/list`.
#[derive(Debug, Clone, Copy)]
pub struct ToolDefinition {
    /// Stable snake_case name.
    pub name: &'static str,
    /// Human-readable title.
    pub title: &'static str,
    /// What the tool does, when to use it, and one example call.
    pub description: &'static str,
    /// The tool does not change its environment.
    pub read_only: bool,
    /// The tool may destroy data (only meaningful when not read-only).
    pub destructive: bool,
    /// Repeating the call has no further effect; `None` leaves it unsaid
    /// (for polling tools whose answer changes over time).
    pub idempotent: Option<bool>,
    /// The tool reaches beyond the project's configured systems.
    pub open_world: bool,
    /// The least token scope that may call the tool over HTTP: read-only
    /// tools are `Reader`, knowledge writes `Writer`, operations on the
    /// server itself `Admin`.
    pub scope: Scope,
}

/// One MCP tool: typed input, typed output, one async function.
pub trait Tool: Send + Sync + 'static {
    /// Arguments; field doc comments become schema descriptions.
    type Input: DeserializeOwned + JsonSchema + Send + 'static;
    /// Structured result; must serialize to a JSON object.
    type Output: Serialize + JsonSchema + Send + 'static;

    /// Name, title, description and hints.
    const DEFINITION: ToolDefinition;

    /// Checks constraints the type cannot express (ranges, non-empty
    /// strings). A message returned here is answered as `invalid_arguments`.
    fn check_input(_input: &Self::Input) -> Result<(), String> {
        Ok(())
    }

    /// The content blocks of a successful result, beside its
    /// `structuredContent`. The default is the result as compact JSON text;
    /// tools override it to give a human summary and embedded resources.
    fn content(_output: &Self::Output, structured: &serde_json::Value) -> Vec<ContentBlock> {
        vec![ContentBlock::text(structured.to_string())]
    }

    /// How many items (rows, results) an answer holds, for a tool that
    /// can cut its answer to fit the size budget ([`Tool::keep_items`]).
    /// `None`, the default: an answer over the budget is
    /// `budget_exceeded`.
    fn items(_output: &Self::Output) -> Option<usize> {
        None
    }

    /// Keeps the first `keep` items of an answer over the size budget,
    /// marking it truncated with a notice that gives `why` and says how to
    /// get the rest.
    fn keep_items(_output: &mut Self::Output, _keep: usize, _why: &str) {}

    /// Runs the tool.
    fn call(
        &self,
        input: Self::Input,
        ctx: ToolContext,
    ) -> impl Future<Output = Result<Self::Output, ErrorReport>> + Send;
}

/// What a running tool may use besides its input.
#[derive(Clone)]
pub struct ToolContext {
    progress_token: Option<ProgressToken>,
    /// The MCP client, for a call that came over MCP.
    peer: Option<Peer<RoleServer>>,
    /// The name of the token the call came with (HTTP with tokens).
    token: Option<std::sync::Arc<str>>,
    /// Who calls, for a call from outside MCP (`cli:<user>`).
    local_actor: Option<std::sync::Arc<str>>,
}

impl ToolContext {
    /// The context of a call that came over MCP.
    pub fn from_request(ctx: &RequestContext<RoleServer>) -> ToolContext {
        ToolContext {
            progress_token: ctx.meta.get_progress_token(),
            peer: Some(ctx.peer.clone()),
            token: crate::caller::caller_of(&ctx.extensions)
                .map(|(caller, _)| std::sync::Arc::clone(&caller.name)),
            local_actor: None,
        }
    }

    /// The context of a call made outside MCP, for the toolkit's tests:
    /// `actor` names the caller; there is no client to notify.
    #[cfg(test)]
    pub fn local(actor: &str) -> ToolContext {
        ToolContext {
            progress_token: None,
            peer: None,
            token: None,
            local_actor: Some(actor.into()),
        }
    }

    /// The same caller without progress notifications (for the tool
    /// calls a tool makes itself: only the outer call reports progress).
    pub fn without_progress(&self) -> ToolContext {
        ToolContext {
            progress_token: None,
            ..self.clone()
        }
    }

    /// Who is calling, as one voter: the token's name when the call came
    /// with one (`token:<name>`: two people with the same client are two
    /// voters), else [`ToolContext::actor`].
    pub fn voter(&self) -> String {
        match &self.token {
            Some(name) if &**name != "local" => format!("token:{name}"),
            _ => self.actor(),
        }
    }

    /// Who is calling, for transaction logs: `mcp:<client name>` (the
    /// name the client gave at initialisation), or `mcp`.
    pub fn actor(&self) -> String {
        if let Some(actor) = &self.local_actor {
            return actor.to_string();
        }
        match self.peer.as_ref().and_then(|peer| peer.peer_info()) {
            Some(info) if !info.client_info.name.trim().is_empty() => {
                let name: String = info.client_info.name.trim().chars().take(60).collect();
                format!("mcp:{name}")
            }
            _ => "mcp".to_string(),
        }
    }

    /// Sends a progress notification (`progress` of a total of 1.0) if the
    /// caller asked for progress; otherwise does nothing. Best effort: a
    /// client that went away does not fail the tool.
    pub async fn progress(&self, progress: f64, message: impl Into<String>) {
        if let (Some(token), Some(peer)) = (&self.progress_token, &self.peer) {
            let param = ProgressNotificationParam::new(token.clone(), progress)
                .with_total(1.0)
                .with_message(message.into());
            let _ = peer.notify_progress(param).await;
        }
    }
}

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

trait RegisteredTool: Send + Sync {
    fn descriptor(&self) -> &rmcp::model::Tool;
    fn scope(&self) -> Scope;
    fn invoke(
        &self,
        arguments: JsonObject,
        ctx: ToolContext,
        budget: AnswerBudget,
    ) -> BoxFuture<'_, Result<CallToolResult, McpError>>;
    fn invoke_value(
        &self,
        arguments: JsonObject,
        ctx: ToolContext,
    ) -> BoxFuture<'_, Result<serde_json::Value, ErrorReport>>;
    fn check(&self, arguments: JsonObject) -> Result<(), ErrorReport>;
}

/// What a call does with its arguments before the tool runs:
/// [`lore_core::arguments::prepare`] (the drift rules, then refusing
/// unknown arguments, NUL bytes and undecodable values), then what the
/// tool's own check refuses, each as `invalid_arguments` naming the field.
fn prepare<T: Tool>(schema: &JsonObject, arguments: JsonObject) -> Result<T::Input, ErrorReport> {
    let name = T::DEFINITION.name;
    let input: T::Input = lore_core::arguments::prepare(name, schema, arguments)?;
    T::check_input(&input).map_err(|message| {
        ErrorReport::new(ErrorCode::InvalidArguments, format!("{name}: {message}"))
    })?;
    Ok(input)
}

struct Registered<T: Tool> {
    tool: T,
    descriptor: rmcp::model::Tool,
}

impl<T: Tool> Registered<T> {
    /// The arguments checked (every argument error answered in-band, like
    /// any other failure, naming the field and what it expects), then the
    /// tool.
    async fn run(&self, arguments: JsonObject, ctx: ToolContext) -> Result<T::Output, ErrorReport> {
        let input = prepare::<T>(&self.descriptor.input_schema, arguments)?;
        self.tool.call(input, ctx).await
    }

    /// The result of `output` as sent, within `budget`: cut to its first
    /// items while it is over (each pass keeps fewer, in proportion to how
    /// far over it is), or `budget_exceeded` when it cannot be cut.
    fn answer(output: T::Output, budget: AnswerBudget) -> CallToolResult {
        let name = T::DEFINITION.name;
        let mut output = output;
        loop {
            let value = match serde_json::to_value(&output) {
                Ok(value) => value,
                Err(e) => {
                    return error_result(&ErrorReport::new(
                        ErrorCode::Internal,
                        format!("{name} produced an unserializable result: {e}"),
                    ));
                }
            };
            let structured = budget::json_bytes(&value);
            let mut result = CallToolResult::structured(value);
            if let Some(structured) = &result.structured_content {
                result.content = T::content(&output, structured);
            }
            let whole = budget::json_bytes(&result);
            let ratio = budget.fit_ratio(structured, whole);
            if ratio >= 1.0 {
                return result;
            }
            match T::items(&output) {
                Some(items) if items > 0 => {
                    // A little under the proportion: the part of the
                    // answer that is not items does not shrink.
                    let keep = ((items as f64 * ratio * 0.95) as usize).min(items - 1);
                    T::keep_items(&mut output, keep, &budget.why_cut());
                }
                _ => return error_result(&budget.exceeded(name, structured, whole)),
            }
        }
    }
}

impl<T: Tool> RegisteredTool for Registered<T> {
    fn descriptor(&self) -> &rmcp::model::Tool {
        &self.descriptor
    }

    fn scope(&self) -> Scope {
        T::DEFINITION.scope
    }

    fn check(&self, arguments: JsonObject) -> Result<(), ErrorReport> {
        prepare::<T>(&self.descriptor.input_schema, arguments).map(drop)
    }

    fn invoke(
        &self,
        arguments: JsonObject,
        ctx: ToolContext,
        budget: AnswerBudget,
    ) -> BoxFuture<'_, Result<CallToolResult, McpError>> {
        Box::pin(async move {
            match self.run(arguments, ctx).await {
                Ok(output) => Ok(Self::answer(output, budget)),
                Err(report) => Ok(error_result(&report)),
            }
        })
    }

    fn invoke_value(
        &self,
        arguments: JsonObject,
        ctx: ToolContext,
    ) -> BoxFuture<'_, Result<serde_json::Value, ErrorReport>> {
        Box::pin(async move {
            let output = self.run(arguments, ctx).await?;
            serde_json::to_value(&output).map_err(|e| {
                ErrorReport::new(
                    ErrorCode::Internal,
                    format!(
                        "{} produced an unserializable result: {e}",
                        T::DEFINITION.name
                    ),
                )
            })
        })
    }
}

/// An in-band tool error: `isError: true`, one text block holding the
/// `{code, message, retryable}` JSON, and the same report as
/// `structuredContent` (`{"error": {code, message, retryable}}`), which
/// every output schema accepts ([`accept_error_answer`]), so SDK clients
/// that validate structured results against `outputSchema` even for
/// errors (the TypeScript SDK 1.x does) read the error instead of
/// rejecting it.
pub fn error_result(report: &ErrorReport) -> CallToolResult {
    let value = serde_json::to_value(report).unwrap_or_else(
        |_| serde_json::json!({"code": report.code.as_str(), "message": report.message}),
    );
    let text = value.to_string();
    let mut result = CallToolResult::error(vec![ContentBlock::text(text)]);
    result.structured_content = Some(serde_json::json!({ "error": value }));
    result
}

/// Makes an output schema accept a failed call's `{"error": {...}}` as well
/// as the answer: the answer's required fields become one alternative,
/// `error` the other.
fn accept_error_answer(schema: &mut JsonObject) {
    use serde_json::{Value, json};
    let required = schema.remove("required");
    if let Some(Value::Array(required)) =
        required.filter(|r| r.as_array().is_some_and(|a| !a.is_empty()))
    {
        schema.insert(
            "anyOf".into(),
            json!([{"required": required}, {"required": ["error"]}]),
        );
    }
    if let Value::Object(properties) = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Default::default()))
    {
        // An answer with an `error` of its own (a run's reason, a failed
        // ingest's message) keeps it, and takes the failure's object too.
        let error = match properties.remove("error") {
            Some(own) => json!({"anyOf": [own, {"type": "object"}]}),
            None => json!({"type": "object"}),
        };
        properties.insert("error".into(), error);
    }
}

/// Removes the `format`s schemars gives unsigned integers (`uint`,
/// `uint32`, `uint64`, …): no JSON Schema or OpenAPI vocabulary defines
/// them, so validators such as Ajv (Claude Code, the MCP Inspector) print a
/// warning for each. Nothing is lost: those fields keep `type: integer` and
/// `minimum: 0`. The OpenAPI formats (`int32`, `int64`, `float`, `double`)
/// stay.
fn drop_unknown_formats(schema: &mut JsonObject) {
    use schemars::transform::{RecursiveTransform, Transform};
    // schemars' own walk visits subschemas only, so a `format` inside a
    // `default` or `examples` value is left alone.
    let mut wrapped = schemars::Schema::from(std::mem::take(schema));
    RecursiveTransform(|s: &mut schemars::Schema| {
        if s.get("format")
            .and_then(|f| f.as_str())
            .is_some_and(|f| f.starts_with("uint"))
        {
            s.remove("format");
        }
    })
    .transform(&mut wrapped);
    if let serde_json::Value::Object(object) = wrapped.to_value() {
        *schema = object;
    }
}

/// Makes an input schema cheaper for a model to read without changing what
/// it accepts: drops `$schema`, titles and defaults (descriptions say what
/// an omitted argument means), turns a `oneOf` of constants into an `enum`,
/// writes an optional argument's type without `null` (omitting it is how to
/// say nothing), and keeps descriptions only where an argument is
/// described, not on each alternative shape inside it. Every tool pays for
/// its definitions on every request (the budget is measured by
/// `tests/context_budget.rs`).
fn compact_input_schema(schema: &mut JsonObject) {
    schema.remove("$schema");
    compact_subschema(schema, false);
}

fn compact_subschema(schema: &mut JsonObject, nested: bool) {
    use serde_json::Value;
    schema.remove("title");
    schema.remove("default");
    if nested {
        schema.remove("description");
    }
    compact_subschema_enum(schema);
    let required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            let Value::Object(property) = property else {
                continue;
            };
            if !required.contains(name) {
                drop_null_alternative(property);
            }
            compact_subschema(property, nested);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(variants)) = schema.get_mut(key) {
            for variant in variants.iter_mut().filter_map(Value::as_object_mut) {
                compact_subschema(variant, true);
            }
        }
    }
    if let Some(Value::Object(items)) = schema.get_mut("items") {
        compact_subschema(items, true);
    }
    if let Some(Value::Object(definitions)) = schema.get_mut("$defs") {
        for definition in definitions.values_mut().filter_map(Value::as_object_mut) {
            compact_subschema(definition, true);
        }
    }
}

/// Makes an output schema no larger than it needs to be, without making
/// any answer invalid (only annotations go, so whatever validated still
/// does): drops `$schema`, titles, defaults and formats, turns a `oneOf`
/// of constants into an `enum`, and keeps
/// a description only on the answer's own fields — not on the types
/// inside them, and not on a field the input schema already describes
/// (`connectionId`). Measured per tool by `tests/context_budget.rs`.
fn compact_output_schema(schema: &mut JsonObject, input: &JsonObject) {
    use serde_json::Value;
    schema.remove("$schema");
    strip_output_annotations(schema, true);
    let described_in_input = |name: &str| {
        input
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.contains_key(name))
    };
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if let Value::Object(property) = property
                && described_in_input(name)
            {
                property.remove("description");
            }
        }
    }
}

/// The annotations of one output subschema and everything inside it;
/// `top` keeps the descriptions of this schema's own properties.
fn strip_output_annotations(schema: &mut JsonObject, top: bool) {
    use serde_json::Value;
    for key in ["title", "default", "format"] {
        schema.remove(key);
    }
    if !top {
        schema.remove("description");
    }
    compact_subschema_enum(schema);
    for (key, child) in schema.iter_mut() {
        match (key.as_str(), child) {
            ("properties" | "$defs", Value::Object(children)) => {
                for child in children.values_mut().filter_map(Value::as_object_mut) {
                    let description = child.remove("description");
                    strip_output_annotations(child, false);
                    if let (true, "properties", Some(d)) = (top, key.as_str(), description) {
                        child.insert("description".into(), d);
                    }
                }
            }
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(children)) => {
                for child in children.iter_mut().filter_map(Value::as_object_mut) {
                    strip_output_annotations(child, false);
                }
            }
            ("items" | "additionalProperties", Value::Object(child)) => {
                strip_output_annotations(child, false)
            }
            _ => {}
        }
    }
}

/// A `oneOf` whose every alternative is a constant, as an `enum`.
fn compact_subschema_enum(schema: &mut JsonObject) {
    use serde_json::Value;
    if let Some(Value::Array(variants)) = schema.get("oneOf")
        && variants.iter().all(|v| v.get("const").is_some())
    {
        let values: Vec<Value> = variants
            .iter()
            .filter_map(|v| v.get("const").cloned())
            .collect();
        let types: std::collections::BTreeSet<String> = variants
            .iter()
            .filter_map(|v| v.get("type").and_then(Value::as_str).map(String::from))
            .collect();
        schema.remove("oneOf");
        schema.insert("enum".into(), Value::Array(values));
        if let [only] = types.into_iter().collect::<Vec<_>>().as_slice() {
            schema.insert("type".into(), Value::String(only.clone()));
        }
    }
}

/// `type: [T, "null"]` → `type: T`; `anyOf: [S, {type: null}]` → `S`.
fn drop_null_alternative(property: &mut JsonObject) {
    use serde_json::Value;
    if let Some(Value::Array(types)) = property.get("type")
        && types.len() == 2
        && types.iter().any(|t| t == "null")
        && let Some(other) = types.iter().find(|t| *t != "null").cloned()
    {
        property.insert("type".into(), other);
    }
    if let Some(Value::Array(variants)) = property.get("anyOf")
        && variants
            .iter()
            .any(|v| v.get("type").is_some_and(|t| t == "null"))
    {
        let rest: Vec<Value> = variants
            .iter()
            .filter(|v| !v.get("type").is_some_and(|t| t == "null"))
            .cloned()
            .collect();
        property.remove("anyOf");
        match rest.as_slice() {
            [Value::Object(only)] => {
                for (k, v) in only {
                    property.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            _ => {
                property.insert("anyOf".into(), Value::Array(rest));
            }
        }
    }
}

/// The tools a server offers, by name, and how large their results may
/// be.
#[derive(Default, Clone)]
pub struct ToolRegistry {
    tools: BTreeMap<&'static str, Arc<dyn RegisteredTool>>,
    budget: AnswerBudget,
    /// Scopes the project's settings give tools instead of their own
    /// (`gateway.tool_scopes`).
    scopes: BTreeMap<&'static str, Scope>,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> ToolRegistry {
        ToolRegistry::default()
    }

    /// Sets how large a tool result may be as sent (default: the
    /// defaults of `limits:`).
    pub fn set_answer_budget(&mut self, budget: AnswerBudget) -> &mut Self {
        self.budget = budget;
        self
    }

    /// Adds a tool, deriving its `tools/list` entry from its types and
    /// definition.
    ///
    /// # Panics
    /// When two tools share a name or a schema is not an object: both are
    /// programming errors caught by the first test that builds the server.
    pub fn register<T: Tool>(&mut self, tool: T) -> &mut Self {
        let def = T::DEFINITION;
        let mut input_schema = (*schema_for_input::<T::Input>()
            .unwrap_or_else(|e| panic!("tool {}: input schema: {e}", def.name)))
        .clone();
        // Some clients reject an object schema without `properties`, which
        // is what a tool without arguments would otherwise get.
        input_schema
            .entry("properties")
            .or_insert_with(|| serde_json::json!({}));
        // Unknown arguments are refused (after the drift rules), and the
        // schema says so.
        input_schema.insert("additionalProperties".into(), serde_json::json!(false));
        let mut annotations = ToolAnnotations::with_title(def.title)
            .read_only(def.read_only)
            .open_world(def.open_world);
        if !def.read_only {
            annotations = annotations.destructive(def.destructive);
        }
        if let Some(idempotent) = def.idempotent {
            annotations = annotations.idempotent(idempotent);
        }
        let mut output_schema = (*schema_for_output::<T::Output>()).clone();
        drop_unknown_formats(&mut input_schema);
        drop_unknown_formats(&mut output_schema);
        compact_input_schema(&mut input_schema);
        compact_output_schema(&mut output_schema, &input_schema);
        accept_error_answer(&mut output_schema);
        let descriptor = rmcp::model::Tool::new(def.name, def.description, Arc::new(input_schema))
            .with_title(def.title)
            .with_raw_output_schema(Arc::new(output_schema))
            .with_annotations(annotations);
        let previous = self
            .tools
            .insert(def.name, Arc::new(Registered { tool, descriptor }));
        assert!(previous.is_none(), "tool {} registered twice", def.name);
        self
    }

    /// Makes the tool `name` need `scope` instead of its definition's
    /// (a project setting); an unknown name changes nothing.
    pub fn set_scope(&mut self, name: &str, scope: Scope) -> &mut Self {
        if let Some((name, _)) = self.tools.get_key_value(name) {
            self.scopes.insert(*name, scope);
        }
        self
    }

    /// The scope the tool `name` (registered as `tool`) needs.
    fn scope_needed(&self, name: &str, tool: &dyn RegisteredTool) -> Scope {
        self.scopes
            .get(name)
            .copied()
            .unwrap_or_else(|| tool.scope())
    }

    /// Every tool's `tools/list` entry, sorted by name.
    pub fn descriptors(&self) -> Vec<rmcp::model::Tool> {
        self.tools
            .values()
            .map(|t| t.descriptor().clone())
            .collect()
    }

    /// The entries a caller with `scope` may call, sorted by name.
    pub fn descriptors_for(&self, scope: Scope) -> Vec<rmcp::model::Tool> {
        self.tools
            .iter()
            .filter(|(name, t)| self.scope_needed(name, t.as_ref()) <= scope)
            .map(|(_, t)| t.descriptor().clone())
            .collect()
    }

    /// One tool's entry.
    pub fn descriptor(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.tools.get(name).map(|t| t.descriptor().clone())
    }

    /// The registered (static) name equal to `name`, for metric labels.
    pub fn static_name(&self, name: &str) -> Option<&'static str> {
        self.tools.get_key_value(name).map(|(n, _)| *n)
    }

    /// The scope a tool needs, or `None` for a name no tool has.
    pub fn scope_of(&self, name: &str) -> Option<Scope> {
        self.tools
            .get(name)
            .map(|t| self.scope_needed(name, t.as_ref()))
    }

    /// Every tool's name and the scope it needs.
    pub fn scopes(&self) -> BTreeMap<&'static str, Scope> {
        self.tools
            .iter()
            .map(|(n, t)| (*n, self.scope_needed(n, t.as_ref())))
            .collect()
    }

    /// Checks `arguments` for the tool `name` as a call would before the
    /// tool runs (see [`ToolRegistry::call`]), without running it: `Ok`
    /// when the call would reach the tool, otherwise the
    /// `invalid_arguments` (or `not_found` for an unknown tool) report the
    /// call would answer.
    pub fn check_arguments(&self, name: &str, arguments: JsonObject) -> Result<(), ErrorReport> {
        let tool = self.tools.get(name).ok_or_else(|| {
            ErrorReport::new(ErrorCode::NotFound, format!("unknown tool `{name}`"))
        })?;
        tool.check(arguments)
    }

    /// Calls a tool by name for its structured answer, as a call over MCP
    /// would run it (drift rules, argument checks, the tool): for callers
    /// inside Lore (recipes). An unknown name is `not_found`.
    pub async fn call_value(
        &self,
        name: &str,
        arguments: JsonObject,
        ctx: ToolContext,
    ) -> Result<serde_json::Value, ErrorReport> {
        let tool = self.tools.get(name).ok_or_else(|| {
            ErrorReport::new(ErrorCode::NotFound, format!("unknown tool `{name}`"))
        })?;
        tool.invoke_value(arguments, ctx).await
    }

    /// A registry of the tools whose names `keep` accepts (the same tools,
    /// shared).
    pub fn only(&self, keep: impl Fn(&str) -> bool) -> ToolRegistry {
        ToolRegistry {
            tools: self
                .tools
                .iter()
                .filter(|(name, _)| keep(name))
                .map(|(name, tool)| (*name, Arc::clone(tool)))
                .collect(),
            budget: self.budget,
            scopes: self
                .scopes
                .iter()
                .filter(|(name, _)| keep(name))
                .map(|(name, scope)| (*name, *scope))
                .collect(),
        }
    }

    /// Every tool's name.
    pub fn names(&self) -> Vec<&'static str> {
        self.tools.keys().copied().collect()
    }

    /// Calls a tool by name: unknown names and malformed arguments are
    /// JSON-RPC errors, everything else an in-band result.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        self.call_with(name, arguments, ToolContext::from_request(ctx))
            .await
    }

    /// [`ToolRegistry::call`] with a context of the caller's choosing (a
    /// task runs the call after its request has been answered).
    pub async fn call_with(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        ctx: ToolContext,
    ) -> Result<CallToolResult, McpError> {
        let tool = self.tools.get(name).ok_or_else(|| {
            McpError::invalid_params(
                format!("unknown tool `{name}`; call tools/list for the tools this server offers"),
                None,
            )
        })?;
        tool.invoke(arguments.unwrap_or_default(), ctx, self.budget)
            .await
    }
}
