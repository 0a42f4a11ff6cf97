//! Words a data question uses for what a schema names otherwise: "oldest"
//! asks for an `age` or a `birth` date, "expensive" for a `price`, "users
//! from Greece" for a `location` or a `country`. General English of data
//! questions, not any one schema's vocabulary; a related word counts less
//! than the word itself (see `Weights::concept`).

use std::sync::LazyLock;

use rustc_hash::FxHashMap;

/// Groups of words that name one concept in questions and schemas.
const GROUPS: &[&[&str]] = &[
    &[
        "location",
        "country",
        "countries",
        "city",
        "cities",
        "state",
        "address",
        "region",
        "nation",
        "nationality",
        "located",
        "live",
        "lives",
        "hometown",
    ],
    &[
        "age", "old", "older", "oldest", "young", "younger", "youngest", "born", "birth",
        "birthday", "dob",
    ],
    &[
        "gender", "sex", "male", "female", "men", "women", "man", "woman",
    ],
    &[
        "price",
        "cost",
        "expensive",
        "cheap",
        "cheaper",
        "cheapest",
        "priced",
        "fee",
        "charge",
    ],
    &[
        "salary", "wage", "earn", "earns", "earned", "earnings", "income", "paid",
    ],
    &["revenue", "sales", "sold", "sell", "turnover"],
    &["height", "tall", "taller", "tallest"],
    &["weight", "heavy", "heavier", "heaviest"],
    &["duration", "longest", "length"],
    &[
        "size", "big", "bigger", "biggest", "large", "larger", "largest", "smallest", "area",
    ],
    &["rating", "rated", "stars", "score"],
    &["population", "populous", "inhabitants"],
    &["language", "languages", "speak", "spoken"],
    &["employee", "staff", "worker", "workers"],
    &["customer", "client", "buyer"],
    &["teacher", "instructor", "professor", "lecturer", "faculty"],
    &["movie", "film"],
    &["car", "vehicle", "automobile"],
    &["order", "purchase", "bought", "buy"],
    &["doctor", "physician"],
    &["drug", "medication", "medicine", "prescription"],
    &["death", "died", "dead", "deceased"],
    &["win", "won", "winner", "wins", "victory"],
    &["phone", "telephone", "mobile"],
    &["email", "mail"],
    &["company", "firm", "business", "enterprise"],
    &["distance", "far", "farthest", "furthest"],
];

/// The group a place named after "from" or "in" stands for ("users from
/// Greece", "stores in Ohio").
const PLACE_GROUP: usize = 0;

/// Every (stemmed) word of a group, with the other words of its groups.
static RELATED: LazyLock<FxHashMap<String, Vec<String>>> = LazyLock::new(|| {
    let mut related: FxHashMap<String, Vec<String>> = FxHashMap::default();
    for group in GROUPS {
        let stems = stems(group);
        for stem in &stems {
            let entry = related.entry(stem.clone()).or_default();
            entry.extend(stems.iter().filter(|s| *s != stem).cloned());
            entry.sort();
            entry.dedup();
        }
    }
    related
});

/// The words as the schema model holds them (lower-cased, stemmed).
fn stems(words: &[&str]) -> Vec<String> {
    let mut stems: Vec<String> = words
        .iter()
        .flat_map(|w| lore_search::tokenizer::terms(w))
        .collect();
    stems.sort();
    stems.dedup();
    stems
}

/// The words related to a (stemmed) query word.
pub(super) fn related(word: &str) -> &'static [String] {
    RELATED.get(word).map_or(&[], Vec::as_slice)
}

/// The place words ("location", "country" …), stemmed, when the question
/// names a place after "from", "in" or "near" (a capitalised word:
/// "from Greece", "in San Francisco"); none otherwise.
pub(super) fn place_words(query: &str) -> Vec<String> {
    static PLACE: LazyLock<Vec<String>> = LazyLock::new(|| stems(GROUPS[PLACE_GROUP]));
    let words: Vec<&str> = query.split_whitespace().collect();
    let names_place = words.windows(2).any(|pair| {
        matches!(
            pair[0].to_lowercase().as_str(),
            "from" | "in" | "near" | "at"
        ) && pair[1].chars().next().is_some_and(char::is_uppercase)
    });
    if names_place {
        PLACE.clone()
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn related_words_are_found_both_ways_by_their_stems() {
        let oldest = lore_search::tokenizer::terms("oldest").remove(0);
        let age = lore_search::tokenizer::terms("age").remove(0);
        assert!(related(&oldest).contains(&age));
        assert!(related(&age).contains(&oldest));
        assert!(related("zzzz").is_empty());
    }

    #[test]
    fn a_capitalised_word_after_from_or_in_asks_for_a_place() {
        let country = lore_search::tokenizer::terms("country").remove(0);
        assert!(place_words("Top users from Greece").contains(&country));
        assert!(place_words("stores in San Francisco").contains(&country));
        assert!(place_words("orders from last week").is_empty());
        assert!(place_words("Users").is_empty());
    }
}
