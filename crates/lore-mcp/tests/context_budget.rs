//! What the tool definitions cost a model on every request: the bytes of
//! each tool's name, description and input schema as compact JSON, per
//! toolset. The analytics and memory toolsets together — spec 000's
//! eleven analytics tools with `memory_ingest`, `wiki_write` and the
//! memory toolset's eight — must stay within 21,000 bytes (about 5,300
//! tokens); run with `--nocapture` to see the figures (recorded in
//! BENCHMARKS.md).

use lore_core::project::Project;
use lore_mcp::LoreServer;

/// The most the analytics and memory definitions may take together.
const BUDGET_BYTES: usize = 21_000;

const MEMORY_TOOLS: [&str; 8] = [
    "store",
    "update",
    "query",
    "delete",
    "relate",
    "query_graph",
    "undo",
    "history",
];

#[test]
fn the_tool_definitions_fit_the_context_budget() {
    let project = Project::state_only(&std::env::temp_dir());
    let tools = LoreServer::for_project(&project).tools();
    let (mut analytics, mut memory) = (0, 0);
    for tool in &tools {
        let definition = serde_json::json!({
            "name": tool.name,
            "description": tool.description,
            "inputSchema": tool.input_schema.as_ref(),
        });
        let bytes = serde_json::to_string(&definition).unwrap().len();
        println!("{:<18} {bytes:>6} bytes", tool.name);
        if MEMORY_TOOLS.contains(&tool.name.as_ref()) {
            memory += bytes;
        } else {
            analytics += bytes;
        }
    }
    println!(
        "analytics {analytics} bytes, memory {memory} bytes, together {} of {BUDGET_BYTES}",
        analytics + memory
    );
    assert_eq!(tools.len(), 20, "a tool was added: count it in a toolset");
    assert!(
        analytics + memory <= BUDGET_BYTES,
        "the definitions take {} bytes, over the {BUDGET_BYTES}-byte budget: say each thing once (field descriptions in the schema, the workflow in the skill)",
        analytics + memory
    );
}
