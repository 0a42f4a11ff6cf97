//! The MCP server handler: answers `initialize`, `tools/list` and
//! `tools/call` from a [`ToolRegistry`]. It is cheap to clone, so the HTTP
//! transport can hand one to every session.

use std::sync::Arc;

use lore_core::project::Project;
use lore_semantic::model::ModelCache;
use lore_warehouse::catalog::Catalog;
use lore_warehouse::execute::Warehouses;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use crate::analytics::register_analytics_tools;
use crate::toolkit::ToolRegistry;

const INSTRUCTIONS: &str = "Lore gives you the context to work on this project's data. \
Start with connection_list to see the warehouses. Never guess table or column names: read them with entity_details, and find which column holds a value the user named with dictionary_search (a miss there is not proof of absence). \
For metrics, prefer the semantic layer when the connection has one: sl_read_source shows a source's approved measures and dimensions, and sl_query computes them with correct joins (no double counting). \
Otherwise query with sql_execution (read-only: writes are refused). \
Prefer aggregates and LIMIT over pulling raw rows; results say truncated: true when capped. \
Errors come back as JSON {code, message, retryable}: fix the input for codes like invalid_sql or read_only_violation, retry only when retryable is true.";

/// Lore's MCP server.
#[derive(Clone)]
pub struct LoreServer {
    registry: Arc<ToolRegistry>,
    warm_up: Option<Arc<WarmUp>>,
}

/// Loads the catalog once, after the first client finished its handshake
/// (so start-up answers first and the first catalog call finds it loaded).
struct WarmUp {
    catalog: Arc<Catalog>,
    connections: Vec<String>,
    started: std::sync::Once,
}

impl LoreServer {
    /// A server over an explicit registry.
    pub fn new(registry: ToolRegistry) -> LoreServer {
        LoreServer {
            registry: Arc::new(registry),
            warm_up: None,
        }
    }

    /// The server for a loaded project, with every toolset registered.
    pub fn for_project(project: &Project) -> LoreServer {
        let warehouses = Arc::new(Warehouses::for_project(project));
        let catalog = Arc::new(Catalog::new(&project.root));
        let warm_up = WarmUp {
            catalog: Arc::clone(&catalog),
            connections: warehouses.ids(),
            started: std::sync::Once::new(),
        };
        let mut registry = ToolRegistry::new();
        let models = Arc::new(ModelCache::new(&project.root.join("semantic-layer")));
        register_analytics_tools(&mut registry, warehouses, catalog, models);
        LoreServer {
            warm_up: Some(Arc::new(warm_up)),
            ..LoreServer::new(registry)
        }
    }

    /// The `tools/list` entries.
    pub fn tools(&self) -> Vec<Tool> {
        self.registry.descriptors()
    }
}

impl ServerHandler for LoreServer {
    async fn on_initialized(&self, _context: rmcp::service::NotificationContext<RoleServer>) {
        if let Some(warm_up) = &self.warm_up {
            warm_up
                .started
                .call_once(|| warm_up.catalog.warm(warm_up.connections.clone()));
        }
    }

    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools().build();
        InitializeResult::new(capabilities)
            .with_server_info(
                Implementation::new("lore", env!("CARGO_PKG_VERSION")).with_title("Lore"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.registry.descriptors()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.registry
            .call(&request.name, request.arguments, &context)
            .await
            .map(CallToolResponse::Complete)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.registry.descriptor(name)
    }
}
