//! Lore's search index: one tantivy index (`.lore/index/`) over everything
//! an agent may look for: scanned tables and columns, semantic-layer
//! sources, measures and dimensions, wiki pages and knowledge entries.
//!
//! - [`tokenizer`]: identifier-aware terms, so `order_items`,
//!   `orderItems` and "order items" meet.
//! - [`index`]: [`SearchIndex`], documents grouped by source and replaced
//!   a group at a time with a freshness stamp; BM25 search weighted by the
//!   field a term matched, filtered by kind and connection; rebuilt when
//!   missing or damaged.
//! - [`vectors`]: the optional semantic lane's parts: the text a document is
//!   embedded by, its content hash and cosine similarity (the client that
//!   embeds is `lore-llm`'s).
//! - [`static_embed`]: a static embedding model shipped in the binary
//!   (distilled from all-MiniLM-L6-v2): text → unit vector in
//!   microseconds, no service; the schema ranker's meaning signal.
//!
//! This crate knows nothing of scans, models or MCP: callers turn their
//! artifacts into [`SearchDoc`]s.
#![doc = include_str!("../README.md")]

pub mod index;
pub mod static_embed;
pub mod tokenizer;
pub mod vectors;

use serde::{Deserialize, Serialize};

pub use index::SearchIndex;

/// Why the index failed.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The index could not be opened, written or read.
    #[error("search index: {0}")]
    Index(String),
}

impl lore_core::error::HasErrorCode for SearchError {
    fn code(&self) -> lore_core::ErrorCode {
        lore_core::ErrorCode::Internal
    }
}

/// What a document stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocKind {
    /// A wiki page.
    Wiki,
    /// A semantic-layer source.
    SlSource,
    /// A semantic-layer measure.
    SlMeasure,
    /// A semantic-layer dimension.
    SlDimension,
    /// A scanned table or view.
    Table,
    /// A scanned column.
    Column,
    /// A knowledge entry.
    Entry,
}

impl DocKind {
    /// Every kind.
    pub const ALL: [DocKind; 7] = [
        DocKind::Wiki,
        DocKind::SlSource,
        DocKind::SlMeasure,
        DocKind::SlDimension,
        DocKind::Table,
        DocKind::Column,
        DocKind::Entry,
    ];

    /// The wire name (`sl_measure`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            DocKind::Wiki => "wiki",
            DocKind::SlSource => "sl_source",
            DocKind::SlMeasure => "sl_measure",
            DocKind::SlDimension => "sl_dimension",
            DocKind::Table => "table",
            DocKind::Column => "column",
            DocKind::Entry => "entry",
        }
    }

    /// Parses a wire name.
    pub fn parse(text: &str) -> Option<DocKind> {
        DocKind::ALL.into_iter().find(|k| k.as_str() == text)
    }
}

/// Which part of a document a query matched: also how much a match there
/// counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchField {
    /// The object's own name (`invoices`, `total_cents`).
    Name,
    /// A human label or qualified display name.
    Display,
    /// A written description.
    Description,
    /// A database comment.
    Comment,
    /// A SQL expression (measures, computed columns).
    Expr,
    /// Values seen in the data.
    SampleValue,
    /// Body text (wiki pages, entries).
    Body,
}

impl MatchField {
    /// Every field, in the order the index declares them.
    pub const ALL: [MatchField; 7] = [
        MatchField::Name,
        MatchField::Display,
        MatchField::Description,
        MatchField::Comment,
        MatchField::Expr,
        MatchField::SampleValue,
        MatchField::Body,
    ];

    /// The wire name (`sample_value`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            MatchField::Name => "name",
            MatchField::Display => "display",
            MatchField::Description => "description",
            MatchField::Comment => "comment",
            MatchField::Expr => "expr",
            MatchField::SampleValue => "sample_value",
            MatchField::Body => "body",
        }
    }

    /// The boost a match in this field gets.
    pub fn weight(self) -> f32 {
        match self {
            MatchField::Name => 3.0,
            MatchField::Display => 2.0,
            MatchField::Description => 1.5,
            MatchField::Comment => 1.2,
            MatchField::Expr => 0.8,
            MatchField::SampleValue => 0.8,
            MatchField::Body => 1.0,
        }
    }
}

/// One searchable thing.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchDoc {
    /// What it is.
    pub kind: DocKind,
    /// The connection it belongs to (none for wiki pages and entries).
    pub connection: Option<String>,
    /// Its id within kind and connection (a table's display name, a
    /// measure's `source.measure`, a wiki key…).
    pub id: String,
    /// The texts it is found by.
    pub fields: Vec<(MatchField, String)>,
    /// Whatever the caller needs to build a result, stored as is.
    pub payload: serde_json::Value,
}

impl SearchDoc {
    /// The document's unique key: `kind:connection:id`.
    pub fn key(&self) -> String {
        format!(
            "{}:{}:{}",
            self.kind.as_str(),
            self.connection.as_deref().unwrap_or(""),
            self.id
        )
    }
}

/// A search.
#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    /// Free text.
    pub text: String,
    /// Only these kinds (all when empty).
    pub kinds: Vec<DocKind>,
    /// Only this connection's documents (plus those of no connection).
    pub connection: Option<String>,
    /// Most hits.
    pub limit: usize,
}

/// One hit, best first.
#[derive(Debug, Clone)]
pub struct SearchHit {
    /// The document's key.
    pub key: String,
    /// Its kind.
    pub kind: DocKind,
    /// Its connection.
    pub connection: Option<String>,
    /// Its id.
    pub id: String,
    /// BM25 score (weighted), comparable within one search only.
    pub score: f32,
    /// The most heavily weighted field holding a query term.
    pub matched_on: MatchField,
    /// That field's text.
    pub matched_text: String,
    /// The stored payload.
    pub payload: serde_json::Value,
}

impl SearchHit {
    /// A hit on `doc` found by something other than its words (the
    /// semantic lane): it is shown by its most descriptive text.
    pub fn of_doc(doc: SearchDoc, score: f32) -> SearchHit {
        let key = doc.key();
        let (matched_on, matched_text) = [
            MatchField::Description,
            MatchField::Body,
            MatchField::Comment,
            MatchField::Display,
            MatchField::Name,
        ]
        .into_iter()
        .find_map(|wanted| {
            doc.fields
                .iter()
                .find(|(f, text)| *f == wanted && !text.trim().is_empty())
                .map(|(f, text)| (*f, text.clone()))
        })
        .unwrap_or((MatchField::Name, doc.id.clone()));
        SearchHit {
            key,
            kind: doc.kind,
            connection: doc.connection,
            id: doc.id,
            score,
            matched_on,
            matched_text,
            payload: doc.payload,
        }
    }
}
