//! The value dictionary of one snapshot: every sampled value of every
//! dictionary column, searchable by substring ignoring case, spaces and
//! punctuation (so "past due" finds `past_due` and `PastDue`, and
//! "acme labs" finds `acmelabs.com`).
//!
//! Values are reduced to their lower-cased letters and digits in one
//! buffer, separated by newlines, and
//! searched with `memchr`'s SIMD substring finder: a search is one linear
//! scan of the buffer, about a millisecond per ten megabytes of values,
//! with no index to build beyond the buffer itself. Matches rank exact
//! first, then prefix, then substring, then base tables before views (the
//! source before what is derived from it), then by frequency in the sample.

use std::collections::HashMap;

use memchr::memmem;

use crate::scan::profile::ProfileArtifact;
use crate::schema::TableRef;

/// A dictionary column.
#[derive(Debug, Clone, PartialEq)]
pub struct DictionaryColumn {
    /// Its table.
    pub table: TableRef,
    /// Column name.
    pub column: String,
    /// Distinct values in the sample.
    pub distinct_count: u64,
    /// Whether the table is a view (ranked after base tables).
    pub is_view: bool,
}

#[derive(Debug)]
struct Entry {
    column: u32,
    value: Box<str>,
    /// Occurrences in the sample (0 when only known to occur).
    count: u64,
}

/// How a value matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MatchKind {
    /// The whole value, ignoring case.
    Exact,
    /// The value starts with the search text.
    Prefix,
    /// The search text occurs inside the value.
    Substring,
}

/// One value found.
#[derive(Debug, Clone, PartialEq)]
pub struct DictionaryMatch<'a> {
    /// Where it was found.
    pub column: &'a DictionaryColumn,
    /// The value as stored.
    pub value: &'a str,
    /// How it matched.
    pub kind: MatchKind,
    /// Occurrences in the sample, when counted.
    pub count: Option<u64>,
}

/// Every dictionary value of one snapshot.
#[derive(Debug, Default)]
pub struct Dictionary {
    /// Values as their lower-cased letters and digits, each followed by `\n`.
    text: String,
    /// Where each value starts in `text`.
    starts: Vec<usize>,
    entries: Vec<Entry>,
    columns: Vec<DictionaryColumn>,
}

impl Dictionary {
    /// Builds the dictionary from a profile artifact; `is_view` tells
    /// views from base tables.
    pub fn from_profile(
        profile: &ProfileArtifact,
        is_view: impl Fn(&TableRef) -> bool,
    ) -> Dictionary {
        let mut dictionary = Dictionary::default();
        for table in &profile.tables {
            for column in table.columns.iter().filter(|c| c.dictionary) {
                let index = dictionary.columns.len() as u32;
                let table_ref = TableRef {
                    catalog: table.catalog.clone(),
                    db: table.db.clone(),
                    name: table.name.clone(),
                };
                dictionary.columns.push(DictionaryColumn {
                    is_view: is_view(&table_ref),
                    table: table_ref,
                    column: column.name.clone(),
                    distinct_count: column.distinct_count,
                });
                let counted = column
                    .top_values
                    .iter()
                    .map(|v| (v.value.as_str(), v.count));
                let listed = column.other_values.iter().map(|v| (v.as_str(), 0));
                for (value, count) in counted.chain(listed) {
                    dictionary.push(index, value, count);
                }
            }
        }
        dictionary.text.shrink_to_fit();
        dictionary
    }

    fn push(&mut self, column: u32, value: &str, count: u64) {
        self.starts.push(self.text.len());
        self.text.push_str(&normalize(value));
        self.text.push('\n');
        self.entries.push(Entry {
            column,
            value: value.into(),
            count,
        });
    }

    /// Columns in the dictionary.
    pub fn column_count(&self) -> usize {
        self.columns.len()
    }

    /// Values in the dictionary.
    pub fn value_count(&self) -> usize {
        self.entries.len()
    }

    /// Values containing `needle` (ignoring case, spaces and punctuation):
    /// the best `limit`, and how many matched in all.
    pub fn search(&self, needle: &str, limit: usize) -> (Vec<DictionaryMatch<'_>>, usize) {
        let needle = normalize(needle);
        if needle.is_empty() || self.entries.is_empty() {
            return (Vec::new(), 0);
        }
        let mut found: HashMap<usize, MatchKind> = HashMap::new();
        for position in memmem::find_iter(self.text.as_bytes(), needle.as_bytes()) {
            let index = self.starts.partition_point(|&s| s <= position) - 1;
            let start = self.starts[index];
            let end = self
                .starts
                .get(index + 1)
                .copied()
                .unwrap_or(self.text.len())
                - 1;
            if position + needle.len() > end {
                continue;
            }
            let kind = if position == start && end - start == needle.len() {
                MatchKind::Exact
            } else if position == start {
                MatchKind::Prefix
            } else {
                MatchKind::Substring
            };
            found
                .entry(index)
                .and_modify(|k| *k = (*k).min(kind))
                .or_insert(kind);
        }
        let total = found.len();
        let mut ranked: Vec<(usize, MatchKind)> = found.into_iter().collect();
        ranked.sort_by(|(a, ka), (b, kb)| {
            let (ea, eb) = (&self.entries[*a], &self.entries[*b]);
            let view = |e: &Entry| self.columns[e.column as usize].is_view;
            ka.cmp(kb)
                .then_with(|| view(ea).cmp(&view(eb)))
                .then_with(|| eb.count.cmp(&ea.count))
                .then_with(|| ea.value.len().cmp(&eb.value.len()))
                .then_with(|| ea.value.cmp(&eb.value))
                .then_with(|| ea.column.cmp(&eb.column))
        });
        let matches = ranked
            .into_iter()
            .take(limit)
            .map(|(index, kind)| {
                let entry = &self.entries[index];
                DictionaryMatch {
                    column: &self.columns[entry.column as usize],
                    value: &entry.value,
                    kind,
                    count: (entry.count > 0).then_some(entry.count),
                }
            })
            .collect();
        (matches, total)
    }
}

/// A value as it is compared: lower-cased letters and digits only.
fn normalize(value: &str) -> String {
    value
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::profile::{ColumnProfile, TableProfile, ValueCount};

    fn column(name: &str, top: &[(&str, u64)], other: &[&str]) -> ColumnProfile {
        ColumnProfile {
            name: name.into(),
            row_count: 10,
            null_count: 0,
            distinct_count: (top.len() + other.len()) as u64,
            min_length: None,
            max_length: None,
            min_value: None,
            max_value: None,
            inferred_type: None,
            dictionary: true,
            dictionary_excluded_by: None,
            top_values: top
                .iter()
                .map(|(v, n)| ValueCount {
                    value: v.to_string(),
                    count: *n,
                })
                .collect(),
            other_values: other.iter().map(|v| v.to_string()).collect(),
        }
    }

    fn dictionary() -> Dictionary {
        Dictionary::from_profile(
            &ProfileArtifact {
                connection_id: "w".into(),
                sync_id: "s".into(),
                profiled_at: "t".into(),
                sample_rows: 10,
                top_values_per_column: 2,
                dictionary_max_values: 10,
                tables: vec![TableProfile {
                    catalog: None,
                    db: None,
                    name: "accounts".into(),
                    sampled_rows: 10,
                    error: None,
                    columns: vec![
                        column(
                            "name",
                            &[("Acme Labs", 1), ("Big Acme", 1)],
                            &["Acme", "Globex\nCorp"],
                        ),
                        column("status", &[("active", 7), ("Active", 2)], &[]),
                    ],
                }],
            },
            |_| false,
        )
    }

    #[test]
    fn matches_rank_exact_then_prefix_then_substring_ignoring_case() {
        let d = dictionary();
        let (matches, total) = d.search("ACME", 10);
        assert_eq!(total, 3);
        let found: Vec<(&str, MatchKind)> = matches.iter().map(|m| (m.value, m.kind)).collect();
        assert_eq!(
            found,
            [
                ("Acme", MatchKind::Exact),
                ("Acme Labs", MatchKind::Prefix),
                ("Big Acme", MatchKind::Substring)
            ]
        );
        assert_eq!(matches[0].column.column, "name");
        assert_eq!(matches[0].count, None);
        assert_eq!(matches[1].count, Some(1));
    }

    #[test]
    fn spaces_underscores_and_case_are_ignored() {
        let d = dictionary();
        let (matches, _) = d.search("ACME-labs", 10);
        assert_eq!(matches[0].value, "Acme Labs");
        assert_eq!(matches[0].kind, MatchKind::Exact);
    }

    #[test]
    fn matches_never_span_two_values_and_respect_the_limit() {
        let d = dictionary();
        assert_eq!(d.search("labs big", 10).1, 0, "no match across two values");
        let (matches, total) = d.search("active", 1);
        assert_eq!(total, 2);
        assert_eq!(
            matches[0].value, "active",
            "the more frequent spelling first"
        );
        assert_eq!(
            d.search("globex corp", 5).1,
            1,
            "spacing inside values does not matter"
        );
        assert_eq!(d.search("  ", 5).1, 0);
        assert_eq!(d.search("--", 5).1, 0, "punctuation alone matches nothing");
    }
}
