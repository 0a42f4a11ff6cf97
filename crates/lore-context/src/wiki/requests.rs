//! The wiki as its tools and `lore wiki` ask for it: search, read and
//! write, with their request and result types.

use lore_core::{ErrorCode, ErrorReport};
use lore_store::TxId;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::page::{FrontMatter, UsageMode};
use super::service::{Page, PageWrite};
use crate::discover::{Discover, LaneRank, LaneReport};

pub fn no_wiki() -> ErrorReport {
    ErrorReport::new(ErrorCode::Internal, "this server has no wiki")
}

// ---------------------------------------------------------------- search

/// Arguments of `wiki_search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WikiSearchInput {
    /// What you want to know, in words or identifiers ("how is revenue defined", "soft deletes").
    pub query: String,
    /// Most pages, 1 to 50 (default 10).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<usize>,
}

/// One page that matched.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WikiHit {
    /// The page key: pass it to wiki_read.
    pub key: String,
    /// Its file, relative to the project (`wiki/global/<key>.md`).
    pub path: String,
    /// global, or user for your own pages.
    pub scope: String,
    /// The page's one-line summary (null when it has none).
    pub summary: Option<String>,
    /// Fused rank score, 0 to 1 (the best page is 1).
    pub score: f64,
    /// Which parts of the page (key, summary, tags, body) hold which of your query words, e.g. `summary: revenue, defined`; `meaning: similarity 0.82` when the embedding lane found it.
    pub match_reasons: Vec<String>,
    /// The lanes that found it (lexical, embedding) and its rank in each.
    pub lanes: Vec<LaneRank>,
}

/// Result of `wiki_search`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WikiSearchOutput {
    /// Best first.
    pub results: Vec<WikiHit>,
    /// Per-lane diagnostics.
    pub lanes: Vec<LaneReport>,
}

/// Runs `wiki_search` (blocking): shared by the tool and `lore wiki search`.
pub fn wiki_search(
    discover: &Discover,
    query: &str,
    limit: usize,
) -> Result<WikiSearchOutput, ErrorReport> {
    let found = discover.search_wiki(query, limit)?;
    // Each query word with the stems it is searched by: reasons name the
    // word the user typed ("deletes"), found by its stem ("delet").
    let words: Vec<(String, Vec<String>)> = query
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .map(|w| (w.to_lowercase(), lore_search::tokenizer::query_terms(w)))
        .filter(|(_, stems)| !stems.is_empty())
        .collect();
    let results = found
        .results
        .into_iter()
        .map(|fused| {
            let payload = &fused.hit.payload;
            let text = |k: &str| payload.get(k).and_then(|v| v.as_str()).map(String::from);
            let tags = payload
                .get("tags")
                .and_then(|v| v.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|t| t.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_default();
            let key = text("key").unwrap_or_default();
            let summary = text("summary");
            let body = text("body").unwrap_or_default();
            let mut match_reasons = Vec::new();
            for (part, value) in [
                ("key", key.replace(['-', '_', '/'], " ")),
                ("summary", summary.clone().unwrap_or_default()),
                ("tags", tags),
                ("body", body),
            ] {
                let lower = value.to_lowercase();
                let mut hits: Vec<&str> = words
                    .iter()
                    .filter(|(_, stems)| stems.iter().any(|t| lower.contains(t.as_str())))
                    .map(|(word, _)| word.as_str())
                    .collect();
                hits.dedup();
                if !hits.is_empty() {
                    match_reasons.push(format!("{part}: {}", hits.join(", ")));
                }
            }
            if let Some(similarity) = fused.lanes.iter().find_map(|l| l.similarity) {
                match_reasons.push(format!("meaning: similarity {similarity:.2}"));
            }
            WikiHit {
                path: text("path").unwrap_or_default(),
                scope: text("scope").unwrap_or_else(|| "global".into()),
                key,
                summary,
                score: fused.score,
                match_reasons,
                lanes: fused.lanes,
            }
        })
        .collect();
    Ok(WikiSearchOutput {
        results,
        lanes: found.lanes,
    })
}

// ------------------------------------------------------------------ read

/// Arguments of `wiki_read`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WikiReadInput {
    /// The page key, as wiki_search or discover_data returned it (e.g. "revenue", "metrics/churn").
    pub key: String,
    /// global or user; omit to read your own page first, then the global one.
    #[serde(default)]
    pub scope: Option<String>,
    /// Read the page as it was right after this transaction (see the memory tool history).
    #[serde(default)]
    pub as_of_tx_id: Option<TxId>,
}

/// A page, or why there is none.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WikiReadOutput {
    /// False when no such page exists: see suggestions.
    pub found: bool,
    /// The key asked for.
    pub key: String,
    /// When not found: what to do, with the closest keys.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// When not found: existing keys close to the one asked for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<String>,
    /// The page, when found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<WikiPageOut>,
}

/// A wiki page.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WikiPageOut {
    /// global or user.
    pub scope: String,
    /// Its file, relative to the project.
    pub path: String,
    /// One line saying what it explains.
    pub summary: Option<String>,
    /// Labels.
    pub tags: Vec<String>,
    /// Related page keys.
    pub refs: Vec<String>,
    /// Semantic-layer sources it is about (`connection.source` or `source`).
    pub sl_refs: Vec<String>,
    /// auto, always or never.
    pub usage_mode: UsageMode,
    /// The markdown body.
    pub body: String,
    /// The store entry holding the page.
    pub entry_id: String,
    /// The page's version: pass it as expectedVersion to wiki_write.
    pub version: i64,
    /// The transaction that wrote this version.
    pub tx_id: TxId,
    /// When this version was written.
    pub updated_at: String,
    /// Keys of linked pages that do not exist.
    pub broken_links: Vec<String>,
    /// Why the front matter could not be read, if it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

impl WikiPageOut {
    /// The wire shape of a page.
    pub fn of(page: Page, broken_links: Vec<String>) -> WikiPageOut {
        WikiPageOut {
            scope: page.address.scope.name().to_string(),
            path: page.address.path(),
            summary: page.front.summary,
            tags: page.front.tags,
            refs: page.front.refs,
            sl_refs: page.front.sl_refs,
            usage_mode: page.front.usage_mode,
            body: page.body,
            entry_id: page.entry.id,
            version: page.entry.version,
            tx_id: page.entry.tx_id,
            updated_at: page.entry.updated_at,
            broken_links,
            problem: page.problem,
        }
    }
}

/// Runs `wiki_read` (blocking): shared by the tool and `lore wiki read`.
pub fn wiki_read(discover: &Discover, input: WikiReadInput) -> Result<WikiReadOutput, ErrorReport> {
    let wiki = discover.wiki().ok_or_else(no_wiki)?;
    let key = input.key.trim().to_string();
    let page = match super::page::check_key(&key) {
        Ok(()) => wiki.read(&key, input.scope.as_deref(), input.as_of_tx_id)?,
        // Not a valid key: certainly no such page, but maybe a close one.
        Err(_) => None,
    };
    Ok(match page {
        Some(page) => {
            let broken = wiki.broken_links_of(&page)?;
            WikiReadOutput {
                found: true,
                key,
                message: None,
                suggestions: Vec::new(),
                page: Some(WikiPageOut::of(page, broken)),
            }
        }
        None => {
            // Keys spelled alike first, then pages about the words of the
            // key ("revenue-definition" finds `revenue`).
            let mut suggestions = wiki.suggest(&key.to_lowercase())?;
            let words = key.replace(['-', '_', '/', '.'], " ");
            if suggestions.len() < 3 && !words.trim().is_empty() {
                for hit in discover.search_wiki(&words, 3)?.results {
                    let found = hit.hit.payload.get("key").and_then(|k| k.as_str());
                    if let Some(found) = found
                        && suggestions.len() < 3
                        && !suggestions.iter().any(|s| s == found)
                    {
                        suggestions.push(found.to_string());
                    }
                }
            }
            let message = match suggestions.first() {
                Some(best) => format!("no page `{key}`; did you mean `{best}`?"),
                None => format!("no page `{key}`; find pages with wiki_search"),
            };
            WikiReadOutput {
                found: false,
                key,
                message: Some(message),
                suggestions,
                page: None,
            }
        }
    })
}

// ----------------------------------------------------------------- write

/// Arguments of `wiki_write`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WikiWriteInput {
    /// The page key: lower-case letters, digits, `-`, `_`, `.`, with `/` for folders (e.g. "revenue", "metrics/churn").
    pub key: String,
    /// One line (at most 300 characters) saying what the page explains; searches show it.
    pub summary: String,
    /// The page in markdown. Link other pages with [[key]].
    pub body: String,
    /// Labels, e.g. ["finance", "metrics"].
    #[serde(default)]
    pub tags: Vec<String>,
    /// Keys of related pages.
    #[serde(default)]
    pub refs: Vec<String>,
    /// Semantic-layer sources the page is about: "connection.source" or "source".
    #[serde(default)]
    pub sl_refs: Vec<String>,
    /// auto (default), always (listed first when retrieving context) or never (hidden from search).
    #[serde(default)]
    pub usage_mode: UsageMode,
    /// global (default, everyone's) or user (only yours).
    #[serde(default)]
    pub scope: Option<String>,
    /// The version you read (0 for a page that must not exist yet); a different current version is a conflict and nothing is written.
    #[serde(default)]
    pub expected_version: Option<i64>,
}

/// Result of `wiki_write`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WikiWriteOutput {
    /// The page key.
    pub key: String,
    /// global or user.
    pub scope: String,
    /// The file it is mirrored to.
    pub path: String,
    /// The store entry holding the page.
    pub entry_id: String,
    /// Its version now.
    pub version: i64,
    /// The transaction (undo it with the memory tool undo).
    pub tx_id: TxId,
    /// False when the page already said exactly this.
    pub changed: bool,
    /// Keys of linked pages that do not exist yet.
    pub broken_links: Vec<String>,
}

/// Runs `wiki_write` (blocking): shared by the tool and `lore wiki write`.
pub fn wiki_write(
    wiki: &super::Wiki,
    actor: &str,
    input: WikiWriteInput,
) -> Result<WikiWriteOutput, ErrorReport> {
    let written = wiki.write(
        actor,
        PageWrite {
            key: input.key.trim().to_string(),
            user_scope: input.scope.as_deref() == Some("user"),
            front: FrontMatter {
                summary: Some(input.summary),
                tags: input.tags,
                refs: input.refs,
                sl_refs: input.sl_refs,
                usage_mode: input.usage_mode,
                ..FrontMatter::default()
            },
            body: input.body,
            expected_version: input.expected_version,
        },
    )?;
    let broken_links = wiki.broken_links_of(&written.page)?;
    let page = written.page;
    Ok(WikiWriteOutput {
        key: page.address.key.clone(),
        scope: page.address.scope.name().to_string(),
        path: page.address.path(),
        entry_id: page.entry.id,
        version: page.entry.version,
        tx_id: written.tx_id,
        changed: written.changed,
        broken_links,
    })
}
