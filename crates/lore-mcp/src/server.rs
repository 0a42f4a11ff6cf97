//! The MCP server handler: answers `initialize`, `tools/list` and
//! `tools/call` from a [`ToolRegistry`], and the memory toolset's
//! resources, subscriptions and prompts. It is cheap to clone; the HTTP
//! transport gives every session its own [`LoreServer::for_session`] copy
//! (sharing everything but the session's subscriptions).

use std::sync::Arc;

use lore_core::config::Toolset;
use lore_core::project::Project;
use lore_warehouse::catalog::Catalog;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestMethod,
    CompleteRequestParams, CompleteResult, CreateTaskResult, GetPromptRequestParams,
    GetPromptResponse, GetTaskParams, GetTaskResult, Implementation, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ServerCapabilities, ServerConfig, SubscribeRequestParams, SubscriptionFilter, Tool,
    UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use tokio_util::sync::CancellationToken;

use crate::analytics::register_analytics_tools;
use crate::caller::caller_of;
use crate::memory::MemoryToolset;
use crate::memory::subscriptions::Subscriptions;
use crate::memory::{prompts, resources};
use crate::telemetry::{CallRecord, CallResult, Telemetry, logs_calls, summarize_arguments};
use crate::toolkit::{Scope, ToolRegistry, error_result};
use lore_context::services::Services;
use lore_core::{ErrorCode, ErrorReport};

const ANALYTICS_INSTRUCTIONS: &str = "Lore gives you the context to work on this project's data. \
Start with discover_data to find what exists (wiki pages, semantic-layer measures and dimensions, tables, columns) and connection_list to see the warehouses. Wiki pages hold what the schema does not say (metric definitions, amounts in cents, soft deletes, legacy values): read the ones discover_data or wiki_search return with wiki_read, and record durable findings with wiki_write. Never guess table or column names: read them with entity_details, and find which column holds a value the user named with dictionary_search (a miss there is not proof of absence). \
For metrics, prefer the semantic layer when the connection has one: sl_read_source shows a source's approved measures and dimensions, and sl_query computes them with correct joins (no double counting). \
Otherwise query with sql_execution (read-only: writes are refused). \
Prefer aggregates and LIMIT over pulling raw rows; results say truncated: true when capped. ";

const MEMORY_INSTRUCTIONS: &str = "The memory tools (store, update, query, delete, relate, query_graph, undo, history) keep what you learn across sessions as versioned entries and relations: query before storing to avoid duplicates, and every write returns a tx_id that undo reverts. ";

const GATEWAY_INSTRUCTIONS: &str = "For work in the code: km-search finds the code, tests and docs an issue or stack trace is about (paste it whole); km-feedback-submit says which result helped, so later searches rank by it; km-ingest-status says how fresh the index is and km-ingest-trigger refreshes it; km-recipe-run runs routine checks (daily-health, release-prep, stale-audit, subsystem-freshness); km-help explains any tool. ";

const ERROR_INSTRUCTIONS: &str = "Errors come back as JSON {code, message, retryable}: fix the input for codes like invalid_sql or read_only_violation, retry only when retryable is true.";

/// Lore's MCP server.
#[derive(Clone)]
pub struct LoreServer {
    registry: Arc<ToolRegistry>,
    warm_up: Option<Arc<WarmUp>>,
    memory: Option<MemoryToolset>,
    /// Discovery, with the wiki (`discover.wiki()`).
    discover: Option<Arc<lore_context::discover::Discover>>,
    /// The store's change feed the file mirrors follow (also when the
    /// memory toolset is not served).
    feed: Option<Arc<lore_store::feed::ChangeFeed>>,
    /// What the server tells clients at the handshake: the served
    /// toolsets' part.
    instructions: String,
    subscriptions: Arc<Subscriptions>,
    telemetry: Arc<Telemetry>,
    /// Cancelled when a stopping server's grace period is over: the calls
    /// still running then answer `unavailable` instead of never.
    cut_off: CancellationToken,
    /// Long calls running as tasks, for every session of this server (and
    /// the other servers' over a shared store).
    tasks: Arc<crate::tasks::Tasks>,
    /// The gateway, when its toolset is served (its roots are followed
    /// while the server runs: [`LoreServer::follow_roots`]).
    gateway: Option<Arc<lore_gateway::Gateway>>,
}

/// Loads the catalog once, after the first client finished its handshake
/// (so start-up answers first and the first catalog call finds it loaded).
struct WarmUp {
    catalog: Arc<Catalog>,
    connections: Vec<String>,
    /// Marks ingest runs whose process died as interrupted.
    ingest: Arc<lore_context::memory::ingest::MemoryIngest>,
    started: std::sync::Once,
}

impl LoreServer {
    /// A server over an explicit registry.
    pub fn new(registry: ToolRegistry) -> LoreServer {
        LoreServer {
            registry: Arc::new(registry),
            warm_up: None,
            memory: None,
            discover: None,
            feed: None,
            instructions: format!("{ANALYTICS_INSTRUCTIONS}{ERROR_INSTRUCTIONS}"),
            subscriptions: Arc::default(),
            telemetry: Arc::default(),
            cut_off: CancellationToken::new(),
            tasks: Arc::default(),
            gateway: None,
        }
    }

    /// A copy for a new session: same tools and store, no subscriptions.
    pub fn for_session(&self) -> LoreServer {
        LoreServer {
            subscriptions: Arc::default(),
            ..self.clone()
        }
    }

    /// The server for a loaded project, with every toolset registered:
    /// the project's services from the composition root
    /// ([`Services::serving`]), the gateway over the same store.
    pub fn for_project(project: &Project) -> LoreServer {
        let services = Services::serving(project);
        remove_temp_files(project, &services.wiki, &services.model_files);
        let mut registry = ToolRegistry::new();
        registry.set_answer_budget(crate::toolkit::AnswerBudget::of(&project.config.limits));
        let warm_up = WarmUp {
            catalog: Arc::clone(&services.catalog),
            connections: services.warehouses.ids(),
            ingest: Arc::clone(&services.ingest),
            started: std::sync::Once::new(),
        };
        let gateway = Arc::new(
            lore_gateway::Gateway::for_project(project).with_store(Arc::clone(&services.store)),
        );
        let toolsets = project.config.mcp.served_toolsets(
            gateway.is_configured(),
            !project.config.connections.is_empty(),
            services.store.is_server(),
        );
        if toolsets.contains(&Toolset::Gateway) {
            crate::gateway::register_gateway_tools(
                &mut registry,
                Arc::clone(&gateway),
                &project.config.gateway.tool_scopes,
            );
        }
        let served_gateway = toolsets
            .contains(&Toolset::Gateway)
            .then(|| Arc::clone(&gateway));
        let mut instructions = String::new();
        if toolsets.contains(&Toolset::Analytics) {
            register_analytics_toolset(&mut registry, &services);
            instructions.push_str(ANALYTICS_INSTRUCTIONS);
        }
        let (discover, feed) = (Arc::clone(&services.discover), Arc::clone(&services.feed));
        let memory = MemoryToolset::new(Arc::clone(&services.memory));
        let tasks = Arc::new(
            crate::tasks::Tasks::new(Some(Arc::clone(&memory.store)))
                .with_ingest(Arc::clone(&warm_up.ingest)),
        );
        // Resources, subscriptions and prompts come with the memory toolset.
        let memory = if toolsets.contains(&Toolset::Memory) {
            memory.register_tools(&mut registry);
            instructions.push_str(MEMORY_INSTRUCTIONS);
            Some(memory)
        } else {
            None
        };
        if toolsets.contains(&Toolset::Gateway) {
            // Help covers every tool, so it comes last.
            let (help, slot) = crate::gateway::KmHelp::new();
            registry.register(help);
            let _ = slot.set(registry.descriptors());
            instructions.push_str(GATEWAY_INSTRUCTIONS);
        }
        instructions.push_str(ERROR_INSTRUCTIONS);
        LoreServer {
            warm_up: Some(Arc::new(warm_up)),
            memory,
            discover: Some(discover),
            feed: Some(feed),
            instructions,
            tasks,
            gateway: served_gateway,
            ..LoreServer::new(registry)
        }
    }

    /// Starts following the gateway's roots (`gateway.follow`): changed
    /// files are re-ingested until the returned follower is dropped, which
    /// a serving command does when it stops. None when the gateway is not
    /// served, has no root, or following is off.
    pub fn follow_roots(&self) -> Option<lore_gateway::ingest::follow::Follower> {
        self.gateway.as_ref().and_then(|gateway| gateway.follow())
    }

    /// Starts following the store's gateway file log (a store several
    /// servers share): what another server ingests becomes searchable
    /// here until the returned follower is dropped. None when the gateway
    /// is not served or the store is the embedded file.
    pub fn follow_store(&self) -> Option<lore_gateway::ingest::team::StoreFollower> {
        self.gateway
            .as_ref()
            .and_then(|gateway| gateway.follow_store())
    }

    /// Checks a tool call's arguments as the call would, without running
    /// the tool: the drift rules, unknown arguments, NUL bytes, decoding
    /// and the tool's own checks (see [`ToolRegistry::check_arguments`]).
    pub fn check_arguments(
        &self,
        tool: &str,
        arguments: rmcp::model::JsonObject,
    ) -> Result<(), ErrorReport> {
        self.registry.check_arguments(tool, arguments)
    }

    /// The `tools/list` entries.
    pub fn tools(&self) -> Vec<Tool> {
        self.registry.descriptors()
    }

    /// The scope each tool needs.
    pub fn tool_scopes(&self) -> std::collections::BTreeMap<&'static str, Scope> {
        self.registry.scopes()
    }

    /// The metrics every session of this server adds to.
    pub fn telemetry(&self) -> Arc<Telemetry> {
        self.telemetry.clone()
    }

    /// Cancelling this token ends every running tool call of every session
    /// with a retryable `unavailable` error (the last step of a stop, once
    /// the grace period is over).
    pub fn call_cut_off(&self) -> CancellationToken {
        self.cut_off.clone()
    }
}

/// The analytics toolset over the project's services: discovery and the
/// wiki, the catalog, semantic-layer and SQL tools, and `memory_ingest`.
fn register_analytics_toolset(registry: &mut ToolRegistry, services: &Services) {
    let discover = &services.discover;
    registry
        .register(crate::analytics::DiscoverData {
            discover: Arc::clone(discover),
        })
        .register(crate::analytics::WikiSearch {
            discover: Arc::clone(discover),
        })
        .register(crate::analytics::WikiRead {
            discover: Arc::clone(discover),
        })
        .register(crate::analytics::WikiWrite {
            discover: Arc::clone(discover),
            feed: Arc::clone(&services.feed),
        });
    register_analytics_tools(
        registry,
        Arc::clone(&services.warehouses),
        Arc::clone(&services.catalog),
        Arc::clone(&services.models),
    );
    registry
        .register(crate::analytics::MemoryIngestTool {
            ingest: Arc::clone(&services.ingest),
        })
        .register(crate::analytics::MemoryIngestStatusTool {
            ingest: Arc::clone(&services.ingest),
        });
}

/// How old a temporary file beside Lore's state or config must be to be
/// taken as left by a killed process (no lock covers those writes; a
/// write in progress keeps its file fresh).
const STALE_TEMP_FILE: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes the temporary files (`.lore-*.tmp`) a process killed while
/// writing left behind: in the wiki and the semantic layer under their
/// mirrors' locks, beside `lore.yaml` and in `.lore/` once stale.
fn remove_temp_files(
    project: &Project,
    wiki: &lore_context::wiki::Wiki,
    model_files: &lore_context::semantic::files::SemanticFiles,
) {
    let mut removed = Vec::new();
    for mirror in [wiki.mirror(), model_files.mirror()] {
        match mirror.remove_temp_files() {
            Ok(paths) => removed.extend(paths),
            Err(e) => tracing::warn!("temporary files not cleaned up: {}", e.message),
        }
    }
    for dir in [project.root.clone(), project.state_dir()] {
        removed.extend(
            lore_core::project::remove_stale_temp_files(&dir, STALE_TEMP_FILE)
                .into_iter()
                .map(|p| p.display().to_string()),
        );
    }
    if !removed.is_empty() {
        tracing::info!(files = ?removed, "removed temporary files an interrupted write left");
    }
}

impl ServerHandler for LoreServer {
    async fn on_initialized(&self, _context: rmcp::service::NotificationContext<RoleServer>) {
        if let Some(warm_up) = &self.warm_up {
            warm_up.started.call_once(|| {
                warm_up.catalog.warm(warm_up.connections.clone());
                // Runs whose process died are reported, never left running.
                let ingest = Arc::clone(&warm_up.ingest);
                tokio::task::spawn_blocking(move || match ingest.sweep() {
                    Ok(n) if n > 0 => {
                        tracing::info!(interrupted = n, "memory_ingest runs marked interrupted")
                    }
                    Ok(_) => {}
                    Err(e) => tracing::warn!("memory_ingest runs not checked: {}", e.message),
                });
                // Indexed (and the wiki imported) in the background, so
                // the first search finds the index ready.
                if let Some(discover) = &self.discover {
                    let discover = Arc::clone(discover);
                    tokio::task::spawn_blocking(move || {
                        if let Err(e) = discover.refresh() {
                            tracing::warn!("search index warm-up failed: {e}");
                        }
                        // Documents not embedded yet (a new scan, a first
                        // start) are embedded now, not by a search.
                        match discover.embed_all(|_, _| {}) {
                            Ok(Some(n)) if n > 0 => {
                                tracing::info!(embedded = n, "embedding warm-up done")
                            }
                            Ok(_) => {}
                            Err(e) => tracing::warn!("embedding warm-up skipped: {e}"),
                        }
                    });
                }
                if let (Some(discover), Some(feed)) = (&self.discover, &self.feed) {
                    tokio::spawn(mirror_files(Arc::clone(discover), Arc::clone(feed)));
                }
            });
        }
    }

    fn get_info(&self) -> ServerConfig {
        let capabilities = if self.memory.is_some() {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_resources_list_changed()
                .enable_prompts()
                .enable_completions()
                .enable_tasks()
                .build()
        } else {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build()
        };
        InitializeResult::new(capabilities)
            .with_server_info(
                Implementation::new("lore", env!("CARGO_PKG_VERSION")).with_title("Lore"),
            )
            .with_instructions(self.instructions.clone())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        // Over HTTP a caller sees only the tools its token may call.
        let tools = match caller_of(&context.extensions) {
            Some((caller, _)) => self.registry.descriptors_for(caller.scope),
            None => self.registry.descriptors(),
        };
        let mut result = ListToolsResult::with_all_items(tools);
        (result.ttl_ms, result.cache_scope) = cache_hint(STABLE_LIST_TTL_MS, &context);
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let started = std::time::Instant::now();
        let _running = self.telemetry.call_started();
        let caller = caller_of(&context.extensions);
        let tool = self.registry.static_name(&request.name);
        let needed = self.registry.scope_of(&request.name);
        // Summarised before the tool takes the arguments, and only when logged.
        let args = logs_calls().then(|| summarize_arguments(request.arguments.as_ref()));
        let outcome = match (caller, needed) {
            // The HTTP layer refuses these with 403 first; this keeps the
            // rule true for any other way a request could arrive.
            (Some((caller, _)), Some(needed)) if needed > caller.scope => {
                Err(McpError::invalid_request(
                    format!(
                        "tool `{}` needs the {} scope; this token has the {} scope",
                        request.name,
                        needed.as_str(),
                        caller.scope.as_str()
                    ),
                    serde_json::to_value(ErrorReport::new(
                        ErrorCode::Forbidden,
                        "insufficient scope",
                    ))
                    .ok(),
                ))
            }
            // A long call for a client with the Tasks extension: a task,
            // answered at once (`tasks/get` follows it).
            _ if crate::tasks::runs_as_task(&request.name)
                && context
                    .client_capabilities()
                    .is_some_and(|c| c.supports_tasks()) =>
            {
                let task = self.tasks.spawn(
                    Arc::clone(&self.registry),
                    request.name.to_string(),
                    request.arguments,
                    crate::toolkit::ToolContext::from_request(&context).without_progress(),
                    crate::tasks::caller_of_request(&context),
                );
                self.telemetry.record_call(&CallRecord {
                    tool: tool.unwrap_or("unknown"),
                    result: CallResult::Ok,
                    code: None,
                    duration: started.elapsed(),
                    args: args.as_deref(),
                    request_id: caller.and_then(|(_, id)| id),
                    client: caller.map_or("stdio", |(c, _)| &c.name),
                });
                return Ok(CallToolResponse::Task(CreateTaskResult::new(task)));
            }
            _ => tokio::select! {
                outcome = isolated(&request.name, self.registry.call(&request.name, request.arguments, &context)) => {
                    outcome.unwrap_or_else(|panic| {
                        let request_id = caller
                            .and_then(|(_, id)| id.map(str::to_string))
                            .unwrap_or_else(|| format!("jsonrpc-{}", context.id));
                        tracing::error!(
                            tool = %request.name,
                            request_id = %request_id,
                            panic = %panic,
                            "a tool call panicked; it was answered internal and the server keeps serving"
                        );
                        Ok(error_result(&ErrorReport::new(
                            ErrorCode::Internal,
                            format!("Lore hit a bug while answering this call and abandoned it (request {request_id}); the server and other sessions are unaffected. The server log has the details under that request id."),
                        )))
                    })
                }
                () = self.cut_off.cancelled() => Ok(error_result(&ErrorReport::new(
                    ErrorCode::Unavailable,
                    "the server stopped before this call finished (its stop grace period ran out); retry once it runs again",
                ))),
            },
        };
        let (result, code) = match &outcome {
            Ok(result) if result.is_error == Some(true) => {
                (CallResult::Error, Some(error_code_of(result)))
            }
            Ok(_) => (CallResult::Ok, None),
            Err(e) if e.code == rmcp::model::ErrorCode::INVALID_REQUEST => {
                (CallResult::Rejected, Some(ErrorCode::Forbidden.as_str()))
            }
            Err(_) => (
                CallResult::Rejected,
                Some(ErrorCode::InvalidRequest.as_str()),
            ),
        };
        self.telemetry.record_call(&CallRecord {
            tool: tool.unwrap_or("unknown"),
            result,
            code,
            duration: started.elapsed(),
            args: args.as_deref(),
            request_id: caller.and_then(|(_, id)| id),
            client: caller.map_or("stdio", |(c, _)| &c.name),
        });
        outcome.map(CallToolResponse::Complete)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.registry.descriptor(name)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let Some(memory) = &self.memory else {
            return Ok(ListResourcesResult::default());
        };
        let head = memory.store.run(|s| s.head()).await.ok();
        let mut result = ListResourcesResult::with_all_items(resources::list(head));
        // The three collections never change; their `as_of_tx_id` does,
        // and listeners hear `list_changed` when it moves.
        (result.ttl_ms, result.cache_scope) = cache_hint(RESOURCE_LIST_TTL_MS, &context);
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let mut result = match &self.memory {
            Some(_) => ListResourceTemplatesResult::with_all_items(resources::templates()),
            None => ListResourceTemplatesResult::default(),
        };
        (result.ttl_ms, result.cache_scope) = cache_hint(STABLE_LIST_TTL_MS, &context);
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let memory = self
            .memory
            .as_ref()
            .ok_or_else(|| unknown_resource(&request.uri))?;
        match resources::read(&memory.store, &request.uri).await {
            Ok(contents) => {
                let mut result = ReadResourceResult::new(vec![contents]);
                // A read pinned to a transaction never changes; the
                // current state may change with the next write (listen
                // for it).
                let ttl = if resources::is_pinned(&request.uri) {
                    PINNED_READ_TTL_MS
                } else {
                    0
                };
                (result.ttl_ms, result.cache_scope) = cache_hint(ttl, &context);
                Ok(result.into())
            }
            Err(resources::ReadError::UnknownUri(uri)) => Err(unknown_resource(&uri)),
            Err(resources::ReadError::Report(report)) => Err(report_error(&report)),
        }
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let memory = self
            .memory
            .as_ref()
            .ok_or_else(|| unknown_resource(&request.uri))?;
        if !resources::is_subscribable(&request.uri) {
            return Err(unknown_resource(&request.uri));
        }
        self.subscriptions
            .subscribe(request.uri, &memory.feed, context.peer.clone())
            .await;
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subscriptions.unsubscribe(&request.uri).await;
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let mut result = match &self.memory {
            Some(_) => ListPromptsResult::with_all_items(prompts::list()),
            None => ListPromptsResult::default(),
        };
        (result.ttl_ms, result.cache_scope) = cache_hint(STABLE_LIST_TTL_MS, &context);
        Ok(result)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        // Completions come with the prompts and templates they complete.
        let Some(memory) = &self.memory else {
            return Err(McpError::method_not_found::<CompleteRequestMethod>());
        };
        let connections = self
            .warm_up
            .as_ref()
            .map(|w| w.connections.as_slice())
            .unwrap_or_default();
        crate::memory::completion::complete(&memory.store, connections, request).await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        let caller = crate::tasks::caller_of_request(&context);
        self.tasks
            .get(&request.task_id, &caller)
            .await
            .map(GetTaskResult::new)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        // Lore's tasks never ask for input; unknown keys are ignored.
        let caller = crate::tasks::caller_of_request(&context);
        self.tasks
            .update(&request.task_id, request.input_responses, &caller)
            .await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let caller = crate::tasks::caller_of_request(&context);
        self.tasks.cancel(&request.task_id, &caller).await
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // Only memory has resources that change; without it, listening
        // is not offered (method not found).
        self.memory.as_ref()?;
        let mut accepted = SubscriptionFilter::new();
        accepted.resources_list_changed = requested.resources_list_changed;
        accepted.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
            uris.iter()
                .filter(|uri| resources::is_subscribable(uri))
                .cloned()
                .collect()
        });
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        match &self.memory {
            Some(memory) => crate::memory::subscriptions::listen(context, &memory.feed).await,
            None => Ok(()),
        }
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if self.memory.is_none() {
            return Err(McpError::invalid_params(
                format!("unknown prompt `{}`", request.name),
                None,
            ));
        }
        let wiki = self.discover.as_ref().and_then(|d| d.wiki());
        let always = match (wiki, request.name.as_str()) {
            (Some(wiki), "retrieve_context") => {
                let wiki = Arc::clone(wiki);
                tokio::task::spawn_blocking(move || wiki.pages())
                    .await
                    .ok()
                    .and_then(Result::ok)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|p| p.front.usage_mode == lore_context::wiki::page::UsageMode::Always)
                    .map(|p| (p.address.key, p.front.summary))
                    .collect()
            }
            _ => Vec::new(),
        };
        prompts::get(
            &request.name,
            &request.arguments.unwrap_or_default(),
            &always,
        )
        .map(GetPromptResponse::Complete)
        .map_err(|e| McpError::invalid_params(e.to_string(), None))
    }
}

/// How long a list that cannot change while the server runs (tools,
/// prompts, resource templates) may be reused: a restarted server with
/// another configuration is seen within this time.
pub const STABLE_LIST_TTL_MS: u64 = 300_000;
/// How long `resources/list` may be reused (its entries never change;
/// their `as_of_tx_id` moves with every write).
pub const RESOURCE_LIST_TTL_MS: u64 = 60_000;
/// How long a read pinned to a transaction (`as_of_tx_id`) may be reused:
/// history does not change.
pub const PINNED_READ_TTL_MS: u64 = 86_400_000;

/// The cache hint of a result (protocol 2026-07-28): `ttl_ms`, and who may
/// reuse it — anyone over stdio or an open loopback server, only this
/// caller when a token identified it (what it sees depends on its scope).
fn cache_hint(
    ttl_ms: u64,
    context: &RequestContext<RoleServer>,
) -> (Option<u64>, Option<CacheScope>) {
    let scope = if caller_of(&context.extensions).is_some() {
        CacheScope::Private
    } else {
        CacheScope::Public
    };
    (Some(ttl_ms), Some(scope))
}

/// The stable code inside an in-band tool error (`{code, message,
/// retryable}` in its first text block), as a static label.
fn error_code_of(result: &rmcp::model::CallToolResult) -> &'static str {
    result
        .content
        .first()
        .and_then(|block| block.as_text())
        .and_then(|text| serde_json::from_str::<ErrorReport>(&text.text).ok())
        .map_or(ErrorCode::Internal.as_str(), |report| report.code.as_str())
}

/// MCP's "resource not found" (-32002), with the URIs that do exist.
fn unknown_resource(uri: &str) -> McpError {
    McpError::resource_not_found(
        format!(
            "no resource `{uri}`; resources/list shows {}, {} and {}",
            resources::ENTRIES_URI,
            resources::TRIPLES_URI,
            resources::HISTORY_URI
        ),
        None,
    )
}

/// A resource read's failure as a JSON-RPC error carrying the public
/// `{code, message, retryable}` in its data.
fn report_error(report: &lore_core::ErrorReport) -> McpError {
    let data = serde_json::to_value(report).ok();
    if report.code == lore_core::ErrorCode::InvalidRequest {
        McpError::invalid_params(report.message.clone(), data)
    } else {
        McpError::internal_error(report.message.clone(), data)
    }
}

/// Keeps the mirrored files (wiki pages, semantic-layer sources) in step
/// with every committed transaction, from this process or another (an
/// undo of a page's entry rewrites its file; an undo of a model write
/// takes its files back).
async fn mirror_files(
    discover: Arc<lore_context::discover::Discover>,
    feed: Arc<lore_store::feed::ChangeFeed>,
) {
    let wiki = discover.wiki().cloned();
    let models = discover.model_files().cloned();
    if wiki.is_none() && models.is_none() {
        return;
    }
    let mut events = feed.listen().await;
    loop {
        match events.recv().await {
            Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                let (wiki, models) = (wiki.clone(), models.clone());
                let synced = tokio::task::spawn_blocking(move || {
                    if let Some(wiki) = wiki.filter(|w| w.exists())
                        && let Err(e) = wiki.refresh()
                    {
                        tracing::warn!("wiki mirror: {e}");
                    }
                    if let Some(models) = models
                        && let Err(e) = models.refresh()
                    {
                        tracing::warn!("semantic-layer mirror: {e}");
                    }
                })
                .await;
                if let Err(e) = synced {
                    tracing::warn!("file mirror: {e}");
                }
            }
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// Runs one call so that a panic inside it becomes an `Err` with the panic
/// message instead of tearing down the task that serves the session.
async fn isolated<T>(tool: &str, call: impl std::future::Future<Output = T>) -> Result<T, String> {
    use futures_util::FutureExt;
    #[cfg(debug_assertions)]
    let call = async {
        // Fault injection for the isolation tests (debug builds only): a
        // call of the tool this variable names panics.
        if std::env::var("LORE_TEST_PANIC_IN_TOOL").is_ok_and(|name| name == tool) {
            panic!("injected by LORE_TEST_PANIC_IN_TOOL");
        }
        call.await
    };
    #[cfg(not(debug_assertions))]
    let _ = tool;
    std::panic::AssertUnwindSafe(call)
        .catch_unwind()
        .await
        .map_err(|payload| crate::panics::panic_message(payload.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolkit::{Tool, ToolContext, ToolDefinition};
    use rmcp::ServiceExt;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// A tool whose work never ends (a query stuck on a lock, say).
    struct Stuck;

    #[derive(Deserialize, JsonSchema)]
    struct NoInput {}

    #[derive(Serialize, JsonSchema)]
    struct Nothing {}

    impl Tool for Stuck {
        type Input = NoInput;
        type Output = Nothing;
        const DEFINITION: ToolDefinition = ToolDefinition {
            name: "stuck",
            title: "Stuck",
            description: "Never finishes.",
            read_only: true,
            destructive: false,
            idempotent: Some(true),
            open_world: false,
            scope: Scope::Reader,
        };
        async fn call(&self, _: NoInput, _: ToolContext) -> Result<Nothing, ErrorReport> {
            std::future::pending().await
        }
    }

    #[tokio::test]
    async fn cutting_off_answers_every_running_call_with_a_retryable_unavailable() {
        let mut registry = ToolRegistry::new();
        registry.register(Stuck);
        let server = LoreServer::new(registry);
        let cut_off = server.call_cut_off();
        let telemetry = server.telemetry();
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        // Two sessions of one server, each with a call running.
        let (second_server_io, second_client_io) = tokio::io::duplex(64 * 1024);
        let second = server.for_session();
        for (server, io) in [(server, server_io), (second, second_server_io)] {
            tokio::spawn(async move {
                if let Ok(running) = server.serve(io).await {
                    let _ = running.waiting().await;
                }
            });
        }
        let client = ().serve(client_io).await.unwrap();
        let other = ().serve(second_client_io).await.unwrap();
        let first_call = client.call_tool(CallToolRequestParams::new("stuck"));
        let second_call = other.call_tool(CallToolRequestParams::new("stuck"));
        let cut = async {
            while telemetry.in_flight() < 2 {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
            cut_off.cancel();
        };
        let (first, second, ()) = tokio::time::timeout(std::time::Duration::from_secs(10), async {
            tokio::join!(first_call, second_call, cut)
        })
        .await
        .expect("the cut-off calls never answered");
        for result in [first.unwrap(), second.unwrap()] {
            assert_eq!(result.is_error, Some(true));
            let report: serde_json::Value =
                serde_json::from_str(&result.content[0].as_text().unwrap().text).unwrap();
            assert_eq!(report["code"], "unavailable", "{report}");
            assert_eq!(report["retryable"], true);
        }
        assert_eq!(telemetry.in_flight(), 0);
    }
}
