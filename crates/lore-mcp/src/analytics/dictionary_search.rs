//! `dictionary_search`: which column holds a literal value an agent was
//! given ("Acme Labs", "shipped"), from the values the scan sampled.

use std::sync::Arc;

use lore_core::ErrorReport;
use lore_core::error::{ErrorCode, HasErrorCode};
use lore_warehouse::catalog::{Catalog, SearchedConnection, ValueResult, dictionary_search};
use lore_warehouse::execute::Warehouses;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::toolkit::{Scope, Tool, ToolContext, ToolDefinition};

/// Most values per call.
const MAX_VALUES: usize = 20;
/// Matches listed per value unless asked.
const DEFAULT_MATCHES: u32 = 20;

/// Looks literal values up in the scan dictionaries.
pub struct DictionarySearch {
    pub(super) warehouses: Arc<Warehouses>,
    pub(super) catalog: Arc<Catalog>,
}

/// Arguments of `dictionary_search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DictionarySearchInput {
    /// 1 to 20 literal values as the user wrote them, e.g. ["Acme Labs", "past due"]. Matching ignores case, spaces and punctuation and finds substrings ("past due" finds past_due and PastDue).
    #[schemars(length(min = 1, max = 20))]
    pub values: Vec<String>,
    /// Search only this connection (from connection_list); omit to search all of them.
    #[serde(default)]
    pub connection_id: Option<String>,
    /// Most matches listed per value, 1 to 100 (default 20); exact matches come first.
    #[serde(default = "default_matches")]
    #[schemars(range(min = 1, max = 100))]
    pub max_matches: u32,
}

fn default_matches() -> u32 {
    DEFAULT_MATCHES
}

/// Columns holding the values, per value.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DictionarySearchOutput {
    /// The connections searched, with how much of each the dictionary covers.
    pub searched: Vec<SearchedConnection>,
    /// One result per value, in order.
    pub results: Vec<ValueResult>,
    /// How to read a miss.
    pub notice: String,
}

impl Tool for DictionarySearch {
    type Input = DictionarySearchInput;
    type Output = DictionarySearchOutput;

    const DEFINITION: ToolDefinition = ToolDefinition {
        name: "dictionary_search",
        title: "Dictionary Search",
        description: "Find which table and column hold a value the user mentioned (a name, a status) and how it is spelled there: use matchedValue in filters. Matching ignores case, spaces and punctuation; exact matches come first. A miss is not proof of absence (misses[].reason says why; confirm with sql_execution). Example: {\"values\":[\"Acme\",\"past due\"],\"connectionId\":\"warehouse\"}",
        read_only: true,
        scope: Scope::Reader,
        destructive: false,
        idempotent: Some(true),
        open_world: false,
    };

    fn check_input(input: &DictionarySearchInput) -> Result<(), String> {
        if input.values.is_empty() || input.values.len() > MAX_VALUES {
            return Err(format!(
                "values must list 1 to {MAX_VALUES} values, got {}",
                input.values.len()
            ));
        }
        if input.values.iter().any(|v| v.trim().is_empty()) {
            return Err("values must not be empty strings".into());
        }
        if input
            .connection_id
            .as_deref()
            .is_some_and(|c| c.trim().is_empty())
        {
            return Err(
                "connectionId must not be empty; omit it to search every connection".into(),
            );
        }
        if !(1..=100).contains(&input.max_matches) {
            return Err(format!(
                "maxMatches must be between 1 and 100, got {}",
                input.max_matches
            ));
        }
        Ok(())
    }

    async fn call(
        &self,
        input: DictionarySearchInput,
        _ctx: ToolContext,
    ) -> Result<DictionarySearchOutput, ErrorReport> {
        let ids = match &input.connection_id {
            Some(id) => {
                self.warehouses.get(id).map_err(|e| e.report())?;
                vec![id.clone()]
            }
            None => self.warehouses.ids(),
        };
        let catalog = Arc::clone(&self.catalog);
        let snapshots = tokio::task::spawn_blocking(move || {
            ids.into_iter()
                .map(|id| {
                    let snapshot = catalog.latest(&id)?;
                    Ok((id, snapshot))
                })
                .collect::<Result<Vec<_>, lore_warehouse::snapshot::SnapshotError>>()
        })
        .await
        .map_err(|e| ErrorReport::new(ErrorCode::Internal, format!("catalog task failed: {e}")))?
        .map_err(|e| e.report())?;
        let (searched, results) =
            dictionary_search(&snapshots, &input.values, input.max_matches as usize);
        let sample = searched
            .iter()
            .filter_map(|s| s.coverage.sampled_rows)
            .max()
            .map(|n| format!("up to {n} sampled rows per table"))
            .unwrap_or_else(|| "the rows sampled by `lore scan`".to_string());
        Ok(DictionarySearchOutput {
            searched,
            results,
            notice: format!(
                "Values come from {sample} (most frequent values first), so a miss is not proof of absence: confirm it with sql_execution on the most plausible column, e.g. WHERE lower(col) LIKE '%value%'."
            ),
        })
    }
}
