//! `km-graph-search`: the nodes whose name holds a term's words, best
//! first, each with a line saying what it is.

use lore_core::{ErrorCode, ErrorReport};

use super::ids::check_limit;
use super::types::{GraphHit, GraphSearchAnswer, NodeOut};
use super::{GraphView, MAX_SEARCH_LIMIT};
use crate::graph::ids::{RootScope, in_scope, root_of, split_root};

impl GraphView {
    /// `km-graph-search`: nodes whose name holds the term's words (of the
    /// roots of `scope`; subsystems always).
    pub fn search(
        &self,
        term: &str,
        limit: Option<usize>,
        scope: RootScope<'_>,
    ) -> Result<GraphSearchAnswer, ErrorReport> {
        let term = term.trim();
        if term.is_empty() || term.chars().count() > 200 {
            return Err(ErrorReport::new(
                ErrorCode::InvalidArguments,
                "term must be 1 to 200 characters: a subsystem, file or symbol name, or words of one",
            ));
        }
        let limit = check_limit(limit, 20, MAX_SEARCH_LIMIT)?;
        let words: Vec<String> = lore_search::tokenizer::query_terms(term);
        let whole = term.to_lowercase();
        let mut hits: Vec<GraphHit> = Vec::new();
        for id in self.node_ids() {
            let root = root_of(&id).map(str::to_string);
            if root.as_deref().is_some_and(|r| !in_scope(scope, r)) {
                continue;
            }
            let (label, rest) = id.split_once(':').unwrap_or_default();
            // The root's name is no part of what a node is called.
            let name = match label {
                "Symbol" => rest.rsplit("::").next().unwrap_or(rest),
                "Subsystem" => rest,
                _ => split_root(rest).map_or(rest, |(_, path)| path),
            };
            let lower = name.to_lowercase();
            let last = lower.rsplit(['/', '.']).next().unwrap_or(&lower);
            let score = if last == whole || lower == whole {
                1.0
            } else if last.starts_with(&whole) {
                0.8
            } else if lower.contains(&whole) {
                0.6
            } else {
                let tokens = lore_search::tokenizer::query_terms(name);
                let matched = words.iter().filter(|w| tokens.contains(w)).count();
                if words.is_empty() || matched == 0 {
                    continue;
                }
                0.5 * matched as f32 / words.len() as f32
            };
            // Subsystems and files before the symbols they hold.
            let weight = match label {
                "Subsystem" => 1.0,
                "Symbol" => 0.9,
                _ => 0.95,
            };
            let snippet = self
                .describe(&id)
                .map(|n| snippet_of(&n))
                .unwrap_or_default();
            hits.push(GraphHit {
                label: label.to_string(),
                root,
                id,
                score: score * weight,
                snippet,
            });
        }
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.id.len().cmp(&b.id.len()))
        });
        let truncated = hits.len() > limit;
        hits.truncate(limit);
        Ok(GraphSearchAnswer {
            results: hits,
            truncated,
        })
    }
}

fn snippet_of(node: &NodeOut) -> String {
    let get = |k: &str| {
        node.properties
            .get(k)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    match node.label.as_str() {
        "Subsystem" => {
            let description = get("description");
            if description.is_empty() {
                format!("subsystem {}", get("name"))
            } else {
                description
            }
        }
        "Symbol" => format!(
            "{} {} in {}:{}",
            get("kind"),
            get("qualified_name"),
            get("path"),
            node.properties
                .get("start_line")
                .cloned()
                .unwrap_or_default()
        ),
        _ => {
            let subsystem = get("subsystem");
            let language = get("language");
            let mut line = get("artifact_type");
            if !language.is_empty() {
                line.push_str(&format!(", {language}"));
            }
            if !subsystem.is_empty() {
                line.push_str(&format!(", subsystem {subsystem}"));
            }
            line
        }
    }
}
