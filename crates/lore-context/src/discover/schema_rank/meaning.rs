//! The meaning signal: how close a question is, by the static embedding
//! model shipped in the binary ([`lore_search::static_embed`]), to each
//! table's name, comment and columns' names, and to the best tables'
//! columns' names and comments. It finds what no question word spells
//! ("male or female patients" and `gender`), so it adds a bounded bonus
//! to the word evidence, never replaces it: the table closest in meaning
//! gains [`MeaningWeights::table`], tables within
//! [`MeaningWeights::margin`] of its cosine gain less, the rest nothing;
//! likewise the best tables' columns, by [`MeaningWeights::column`] of
//! their table's score.

use lore_search::static_embed::{StaticEmbedder, cosine, model};
use lore_warehouse::catalog::LoadedSnapshot;

/// How much meaning weighs (the schema ranker's weights give them).
#[derive(Debug, Clone, Copy)]
pub(super) struct MeaningWeights {
    /// The bonus of the table closest in meaning.
    pub table: f32,
    /// The bonus of a best table's closest column, a share of its
    /// table's score.
    pub column: f32,
    /// How far below the closest cosine a bonus falls to 0.
    pub margin: f32,
}

/// The tables' vectors of one scan (a table no piece of whose text the
/// model knows has none).
pub(super) struct TableMeanings {
    dims: usize,
    /// Per table: its vector's start in `vectors`, if any.
    at: Vec<Option<u32>>,
    vectors: Vec<f32>,
}

/// A table's text: its name's words, its comment and its columns' names
/// (on the development split, with the columns' names table@5 was 0.688,
/// with the name and comment alone 0.681, at the default weights).
fn table_text(snapshot: &LoadedSnapshot, t: usize) -> String {
    let table = &snapshot.tables[t];
    let mut text = table.name.clone();
    for part in table
        .comment
        .iter()
        .chain(table.columns.iter().map(|c| &c.name))
    {
        text.push(' ');
        text.push_str(part);
    }
    text
}

/// A column's text: its name's words and its comment.
fn column_text(snapshot: &LoadedSnapshot, t: usize, c: usize) -> String {
    let column = &snapshot.tables[t].columns[c];
    match &column.comment {
        Some(comment) => format!("{} {}", column.name, comment),
        None => column.name.clone(),
    }
}

impl TableMeanings {
    /// Embeds every table of `snapshot`; none when the model is missing.
    pub fn build(snapshot: &LoadedSnapshot) -> Option<TableMeanings> {
        Self::embed((0..snapshot.tables.len()).map(|t| table_text(snapshot, t)))
    }

    /// Embeds the tables' texts, in table order.
    fn embed(texts: impl ExactSizeIterator<Item = String>) -> Option<TableMeanings> {
        let embedder = model()?;
        let mut meanings = TableMeanings {
            dims: embedder.dims(),
            at: Vec::with_capacity(texts.len()),
            vectors: Vec::new(),
        };
        for text in texts {
            let vector = embedder.embed(&text);
            meanings.at.push(vector.map(|v| {
                let at = meanings.vectors.len() as u32;
                meanings.vectors.extend_from_slice(&v);
                at
            }));
        }
        Some(meanings)
    }

    fn vector(&self, t: usize) -> Option<&[f32]> {
        let at = self.at[t]? as usize;
        Some(&self.vectors[at..at + self.dims])
    }
}

/// A question's vector, with the model that made it.
pub(super) struct Question {
    embedder: &'static StaticEmbedder,
    vector: Vec<f32>,
}

impl Question {
    /// The question's vector; none when meaning is off or the model knows
    /// no piece of it.
    pub fn embed(query: &str, w: MeaningWeights) -> Option<Question> {
        if w.table <= 0.0 && w.column <= 0.0 {
            return None;
        }
        let embedder = model()?;
        let vector = embedder.embed(query)?;
        Some(Question { embedder, vector })
    }

    /// Each table's bonus (table number, bonus), for the tables within
    /// the margin of the closest.
    pub fn table_bonuses(&self, meanings: &TableMeanings, w: MeaningWeights) -> Vec<(u32, f32)> {
        if w.table <= 0.0 || meanings.dims != self.vector.len() {
            return Vec::new();
        }
        let cosines: Vec<(u32, f32)> = (0..meanings.at.len())
            .filter_map(|t| Some((t as u32, cosine(&self.vector, meanings.vector(t)?))))
            .collect();
        bonuses(&cosines, w.table, w.margin)
    }

    /// The bonuses of table `t`'s columns (by position), each a share of
    /// [`MeaningWeights::column`]: its columns are embedded now (a few
    /// microseconds each; only the best tables' are asked for).
    pub fn column_bonuses(
        &self,
        snapshot: &LoadedSnapshot,
        t: usize,
        w: MeaningWeights,
    ) -> Vec<(u32, f32)> {
        let width = snapshot.tables[t].columns.len();
        self.text_bonuses((0..width).map(|c| column_text(snapshot, t, c)), w)
    }

    /// The bonuses of texts (by position) for [`Self::column_bonuses`].
    fn text_bonuses(
        &self,
        texts: impl Iterator<Item = String>,
        w: MeaningWeights,
    ) -> Vec<(u32, f32)> {
        if w.column <= 0.0 {
            return Vec::new();
        }
        let cosines: Vec<(u32, f32)> = texts
            .enumerate()
            .filter_map(|(c, text)| {
                let v = self.embedder.embed(&text)?;
                Some((c as u32, cosine(&self.vector, &v)))
            })
            .collect();
        bonuses(&cosines, w.column, w.margin)
    }
}

/// `weight` for the closest, falling linearly to 0 at `margin` below its
/// cosine.
fn bonuses(cosines: &[(u32, f32)], weight: f32, margin: f32) -> Vec<(u32, f32)> {
    let Some(best) = cosines.iter().map(|(_, c)| *c).reduce(f32::max) else {
        return Vec::new();
    };
    cosines
        .iter()
        .filter_map(|&(id, c)| {
            let closeness = 1.0 - (best - c) / margin.max(f32::EPSILON);
            (closeness > 0.0).then_some((id, weight * closeness))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weights() -> MeaningWeights {
        MeaningWeights {
            table: 0.3,
            column: 0.2,
            margin: 0.1,
        }
    }

    fn texts(names: &[&str]) -> impl ExactSizeIterator<Item = String> {
        names
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn the_table_a_question_means_gains_most_though_no_word_names_it() {
        let tables = ["Posts", "Badges", "Users", "Votes", "Tags"];
        let meanings = TableMeanings::embed(texts(&tables)).unwrap();
        let question = Question::embed("who has the highest reputation", weights()).unwrap();
        let found = question.table_bonuses(&meanings, weights());
        let best = found.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        assert_eq!(tables[best.0 as usize], "Users", "{found:?}");
        assert!((best.1 - 0.3).abs() < 1e-6 && found.len() < tables.len());
    }

    #[test]
    fn a_column_described_by_its_comment_is_found_by_meaning() {
        let columns = [
            "subject_id",
            "gender",
            "dob date of birth",
            "dod date of death",
            "ward_id",
        ];
        for (asked, meant) in [
            ("when was the patient born", "dob date of birth"),
            ("male or female patients", "gender"),
        ] {
            let question = Question::embed(asked, weights()).unwrap();
            let found = question.text_bonuses(texts(&columns), weights());
            let best = found.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
            assert_eq!(columns[best.0 as usize], meant, "{asked}: {found:?}");
        }
    }

    #[test]
    fn meaning_is_off_at_weight_zero_and_for_a_question_of_no_known_piece() {
        let off = MeaningWeights {
            table: 0.0,
            column: 0.0,
            margin: 0.1,
        };
        assert!(Question::embed("oldest patient", off).is_none());
        assert!(Question::embed("42 -- 2016", weights()).is_none());
    }

    #[test]
    fn the_closest_gains_the_weight_and_those_past_the_margin_nothing() {
        let found = bonuses(&[(0, 0.2), (1, 0.5), (2, 0.45), (3, 0.1)], 0.4, 0.1);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].0, 1);
        assert!((found[0].1 - 0.4).abs() < 1e-6);
        assert!((found[1].1 - 0.2).abs() < 1e-5, "{found:?}");
        assert!(bonuses(&[], 1.0, 0.1).is_empty());
    }
}
