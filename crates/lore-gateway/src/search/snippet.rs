//! Compact answers: each result keeps its place (path, lines, symbols,
//! heading, why it ranks) and, instead of the chunk's whole text, the few
//! lines of it that hold most of the query's words. Ten full chunks are
//! some 25 KB of an agent's context; ten snippets a tenth of that, and
//! `km-read` reads around any of them.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{SearchResponse, Snippet};

/// Lines a snippet shows at most.
pub const SNIPPET_LINES: usize = 5;
/// Characters a snippet line keeps at most.
const LINE_CHARS: usize = 160;
/// Query words a snippet looks for at most (a pasted issue has hundreds).
const MAX_WORDS: usize = 200;

/// How much of each chunk an answer holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Detail {
    /// Place and a snippet of the lines that match (the default).
    #[default]
    Compact,
    /// The chunk's whole text.
    Full,
}

/// Replaces each result's text by its snippet for `query`.
pub fn compact(response: &mut SearchResponse, query: &str) {
    let words = query_words(query);
    for result in &mut response.results {
        let chunk = &mut result.chunk;
        let text = std::mem::take(&mut chunk.text);
        chunk.snippet = Some(snippet(&text, chunk.start_line, &words));
    }
}

/// The query's distinct words of three letters or more, lower-cased:
/// each identifier as written (`total_with_tax`) and the stems the index
/// reads it as (`total`, `tax`, `pars`, `url`), so a line matches the
/// query the way the ranking did (`orders` finds `order_items`).
fn query_words(query: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for token in query.split(|c: char| !c.is_alphanumeric() && c != '_') {
        let whole = token.to_lowercase();
        let stems = lore_search::tokenizer::terms(token);
        for word in std::iter::once(whole).chain(stems) {
            if word.chars().count() >= 3 && out.len() < MAX_WORDS && seen.insert(word.clone()) {
                out.push(word);
            }
        }
    }
    out
}

/// The window of at most [`SNIPPET_LINES`] lines of `text` (which starts
/// at line `first_line`) holding the most distinct query words; the
/// first lines when none holds any.
fn snippet(text: &str, first_line: u64, words: &[String]) -> Snippet {
    let lines: Vec<&str> = text.lines().collect();
    let found: Vec<HashSet<usize>> = lines
        .iter()
        .map(|line| {
            let line = line.to_lowercase();
            words
                .iter()
                .enumerate()
                .filter(|(_, w)| line.contains(w.as_str()))
                .map(|(i, _)| i)
                .collect()
        })
        .collect();
    let span = SNIPPET_LINES.min(lines.len());
    let mut best = (0, 0);
    for start in 0..=lines.len() - span {
        let distinct: HashSet<usize> = found[start..start + span]
            .iter()
            .flatten()
            .copied()
            .collect();
        if distinct.len() > best.1 {
            best = (start, distinct.len());
        }
    }
    let start = best.0;
    let shown: Vec<String> = lines[start..start + span]
        .iter()
        .map(|line| match line.char_indices().nth(LINE_CHARS) {
            Some((cut, _)) => format!("{}…", &line[..cut]),
            None => line.to_string(),
        })
        .collect();
    Snippet {
        start_line: first_line + start as u64,
        end_line: first_line + (start + span) as u64 - u64::from(span > 0),
        text: shown.join("\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snippet_shows_the_lines_holding_most_of_the_query() {
        let text = (1..=40)
            .map(|n| match n {
                21 => "    def total_with_tax(self):".to_string(),
                22 => "        return self.net * TAX_RATE".to_string(),
                _ => format!("    line_{n} = {n}"),
            })
            .collect::<Vec<_>>()
            .join("\n");
        let words = query_words("Invoice.totalWithTax ignores TAX_RATE for net amounts");
        let s = snippet(&text, 100, &words);
        assert!(s.text.contains("def total_with_tax") && s.text.contains("TAX_RATE"));
        assert_eq!(s.end_line - s.start_line + 1, SNIPPET_LINES as u64);
        assert!((116..=120).contains(&s.start_line), "{}", s.start_line);
        // Nothing matches: the chunk's first lines.
        let none = snippet(&text, 100, &query_words("zzz qqq"));
        assert_eq!((none.start_line, none.end_line), (100, 104));
        // A short chunk is shown whole; long lines are cut.
        let long = "x".repeat(500);
        let one = snippet(&long, 7, &words);
        assert_eq!((one.start_line, one.end_line), (7, 7));
        assert_eq!(one.text.chars().count(), LINE_CHARS + 1);
        let empty = snippet("", 1, &words);
        assert_eq!(empty.text, "");
    }

    #[test]
    fn a_snippet_finds_the_words_as_the_index_reads_them() {
        let text = (1..=30)
            .map(|n| match n {
                18 => "    fn parse_url_string(raw: &str) -> Url {".to_string(),
                19 => "        let orders = load_order_items();".to_string(),
                _ => format!("    let filler_{n} = {n};"),
            })
            .collect::<Vec<_>>()
            .join("\n");
        // `parseURLString`, `order` in the singular: the stems meet the
        // snake_case names of the code.
        let s = snippet(&text, 1, &query_words("parseURLString fails on an order"));
        assert!((14..=18).contains(&s.start_line), "{s:?}");
        assert!(s.text.contains("parse_url_string") && s.text.contains("load_order_items"));
    }
}
