//! The index's statistics for one search, each read once: a pasted issue
//! is searched by some 260 (field, word) terms, and the index holds a
//! dozen segments, so dictionary lookups were most of a search's cost
//! (each term's document frequency was read once to pick the rarest
//! words, again for its BM25 weight, again by a filtered search, and each
//! segment's scorer looked the term up once more even where it is absent).
//!
//! [`TermStats`] keeps each term's frequency per segment and each field's
//! token count, and gives tantivy the same statistics the searcher would
//! (so scores are the same to the bit); [`KnownTerm`] is a term query that
//! skips the segments that do not hold its term.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tantivy::index::SegmentId;
use tantivy::query::{
    Bm25StatisticsProvider, EmptyScorer, EnableScoring, Explanation, Query, Scorer, TermQuery,
    Weight,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, Score, Searcher, SegmentReader, Term};

/// Each term's document frequency per segment (`None` where the segment's
/// dictionary lacks it), read once per search.
pub(super) struct TermStats<'a> {
    searcher: &'a Searcher,
    segments: Arc<[SegmentId]>,
    docs: u64,
    tokens: Mutex<HashMap<Field, u64>>,
    freqs: Mutex<HashMap<Term, Arc<[Option<u32>]>>>,
}

impl<'a> TermStats<'a> {
    pub fn new(searcher: &'a Searcher) -> TermStats<'a> {
        let readers = searcher.segment_readers();
        TermStats {
            searcher,
            segments: readers.iter().map(SegmentReader::segment_id).collect(),
            // As `Searcher::total_num_docs` counts them.
            docs: readers.iter().map(|r| u64::from(r.max_doc())).sum(),
            tokens: Mutex::new(HashMap::new()),
            freqs: Mutex::new(HashMap::new()),
        }
    }

    /// The term's document frequency in each segment.
    fn per_segment(&self, term: &Term) -> tantivy::Result<Arc<[Option<u32>]>> {
        if let Some(found) = lock(&self.freqs).get(term) {
            return Ok(Arc::clone(found));
        }
        let freqs: Arc<[Option<u32>]> = self
            .searcher
            .segment_readers()
            .iter()
            .map(|reader| {
                let info = reader.inverted_index(term.field())?.get_term_info(term)?;
                Ok(info.map(|i| i.doc_freq))
            })
            .collect::<tantivy::Result<Vec<_>>>()?
            .into();
        lock(&self.freqs).insert(term.clone(), Arc::clone(&freqs));
        Ok(freqs)
    }

    /// A query for `term` (scored with its frequencies) that skips the
    /// segments without it; `None` when no segment holds it (the clause
    /// would match nothing).
    pub fn query(&self, term: Term) -> tantivy::Result<Option<KnownTerm>> {
        let freqs = self.per_segment(&term)?;
        if freqs.iter().all(Option::is_none) {
            return Ok(None);
        }
        Ok(Some(KnownTerm {
            query: TermQuery::new(term, IndexRecordOption::WithFreqs),
            segments: Arc::clone(&self.segments),
            freqs,
        }))
    }
}

impl Bm25StatisticsProvider for TermStats<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        if let Some(tokens) = lock(&self.tokens).get(&field) {
            return Ok(*tokens);
        }
        let mut tokens = 0u64;
        for reader in self.searcher.segment_readers() {
            tokens += reader.inverted_index(field)?.total_num_tokens();
        }
        lock(&self.tokens).insert(field, tokens);
        Ok(tokens)
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.docs)
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        Ok(self
            .per_segment(term)?
            .iter()
            .flatten()
            .map(|df| u64::from(*df))
            .sum())
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// A [`TermQuery`] that knows which segments hold its term.
#[derive(Clone, Debug)]
pub(super) struct KnownTerm {
    query: TermQuery,
    segments: Arc<[SegmentId]>,
    freqs: Arc<[Option<u32>]>,
}

impl Query for KnownTerm {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(KnownTermWeight {
            inner: self.query.weight(scoring)?,
            segments: Arc::clone(&self.segments),
            freqs: Arc::clone(&self.freqs),
        }))
    }
}

struct KnownTermWeight {
    inner: Box<dyn Weight>,
    segments: Arc<[SegmentId]>,
    freqs: Arc<[Option<u32>]>,
}

impl KnownTermWeight {
    /// Whether the segment is known not to hold the term.
    fn absent(&self, reader: &SegmentReader) -> bool {
        let id = reader.segment_id();
        self.segments
            .iter()
            .position(|s| *s == id)
            .is_some_and(|at| self.freqs.get(at).is_some_and(Option::is_none))
    }
}

impl Weight for KnownTermWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        if self.absent(reader) {
            // What the term query answers for a segment without the term.
            return Ok(Box::new(EmptyScorer));
        }
        self.inner.scorer(reader, boost)
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        self.inner.explain(reader, doc)
    }
}

#[cfg(test)]
mod tests {
    use tantivy::collector::TopDocs;
    use tantivy::query::{BooleanQuery, BoostQuery, Occur};
    use tantivy::schema::{STRING, Schema, TEXT};
    use tantivy::{Index, doc};

    use super::*;

    #[test]
    fn known_terms_score_as_term_queries_do() {
        let mut schema = Schema::builder();
        let text = schema.add_text_field("text", TEXT);
        let name = schema.add_text_field("name", STRING);
        let index = Index::create_in_ram(schema.build());
        let mut writer: tantivy::IndexWriter =
            index.writer_with_num_threads(1, 15_000_000).unwrap();
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        // Three segments; `parser` is absent from the second.
        for batch in [
            vec![
                ("the parser drops the footer", "parser.py"),
                ("a footer", "x.py"),
            ],
            vec![("footer and header", "y.py"), ("nothing here", "z.py")],
            vec![("parser parser header", "parser.py"), ("the end", "end.py")],
        ] {
            for (body, file) in batch {
                writer
                    .add_document(doc!(text => body, name => file))
                    .unwrap();
            }
            writer.commit().unwrap();
        }
        let searcher = index.reader().unwrap().searcher();
        assert_eq!(searcher.segment_readers().len(), 3);
        let stats = TermStats::new(&searcher);
        let terms = [
            (Term::from_field_text(text, "parser"), 1.0),
            (Term::from_field_text(text, "footer"), 1.5),
            (Term::from_field_text(text, "header"), 0.5),
            (Term::from_field_text(text, "absent"), 1.0),
            (Term::from_field_text(name, "parser.py"), 6.0),
        ];
        let plain: Vec<(Occur, Box<dyn Query>)> = terms
            .iter()
            .map(|(term, boost)| {
                let q = TermQuery::new(term.clone(), IndexRecordOption::WithFreqs);
                (
                    Occur::Should,
                    Box::new(BoostQuery::new(Box::new(q), *boost)) as Box<dyn Query>,
                )
            })
            .collect();
        let known: Vec<(Occur, Box<dyn Query>)> = terms
            .iter()
            .filter_map(|(term, boost)| {
                let q = stats.query(term.clone()).unwrap()?;
                Some((
                    Occur::Should,
                    Box::new(BoostQuery::new(Box::new(q), *boost)) as Box<dyn Query>,
                ))
            })
            .collect();
        assert_eq!(known.len(), 4, "the absent word is left out");
        let top = TopDocs::with_limit(10).order_by_score();
        let expected = searcher.search(&BooleanQuery::new(plain), &top).unwrap();
        let found = searcher
            .search_with_statistics_provider(&BooleanQuery::new(known), &top, &stats)
            .unwrap();
        assert_eq!(found.len(), 4);
        assert_eq!(found, expected);
        assert_eq!(
            stats.doc_freq(&terms[0].0).unwrap(),
            searcher.doc_freq(&terms[0].0).unwrap()
        );
    }
}
