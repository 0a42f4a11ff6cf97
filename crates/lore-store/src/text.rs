//! How text becomes search words, the same for every backend's full-text
//! search: runs of letters and digits, lower-cased, Latin letters without
//! their diacritics (SQLite's `unicode61` tokenizer cuts and folds text the
//! same way, so `cafe` finds `Café`).

use crate::error::StoreError;

/// Words too common to rank by.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "from", "how", "i", "in",
    "is", "it", "of", "on", "or", "the", "to", "we", "what", "when", "where", "which", "who",
    "why", "with",
];

/// The words of `text`: runs of letters and digits, lower-cased, Latin
/// letters without diacritics.
pub(crate) fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().chars().map(without_diacritic).collect())
}

/// `c` without its diacritics when it is an ASCII letter with some
/// (`é` → `e`), else `c`.
fn without_diacritic(c: char) -> char {
    if c.is_ascii() {
        return c;
    }
    let mut base = None;
    let mut marks_only = true;
    unicode_normalization::char::decompose_canonical(c, |d| {
        if base.is_none() {
            base = Some(d);
        } else if !unicode_normalization::char::is_combining_mark(d) {
            marks_only = false;
        }
    });
    match base {
        Some(b) if b.is_ascii_alphabetic() && marks_only => b,
        _ => c,
    }
}

/// The words a search looks for: those of `text` without the stopwords
/// (all of them when nothing else is left). An entry matches when it holds
/// any of them.
pub(crate) fn query_words(text: &str) -> Result<Vec<String>, StoreError> {
    let all: Vec<String> = words(text).collect();
    let meaningful: Vec<String> = all
        .iter()
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .cloned()
        .collect();
    let chosen = if meaningful.is_empty() {
        all
    } else {
        meaningful
    };
    if chosen.is_empty() {
        return Err(StoreError::Invalid(
            "text has no words to search for".to_string(),
        ));
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_words_drop_stopwords_unless_nothing_else_is_left() {
        assert_eq!(
            query_words("How are amounts stored?").unwrap(),
            ["amounts", "stored"]
        );
        assert_eq!(query_words("the of").unwrap(), ["the", "of"]);
        assert_eq!(query_words("\"NEAR( AND *").unwrap(), ["near"]);
        assert!(query_words("?!").is_err());
        assert_eq!(
            query_words("Café NAÏVE ångström").unwrap(),
            ["cafe", "naive", "angstrom"]
        );
        // Letters of other scripts are kept as they are.
        assert_eq!(query_words("Ørsted дом").unwrap(), ["ørsted", "дом"]);
    }
}
