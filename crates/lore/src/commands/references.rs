//! `lore gateway references`: a symbol's definitions, callers and callees
//! (what km-graph-references answers), printed one site a line.

use lore_gateway::Gateway;
use lore_gateway::graph::references::{ReferenceOut, ReferencesAnswer};

/// Prints the definitions `symbol` names, their callers and callees.
pub fn run(
    gateway: &Gateway,
    symbol: &str,
    roots: &[String],
    limit: usize,
    json: bool,
) -> anyhow::Result<()> {
    let answer = gateway
        .references(symbol, roots, Some(limit))
        .map_err(|e| super::coded(&e))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&answer)?);
    } else {
        print(&answer);
    }
    Ok(())
}

fn print(answer: &ReferencesAnswer) {
    if answer.ambiguous {
        println!(
            "`{}` names {} definitions; callers and callees are of all of them",
            answer.symbol, answer.total_definitions
        );
    }
    for d in &answer.definitions {
        println!(
            "{} {}  {}:{}-{}",
            d.kind, d.qualified_name, d.path, d.start_line, d.end_line
        );
    }
    section("callers", &answer.callers, answer.total_callers);
    if answer.total_type_uses > 0 {
        section("used as a type", &answer.type_uses, answer.total_type_uses);
    }
    section("callees", &answer.callees, answer.total_callees);
}

fn section(title: &str, sites: &[ReferenceOut], total: usize) {
    let shown = if sites.len() < total {
        format!(" ({} of {total})", sites.len())
    } else {
        String::new()
    };
    println!("\n{title}{shown}:");
    if sites.is_empty() {
        println!("  none the graph knows");
    }
    for site in sites {
        println!(
            "  {}:{}  {}  `{}`  [{}]",
            site.path,
            site.line,
            site.node,
            site.called_as,
            site.resolution.as_str()
        );
    }
}
