//! What the index holds for each kind (wiki pages: see
//! [`crate::wiki::page_doc`]), and the `summary` / `snippet` each
//! result shows, derived only from stored fields (never invented):
//!
//! | kind | summary | snippet |
//! |---|---|---|
//! | table | its comment | around the match in the comment; else up to 5 column names |
//! | column | its comment | the comment; for a sample-value match `type · samples: …`; else its type |
//! | sl_source | its description | around the match in the description; else up to 5 measure names |
//! | sl_measure | its description | its expression |
//! | sl_dimension | its description | `name (type)` |
//! | wiki | its front matter `summary` | around the match in the body; the body's start for a key or title match |
//!
//! Snippets are at most 200 characters, cut without an ellipsis.

use lore_search::{DocKind, MatchField, SearchDoc};
use lore_semantic::model::{ColumnType, Relation, SemanticModel};
use lore_warehouse::catalog::LoadedSnapshot;
use lore_warehouse::schema::{SchemaTable, qualified_name};
use serde_json::{Value, json};

/// The longest snippet.
pub const SNIPPET_CHARS: usize = 200;

/// How many sample values a column snippet lists.
const SAMPLES_SHOWN: usize = 5;

/// The documents of one connection's latest scan: its tables and columns.
pub fn schema_docs(connection: &str, snapshot: &LoadedSnapshot) -> Vec<SearchDoc> {
    let mut docs = Vec::new();
    for (t, table) in snapshot.tables.iter().enumerate() {
        docs.push(table_doc(connection, snapshot, t));
        for c in 0..table.columns.len() {
            docs.push(column_doc(connection, snapshot, t, c));
        }
    }
    docs
}

/// A table's display name and its `tableRef` payload.
fn identity(table: &SchemaTable) -> (String, Value) {
    let display = qualified_name(table.catalog.as_deref(), table.db.as_deref(), &table.name);
    let table_ref = json!({"catalog": table.catalog, "db": table.db, "name": table.name});
    (display, table_ref)
}

/// The document of table `t` of a scan.
pub fn table_doc(connection: &str, snapshot: &LoadedSnapshot, t: usize) -> SearchDoc {
    let table = &snapshot.tables[t];
    let (display, table_ref) = identity(table);
    let mut fields = vec![(MatchField::Name, table.name.clone())];
    if display != table.name {
        fields.push((MatchField::Display, display.clone()));
    }
    if let Some(comment) = &table.comment {
        fields.push((MatchField::Comment, comment.clone()));
    }
    let columns: Vec<&str> = table
        .columns
        .iter()
        .take(5)
        .map(|c| c.name.as_str())
        .collect();
    SearchDoc {
        kind: DocKind::Table,
        connection: Some(connection.to_string()),
        id: display,
        fields,
        payload: json!({"tableRef": table_ref, "comment": table.comment, "columns": columns}),
    }
}

/// The document of column `c` of table `t` of a scan.
pub fn column_doc(connection: &str, snapshot: &LoadedSnapshot, t: usize, c: usize) -> SearchDoc {
    let table = &snapshot.tables[t];
    let column = &table.columns[c];
    let (display, table_ref) = identity(table);
    let samples: Vec<String> = snapshot
        .column_stats(t, c)
        .map(|s| {
            s.sample_values
                .iter()
                .take(SAMPLES_SHOWN)
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let mut fields = vec![
        (MatchField::Name, column.name.clone()),
        (
            MatchField::Display,
            format!("{} {}", table.name, column.name),
        ),
    ];
    if let Some(comment) = &column.comment {
        fields.push((MatchField::Comment, comment.clone()));
    }
    if !samples.is_empty() {
        fields.push((MatchField::SampleValue, samples.join(" ; ")));
    }
    SearchDoc {
        kind: DocKind::Column,
        connection: Some(connection.to_string()),
        id: format!("{display}.{}", column.name),
        fields,
        payload: json!({
            "tableRef": table_ref,
            "columnName": column.name,
            "nativeType": column.native_type,
            "comment": column.comment,
            "samples": samples,
        }),
    }
}

fn type_name(t: ColumnType) -> &'static str {
    match t {
        ColumnType::String => "string",
        ColumnType::Number => "number",
        ColumnType::Time => "time",
        ColumnType::Boolean => "boolean",
    }
}

/// The documents of one connection's semantic model: sources, measures
/// and (visible) dimensions.
pub fn semantic_docs(connection: &str, model: &SemanticModel) -> Vec<SearchDoc> {
    let mut docs = Vec::new();
    for source in &model.sources {
        let mut fields = vec![(MatchField::Name, source.name.clone())];
        if let Relation::Table(table) = &source.relation {
            fields.push((MatchField::Display, table.clone()));
        }
        if let Some(description) = &source.description {
            fields.push((MatchField::Description, description.clone()));
        }
        let measures: Vec<&str> = source
            .measures
            .iter()
            .take(5)
            .map(|m| m.name.as_str())
            .collect();
        docs.push(SearchDoc {
            kind: DocKind::SlSource,
            connection: Some(connection.to_string()),
            id: source.name.clone(),
            fields,
            payload: json!({"description": source.description, "measures": measures}),
        });
        for measure in &source.measures {
            let id = format!("{}.{}", source.name, measure.name);
            // A conversion measure's own expression is its base rows'.
            let expr = match &measure.conversion {
                Some(c) => format!(
                    "{} ({})",
                    c.describe(&source.name, model),
                    c.calculation.as_str()
                ),
                None => measure.expr.text.clone(),
            };
            let mut fields = vec![
                (MatchField::Name, measure.name.clone()),
                (
                    MatchField::Display,
                    format!("{} {}", source.name, measure.name),
                ),
                (MatchField::Expr, expr.clone()),
            ];
            if let Some(description) = &measure.description {
                fields.push((MatchField::Description, description.clone()));
            }
            docs.push(SearchDoc {
                kind: DocKind::SlMeasure,
                connection: Some(connection.to_string()),
                id,
                fields,
                payload: json!({"description": measure.description, "expr": expr}),
            });
        }
        for column in &source.columns {
            if matches!(column.visibility, lore_semantic::model::Visibility::Hidden) {
                continue;
            }
            let id = format!("{}.{}", source.name, column.name);
            let mut fields = vec![
                (MatchField::Name, column.name.clone()),
                (
                    MatchField::Display,
                    format!("{} {}", source.name, column.name),
                ),
            ];
            if let Some(description) = &column.description {
                fields.push((MatchField::Description, description.clone()));
            }
            if let Some(expr) = &column.expr {
                fields.push((MatchField::Expr, expr.text.clone()));
            }
            docs.push(SearchDoc {
                kind: DocKind::SlDimension,
                connection: Some(connection.to_string()),
                id,
                fields,
                payload: json!({
                    "description": column.description,
                    "name": column.name,
                    "type": type_name(column.column_type),
                }),
            });
        }
    }
    docs
}

/// At most [`SNIPPET_CHARS`] characters, cut on a character boundary.
pub fn cap(text: &str) -> String {
    text.chars().take(SNIPPET_CHARS).collect()
}

/// A window of `text` around the first query word it contains (from a
/// little before it), or its start.
pub fn window(text: &str, words: &[String]) -> String {
    let lower = text.to_lowercase();
    let first = words
        .iter()
        .filter(|w| !w.is_empty())
        .filter_map(|w| lower.find(w.as_str()))
        .min();
    let start_char = match first {
        // Byte offset in the lower-cased text → character count (same
        // characters before it in the original for all but rare case maps).
        Some(byte) => lower[..byte].chars().count().saturating_sub(40),
        None => 0,
    };
    let chars: Vec<char> = text.chars().collect();
    let start = if chars.len() <= SNIPPET_CHARS {
        0
    } else {
        start_char.min(chars.len() - SNIPPET_CHARS)
    };
    chars[start..].iter().take(SNIPPET_CHARS).collect()
}

fn text_of(value: &Value, key: &str) -> Option<String> {
    value
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(String::from)
}

fn list_of(value: &Value, key: &str) -> Vec<String> {
    value
        .get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// `(summary, snippet)` of a hit, per the table above.
pub fn provenance(
    kind: DocKind,
    matched_on: MatchField,
    payload: &Value,
    words: &[String],
) -> (Option<String>, Option<String>) {
    match kind {
        DocKind::Table => {
            let comment = text_of(payload, "comment");
            let snippet = match (matched_on, &comment) {
                (MatchField::Description | MatchField::Comment, Some(c)) => Some(window(c, words)),
                _ => {
                    let columns = list_of(payload, "columns");
                    (!columns.is_empty()).then(|| cap(&columns.join(", ")))
                }
            };
            (comment, snippet)
        }
        DocKind::Column => {
            let comment = text_of(payload, "comment");
            let native = text_of(payload, "nativeType").unwrap_or_default();
            let snippet = match matched_on {
                MatchField::Description | MatchField::Comment if comment.is_some() => {
                    comment.as_deref().map(cap)
                }
                MatchField::SampleValue => Some(cap(&format!(
                    "{native} · samples: {}",
                    list_of(payload, "samples").join(", ")
                ))),
                _ => (!native.is_empty()).then(|| cap(&native)),
            };
            (comment, snippet)
        }
        DocKind::SlSource => {
            let description = text_of(payload, "description");
            let snippet = match (matched_on, &description) {
                (MatchField::Description, Some(d)) => Some(window(d, words)),
                _ => {
                    let measures = list_of(payload, "measures");
                    (!measures.is_empty())
                        .then(|| cap(&format!("measures: {}", measures.join(", "))))
                }
            };
            (description, snippet)
        }
        DocKind::SlMeasure => (
            text_of(payload, "description"),
            text_of(payload, "expr").map(|e| cap(&e)),
        ),
        DocKind::SlDimension => {
            let snippet = match (text_of(payload, "name"), text_of(payload, "type")) {
                (Some(name), Some(t)) => Some(cap(&format!("{name} ({t})"))),
                _ => None,
            };
            (text_of(payload, "description"), snippet)
        }
        DocKind::Wiki | DocKind::Entry => {
            let summary = text_of(payload, "summary");
            // Markdown line breaks and indentation carry no meaning in a
            // one-line snippet.
            let body = text_of(payload, "body")
                .map(|b| b.split_whitespace().collect::<Vec<_>>().join(" "));
            let snippet = body.map(|body| match matched_on {
                MatchField::Name | MatchField::Display => cap(&body),
                _ => window(&body, words),
            });
            (summary, snippet)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_are_capped_and_centred_on_the_match() {
        let long = format!(
            "{} the revenue is net of refunds {}",
            "x".repeat(300),
            "y".repeat(300)
        );
        let w = window(&long, &["revenue".to_string()]);
        assert_eq!(w.chars().count(), SNIPPET_CHARS);
        assert!(w.contains("revenue is net of refunds"));
        assert_eq!(window("short text", &["zzz".to_string()]), "short text");
        assert_eq!(cap(&"é".repeat(300)).chars().count(), SNIPPET_CHARS);
    }

    #[test]
    fn each_kind_shows_its_own_stored_fields() {
        let column = json!({"comment": null, "nativeType": "TEXT", "samples": ["Starter", "Pro"]});
        let (summary, snippet) = provenance(DocKind::Column, MatchField::SampleValue, &column, &[]);
        assert_eq!(summary, None);
        assert_eq!(snippet.as_deref(), Some("TEXT · samples: Starter, Pro"));
        let (_, snippet) = provenance(DocKind::Column, MatchField::Name, &column, &[]);
        assert_eq!(snippet.as_deref(), Some("TEXT"));
        let table = json!({"comment": null, "columns": ["id", "name"]});
        assert_eq!(
            provenance(DocKind::Table, MatchField::Name, &table, &[])
                .1
                .as_deref(),
            Some("id, name")
        );
        let measure =
            json!({"description": "Recognised revenue", "expr": "sum(total_cents) / 100.0"});
        let (summary, snippet) = provenance(DocKind::SlMeasure, MatchField::Name, &measure, &[]);
        assert_eq!(summary.as_deref(), Some("Recognised revenue"));
        assert_eq!(snippet.as_deref(), Some("sum(total_cents) / 100.0"));
    }

    #[test]
    fn a_conversion_measure_is_shown_as_what_it_matches() {
        let model = lore_semantic::model::load_sources(vec![(
            std::path::PathBuf::from("m.yaml"),
            r#"
- name: visits
  table: visits
  columns: [{ name: customer_id, type: number }, { name: at, type: time }]
  measures:
    - { name: visits, expr: "count(*)" }
    - { name: visit_to_order, conversion: { base: visits, conversion: orders.orders, entity: customer_id, window: 7 days } }
- name: orders
  table: orders
  columns: [{ name: customer_id, type: number }, { name: at, type: time }]
  joins: [{ to: visits, "on": "customer_id = visits.customer_id", relationship: many_to_one }]
  measures: [{ name: orders, expr: "count(*)" }]
"#
            .to_string(),
        )])
        .unwrap();
        let docs = semantic_docs("w", &model);
        let doc = docs
            .iter()
            .find(|d| d.id == "visits.visit_to_order")
            .unwrap();
        assert_eq!(
            doc.payload["expr"],
            "conversion of visits.visits to orders.orders by customer_id within 7 days (rate)"
        );
    }
}
