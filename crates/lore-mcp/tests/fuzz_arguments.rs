//! Generated tool arguments: every tool's argument checking (the drift
//! rules, unknown arguments, NUL bytes, decoding, the tool's own checks)
//! answers any JSON object with "the call goes ahead" or an
//! `invalid_arguments` report naming the tool, never a panic. Values mix
//! the tools' real argument names with foreign ones, every JSON type,
//! nesting up to the wire parser's depth, huge numbers, NUL bytes and odd
//! Unicode.

use lore_core::ErrorCode;
use lore_core::project::Project;
use lore_mcp::LoreServer;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn server() -> (tempfile::TempDir, LoreServer) {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::state_only(dir.path());
    let server = LoreServer::for_project(&project);
    (dir, server)
}

/// Every argument name some tool takes, the spellings models drift to,
/// and names no tool takes.
fn names(server: &LoreServer) -> Vec<String> {
    let mut names: Vec<String> = server
        .tools()
        .iter()
        .filter_map(|t| t.input_schema.get("properties")?.as_object().cloned())
        .flat_map(|p| p.keys().cloned().collect::<Vec<_>>())
        .collect();
    names.extend(
        [
            "connection",
            "connection_id",
            "txId",
            "orderBy",
            "query",
            "arguments",
            "params",
            "",
            "é\u{0}",
            "__proto__",
        ]
        .map(String::from),
    );
    names.sort();
    names.dedup();
    names
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        "\\PC{0,40}".prop_map(Value::String),
        "[a-z_.]{0,12}\u{0}[a-z]{0,4}".prop_map(Value::String),
        (1usize..200_000).prop_map(|n| Value::String("x".repeat(n))),
        Just(json!("invoices.revenue")),
        Just(json!("warehouse")),
        Just(json!("e-1")),
    ]
}

fn value(names: Vec<String>) -> impl Strategy<Value = Value> {
    scalar().prop_recursive(6, 64, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(names.clone()), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

/// An array nested `depth` deep (the wire parser stops at 128).
fn nested(depth: usize) -> Value {
    (0..depth).fold(json!(1), |v, _| Value::Array(vec![v]))
}

fn arguments(names: Vec<String>) -> impl Strategy<Value = Map<String, Value>> {
    prop_oneof![
        prop::collection::vec(
            (prop::sample::select(names.clone()), value(names.clone())),
            0..8
        )
        .prop_map(|pairs| pairs.into_iter().collect()),
        (prop::sample::select(names), 1usize..127).prop_map(|(name, depth)| [(
            name,
            nested(depth)
        )]
        .into_iter()
        .collect()),
    ]
}

#[test]
fn any_arguments_reach_the_tool_or_get_invalid_arguments() {
    let (_dir, server) = server();
    let tools: Vec<String> = server.tools().iter().map(|t| t.name.to_string()).collect();
    assert!(tools.len() >= 18, "{tools:?}");
    let names = names(&server);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 512,
        ..ProptestConfig::default()
    });
    let strategy = (prop::sample::select(tools), arguments(names));
    runner
        .run(&strategy, |(tool, arguments)| {
            if let Err(report) = server.check_arguments(&tool, arguments.clone()) {
                prop_assert_eq!(
                    report.code,
                    ErrorCode::InvalidArguments,
                    "{}",
                    report.message
                );
                prop_assert!(
                    report.message.starts_with(&format!("{tool}: "))
                        && report.message.len() > tool.len() + 10,
                    "{tool} {arguments:?}: {}",
                    report.message
                );
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_generated_unknown_argument_or_nul_byte_is_named() {
    let (_dir, server) = server();
    let valid = json!({"connectionId": "warehouse", "sql": "SELECT 1"});
    let valid = valid.as_object().unwrap();
    assert!(
        server
            .check_arguments("sql_execution", valid.clone())
            .is_ok()
    );
    proptest!(ProptestConfig { cases: 256, ..ProptestConfig::default() }, |(name in "[a-zA-Z][a-zA-Z0-9_]{0,20}", text in "\\PC{0,20}")| {
        let mut with = valid.clone();
        // Spellings of a real argument are accepted by the drift rules.
        let folded = name.to_lowercase().replace('_', "");
        prop_assume!(!["connectionid", "connection", "sql", "maxrows"].contains(&folded.as_str()));
        with.insert(name.clone(), json!(1));
        let report = server.check_arguments("sql_execution", with).unwrap_err();
        prop_assert_eq!(report.code, ErrorCode::InvalidArguments);
        prop_assert!(report.message.contains(&format!("`{name}`")), "{}", report.message);

        let mut nul = valid.clone();
        nul.insert("sql".into(), json!(format!("SELECT 1 {text}\u{0}")));
        let report = server.check_arguments("sql_execution", nul).unwrap_err();
        prop_assert!(report.message.contains("`sql` contains a NUL byte"), "{}", report.message);
    });
}
