//! Scores a question against one scan's tables and columns.
//!
//! 1. **A table is judged by everything it holds.** Each query word counts
//!    once per table, by the best place it occurs: the table's name, its
//!    comment, a column's name, a column's comment or sample values
//!    (weighted in that order), times the word's rarity. So a table whose
//!    columns hold the question's words ranks even when its own name
//!    holds none of them, and a word repeated in ten columns counts once.
//!    A word's other forms (`prescribed` for `prescriptions`) and related
//!    words ([`super::concepts`]: "oldest" for `age`, a place named after
//!    "from" for `country`) count at lower weights, and the tables closest
//!    in meaning to the question ([`super::meaning`]) gain a small bonus,
//!    once a word found something.
//! 2. **Tables that join to what was found are found too.** A table gets
//!    half its best joined neighbour's score (a third when it holds no
//!    query word itself); the table that joins two of
//!    the best tables (a bridge) ranks with them; a copy of another table
//!    (`shadow_instances`, `orders_archive`) ranks well below it; a word in
//!    a column that points to another table (`UserId`) says little of its
//!    own table. A table the query names whole, as an identifier or alone,
//!    ranks above them all ([`asked_by_name`]).
//! 3. **A column is judged by its own words and its table's.** Its own
//!    name, comment or samples, plus half its table's score. The keys that
//!    join two of the best tables rank just above their table, date columns
//!    come with their table when the question asks when, and the best
//!    tables' other columns follow, so a best table is listed whole.
//!
//! A small schema (ten tables at most) is listed whole, the tables no word
//! found last with a tiny score, so a question in other words than the
//! schema's still gets its candidates.
//!
//! Scores are shares of the query's (rarity-weighted) words, so they are
//! comparable between connections.

use lore_search::tokenizer::query_terms;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::concepts;
use super::dense::DenseMap;
use super::joins::{best_of, list_the_rest, with_joins};
use super::meaning::Question;
use super::model::{Place, SchemaModel};
pub(super) use super::weights::Weights;

/// Why a table or column is in the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reason {
    /// A query word is in this place of its own.
    Own(Place),
    /// Its table (or a table it joins) matched; nothing of its own did.
    Table,
}

/// One ranked table (`column` none) or column.
#[derive(Debug, Clone)]
pub(super) struct Scored {
    pub table: u32,
    pub column: Option<u32>,
    pub score: f32,
    /// The score before a column was held to its table's (orders ties).
    pub raw: f32,
    pub reason: Reason,
    /// Listed only because its schema is small: no query word found it or
    /// a table it joins.
    pub listed: bool,
}

/// Words that ask when something happened.
const WHEN: &[&str] = &[
    "when", "date", "dates", "time", "times", "day", "days", "week", "month", "months", "year",
    "years", "hour", "hours", "first", "last", "latest", "earliest", "recent", "recently", "since",
    "between", "ago", "before", "after", "during",
];

/// The query's words, lower-cased.
fn words(query: &str) -> impl Iterator<Item = String> + '_ {
    query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// Evidence gathered over the query's words.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Evidence {
    /// Sum of the words' shares.
    pub score: f32,
    /// The largest one word gave, and where that word was.
    best: f32,
    place: Option<Place>,
    /// Tables: the shares of the words in the table's own name.
    named: f32,
    /// Columns: the shares of the words their table's name lacks.
    novel: f32,
}

impl Evidence {
    fn add(&mut self, share: f32, place: Place) {
        self.score += share;
        if share > self.best {
            self.best = share;
            self.place = Some(place);
        }
    }
}

/// A column's score before it is held to its table's.
#[derive(Debug, Clone, Copy)]
pub(super) struct ColumnScore {
    score: f32,
    reason: Reason,
    /// It holds a query word its table's name lacks (it may top its
    /// table).
    adds: bool,
}

/// The working memory of one question's ranking, kept for the next one
/// (see [`DenseMap`]): keyed by table number, or by column number
/// ([`SchemaModel::column_start`]).
#[derive(Default)]
pub(super) struct Scratch {
    /// Per word: each table's and column's best weight and its place.
    table_best: DenseMap<(f32, Place)>,
    column_best: DenseMap<(f32, Place)>,
    /// Over the words: each table's and column's evidence.
    tables: DenseMap<Evidence>,
    columns: DenseMap<Evidence>,
    /// Tables' scores with the joins' share.
    scores: DenseMap<f32>,
    /// Columns' scores with their table's share.
    scored_columns: DenseMap<ColumnScore>,
}

impl Scratch {
    /// Empties everything, with room for `model`'s tables and columns.
    fn reset(&mut self, model: &SchemaModel) {
        let (tables, columns) = (model.links.len(), model.column_table.len());
        let none = ColumnScore {
            score: 0.0,
            reason: Reason::Table,
            adds: false,
        };
        self.tables.reset(tables, Evidence::default());
        self.columns.reset(columns, Evidence::default());
        self.scores.reset(tables, 0.0);
        self.scored_columns.reset(columns, none);
    }
}

/// Ranks `model`'s tables and columns for `query`, best first, with the
/// rarity-weighted mass of the query's words the schema holds (scores are
/// shares of it); nothing when no query word occurs in the schema.
/// `scratch` is working memory, left for the next question.
pub(super) fn rank(
    model: &SchemaModel,
    query: &str,
    w: &Weights,
    wanted: Wanted,
    scratch: &mut Scratch,
) -> (Vec<Scored>, f32) {
    let small = model.links.len() <= w.small_schema;
    scratch.reset(model);
    let (mass, words_found) = match evidence(model, query, w, wanted.columns, scratch) {
        Some(mass) => (mass, true),
        // A small schema is listed even for a question none of its words
        // are in: its tables are the answer's only candidates.
        None if small && !model.links.is_empty() => (1.0, false),
        None => return (Vec::new(), 0.0),
    };
    // Meaning adds to what the words found (and may bring a table no
    // word found), before the joins share it; alone it finds nothing (a
    // question none of whose words the schema holds is answered as
    // before: nothing, or a small schema listed with low scores).
    let question = words_found
        .then(|| Question::embed(query, w.meaning()))
        .flatten();
    if let Some(question) = &question
        && let Some(meanings) = model.meanings()
    {
        for (t, bonus) in question.table_bonuses(meanings, w.meaning()) {
            scratch.tables.entry(t, Evidence::default()).score += bonus;
        }
    }
    let tables = &scratch.tables;
    let own = |t: u32| tables.get(t).map_or(0.0, |e| e.score);
    with_joins(model, w, tables.keys(), own, &mut scratch.scores);
    asked_by_name(model, query, &mut scratch.scores);
    let rest = if small {
        list_the_rest(model, &mut scratch.scores)
    } else {
        Vec::new()
    };
    let mut kept = Kept::new(wanted.keep);
    if wanted.tables {
        let Scratch { tables, scores, .. } = &*scratch;
        for (t, score) in scores.iter() {
            kept.offer(Scored {
                table: t,
                column: None,
                score,
                raw: score,
                reason: match tables.get(t).and_then(|e| e.place) {
                    Some(place) => Reason::Own(place),
                    None => Reason::Table,
                },
                listed: rest.contains(&t),
            });
        }
    }
    if wanted.columns {
        let best = best_of(scratch.scores.iter(), w.best_tables);
        score_columns(model, query, w, &best, question.as_ref(), scratch);
        let Scratch {
            scores,
            scored_columns,
            ..
        } = &*scratch;
        // A column may top its own table when it holds a word its table's
        // name lacks, never the tables above it, and never its table when
        // the question asks which table.
        let asks_table = words(query).any(|word| word == "table" || word == "tables");
        for (id, s) in scored_columns.iter() {
            let t = model.column_table[id as usize];
            let table = scores.get(t).copied().unwrap_or(0.0);
            let over_table = if s.adds && !asks_table {
                w.over_table
            } else {
                0.99
            };
            kept.offer(Scored {
                table: t,
                column: Some(id - model.column_start[t as usize]),
                score: s.score.min(over_table * table),
                raw: s.score,
                reason: s.reason,
                listed: rest.contains(&t),
            });
        }
    }
    (kept.into_sorted(), mass)
}

/// Tables the query names whole, as an identifier (`t09999`,
/// `order_items`) or alone (`users`), rank above every other table: no
/// share of a neighbour's score, no bridge, outranks the table a user
/// typed.
fn asked_by_name(model: &SchemaModel, query: &str, scores: &mut DenseMap<f32>) {
    let top = scores.iter().map(|(_, s)| s).fold(0.0f32, f32::max);
    if top <= 0.0 {
        return;
    }
    let tokens: Vec<&str> = query
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty())
        .collect();
    // A name typed as an identifier (`order_items`, `t09999`), or alone;
    // a table named like an everyday word (`users`) asked in a sentence
    // is left to the words' evidence.
    let alone = tokens.len() == 1;
    let tokens: Vec<&str> = tokens
        .into_iter()
        .filter(|t| alone || t.contains('_') || t.chars().any(|c| c.is_ascii_digit()))
        .collect();
    if tokens.is_empty() {
        return;
    }
    for (t, table) in model.snapshot.tables.iter().enumerate() {
        if tokens
            .iter()
            .any(|token| table.name.eq_ignore_ascii_case(token))
        {
            let slot = scores.entry(t as u32, 0.0);
            *slot = slot.max(top * NAMED_ABOVE);
        }
    }
}

/// How far above the best other table a table the query names whole
/// ranks.
const NAMED_ABOVE: f32 = 1.05;

/// The order of a ranking: best first.
fn order(a: &Scored, b: &Scored) -> Ordering {
    b.score
        .total_cmp(&a.score)
        .then(b.raw.total_cmp(&a.raw))
        .then(a.column.is_some().cmp(&b.column.is_some()))
        .then(a.table.cmp(&b.table))
        .then(a.column.cmp(&b.column))
}

/// The best of the tables and columns offered, at most `keep` of them
/// (a common word can match every column of a large schema: only the
/// best are kept and ordered).
struct Kept {
    keep: usize,
    /// The worst kept on top.
    heap: BinaryHeap<Ranked>,
}

/// A table or column, greater when it ranks lower.
struct Ranked(Scored);

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        order(&self.0, &other.0)
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Ranked {}

impl Kept {
    fn new(keep: usize) -> Kept {
        Kept {
            keep,
            heap: BinaryHeap::with_capacity(keep + 1),
        }
    }

    fn offer(&mut self, scored: Scored) {
        if self.heap.len() < self.keep {
            self.heap.push(Ranked(scored));
        } else if let Some(mut worst) = self.heap.peek_mut()
            && order(&scored, &worst.0).is_lt()
        {
            *worst = Ranked(scored);
        }
    }

    /// The kept, best first.
    fn into_sorted(self) -> Vec<Scored> {
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|r| r.0)
            .collect()
    }
}

/// Scores the columns (into `scratch.scored_columns`), before they are
/// held to their table's: those holding a query word, plus the keys,
/// dates, columns close in meaning to the `question` and other columns of
/// the `best` tables.
fn score_columns(
    model: &SchemaModel,
    query: &str,
    w: &Weights,
    best: &[(u32, f32)],
    question: Option<&Question>,
    scratch: &mut Scratch,
) {
    let Scratch {
        tables,
        columns,
        scores,
        scored_columns,
        ..
    } = scratch;
    for (id, own) in columns.iter() {
        let t = model.column_table[id as usize];
        let table = scores.get(t).copied().unwrap_or(0.0);
        // "plan name" is `plans.name`: the table's name holds the rest.
        let named = tables.get(t).map_or(0.0, |e| e.named);
        scored_columns.entry(
            id,
            ColumnScore {
                score: own.score + w.column_table * table + w.table_name_for_column * named,
                reason: own.place.map_or(Reason::Table, Reason::Own),
                adds: own.novel > 0.0,
            },
        );
    }
    let asks_when = words(query).any(|word| WHEN.contains(&word.as_str()));
    let chosen: Vec<u32> = best.iter().map(|(t, _)| *t).collect();
    for &(t, table) in best {
        let first = model.column_start[t as usize];
        let mut extra: Vec<(u32, f32)> = Vec::new();
        for link in &model.links[t as usize] {
            if chosen.contains(&link.other) {
                extra.extend(link.here.iter().map(|&c| (c, w.key)));
            }
        }
        if asks_when {
            let dates = &model.temporal[t as usize];
            extra.extend(
                (0..dates.len() as u32)
                    .filter(|&c| dates[c as usize])
                    .map(|c| (c, w.time)),
            );
        }
        if let Some(question) = question {
            extra.extend(question.column_bonuses(&model.snapshot, t as usize, w.meaning()));
        }
        for (c, share) in extra {
            let entry = scored_columns.entry(
                first + c,
                ColumnScore {
                    score: w.column_table * table,
                    reason: Reason::Table,
                    adds: false,
                },
            );
            entry.score += share * table;
        }
        let width = model.temporal[t as usize].len() as u32;
        for c in 0..width {
            // Earlier columns first: tables list their keys first.
            let order = 1.0 - c as f32 / (width as f32 + 1.0);
            scored_columns.entry(
                first + c,
                ColumnScore {
                    score: w.fill * table * order,
                    reason: Reason::Table,
                    adds: false,
                },
            );
        }
    }
}

/// What the caller keeps of a ranking.
#[derive(Debug, Clone, Copy)]
pub(super) struct Wanted {
    pub tables: bool,
    pub columns: bool,
    /// How many, at most.
    pub keep: usize,
}

/// Per table and per column (when `columns` are wanted), in `scratch`:
/// the query words they hold, as a share of the query's words weighted
/// by rarity, and the place that gave most; returns that mass, or none
/// (nothing written) when no query word occurs in the schema.
fn evidence(
    model: &SchemaModel,
    query: &str,
    w: &Weights,
    columns_wanted: bool,
    scratch: &mut Scratch,
) -> Option<f32> {
    let mut words = query_terms(query);
    words.sort();
    words.dedup();
    let mut known: Vec<(f32, Vec<(&str, f32)>)> = words
        .iter()
        .filter_map(|word| word_terms(model, word, w))
        .collect();
    // "users from Greece": a place is asked for, whatever its name.
    let place = concepts::place_words(query);
    if !place.is_empty() {
        let found: Vec<(&str, f32)> = place
            .iter()
            .filter_map(|p| model.terms.get_key_value(p.as_str()))
            .map(|(term, _)| (&**term, w.concept))
            .collect();
        if let Some(idf) = max_idf(model, &found) {
            known.push((idf, found));
        }
    }
    let mass: f32 = known.iter().map(|(idf, _)| idf).sum();
    if mass <= 0.0 {
        return None;
    }
    let Scratch {
        table_best,
        column_best,
        tables,
        columns,
        ..
    } = scratch;
    for (idf, found) in known {
        table_best.reset(model.links.len(), (0.0, Place::TableName));
        column_best.reset(model.column_table.len(), (0.0, Place::TableName));
        for (term, form) in found {
            for p in &model.terms[term].postings {
                let mut for_table = form * w.for_table(p.place);
                if p.pointer {
                    for_table *= w.pointer;
                }
                keep_best(
                    table_best.entry(p.table, (0.0, p.place)),
                    for_table,
                    p.place,
                );
                if let Some(c) = p.column
                    && columns_wanted
                {
                    keep_best(
                        column_best.entry(c, (0.0, p.place)),
                        form * w.for_column(p.place),
                        p.place,
                    );
                }
            }
        }
        let share = idf / mass;
        for (t, (weight, place)) in table_best.iter() {
            let entry = tables.entry(t, Evidence::default());
            entry.add(share * weight, place);
            if place == Place::TableName {
                entry.named += share * weight;
            }
        }
        for (id, (weight, place)) in column_best.iter() {
            if weight > 0.0 {
                let entry = columns.entry(id, Evidence::default());
                entry.add(share * weight, place);
                let in_name = table_best
                    .get(model.column_table[id as usize])
                    .is_some_and(|(_, p)| *p == Place::TableName);
                if !in_name {
                    entry.novel += share * weight;
                }
            }
        }
    }
    Some(mass)
}

/// A query word with the schema's terms it finds and its rarity: itself,
/// its other forms ("prescribed" finds `prescriptions`) and related words
/// ("oldest" finds `age`) at lower weights; none when it finds nothing.
fn word_terms<'m>(
    model: &'m SchemaModel,
    word: &str,
    w: &Weights,
) -> Option<(f32, Vec<(&'m str, f32)>)> {
    let mut found: Vec<(&str, f32)> = model
        .variants(word)
        .into_iter()
        .map(|v| (v, w.variant))
        .collect();
    found.extend(
        concepts::related(word)
            .iter()
            .filter_map(|r| model.terms.get_key_value(r.as_str()))
            .map(|(term, _)| (&**term, w.concept)),
    );
    match model.terms.get_key_value(word) {
        Some((term, _)) => {
            let idf = model.idf(term)?;
            found.push((&**term, 1.0));
            Some((idf, found))
        }
        None => Some((max_idf(model, &found)?, found)),
    }
}

/// The largest rarity among `found` terms.
fn max_idf(model: &SchemaModel, found: &[(&str, f32)]) -> Option<f32> {
    found
        .iter()
        .filter_map(|(term, _)| model.idf(term))
        .fold(None, |a: Option<f32>, b| Some(a.map_or(b, |a| a.max(b))))
}

fn keep_best(slot: &mut (f32, Place), weight: f32, place: Place) {
    if weight > slot.0 {
        *slot = (weight, place);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scored(table: u32, column: Option<u32>, score: f32) -> Scored {
        Scored {
            table,
            column,
            score,
            raw: score,
            reason: Reason::Table,
            listed: false,
        }
    }

    #[test]
    fn only_the_best_are_kept_in_ranking_order_ties_to_the_lower_table() {
        let all: Vec<Scored> = (0..200u32)
            .map(|t| scored(t % 50, (t >= 50).then_some(t / 50), (t % 7) as f32))
            .collect();
        let mut kept = Kept::new(15);
        for s in &all {
            kept.offer(s.clone());
        }
        let mut sorted = all;
        sorted.sort_by(order);
        sorted.truncate(15);
        let key = |s: &Scored| (s.table, s.column, s.score.to_bits());
        let kept: Vec<_> = kept.into_sorted().iter().map(key).collect();
        assert_eq!(kept, sorted.iter().map(key).collect::<Vec<_>>());
        assert_eq!(kept[0], (6, None, 6.0f32.to_bits()));
    }
}
