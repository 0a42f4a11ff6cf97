//! What the tool definitions cost a model on every request: the bytes of
//! each tool's name, description and input schema as compact JSON, per
//! toolset, and what `tools/list` weighs on the wire with the output
//! schemas. The analytics and memory toolsets together — spec 000's
//! eleven analytics tools with `memory_ingest`, `wiki_write` and the
//! memory toolset's eight — must stay within 21,000 bytes (about 5,300
//! tokens) without output schemas and 48,000 bytes with them; run with
//! `--nocapture` to see the figures per tool (recorded in BENCHMARKS.md).

use lore_core::project::Project;
use lore_mcp::LoreServer;

/// The most the analytics and memory definitions may take together.
const BUDGET_BYTES: usize = 21_000;

/// The most `tools/list` may take on the wire (the result object, compact).
/// 48,000 until output schemas accepted a failed call's `{"error": …}`
/// (2026-11-28: about 60 bytes a tool).
const WIRE_BUDGET_BYTES: usize = 49_000;

/// The most one tool's output schema may take.
const OUTPUT_SCHEMA_BUDGET_BYTES: usize = 4_000;

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

fn compact_len(value: &impl serde::Serialize) -> usize {
    serde_json::to_string(value).unwrap().len()
}

#[test]
fn the_tool_definitions_fit_the_context_budget() {
    let project = Project::state_only(&std::env::temp_dir());
    let tools = LoreServer::for_project(&project).tools();
    let (mut analytics, mut memory) = (0, 0);
    let mut rows = Vec::new();
    for tool in &tools {
        let definition = serde_json::json!({
            "name": tool.name,
            "description": tool.description,
            "inputSchema": tool.input_schema.as_ref(),
        });
        let bytes = compact_len(&definition);
        if MEMORY_TOOLS.contains(&tool.name.as_ref()) {
            memory += bytes;
        } else {
            analytics += bytes;
        }
        let input = compact_len(tool.input_schema.as_ref());
        let output = tool
            .output_schema
            .as_ref()
            .map_or(0, |s| compact_len(s.as_ref()));
        rows.push((
            compact_len(tool),
            input,
            output,
            bytes,
            tool.name.to_string(),
        ));
    }
    rows.sort_by(|a, b| b.cmp(a));
    println!(
        "{:<22} {:>7} {:>7} {:>7} {:>11}",
        "tool", "entry", "input", "output", "no output"
    );
    for (entry, input, output, definition, name) in &rows {
        println!("{name:<22} {entry:>7} {input:>7} {output:>7} {definition:>11}");
    }
    let wire = compact_len(&rmcp::model::ListToolsResult::with_all_items(tools.clone()));
    let inputs: usize = rows.iter().map(|r| r.1).sum();
    let outputs: usize = rows.iter().map(|r| r.2).sum();
    println!(
        "tools/list {wire} bytes on the wire (input schemas {inputs}, output schemas {outputs}); without output schemas: analytics {analytics}, memory {memory}, together {} of {BUDGET_BYTES}",
        analytics + memory
    );
    assert_eq!(tools.len(), 20, "a tool was added: count it in a toolset");
    assert!(
        analytics + memory <= BUDGET_BYTES,
        "the definitions take {} bytes, over the {BUDGET_BYTES}-byte budget: say each thing once (field descriptions in the schema, the workflow in the skill)",
        analytics + memory
    );
    assert!(
        wire <= WIRE_BUDGET_BYTES,
        "tools/list takes {wire} bytes, over the {WIRE_BUDGET_BYTES}-byte budget"
    );
    for (_, _, output, _, name) in &rows {
        assert!(
            *output <= OUTPUT_SCHEMA_BUDGET_BYTES,
            "{name}'s output schema takes {output} bytes, over {OUTPUT_SCHEMA_BUDGET_BYTES}: describe the answer's fields once, not the types inside them"
        );
    }
}
