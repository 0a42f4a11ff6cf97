//! What a query asks for: its words (rarest first when there are too
//! many), the files it names (paths, file names, stack frames) and the
//! identifiers it writes as code, after links and random tokens are gone.

use std::collections::{HashMap, HashSet};

use lore_search::tokenizer::query_terms;
use tantivy::Term;
use tantivy::query::{Bm25StatisticsProvider, BoostQuery, Occur, Query};

use super::terms::TermStats;

use super::feedback::FeedbackVotes;
use crate::index::Fields;
use crate::ingest::classify::ArtifactType;

/// Most distinct words a query is searched by (its rarest ones).
const MAX_QUERY_TERMS: usize = 64;

/// A query read for searching.
pub(super) struct QueryPlan {
    /// The words searched by, distinct, stemmed.
    pub terms: Vec<String>,
    /// Each word's weight by where it stands in the issue (1 when not
    /// listed; see [`super::issue`]).
    pub weights: HashMap<String, f32>,
    /// The files it names.
    pub mentions: Vec<Mention>,
    /// The identifiers it writes as code.
    pub identifiers: Vec<String>,
    /// Feedback's factor per chunk id (empty without votes).
    pub boosts: HashMap<String, f32>,
}

impl QueryPlan {
    /// Reads `query`; a note for the caller goes to `warnings`.
    pub fn new(
        stats: &TermStats<'_>,
        fields: &Fields,
        query: &str,
        feedback: Option<&FeedbackVotes>,
        warnings: &mut Vec<String>,
    ) -> QueryPlan {
        let reported = super::issue::without_template(query);
        let query = clean_query(&reported);
        let mut terms: Vec<String> = Vec::new();
        let mut seen = HashSet::new();
        for term in query_terms(&query) {
            if seen.insert(term.clone()) {
                terms.push(term);
            }
        }
        let boosts = match feedback {
            Some(votes) if !votes.is_empty() => {
                let all: HashSet<String> = terms.iter().cloned().collect();
                votes.boosts(&all, lore_core::time::UtcMillis::now().0)
            }
            _ => HashMap::new(),
        };
        if terms.len() > MAX_QUERY_TERMS {
            let mut by_rarity: Vec<(u64, String)> = terms
                .into_iter()
                .map(|t| {
                    let df = stats
                        .doc_freq(&Term::from_field_text(fields.text, &t))
                        .unwrap_or(0);
                    (df, t)
                })
                .filter(|(df, _)| *df > 0)
                .collect();
            by_rarity.sort();
            let dropped = by_rarity.len().saturating_sub(MAX_QUERY_TERMS);
            by_rarity.truncate(MAX_QUERY_TERMS);
            terms = by_rarity.into_iter().map(|(_, t)| t).collect();
            if dropped > 0 {
                warnings.push(format!(
                    "the query has many words: searched by its {MAX_QUERY_TERMS} most specific ones"
                ));
            }
        }
        let mut identifiers = identifiers(&query);
        for function in super::issue::frame_functions(&reported) {
            if !identifiers.contains(&function) {
                identifiers.push(function);
            }
        }
        QueryPlan {
            weights: super::issue::term_weights(&query),
            terms,
            mentions: mentioned_files(&query),
            identifiers,
            boosts,
        }
    }

    /// Whether the query has anything to search by.
    pub fn has_clauses(&self) -> bool {
        !(self.terms.is_empty() && self.mentions.is_empty() && self.identifiers.is_empty())
    }

    /// The clauses any of which a result matches: each word in the text,
    /// headings, path words and symbol names; the files named by name;
    /// the identifiers by the symbols they name. A term no chunk holds is
    /// left out (it would match nothing).
    pub fn clauses(
        &self,
        f: &Fields,
        stats: &TermStats<'_>,
    ) -> tantivy::Result<Vec<(Occur, Box<dyn Query>)>> {
        let mut should = Vec::new();
        let mut boosted = |field, text: &str, boost: f32| -> tantivy::Result<()> {
            if let Some(query) = stats.query(Term::from_field_text(field, text))? {
                should.push((
                    Occur::Should,
                    Box::new(BoostQuery::new(Box::new(query), boost)) as Box<dyn Query>,
                ));
            }
            Ok(())
        };
        for term in &self.terms {
            let weight = self.weights.get(term).copied().unwrap_or(1.0);
            boosted(f.text, term, weight)?;
            boosted(f.heading, term, 1.5 * weight)?;
            boosted(f.path_text, term, 2.0 * weight)?;
            boosted(f.symbol_text, term, 1.5 * weight)?;
        }
        for mention in &self.mentions {
            boosted(f.file_name, &mention.file_name, 6.0)?;
        }
        for name in &self.identifiers {
            boosted(f.symbol, &name.to_lowercase(), 3.0)?;
        }
        Ok(should)
    }

    /// Whether a chunk at `path` is a file the query names.
    pub fn mentions_path(&self, path: &str) -> bool {
        self.mentions.iter().any(|m| m.matches_path(path))
    }
}

/// The query without what misleads ranking: links (one to a source file
/// keeps its path, a mention) and random-looking tokens (hashes, ids,
/// base64), whose rare fragments would otherwise outweigh the words.
pub fn clean_query(query: &str) -> String {
    let mut out = String::with_capacity(query.len());
    for token in query.split_inclusive(char::is_whitespace) {
        let word = token.trim_end();
        let tail = &token[word.len()..];
        let bare = word.trim_matches(|c: char| "<>()[]\"'`,".contains(c));
        if let Some(at) = bare.find("://") {
            // `…/blob/<ref>/src/x.py#L10` → `src/x.py`
            let path = bare[at + 3..].split(['#', '?']).next().unwrap_or_default();
            let segments: Vec<&str> = path.split('/').collect();
            let inner = segments
                .iter()
                .position(|s| *s == "blob" || *s == "tree")
                .map(|i| segments.get(i + 2..).unwrap_or_default().join("/"));
            if let Some(inner) = inner
                && matches!(
                    crate::ingest::classify::artifact_type(
                        &inner,
                        crate::ingest::classify::language(&inner)
                    ),
                    ArtifactType::Code | ArtifactType::Test
                )
            {
                out.push_str(&inner);
            }
            out.push_str(tail);
            continue;
        }
        let mut kept = String::with_capacity(word.len());
        let mut piece = String::new();
        let flush = |piece: &mut String, kept: &mut String| {
            if !is_random(piece) {
                kept.push_str(piece);
            }
            piece.clear();
        };
        for c in word.chars() {
            if c.is_alphanumeric() {
                piece.push(c);
            } else {
                flush(&mut piece, &mut kept);
                kept.push(c);
            }
        }
        flush(&mut piece, &mut kept);
        out.push_str(&kept);
        out.push_str(tail);
    }
    out
}

/// Whether a run of letters and digits reads as generated: a hex hash
/// or id, or a long mix of letters and digits (base64, tokens).
fn is_random(piece: &str) -> bool {
    let digits = piece.chars().filter(char::is_ascii_digit).count();
    let letters = piece.chars().filter(|c| c.is_alphabetic()).count();
    let hex = piece.len() >= 8 && digits >= 2 && piece.chars().all(|c| c.is_ascii_hexdigit());
    let mixed = piece.len() >= 16 && digits >= 3 && letters >= 3;
    hex || mixed
}

/// The identifiers a query writes as code (`total_with_tax`,
/// `sendRequest`, `Session.send` → `send`): words holding `_`, an inner
/// capital, or a `.` between names. Plain words are left to BM25.
pub(super) fn identifiers(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for raw in query.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')) {
        let raw = raw.trim_matches('.');
        let qualified = raw.contains('.') && !raw.contains("..");
        let last = raw.rsplit('.').next().unwrap_or(raw);
        let camel =
            last.chars().skip(1).any(char::is_uppercase) && last.chars().any(char::is_lowercase);
        let code_like = last.contains('_') || camel || qualified;
        let is_file = qualified && crate::ingest::classify::language(raw).is_some();
        if last.chars().count() >= 3 && code_like && !is_file && !out.iter().any(|o| o == last) {
            out.push(last.to_string());
        }
    }
    out
}

/// A file the query names: a path, a file name, or a stack frame.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Mention {
    /// As written, `/`-separated, without line numbers.
    pub(super) path: String,
    /// Its last segment, lower-cased.
    pub(super) file_name: String,
}

impl Mention {
    /// Whether `path` is the mentioned file: one is a suffix of the other
    /// made of whole segments (`sessions.py` names `src/app/sessions.py`;
    /// a frame's `/home/u/go/pkg/mod/x/cli@v3/command.go` or
    /// `/srv/app/src/x.rs` names `command.go` or `src/x.rs` of the root).
    pub(super) fn matches_path(&self, path: &str) -> bool {
        let path = path.to_ascii_lowercase();
        let mention = self.path.to_ascii_lowercase();
        path == mention
            || path.ends_with(&format!("/{mention}"))
            || mention.ends_with(&format!("/{path}"))
    }
}

/// The files a query names: tokens holding a known extension, with any
/// `:line[:col]`, quotes and brackets stripped.
pub(super) fn mentioned_files(query: &str) -> Vec<Mention> {
    let mut out: Vec<Mention> = Vec::new();
    for raw in query.split(|c: char| c.is_whitespace() || "\"'`,()[]<>{}=".contains(c)) {
        let mut token = raw.trim_matches(|c: char| ".:;!?".contains(c));
        // `src/app.ts:40:7`, `x.go:45`
        while let Some((head, tail)) = token.rsplit_once(':') {
            if tail.chars().all(|c| c.is_ascii_digit()) && !tail.is_empty() {
                token = head;
            } else {
                break;
            }
        }
        let token = token.trim_start_matches("./").replace('\\', "/");
        let token = token.rsplit("site-packages/").next().unwrap_or(&token);
        let file_name = token.rsplit('/').next().unwrap_or(token);
        let Some((stem, _)) = file_name.rsplit_once('.') else {
            continue;
        };
        if stem.is_empty() || crate::ingest::classify::language(file_name).is_none() {
            continue;
        }
        let mention = Mention {
            path: token.trim_start_matches('/').to_string(),
            file_name: file_name.to_ascii_lowercase(),
        };
        if !out.contains(&mention) {
            out.push(mention);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_file_names_and_stack_frames_are_mentions() {
        let found = mentioned_files(
            "Traceback:\n  File \"/usr/lib/python3/site-packages/requests/sessions.py\", line 589, in request\n at run (src/app.ts:40:7)\n see handler_test.go:45 and README.md. Version 1.2 is fine.",
        );
        let paths: Vec<&str> = found.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(
            paths,
            vec![
                "requests/sessions.py",
                "src/app.ts",
                "handler_test.go",
                "README.md"
            ]
        );
        assert!(found[0].matches_path("src/requests/sessions.py"));
        assert!(found[0].matches_path("sessions.py"));
        assert!(!found[0].matches_path("src/requests/mysessions.py"));
    }

    #[test]
    fn links_and_random_tokens_leave_the_query() {
        let cleaned = clean_query(
            "Before reporting, read https://github.com/org/rich/blob/master/FAQ.md please.\nSee https://github.com/org/rich/blob/main/rich/console.py#L120 and playground https://x.dev/?q=eyJhbGciOiJIUzI1NiJ9aB3dE5fG6h commit 3f7d3e4e9a1b uuid 9b2c4d1e-0f3a-4b5c-8d9e-1a2b3c4d5e6f sha256 UTF8 v2",
        );
        assert!(!cleaned.contains("FAQ"), "{cleaned}");
        assert!(cleaned.contains("rich/console.py"), "{cleaned}");
        assert!(!cleaned.contains("eyJhbGci"), "{cleaned}");
        assert!(!cleaned.contains("3f7d3e4e"), "{cleaned}");
        assert!(!cleaned.contains("9b2c4d1e"), "{cleaned}");
        for kept in ["reporting", "sha256", "UTF8", "v2", "playground"] {
            assert!(cleaned.contains(kept), "{kept}: {cleaned}");
        }
    }

    #[test]
    fn code_like_words_find_their_definitions() {
        assert_eq!(
            identifiers(
                "Session.send fails in total_with_tax and sendRequest, not in setup.py or Basic words"
            ),
            vec!["send", "total_with_tax", "sendRequest"]
        );
        let defines = |text, name| crate::index::defined_names(text).contains(&name);
        assert!(defines(
            "class Invoice:\n    def total_with_tax(self):",
            "total_with_tax"
        ));
        assert!(defines(
            "func (s *Server) sendRequest(r int) {",
            "sendRequest"
        ));
        assert!(!defines(
            "    return total_with_tax_rate(x)",
            "total_with_tax"
        ));
        assert!(!defines(
            "assert Invoice().total_with_tax()",
            "total_with_tax"
        ));
    }
}
