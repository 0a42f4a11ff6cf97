//! The semantic lane's parts that concern search documents: the text a
//! document is embedded by, its content hash (the cache key), cosine
//! similarity and top-k selection. The client that turns texts into
//! vectors is `lore-llm`'s.

use crate::{MatchField, SearchDoc};

/// The longest text embedded for one document, in characters (well inside
/// every current model's input limit).
pub const MAX_EMBED_CHARS: usize = 2_000;

/// The text a document is embedded by: what it is and its name, then its
/// descriptions, body, expression and sample values, cut at
/// [`MAX_EMBED_CHARS`].
pub fn embed_text(doc: &SearchDoc) -> String {
    let field = |wanted: MatchField| {
        doc.fields
            .iter()
            .filter(move |(f, _)| *f == wanted)
            .map(|(_, text)| text.trim())
            .filter(|t| !t.is_empty())
    };
    let mut text = format!("{}: {}", doc.kind.as_str().replace('_', " "), doc.id);
    for wanted in [
        MatchField::Display,
        MatchField::Description,
        MatchField::Comment,
        MatchField::Body,
        MatchField::Expr,
    ] {
        for part in field(wanted) {
            text.push('\n');
            text.push_str(part);
        }
    }
    let values: Vec<&str> = field(MatchField::SampleValue).collect();
    if !values.is_empty() {
        text.push_str("\nvalues: ");
        text.push_str(&values.join(", "));
    }
    truncate(&text, MAX_EMBED_CHARS).to_string()
}

/// The cache key of an embedded text.
pub use lore_core::hash::content_hash;

/// `vector` scaled to length 1 (so a dot product is the cosine).
pub use lore_llm::provider::normalized;

/// The reciprocal-rank constant (the usual 60): a lane's first few ranks
/// count nearly alike.
pub const RRF_K: f32 = 60.0;

/// A ranked lane's share in weighted reciprocal rank fusion:
/// `weight / (60 + rank)`, `rank` counted from 1.
pub fn reciprocal_rank(rank: usize, weight: f32) -> f32 {
    weight / (RRF_K + rank as f32)
}

/// The dot product (the cosine of two normalised vectors); 0 when their
/// sizes differ.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    // Eight independent sums, so the compiler can use vector registers
    // (one running sum fixes the order of additions and cannot).
    let mut lanes = [0.0f32; 8];
    let (chunks_a, chunks_b) = (a.chunks_exact(8), b.chunks_exact(8));
    let rest: f32 = chunks_a
        .remainder()
        .iter()
        .zip(chunks_b.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in chunks_a.zip(chunks_b) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    lanes.iter().sum::<f32>() + rest
}

/// The `k` best of `scored` (highest score first, ties by key), without
/// sorting the rest.
pub fn top_k<K: Ord>(mut scored: Vec<(f32, K)>, k: usize) -> Vec<(f32, K)> {
    let order = |a: &(f32, K), b: &(f32, K)| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1));
    if k == 0 {
        return Vec::new();
    }
    if scored.len() > k {
        scored.select_nth_unstable_by(k - 1, order);
        scored.truncate(k);
    }
    scored.sort_by(order);
    scored
}

fn truncate(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DocKind;

    #[test]
    fn a_documents_text_names_it_and_carries_its_descriptions() {
        let doc = SearchDoc {
            kind: DocKind::SlMeasure,
            connection: Some("w".to_string()),
            id: "invoices.revenue".to_string(),
            fields: vec![
                (MatchField::Name, "revenue".to_string()),
                (
                    MatchField::Description,
                    "Money billed, in dollars".to_string(),
                ),
                (MatchField::Expr, "sum(total_cents) / 100.0".to_string()),
                (MatchField::SampleValue, "paid".to_string()),
                (MatchField::SampleValue, "void".to_string()),
            ],
            payload: serde_json::Value::Null,
        };
        assert_eq!(
            embed_text(&doc),
            "sl measure: invoices.revenue\nMoney billed, in dollars\nsum(total_cents) / 100.0\nvalues: paid, void"
        );
        let long = SearchDoc {
            fields: vec![(MatchField::Body, "é".repeat(5_000))],
            ..doc
        };
        assert_eq!(embed_text(&long).chars().count(), MAX_EMBED_CHARS);
        assert_ne!(content_hash("a"), content_hash("b"));
    }

    #[test]
    fn cosine_of_normalised_vectors() {
        let a = normalized(&[3.0, 4.0]).unwrap();
        assert!((dot(&a, &a) - 1.0).abs() < 1e-6);
        assert!(dot(&a, &normalized(&[-4.0, 3.0]).unwrap()).abs() < 1e-6);
        assert!(normalized(&[0.0, 0.0]).is_none());
        assert_eq!(dot(&a, &[1.0]), 0.0);
        let long: Vec<f32> = (0..19).map(|i| i as f32).collect();
        let naive: f32 = long.iter().map(|x| x * x).sum();
        assert_eq!(dot(&long, &long), naive);
    }

    #[test]
    fn top_k_keeps_the_best_in_order() {
        let scored = vec![(0.1, "a"), (0.9, "b"), (0.5, "c"), (0.9, "a"), (-1.0, "d")];
        assert_eq!(
            top_k(scored.clone(), 3),
            vec![(0.9, "a"), (0.9, "b"), (0.5, "c")]
        );
        assert_eq!(top_k(scored.clone(), 10).len(), 5);
        assert!(top_k(scored, 0).is_empty());
    }
}
