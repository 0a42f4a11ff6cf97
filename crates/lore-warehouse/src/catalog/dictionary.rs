//! The value dictionary of one snapshot: every sampled value of every
//! dictionary column, searchable by substring ignoring case, spaces and
//! punctuation (so "past due" finds `past_due` and `PastDue`, and
//! "acme labs" finds `acmelabs.com`).
//!
//! Values are compared as their lower-cased letters and digits. Each such
//! string is stored once, however many columns hold it (`pending` in ten
//! thousand tables is one string with ten thousand entries), and a trigram
//! index maps every three-byte sequence to the strings containing it. A
//! search looks up the rarest trigram of the search text and checks only
//! those strings; text shorter than three bytes falls back to one SIMD
//! scan of all strings. Matches rank exact first, then prefix, then
//! substring, then base tables before views (the source before what is
//! derived from it), then by frequency in the sample; only the best
//! `limit` are sorted.

use std::collections::HashMap;

use memchr::memmem;

use crate::scan::profile::{ProfileArtifact, TableProfile};
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

/// One value of one column: 16 bytes, the text lives in `originals`.
#[derive(Debug, Clone, Copy)]
struct Entry {
    column: u32,
    start: u32,
    len: u32,
    /// Occurrences in the sample (0 when only known to occur).
    count: u32,
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
    columns: Vec<DictionaryColumn>,
    /// Distinct normalized strings, each followed by `\n`.
    text: String,
    /// Where each string starts in `text`, plus the end.
    starts: Vec<u32>,
    /// Entries of string `i` are `entries[entry_offsets[i]..entry_offsets[i + 1]]`.
    entry_offsets: Vec<u32>,
    entries: Vec<Entry>,
    /// The values as stored, concatenated.
    originals: String,
    /// Sorted trigrams; the strings holding `trigram_keys[k]` are
    /// `trigram_strings[trigram_offsets[k]..trigram_offsets[k + 1]]`.
    trigram_keys: Vec<u32>,
    trigram_offsets: Vec<u32>,
    trigram_strings: Vec<u32>,
}

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Writes the distinct trigrams of `bytes`, packed into integers, to `out`.
fn trigrams_into(bytes: &[u8], out: &mut Vec<u32>) {
    out.clear();
    out.extend(
        bytes
            .windows(3)
            .map(|w| u32::from_be_bytes([0, w[0], w[1], w[2]])),
    );
    out.sort_unstable();
    out.dedup();
}

/// Collects dictionary values one table at a time, then indexes them.
#[derive(Debug, Default)]
pub struct DictionaryBuilder {
    columns: Vec<DictionaryColumn>,
    /// Every value normalized, one after another.
    normalized: String,
    /// Where entry `i`'s normalized value is in `normalized`.
    spans: Vec<(u32, u32)>,
    entries: Vec<Entry>,
    originals: String,
}

impl DictionaryBuilder {
    /// An empty builder.
    pub fn new() -> DictionaryBuilder {
        DictionaryBuilder::default()
    }

    /// Adds the dictionary columns of one profiled table.
    pub fn add_table(&mut self, table: &TableProfile, is_view: bool) {
        for column in table.columns.iter().filter(|c| c.dictionary) {
            let index = self.columns.len() as u32;
            self.columns.push(DictionaryColumn {
                is_view,
                table: table.table_ref(),
                column: column.name.clone(),
                distinct_count: column.distinct_count,
            });
            let counted = column
                .top_values
                .iter()
                .map(|v| (v.value.as_str(), v.count));
            let listed = column.other_values.iter().map(|v| (v.as_str(), 0));
            for (value, count) in counted.chain(listed) {
                let from = self.normalized.len();
                normalize_into(value, &mut self.normalized);
                if self.normalized.len() == from {
                    continue;
                }
                self.spans.push((from as u32, self.normalized.len() as u32));
                let start = self.originals.len() as u32;
                self.originals.push_str(value);
                self.entries.push(Entry {
                    column: index,
                    start,
                    len: value.len() as u32,
                    count: u32::try_from(count).unwrap_or(u32::MAX),
                });
            }
        }
    }

    /// Deduplicates the values and builds the trigram index.
    pub fn finish(self) -> Dictionary {
        let DictionaryBuilder {
            columns,
            normalized,
            spans,
            entries,
            mut originals,
        } = self;
        // One id per distinct normalized string, in order of first sight.
        let mut ids: FastMap<&str, u32> =
            FastMap::with_capacity_and_hasher(spans.len() / 2, Default::default());
        let mut text = String::new();
        let mut starts: Vec<u32> = Vec::new();
        let string_of: Vec<u32> = spans
            .iter()
            .map(|&(from, to)| {
                let value = &normalized[from as usize..to as usize];
                *ids.entry(value).or_insert_with(|| {
                    starts.push(text.len() as u32);
                    text.push_str(value);
                    text.push('\n');
                    (starts.len() - 1) as u32
                })
            })
            .collect();
        drop(ids);
        drop(spans);
        drop(normalized);
        let strings = starts.len();
        starts.push(text.len() as u32);
        // Group entries by string (counting sort: no comparisons).
        let mut entry_offsets = vec![0u32; strings + 1];
        for &id in &string_of {
            entry_offsets[id as usize + 1] += 1;
        }
        for i in 0..strings {
            entry_offsets[i + 1] += entry_offsets[i];
        }
        let mut next = entry_offsets.clone();
        let mut grouped = vec![
            Entry {
                column: 0,
                start: 0,
                len: 0,
                count: 0
            };
            entries.len()
        ];
        for (entry, &id) in entries.into_iter().zip(&string_of) {
            grouped[next[id as usize] as usize] = entry;
            next[id as usize] += 1;
        }
        drop(next);
        drop(string_of);
        let mut dictionary = Dictionary {
            columns,
            text,
            starts,
            entry_offsets,
            entries: grouped,
            originals: {
                originals.shrink_to_fit();
                originals
            },
            trigram_keys: Vec::new(),
            trigram_offsets: Vec::new(),
            trigram_strings: Vec::new(),
        };
        dictionary.build_trigrams();
        dictionary.text.shrink_to_fit();
        dictionary
    }
}

impl Dictionary {
    /// Builds the dictionary of a whole profile artifact.
    pub fn from_profile(
        profile: &ProfileArtifact,
        is_view: impl Fn(&TableRef) -> bool,
    ) -> Dictionary {
        let mut builder = DictionaryBuilder::new();
        for table in &profile.tables {
            builder.add_table(table, is_view(&table.table_ref()));
        }
        builder.finish()
    }

    /// Counting sort of (trigram, string) pairs into the index.
    fn build_trigrams(&mut self) {
        let strings = self.starts.len() - 1;
        let mut grams = Vec::new();
        let mut counts: FastMap<u32, u32> = FastMap::default();
        for id in 0..strings as u32 {
            trigrams_into(self.string(id), &mut grams);
            for &gram in &grams {
                *counts.entry(gram).or_insert(0) += 1;
            }
        }
        let mut keys: Vec<u32> = counts.keys().copied().collect();
        keys.sort_unstable();
        let mut offsets = Vec::with_capacity(keys.len() + 1);
        let mut slots: FastMap<u32, u32> =
            FastMap::with_capacity_and_hasher(keys.len(), Default::default());
        let mut total = 0u32;
        for key in &keys {
            offsets.push(total);
            slots.insert(*key, total);
            total += counts[key];
        }
        offsets.push(total);
        drop(counts);
        let mut postings = vec![0u32; total as usize];
        for id in 0..strings as u32 {
            trigrams_into(self.string(id), &mut grams);
            for gram in &grams {
                if let Some(slot) = slots.get_mut(gram) {
                    postings[*slot as usize] = id;
                    *slot += 1;
                }
            }
        }
        self.trigram_keys = keys;
        self.trigram_offsets = offsets;
        self.trigram_strings = postings;
    }

    /// Columns in the dictionary.
    pub fn column_count(&self) -> usize {
        self.columns.len()
    }

    /// Values in the dictionary (one per column holding it).
    pub fn value_count(&self) -> usize {
        self.entries.len()
    }

    fn string(&self, id: u32) -> &[u8] {
        let (start, end) = (self.starts[id as usize], self.starts[id as usize + 1] - 1);
        &self.text.as_bytes()[start as usize..end as usize]
    }

    fn postings(&self, gram: u32) -> Option<&[u32]> {
        let k = self.trigram_keys.binary_search(&gram).ok()?;
        let (from, to) = (self.trigram_offsets[k], self.trigram_offsets[k + 1]);
        Some(&self.trigram_strings[from as usize..to as usize])
    }

    /// The distinct strings containing `needle`, with how they match.
    fn matching_strings(&self, needle: &[u8]) -> Vec<(u32, MatchKind)> {
        let kind = |s: &[u8]| -> Option<MatchKind> {
            if s.starts_with(needle) {
                Some(if s.len() == needle.len() {
                    MatchKind::Exact
                } else {
                    MatchKind::Prefix
                })
            } else {
                memmem::find(s, needle).map(|_| MatchKind::Substring)
            }
        };
        if needle.len() >= 3 {
            let mut rarest: Option<&[u32]> = None;
            let mut grams = Vec::new();
            trigrams_into(needle, &mut grams);
            for gram in grams {
                match self.postings(gram) {
                    None => return Vec::new(),
                    Some(list) if rarest.is_none_or(|r| list.len() < r.len()) => {
                        rarest = Some(list)
                    }
                    Some(_) => {}
                }
            }
            return rarest
                .unwrap_or_default()
                .iter()
                .filter_map(|&id| kind(self.string(id)).map(|k| (id, k)))
                .collect();
        }
        // Too short for trigrams: one scan of every string.
        let mut found: Vec<(u32, MatchKind)> = Vec::new();
        for position in memmem::find_iter(self.text.as_bytes(), needle) {
            let id = (self.starts.partition_point(|&s| s as usize <= position) - 1) as u32;
            if found.last().is_some_and(|(last, _)| *last == id) {
                continue;
            }
            if let Some(k) = kind(self.string(id)) {
                found.push((id, k));
            }
        }
        found
    }

    /// Values containing `needle` (ignoring case, spaces and punctuation):
    /// the best `limit`, and how many matched in all.
    pub fn search(&self, needle: &str, limit: usize) -> (Vec<DictionaryMatch<'_>>, usize) {
        let needle = normalize(needle);
        if needle.is_empty() || self.entries.is_empty() || limit == 0 {
            return (Vec::new(), 0);
        }
        let mut hits: Vec<(MatchKind, u32)> = Vec::new();
        for (id, kind) in self.matching_strings(needle.as_bytes()) {
            let (from, to) = (
                self.entry_offsets[id as usize],
                self.entry_offsets[id as usize + 1],
            );
            hits.extend((from..to).map(|e| (kind, e)));
        }
        let total = hits.len();
        let rank = |a: &(MatchKind, u32), b: &(MatchKind, u32)| {
            let (ea, eb) = (&self.entries[a.1 as usize], &self.entries[b.1 as usize]);
            let view = |e: &Entry| self.columns[e.column as usize].is_view;
            a.0.cmp(&b.0)
                .then_with(|| view(ea).cmp(&view(eb)))
                .then_with(|| eb.count.cmp(&ea.count))
                .then_with(|| ea.len.cmp(&eb.len))
                .then_with(|| self.original(ea).cmp(self.original(eb)))
                .then_with(|| ea.column.cmp(&eb.column))
        };
        if hits.len() > limit {
            hits.select_nth_unstable_by(limit - 1, rank);
            hits.truncate(limit);
        }
        hits.sort_by(rank);
        let matches = hits
            .into_iter()
            .map(|(kind, index)| {
                let entry = &self.entries[index as usize];
                DictionaryMatch {
                    column: &self.columns[entry.column as usize],
                    value: self.original(entry),
                    kind,
                    count: (entry.count > 0).then_some(u64::from(entry.count)),
                }
            })
            .collect();
        (matches, total)
    }

    fn original(&self, entry: &Entry) -> &str {
        &self.originals[entry.start as usize..(entry.start + entry.len) as usize]
    }
}

/// A value as it is compared: lower-cased letters and digits only.
fn normalize(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    normalize_into(value, &mut out);
    out
}

/// Appends `value` as it is compared to `out`.
fn normalize_into(value: &str, out: &mut String) {
    for c in value.chars().filter(|c| c.is_alphanumeric()) {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            out.extend(c.to_lowercase());
        }
    }
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
    fn short_search_text_scans_every_value_once() {
        let d = dictionary();
        let (matches, total) = d.search("ac", 10);
        // acme, acme labs, big acme, active (two spellings, one string).
        assert_eq!(total, 5);
        assert_eq!(
            matches[0].value, "active",
            "prefix matches before substrings, frequent first"
        );
        assert_eq!(matches.last().unwrap().value, "Big Acme");
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
