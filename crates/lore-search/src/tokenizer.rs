//! Identifier-aware tokenisation: `order_items`, `orderItems`,
//! `OrderItems` and "order items" all become the terms `order` `item`.
//!
//! Text is split on anything that is not a letter or digit, then inside a
//! word at lower→upper case changes (`orderItems`), before the last capital
//! of a run followed by lower case (`HTTPServer` → `HTTP` `Server`) and
//! between letters and digits (`q4revenue` → `q` `4` `revenue`). Terms are
//! lower-cased and stemmed (English), so `orders` finds `order`.

use tantivy::tokenizer::{
    Language, LowerCaser, Stemmer, TextAnalyzer, Token, TokenStream, Tokenizer,
};

/// The name the analyzer is registered under in the index.
pub const IDENTIFIER_ANALYZER: &str = "lore_identifier";

/// The full analyzer: split identifiers, lower-case, stem.
pub fn identifier_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(IdentifierTokenizer)
        .filter(LowerCaser)
        .filter(Stemmer::new(Language::English))
        .build()
}

/// The terms `text` is indexed (or searched) under, in order.
pub fn terms(text: &str) -> Vec<String> {
    let mut analyzer = identifier_analyzer();
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while let Some(token) = stream.next() {
        out.push(token.text.clone());
    }
    out
}

/// Words too common to search by.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "has",
    "have", "how", "i", "in", "is", "it", "its", "of", "on", "or", "that", "the", "there", "this",
    "to", "was", "we", "were", "what", "when", "where", "which", "who", "why", "with",
];

/// The terms a *query* searches for: like [`terms`], without stop words
/// ("how is revenue defined" searches `revenu` `defin`), unless the query
/// is nothing but stop words; "number of …" and "how many …" also search
/// `count`.
pub fn query_terms(text: &str) -> Vec<String> {
    let mut words = TextAnalyzer::builder(IdentifierTokenizer)
        .filter(LowerCaser)
        .build();
    let mut stream = words.token_stream(text);
    let mut kept = Vec::new();
    let mut all = Vec::new();
    while let Some(token) = stream.next() {
        all.push(token.text.clone());
        if !STOPWORDS.contains(&token.text.as_str()) {
            kept.push(token.text.clone());
        }
    }
    // "number of invoices", "how many tickets": a count is asked for, and
    // counts are named `…_count` or described as counts.
    let counting = all.windows(2).any(|w| {
        matches!(
            (w[0].as_str(), w[1].as_str()),
            ("number", "of") | ("how", "many")
        )
    });
    let mut chosen = if kept.is_empty() { all } else { kept };
    if counting && !chosen.iter().any(|w| w == "count") {
        chosen.push("count".to_string());
    }
    chosen.iter().flat_map(|w| terms(w)).collect()
}

/// Splits text into identifier parts (case kept; filters lower-case).
#[derive(Clone, Default)]
pub struct IdentifierTokenizer;

/// The parts of one text, produced up front.
pub struct IdentifierTokenStream {
    tokens: Vec<Token>,
    index: usize,
}

impl Tokenizer for IdentifierTokenizer {
    type TokenStream<'a> = IdentifierTokenStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> IdentifierTokenStream {
        let mut tokens = Vec::new();
        for (start, end) in split(text) {
            tokens.push(Token {
                offset_from: start,
                offset_to: end,
                position: tokens.len(),
                text: text[start..end].to_string(),
                position_length: 1,
            });
        }
        IdentifierTokenStream { tokens, index: 0 }
    }
}

impl TokenStream for IdentifierTokenStream {
    fn advance(&mut self) -> bool {
        if self.index < self.tokens.len() {
            self.index += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &Token {
        &self.tokens[self.index - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.index - 1]
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Class {
    Lower,
    Upper,
    Digit,
    Other,
}

fn class(c: char) -> Class {
    if c.is_numeric() {
        Class::Digit
    } else if c.is_uppercase() {
        Class::Upper
    } else if c.is_alphabetic() {
        Class::Lower
    } else {
        Class::Other
    }
}

/// Byte ranges of the identifier parts of `text`.
fn split(text: &str) -> Vec<(usize, usize)> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut parts = Vec::new();
    let mut start: Option<usize> = None;
    for (i, &(offset, c)) in chars.iter().enumerate() {
        let here = class(c);
        if here == Class::Other {
            if let Some(s) = start.take() {
                parts.push((s, offset));
            }
            continue;
        }
        let Some(s) = start else {
            start = Some(offset);
            continue;
        };
        let previous = class(chars[i - 1].1);
        let next = chars.get(i + 1).map(|&(_, c)| class(c));
        let boundary = match (previous, here) {
            (Class::Lower, Class::Upper) => true,
            (Class::Upper, Class::Upper) => next == Some(Class::Lower),
            (Class::Digit, Class::Lower | Class::Upper)
            | (Class::Lower | Class::Upper, Class::Digit) => true,
            _ => false,
        };
        if boundary {
            parts.push((s, offset));
            start = Some(offset);
        }
    }
    if let Some(s) = start {
        parts.push((s, text.len()));
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_and_prose_meet_on_the_same_terms() {
        let expected = ["order", "item"];
        for text in [
            "order_items",
            "orderItems",
            "OrderItems",
            "order items",
            "ORDER-ITEMS",
        ] {
            assert_eq!(terms(text), expected, "{text}");
        }
        assert_eq!(terms("HTTPServer"), ["http", "server"]);
        assert_eq!(terms("q4Revenue2024"), ["q", "4", "revenu", "2024"]);
        assert_eq!(terms("revenue"), terms("Revenues"));
        assert_eq!(terms("Café crème"), ["café", "crème"]);
        assert!(terms("  -- ").is_empty());
    }

    #[test]
    fn queries_drop_stop_words_unless_nothing_else_is_left() {
        assert_eq!(query_terms("how is revenue defined"), ["revenu", "defin"]);
        assert_eq!(query_terms("Where is the planName?"), ["plan", "name"]);
        assert_eq!(query_terms("is it"), ["is", "it"]);
        assert_eq!(
            query_terms("number of invoices"),
            ["number", "invoic", "count"]
        );
        assert_eq!(query_terms("how many tickets"), ["mani", "ticket", "count"]);
        assert_eq!(query_terms("invoice number"), ["invoic", "number"]);
    }
}
