//! What the schema ranker knows of one scan: every table's and column's
//! words by place (name, comment, sample values), how rare each word is,
//! and how the tables join (declared and accepted inferred keys).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use lore_warehouse::catalog::LoadedSnapshot;
use lore_warehouse::scan::relationships::RelationshipStatus;
use lore_warehouse::schema::DimensionType;
use rustc_hash::FxHashMap;

use super::meaning::TableMeanings;

/// Where a word occurs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// The table's name.
    TableName,
    /// The table's comment.
    TableComment,
    /// A column's name.
    ColumnName,
    /// A column's comment.
    ColumnComment,
    /// A column's sample values.
    Sample,
}

/// One occurrence of a word: the table, the column (none for the table's
/// own name and comment) and the place.
#[derive(Debug, Clone, Copy)]
pub(super) struct Posting {
    pub table: u32,
    /// The column's number over all tables (see
    /// [`SchemaModel::column_start`]).
    pub column: Option<u32>,
    pub place: Place,
    /// The column refers to another table (a foreign key).
    pub pointer: bool,
}

/// A word's occurrences and in how many tables and columns it occurs.
#[derive(Debug, Default)]
pub(super) struct Term {
    /// Tables and columns holding it.
    pub units: u32,
    pub postings: Vec<Posting>,
}

/// A join from one table to another, with this side's columns.
#[derive(Debug, Clone)]
pub(super) struct Link {
    pub other: u32,
    /// This table's columns.
    pub here: Vec<u32>,
}

/// One connection's scan, ready to rank.
pub(super) struct SchemaModel {
    pub connection: String,
    pub snapshot: Arc<LoadedSnapshot>,
    pub terms: FxHashMap<Box<str>, Term>,
    /// The terms, sorted (for their other forms).
    vocabulary: Vec<Box<str>>,
    /// Tables plus columns.
    pub units: u32,
    /// Per table: the number of its first column; a column's number is
    /// that plus its position (numbers run over all tables' columns).
    pub column_start: Vec<u32>,
    /// Per column number: its table.
    pub column_table: Vec<u32>,
    /// Per table: its joins.
    pub links: Vec<Vec<Link>>,
    /// Per table, per column: a date or time.
    pub temporal: Vec<Vec<bool>>,
    /// Per table: it copies another table (`shadow_instances`,
    /// `orders_archive`: the other's name inside its own, and its columns).
    pub copy: Vec<bool>,
    /// The tables' vectors by meaning, made on the first question that
    /// weighs meaning (none when the model is missing).
    meanings: OnceLock<Option<TableMeanings>>,
}

impl SchemaModel {
    /// Indexes a scan's tables and columns.
    pub fn build(connection: &str, snapshot: Arc<LoadedSnapshot>) -> SchemaModel {
        let mut terms: FxHashMap<Box<str>, Term> = FxHashMap::default();
        let mut units = 0u32;
        let mut add = |text: &str, posting: Posting, seen: &mut Vec<String>| {
            for term in lore_search::tokenizer::terms(text) {
                let entry = terms.entry(term.as_str().into()).or_default();
                if !seen.contains(&term) {
                    entry.units += 1;
                    seen.push(term);
                }
                entry.postings.push(posting);
            }
        };
        let mut column_start = Vec::with_capacity(snapshot.tables.len());
        let mut column_table = Vec::new();
        for (t, table) in snapshot.tables.iter().enumerate() {
            let first = column_table.len() as u32;
            column_start.push(first);
            column_table.extend(std::iter::repeat_n(t as u32, table.columns.len()));
            let t = t as u32;
            let mut seen = Vec::new();
            let mut posting = Posting {
                table: t,
                column: None,
                place: Place::TableName,
                pointer: false,
            };
            add(&table.name, posting, &mut seen);
            if let Some(comment) = &table.comment {
                posting.place = Place::TableComment;
                add(comment, posting, &mut seen);
            }
            units += 1;
            // A foreign key's column (the first of that name).
            let mut pointer = vec![false; table.columns.len()];
            for fk in &table.foreign_keys {
                if let Some(c) = table.columns.iter().position(|c| c.name == fk.from_column) {
                    pointer[c] = true;
                }
            }
            for (c, column) in table.columns.iter().enumerate() {
                let mut seen = Vec::new();
                let mut posting = Posting {
                    table: t,
                    column: Some(first + c as u32),
                    place: Place::ColumnName,
                    pointer: pointer[c],
                };
                add(&column.name, posting, &mut seen);
                if let Some(comment) = &column.comment {
                    posting.place = Place::ColumnComment;
                    add(comment, posting, &mut seen);
                }
                if let Some(stats) = snapshot.column_stats(t as usize, c) {
                    posting.place = Place::Sample;
                    add(&stats.sample_values.join(" "), posting, &mut seen);
                }
                units += 1;
            }
        }
        let temporal = snapshot
            .tables
            .iter()
            .map(|t| {
                t.columns
                    .iter()
                    .map(|c| c.dimension_type == DimensionType::Time)
                    .collect()
            })
            .collect();
        let links = links(&snapshot);
        let mut vocabulary: Vec<Box<str>> = terms.keys().cloned().collect();
        vocabulary.sort();
        SchemaModel {
            connection: connection.to_string(),
            vocabulary,
            copy: copies(&snapshot),
            links,
            snapshot,
            terms,
            units,
            column_start,
            column_table,
            temporal,
            meanings: OnceLock::new(),
        }
    }

    /// The tables' vectors by meaning, embedded on first use.
    pub fn meanings(&self) -> Option<&TableMeanings> {
        self.meanings
            .get_or_init(|| TableMeanings::build(&self.snapshot))
            .as_ref()
    }

    /// How much finding `term` says: rare words say more (BM25's IDF over
    /// tables and columns).
    pub fn idf(&self, term: &str) -> Option<f32> {
        let found = self.terms.get(term)?;
        let n = self.units as f32;
        let df = found.units as f32;
        Some((1.0 + (n - df + 0.5) / (df + 0.5)).ln())
    }
}

/// Which tables copy another: a longer name holding the other's whole
/// name at its start or end, and every column of the other.
fn copies(snapshot: &LoadedSnapshot) -> Vec<bool> {
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for (t, table) in snapshot.tables.iter().enumerate() {
        by_name.insert(table.name.to_lowercase(), t);
    }
    snapshot
        .tables
        .iter()
        .map(|table| {
            // `shadow_instances` → `instances`, `orders_archive` → `orders`.
            let name = table.name.to_lowercase();
            let parts: Vec<&str> = name.split(['_', '.', '-']).collect();
            let original = (1..parts.len()).find_map(|i| {
                let tail = parts[i..].join("_");
                let head = parts[..parts.len() - i].join("_");
                by_name.get(&tail).or_else(|| by_name.get(&head)).copied()
            });
            original.is_some_and(|o| {
                let theirs = &snapshot.tables[o].columns;
                theirs.len() >= 3
                    && table.columns.len() <= theirs.len() + 3
                    && theirs.iter().all(|c| {
                        table
                            .columns
                            .iter()
                            .any(|m| m.name.eq_ignore_ascii_case(&c.name))
                    })
            })
        })
        .collect()
}

/// The shortest stem whose other forms are looked for.
const VARIANT_PREFIX: usize = 5;

impl SchemaModel {
    /// The schema's other forms of a (stemmed) word: terms sharing all
    /// but its last two letters, at least five (`prescrib` finds
    /// `prescript`, `diagnos` finds `diagnosi`), the word itself left out.
    pub fn variants(&self, word: &str) -> Vec<&str> {
        if word.len() < VARIANT_PREFIX || !word.is_ascii() {
            return Vec::new();
        }
        let head = &word[..VARIANT_PREFIX];
        let start = self.vocabulary.partition_point(|t| &**t < head);
        self.vocabulary[start..]
            .iter()
            .take_while(|t| t.starts_with(head))
            .filter(|t| {
                let shared = t
                    .bytes()
                    .zip(word.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                &***t != word
                    && shared >= (t.len().min(word.len()).saturating_sub(2)).max(VARIANT_PREFIX)
            })
            .map(|t| &**t)
            .collect()
    }
}

/// Every table's joins, both ways, from the scan's accepted relationships.
fn links(snapshot: &LoadedSnapshot) -> Vec<Vec<Link>> {
    let mut index: HashMap<(Option<&str>, Option<&str>, &str), u32> = HashMap::new();
    for (t, table) in snapshot.tables.iter().enumerate() {
        index.insert(
            (
                table.catalog.as_deref(),
                table.db.as_deref(),
                table.name.as_str(),
            ),
            t as u32,
        );
    }
    let column = |t: u32, name: &str| {
        snapshot.tables[t as usize]
            .columns
            .iter()
            .position(|c| c.name == name)
            .map(|c| c as u32)
    };
    let mut links: Vec<Vec<Link>> = vec![Vec::new(); snapshot.tables.len()];
    for rel in &snapshot.relationships {
        if rel.status != RelationshipStatus::Accepted {
            continue;
        }
        let end = |e: &lore_warehouse::scan::relationships::RelationshipEnd| {
            index
                .get(&(e.catalog.as_deref(), e.db.as_deref(), e.table.as_str()))
                .copied()
        };
        let (Some(from), Some(to)) = (end(&rel.from), end(&rel.to)) else {
            continue;
        };
        let here: Vec<u32> = rel
            .from
            .columns
            .iter()
            .filter_map(|c| column(from, c))
            .collect();
        let there: Vec<u32> = rel
            .to
            .columns
            .iter()
            .filter_map(|c| column(to, c))
            .collect();
        if from == to || here.is_empty() || there.is_empty() {
            continue;
        }
        links[from as usize].push(Link { other: to, here });
        links[to as usize].push(Link {
            other: from,
            here: there,
        });
    }
    links
}
