//! Identifier-aware tokenisation: `order_items`, `orderItems`,
//! `OrderItems` and "order items" all become the terms `order` `item`.
//!
//! Text is split on anything that is not a letter or digit, then inside a
//! word at lower→upper case changes (`orderItems`), before the last capital
//! of a run followed by lower case (`HTTPServer` → `HTTP` `Server`) and
//! between letters and digits (`q4revenue` → `q` `4` `revenue`). Terms are
//! lower-cased and stemmed (English), so `orders` finds `order`.

use tantivy::tokenizer::{LowerCaser, TextAnalyzer, Token, TokenStream, Tokenizer};

/// The name the analyzer is registered under in the index.
pub const IDENTIFIER_ANALYZER: &str = "lore_identifier";

/// The full analyzer: split identifiers, lower-case, stem.
pub fn identifier_analyzer() -> TextAnalyzer {
    TextAnalyzer::from(StemmedIdentifierTokenizer::default())
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
        let mut parts = Vec::new();
        split(text, &mut parts);
        let tokens = parts
            .into_iter()
            .enumerate()
            .map(|(position, (start, end))| Token {
                offset_from: start,
                offset_to: end,
                position,
                text: text[start..end].to_string(),
                position_length: 1,
            })
            .collect();
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

/// Words longer than this are stemmed each time, not remembered.
const REMEMBERED_WORD_BYTES: usize = 24;
/// Stems a tokenizer remembers before it starts afresh.
const REMEMBERED_STEMS: usize = 50_000;

/// [`IdentifierTokenizer`], lower-casing and stemming (English) in the same
/// pass: the analyzer the indexes use. Code repeats its words (`self`,
/// `return`, a project's own names), so each tokenizer remembers the stems
/// it has computed, and one token's buffer serves the whole text: indexing
/// spends its time on postings, not on the Snowball stemmer and the
/// allocator. The terms are those of `IdentifierTokenizer` → `LowerCaser`
/// → tantivy's English `Stemmer` (a test holds them to it).
#[derive(Clone)]
pub struct StemmedIdentifierTokenizer {
    stemmer: frostem::Stemmer,
    stems: rustc_hash::FxHashMap<Box<str>, Box<str>>,
    parts: Vec<(usize, usize)>,
    lower: String,
    token: Token,
}

impl Default for StemmedIdentifierTokenizer {
    fn default() -> Self {
        StemmedIdentifierTokenizer {
            stemmer: frostem::Stemmer::new(frostem::Algorithm::English),
            stems: rustc_hash::FxHashMap::default(),
            parts: Vec::new(),
            lower: String::new(),
            token: Token::default(),
        }
    }
}

impl Tokenizer for StemmedIdentifierTokenizer {
    type TokenStream<'a> = StemmedIdentifierStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> StemmedIdentifierStream<'a> {
        split(text, &mut self.parts);
        if self.stems.len() > REMEMBERED_STEMS {
            self.stems.clear();
        }
        self.token.text.clear();
        StemmedIdentifierStream {
            text,
            next: 0,
            tokenizer: self,
        }
    }
}

/// The stream of [`StemmedIdentifierTokenizer`].
pub struct StemmedIdentifierStream<'a> {
    text: &'a str,
    next: usize,
    tokenizer: &'a mut StemmedIdentifierTokenizer,
}

impl TokenStream for StemmedIdentifierStream<'_> {
    fn advance(&mut self) -> bool {
        let t = &mut *self.tokenizer;
        let Some(&(start, end)) = t.parts.get(self.next) else {
            return false;
        };
        let word = &self.text[start..end];
        t.lower.clear();
        if word.is_ascii() {
            t.lower.push_str(word);
            t.lower.make_ascii_lowercase();
        } else {
            // Character by character, as tantivy's `LowerCaser` does.
            t.lower.extend(word.chars().flat_map(char::to_lowercase));
        }
        t.token.text.clear();
        match t.stems.get(t.lower.as_str()) {
            Some(stem) => t.token.text.push_str(stem),
            None => {
                let stem = t.stemmer.stem(&t.lower);
                t.token.text.push_str(&stem);
                if t.lower.len() <= REMEMBERED_WORD_BYTES {
                    t.stems
                        .insert(t.lower.as_str().into(), stem.as_ref().into());
                }
            }
        }
        t.token.offset_from = start;
        t.token.offset_to = end;
        t.token.position = self.next;
        t.token.position_length = 1;
        self.next += 1;
        true
    }

    fn token(&self) -> &Token {
        &self.tokenizer.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokenizer.token
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

/// The byte ranges of `text`'s words, into `parts` (emptied first).
pub(crate) fn split(text: &str, parts: &mut Vec<(usize, usize)>) {
    parts.clear();
    let mut chars = text.char_indices().peekable();
    let mut start: Option<usize> = None;
    let mut previous = Class::Other;
    while let Some((offset, c)) = chars.next() {
        // ASCII, the common case, without the Unicode tables.
        let here = if c.is_ascii() {
            match c {
                'a'..='z' => Class::Lower,
                'A'..='Z' => Class::Upper,
                '0'..='9' => Class::Digit,
                _ => Class::Other,
            }
        } else {
            class(c)
        };
        if here == Class::Other {
            if let Some(s) = start.take() {
                parts.push((s, offset));
            }
            previous = here;
            continue;
        }
        let Some(s) = start else {
            start = Some(offset);
            previous = here;
            continue;
        };
        let boundary = match (previous, here) {
            (Class::Lower, Class::Upper) => true,
            (Class::Upper, Class::Upper) => {
                chars.peek().map(|&(_, c)| class(c)) == Some(Class::Lower)
            }
            (Class::Digit, Class::Lower | Class::Upper)
            | (Class::Lower | Class::Upper, Class::Digit) => true,
            _ => false,
        };
        if boundary {
            parts.push((s, offset));
            start = Some(offset);
        }
        previous = here;
    }
    if let Some(s) = start {
        parts.push((s, text.len()));
    }
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
    fn the_remembering_analyzer_gives_the_terms_of_tantivys_filters() {
        use tantivy::tokenizer::{Language, Stemmer};
        let mut reference = TextAnalyzer::builder(IdentifierTokenizer)
            .filter(LowerCaser)
            .filter(Stemmer::new(Language::English))
            .build();
        let mut ours = identifier_analyzer();
        let all = |analyzer: &mut TextAnalyzer, text: &str| {
            let mut out = Vec::new();
            let mut stream = analyzer.token_stream(text);
            while let Some(t) = stream.next() {
                out.push((t.text.clone(), t.offset_from, t.offset_to, t.position));
            }
            out
        };
        // Code, prose, Unicode case rules (a final sigma, a dotted capital
        // I), digits, long words; twice, so the second pass reads stems
        // the first remembered.
        let texts = [
            include_str!("tokenizer.rs"),
            include_str!("index.rs"),
            "ΟΔΟΣ ΣΟΦΟΣ İstanbul Straße naïve Ωmega ǅemal XMLHttpRequest2Fetch",
            "internationalizationAndLocalizationConfigurationsRepository relational",
            "１２３ full-width ＡＢＣ and 数据库连接 mixed_中文Name",
        ];
        for _ in 0..2 {
            for text in texts {
                assert_eq!(all(&mut ours, text), all(&mut reference, text));
            }
        }
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
