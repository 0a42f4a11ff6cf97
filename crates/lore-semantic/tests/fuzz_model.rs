//! Generated hostile model files: YAML token soup, anchor/alias bombs,
//! deep flow and block nesting, measures and joins made of long operator
//! chains, NUL bytes, odd Unicode and bytes that are not UTF-8. Loading
//! answers each with a model or a `config_error` / `invalid_sql` saying
//! which file, on a test thread's 2 MiB stack, never a panic.

use lore_core::error::{ErrorCode, HasErrorCode};
use lore_semantic::model::{load_dir, load_sources};
use proptest::prelude::*;

const TOKENS: &[&str] = &[
    "- ",
    "name: ",
    "table: ",
    "sql: ",
    "grain: ",
    "columns:",
    "measures:",
    "joins:",
    "segments:",
    "expr: ",
    "type: ",
    "number",
    "string",
    "time",
    "to: ",
    "on: ",
    "relationship: ",
    "many_to_one",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "\n",
    "  ",
    "    ",
    "&a ",
    "*a",
    "<<: ",
    "!!str ",
    "!!binary ",
    "'",
    "\"",
    "---\n",
    "...\n",
    "# c\n",
    "\u{0}",
    "é",
    "\u{feff}",
    "sum(",
    "count(*)",
    ")",
    "orders",
    "orders.amount",
    "|\n",
    ">\n",
    "? ",
    "%YAML 1.2\n",
    "\t",
    "~",
    "null",
    "1e999",
    "-1",
    "0x1F",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..120).prop_map(|t| t.concat())
}

/// Each anchor a list of ten aliases of the one before: 10^levels nodes
/// if expanded.
fn alias_bomb(levels: usize) -> String {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..=levels {
        let prev = format!("*a{}", i - 1);
        text.push_str(&format!("a{i}: &a{i} [{}]\n", vec![prev; 10].join(", ")));
    }
    text.push_str(&format!("name: *a{levels}\ntable: t\n"));
    text
}

fn block_nesting(depth: usize) -> String {
    let mut text = String::from("name: t\ntable: t\nmeta:\n");
    for i in 0..depth {
        text.push_str(&"  ".repeat(i + 1));
        text.push_str("k:\n");
    }
    text
}

/// A source whose measure, dimension, segment or join condition is a flat
/// chain of `terms` operands.
fn chained(slot: usize, op: &str, terms: usize) -> String {
    let chain = vec!["amount"; terms].join(op);
    let mut source = String::from(
        "name: orders\ntable: orders\ngrain: [id]\ncolumns:\n  - { name: id, type: number }\n  - { name: amount, type: number }\n",
    );
    match slot {
        0 => source.push_str(&format!("measures:\n  - name: m\n    expr: \"sum({chain})\"\n")),
        1 => source.push_str(&format!("  - name: d\n    type: number\n    expr: \"{chain}\"\n")),
        2 => source.push_str(&format!("segments:\n  - name: s\n    expr: \"{chain} > 0\"\n")),
        _ => source.push_str(&format!(
            "joins:\n  - {{ to: orders, \"on\": \"{chain} = orders.id\", relationship: many_to_one }}\n"
        )),
    }
    source
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        soup(),
        (1usize..12).prop_map(alias_bomb),
        (1usize..5_000).prop_map(|n| format!("name: {}x{}", "[".repeat(n), "]".repeat(n))),
        (1usize..5_000).prop_map(|n| format!("name: {}x{}", "{a: ".repeat(n), "}".repeat(n))),
        (1usize..600).prop_map(block_nesting),
        (
            0usize..4,
            prop::sample::select(&[" + ", " * ", " OR ", " AND ", " || ", " = "][..]),
            1usize..6_000
        )
            .prop_map(|(slot, op, n)| chained(slot, op, n)),
        "\\PC{0,200}",
    ]
}

fn assert_stable(
    result: Result<impl Sized, lore_semantic::error::SemanticError>,
) -> Result<(), TestCaseError> {
    if let Err(error) = result {
        prop_assert!(
            matches!(error.code(), ErrorCode::ConfigError | ErrorCode::InvalidSql),
            "{:?}: {error}",
            error.code()
        );
        prop_assert!(!error.to_string().is_empty());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_model_file_loads_or_gets_a_stable_code(text in text(), second in soup()) {
        assert_stable(load_sources(vec![("a.yaml".into(), text), ("b.yaml".into(), second)]))?;
    }

    #[test]
    fn any_bytes_in_a_model_folder_load_or_get_a_stable_code(
        bytes in prop::collection::vec(any::<u8>(), 0..400),
        prefix in soup(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut content = prefix.into_bytes();
        content.extend(bytes);
        std::fs::write(dir.path().join("m.yaml"), &content).unwrap();
        assert_stable(load_dir(dir.path()))?;
    }
}

#[test]
fn a_file_that_is_not_utf8_is_named_in_the_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.yaml"), b"name: \xff\xfe orders\n").unwrap();
    let error = load_dir(dir.path()).unwrap_err();
    assert_eq!(error.code(), ErrorCode::ConfigError);
    assert!(error.to_string().contains("bad.yaml"), "{error}");
}

#[test]
fn an_alias_bomb_is_refused_not_expanded() {
    let error = load_sources(vec![("bomb.yaml".into(), alias_bomb(9))]).unwrap_err();
    assert_eq!(error.code(), ErrorCode::ConfigError, "{error}");
}

#[test]
fn a_measure_chained_past_the_depth_limit_is_a_model_error_naming_the_limit() {
    let error = load_sources(vec![("deep.yaml".into(), chained(0, " + ", 5_000))]).unwrap_err();
    assert_eq!(error.code(), ErrorCode::ConfigError, "{error}");
    assert!(error.to_string().contains("deep.yaml"), "{error}");
    assert!(error.to_string().contains("sql_depth"), "{error}");
}
