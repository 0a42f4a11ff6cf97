//! A static embedding model shipped inside the binary: text → a unit
//! vector by meaning, with no service, no download and no GPU.
//!
//! The table (`embed/minilm_static.bin`, ~8 MB) was distilled from
//! sentence-transformers' all-MiniLM-L6-v2 (Apache-2.0) the Model2Vec way
//! by `embed/distill.py`: every word piece of the model's vocabulary run
//! alone through the transformer, reduced by PCA, weighted by a Zipf
//! estimate of its rarity (frequent pieces weigh less) and quantised to
//! int8 with one scale per row. A text's vector is then
//!
//! 1. its words: split on anything that is not a letter or digit and inside
//!    identifiers (`order_items`, `orderItems`, `HTTPServer`, `q4revenue`),
//!    lower-cased, accents stripped (BERT's basic tokenisation, identifiers
//!    first);
//! 2. each word's pieces: WordPiece, the longest vocabulary piece first,
//!    then the longest `##` continuation, so an unknown word still finds
//!    its parts (`prescriptions` → `prescription` `##s`); a word no
//!    pieces cover is skipped;
//! 3. the sum of the pieces' rows (their lengths carry the rarity weight),
//!    scaled to length 1 (a dot product is then the cosine).
//!
//! Embedding a table's name and comment costs a few microseconds, so a
//! ranker can embed a schema's tables when it indexes them and a question
//! when it is asked.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

use crate::tokenizer::split as split_words;

/// The distilled table, in the format `embed/distill.py` writes: the magic
/// `LORESE01`, rows, dimensions and the vocabulary's byte length (u32 LE),
/// the vocabulary (pieces joined by newlines), one f32 scale per row, the
/// int8 rows.
const MODEL: &[u8] = include_bytes!("../embed/minilm_static.bin");
const MAGIC: &[u8] = b"LORESE01";

/// Longer words are not split into pieces (BERT's limit).
const MAX_WORD_CHARS: usize = 100;

/// The static embedding model: a vocabulary of word pieces and one int8
/// row per piece.
pub struct StaticEmbedder {
    /// Pieces that start a word, by text.
    starts: FxHashMap<&'static str, u32>,
    /// Pieces that continue a word (`##s`), by their text without `##`.
    continuations: FxHashMap<&'static str, u32>,
    pieces: Vec<&'static str>,
    dims: usize,
    scales: Vec<f32>,
    rows: &'static [u8],
}

/// The model shipped in the binary, read on first use; none only if the
/// shipped table is damaged (a test holds that it is not).
///
/// ```
/// use lore_search::static_embed::{cosine, model};
/// let m = model().unwrap();
/// let question = m.embed("when was the patient born").unwrap();
/// let (dob, ward) = (m.embed("dob date of birth").unwrap(), m.embed("ward_id").unwrap());
/// assert!(cosine(&question, &dob) > cosine(&question, &ward));
/// ```
pub fn model() -> Option<&'static StaticEmbedder> {
    static LOADED: OnceLock<Option<StaticEmbedder>> = OnceLock::new();
    LOADED.get_or_init(|| StaticEmbedder::parse(MODEL)).as_ref()
}

impl StaticEmbedder {
    fn parse(bytes: &'static [u8]) -> Option<StaticEmbedder> {
        let rest = bytes.strip_prefix(MAGIC)?;
        let number = |at: usize| -> Option<usize> {
            let raw: [u8; 4] = rest.get(at..at + 4)?.try_into().ok()?;
            Some(u32::from_le_bytes(raw) as usize)
        };
        let (rows, dims, text_len) = (number(0)?, number(4)?, number(8)?);
        let rest = rest.get(12..)?;
        let text = std::str::from_utf8(rest.get(..text_len)?).ok()?;
        let rest = rest.get(text_len..)?;
        let scales: Vec<f32> = rest
            .get(..rows * 4)?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let matrix = rest.get(rows * 4..)?;
        let pieces: Vec<&'static str> = text.split('\n').collect();
        if pieces.len() != rows || matrix.len() != rows * dims || dims == 0 {
            return None;
        }
        let mut starts = FxHashMap::default();
        let mut continuations = FxHashMap::default();
        for (id, piece) in pieces.iter().enumerate() {
            match piece.strip_prefix("##") {
                Some(tail) if !tail.is_empty() => continuations.insert(tail, id as u32),
                _ => starts.insert(*piece, id as u32),
            };
        }
        Some(StaticEmbedder {
            starts,
            continuations,
            pieces,
            dims,
            scales,
            rows: matrix,
        })
    }

    /// The length of every vector.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// The text of a piece (`##s` for a continuation).
    pub fn piece(&self, id: u32) -> &str {
        self.pieces.get(id as usize).copied().unwrap_or("")
    }

    /// `text`'s word pieces, in order (see the module's steps 1–2).
    pub fn pieces(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        self.each_piece(text, |id| out.push(id));
        out
    }

    /// `text`'s vector, of length 1; none when no piece of it is known
    /// (empty text, punctuation, unknown script).
    pub fn embed(&self, text: &str) -> Option<Vec<f32>> {
        let mut sum = vec![0.0f32; self.dims];
        let mut found = false;
        self.each_piece(text, |id| {
            self.add_row(id, &mut sum);
            found = true;
        });
        (found && normalize(&mut sum)).then_some(sum)
    }

    fn add_row(&self, id: u32, sum: &mut [f32]) {
        let start = id as usize * self.dims;
        let scale = self.scales[id as usize];
        for (s, &q) in sum.iter_mut().zip(&self.rows[start..start + self.dims]) {
            *s += scale * f32::from(q as i8);
        }
    }

    /// Calls `found` with each piece of `text`, values (numbers, ids,
    /// hashes) left out: their pieces are noise to a meaning.
    fn each_piece(&self, text: &str, mut found: impl FnMut(u32)) {
        let mut parts = Vec::new();
        let mut word = String::new();
        for run in text.split(|c: char| !c.is_alphanumeric()) {
            if run.is_empty() || is_value(run) {
                continue;
            }
            split_words(run, &mut parts);
            for &(start, end) in &parts {
                word.clear();
                let raw = &run[start..end];
                if raw.is_ascii() {
                    word.extend(raw.chars().map(|c| c.to_ascii_lowercase()));
                } else {
                    // BERT's uncased normalisation: lower case, accents off.
                    word.extend(
                        raw.chars()
                            .flat_map(char::to_lowercase)
                            .nfd()
                            .filter(|c| !is_combining_mark(*c)),
                    );
                }
                self.word_pieces(&word, &mut found);
            }
        }
    }

    /// WordPiece: the longest known piece at each point; nothing when some
    /// part of the word is in no piece (BERT's `[UNK]`, which says nothing)
    /// or it takes more than 32 pieces (a run of noise, not a word).
    fn word_pieces(&self, word: &str, found: &mut impl FnMut(u32)) {
        if word.is_empty() || word.chars().count() > MAX_WORD_CHARS {
            return;
        }
        let mut ids = [0u32; 32];
        let mut count = 0;
        let mut start = 0;
        while start < word.len() {
            let table = if start == 0 {
                &self.starts
            } else {
                &self.continuations
            };
            let longest = word[start..]
                .char_indices()
                .map(|(i, c)| start + i + c.len_utf8())
                .rev()
                .find_map(|end| table.get(&word[start..end]).map(|&id| (end, id)));
            let Some((end, id)) = longest else {
                return;
            };
            if count == ids.len() {
                return;
            }
            ids[count] = id;
            count += 1;
            start = end;
        }
        ids[..count].iter().for_each(|&id| found(id));
    }
}

/// A number, or an id or hash (`bfd50153a2e9`, `6450a4fa`): eight
/// characters or more of which three are digits.
fn is_value(run: &str) -> bool {
    let digits = run.bytes().filter(u8::is_ascii_digit).count();
    digits == run.len() || (digits >= 3 && run.len() >= 8)
}

/// Scales `vector` to length 1; false when it has no length.
fn normalize(vector: &mut [f32]) -> bool {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if !norm.is_finite() || norm <= f32::EPSILON {
        return false;
    }
    vector.iter_mut().for_each(|x| *x /= norm);
    true
}

/// The cosine of two of the model's vectors (they have length 1, so it
/// is their dot product; 0 when their sizes differ).
pub use crate::vectors::dot as cosine;

#[cfg(test)]
mod tests {
    use super::*;

    fn embedder() -> &'static StaticEmbedder {
        model().expect("the shipped table parses")
    }

    fn similarity(a: &str, b: &str) -> f32 {
        let m = embedder();
        cosine(&m.embed(a).unwrap(), &m.embed(b).unwrap())
    }

    fn texts(text: &str) -> Vec<String> {
        let m = embedder();
        m.pieces(text)
            .into_iter()
            .map(|id| m.piece(id).to_string())
            .collect()
    }

    #[test]
    fn the_shipped_table_is_whole() {
        let m = embedder();
        assert!(m.dims() >= 64 && m.pieces.len() > 30_000);
        assert_eq!(m.piece(m.starts["patient"]), "patient");
    }

    #[test]
    fn a_question_is_closest_to_the_column_it_asks_about() {
        let question = "oldest patient";
        let age = similarity(question, "age");
        let dob = similarity(question, "dob date of birth");
        let ward = similarity(question, "ward");
        assert!(age > ward && dob > ward, "age {age} dob {dob} ward {ward}");
        let salary = similarity("how much do employees earn", "salary");
        let shipping = similarity("how much do employees earn", "shipping address");
        assert!(salary > shipping, "salary {salary} shipping {shipping}");
    }

    #[test]
    fn identifiers_split_before_their_pieces() {
        assert_eq!(texts("orderItems"), texts("order items"));
        assert_eq!(texts("ORDER_ITEMS"), texts("order items"));
        assert_eq!(texts("HTTPServer"), ["http", "server"]);
        assert_eq!(texts("Crème Brûlée"), texts("creme brulee"));
    }

    #[test]
    fn an_unknown_word_falls_back_to_its_pieces() {
        let pieces = texts("hypoglycemic");
        assert!(pieces.len() > 1, "{pieces:?}");
        assert!(
            pieces[1..].iter().all(|p| p.starts_with("##")),
            "{pieces:?}"
        );
        assert_eq!(pieces.concat().replace("##", ""), "hypoglycemic");
        assert!(embedder().embed("hypoglycemic").is_some());
    }

    #[test]
    fn text_with_no_known_piece_gives_no_vector() {
        let m = embedder();
        assert!(m.embed("").is_none());
        assert!(m.embed("  -- ,; ").is_none());
        assert!(
            m.embed("2016 6450a4fa bfd50153a2e9476f 10.77.55.40")
                .is_none()
        );
        assert_eq!(
            texts("the 25 latest images of bfd50153a2e9"),
            texts("the latest images of")
        );
        let v = m.embed("patients").unwrap();
        let length: f32 = v.iter().map(|x| x * x).sum();
        assert!((length - 1.0).abs() < 1e-4 && v.iter().all(|x| x.is_finite()));
    }
}
