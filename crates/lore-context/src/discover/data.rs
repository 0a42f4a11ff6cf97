//! `discover_data` as a service: its request and result types, and the
//! search shared by the tool and `lore search`.

use lore_core::{ErrorCode, ErrorReport};
use lore_search::DocKind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Discover;
use super::documents::provenance;

/// What kinds of things to look for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RefKind {
    /// Wiki pages.
    Wiki,
    /// Semantic-layer sources.
    SlSource,
    /// Semantic-layer measures.
    SlMeasure,
    /// Semantic-layer dimensions.
    SlDimension,
    /// Scanned tables and views.
    Table,
    /// Scanned columns.
    Column,
}

impl RefKind {
    const ALL: [RefKind; 6] = [
        RefKind::Wiki,
        RefKind::SlSource,
        RefKind::SlMeasure,
        RefKind::SlDimension,
        RefKind::Table,
        RefKind::Column,
    ];

    fn doc_kind(self) -> DocKind {
        match self {
            RefKind::Wiki => DocKind::Wiki,
            RefKind::SlSource => DocKind::SlSource,
            RefKind::SlMeasure => DocKind::SlMeasure,
            RefKind::SlDimension => DocKind::SlDimension,
            RefKind::Table => DocKind::Table,
            RefKind::Column => DocKind::Column,
        }
    }

    /// The ref kind of an index kind (none for memory entries).
    fn of(kind: DocKind) -> Option<RefKind> {
        RefKind::ALL.into_iter().find(|r| r.doc_kind() == kind)
    }
}

/// Arguments of `discover_data`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DiscoverDataInput {
    /// What you are looking for, in words or identifiers ("revenue by plan", "support tickets", "orderItems").
    pub query: String,
    /// Only this connection's tables, columns and semantic layer (omit for all).
    #[serde(default)]
    pub connection_id: Option<String>,
    /// Only these kinds (omit for all): wiki, sl_source, sl_measure, sl_dimension, table, column.
    #[serde(default)]
    pub kinds: Option<Vec<RefKind>>,
    /// Most refs, 1 to 50 (default 15).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<usize>,
}

/// A table's identity, as entity_details takes it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TableRefOut {
    /// Catalog (database), when the driver has one.
    pub catalog: Option<String>,
    /// Schema, when the driver has one.
    pub db: Option<String>,
    /// Table name.
    pub name: String,
}

/// One thing that exists and matched.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverRef {
    /// wiki, sl_source, sl_measure, sl_dimension, table or column.
    pub kind: RefKind,
    /// Stable id: wiki key, source name, `source.measure`, `source.dimension`, or the driver-qualified table / `table.column` display string.
    pub id: String,
    /// Fused rank score, 0 to 1 (the best ref is 1).
    pub score: f64,
    /// One-line description from the object's own metadata; null when it has none.
    pub summary: Option<String>,
    /// Up to 200 characters of stored context; null when there is nothing meaningful.
    pub snippet: Option<String>,
    /// Why it matched: name, display, description, comment, expr, sample_value or body (the field holding the query's words), or meaning (found by the embedding lane alone).
    pub matched_on: String,
    /// The connection (absent for wiki pages).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connection_id: Option<String>,
    /// For tables and columns: pass it to entity_details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_ref: Option<TableRefOut>,
    /// For columns: the column's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column_name: Option<String>,
}

/// What one search lane contributed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LaneReport {
    /// raw_schema, semantic_layer, wiki (lexical lanes), schema_listing (the rest of a small schema, weighing little) or embedding (the optional semantic lane).
    pub lane: String,
    /// Candidates it found before fusion.
    pub candidates: usize,
    /// Why it did not run, when it did not (an unreachable embedding provider, a kind filter).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// The embedding lane only: documents not embedded yet (they are embedded in the background).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending: Option<usize>,
}

impl LaneReport {
    /// A lane that ran and found `candidates`.
    pub fn ran(lane: &str, candidates: usize) -> LaneReport {
        LaneReport {
            lane: lane.to_string(),
            candidates,
            skipped: None,
            pending: None,
        }
    }

    /// A lane that did not run, and why.
    pub fn skipped(lane: &str, reason: &str) -> LaneReport {
        LaneReport {
            lane: lane.to_string(),
            candidates: 0,
            skipped: Some(reason.to_string()),
            pending: None,
        }
    }
}

/// Result of `discover_data`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DiscoverDataOutput {
    /// Best first. Dereference with sl_read_source, entity_details or wiki_read.
    pub refs: Vec<DiscoverRef>,
    /// Per-lane diagnostics.
    pub lanes: Vec<LaneReport>,
}

/// The checks every search tool makes: a query with words, a limit of 1
/// to 50.
pub fn check_search(query: &str, limit: Option<usize>) -> Result<(), String> {
    if query.trim().is_empty() {
        return Err("query must not be empty".to_string());
    }
    if let Some(limit) = limit
        && !(1..=50).contains(&limit)
    {
        return Err(format!("limit must be between 1 and 50, got {limit}"));
    }
    Ok(())
}

/// Runs `discover_data` (blocking): shared by the tool and `lore search`.
pub fn discover_data(
    discover: &Discover,
    input: DiscoverDataInput,
) -> Result<DiscoverDataOutput, ErrorReport> {
    if let Some(id) = &input.connection_id
        && !discover.connections().contains(id)
    {
        return Err(ErrorReport::new(
            ErrorCode::NotFound,
            format!(
                "no connection `{id}`; connection_list shows the configured ones ({})",
                discover.connections().join(", ")
            ),
        ));
    }
    let kinds: Vec<DocKind> = input
        .kinds
        .unwrap_or_default()
        .into_iter()
        .map(RefKind::doc_kind)
        .collect();
    let limit = input.limit.unwrap_or(15);
    let found = discover.search(&input.query, &kinds, input.connection_id.as_deref(), limit)?;
    let words: Vec<String> = input
        .query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 1)
        .map(str::to_lowercase)
        .collect();
    let refs = found
        .results
        .into_iter()
        .filter_map(|fused| {
            let hit = fused.hit;
            let kind = RefKind::of(hit.kind)?;
            let (summary, snippet) = provenance(hit.kind, hit.matched_on, &hit.payload, &words);
            let table_ref = hit.payload.get("tableRef").and_then(|t| {
                Some(TableRefOut {
                    catalog: t.get("catalog").and_then(|v| v.as_str()).map(String::from),
                    db: t.get("db").and_then(|v| v.as_str()).map(String::from),
                    name: t.get("name")?.as_str()?.to_string(),
                })
            });
            // A wiki page's ref is its key (what wiki_read takes).
            let id = match hit.payload.get("key").and_then(|k| k.as_str()) {
                Some(key) if hit.kind == DocKind::Wiki => key.to_string(),
                _ => hit.id,
            };
            // Found only by meaning (the embedding lane): no word matched.
            let matched_on = if fused.lanes.iter().all(|l| l.lane == super::EMBEDDING_LANE) {
                "meaning".to_string()
            } else {
                hit.matched_on.as_str().to_string()
            };
            Some(DiscoverRef {
                kind,
                id,
                score: fused.score,
                summary,
                snippet,
                matched_on,
                connection_id: hit.connection,
                table_ref,
                column_name: hit
                    .payload
                    .get("columnName")
                    .and_then(|v| v.as_str())
                    .map(String::from),
            })
        })
        .collect();
    Ok(DiscoverDataOutput {
        refs,
        lanes: found.lanes,
    })
}
