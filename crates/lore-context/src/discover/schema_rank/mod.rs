//! The `raw_schema` lane of `discover_data`: tables and columns ranked for
//! a data question by a ranker that knows what a schema is (see
//! [`score`] for the rules), over each connection's latest scan, kept in
//! memory and rebuilt when a scan changes.

mod concepts;
mod dense;
mod joins;
mod meaning;
mod model;
mod score;
mod weights;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use lore_search::{DocKind, MatchField, SearchHit};
use lore_warehouse::catalog::Catalog;

use super::documents::{column_doc, table_doc};
use model::{Place, SchemaModel};
use score::{Reason, Scored, Scratch, Wanted, Weights};

/// How much more the index weighs a name match than body text.
const NAME_BOOST: f32 = 3.0;

/// Ranks tables and columns; one model per connection, cached until its
/// scan changes.
#[derive(Default)]
pub struct SchemaRanker {
    models: Mutex<HashMap<String, Arc<SchemaModel>>>,
    /// Working memory for a question, one per question ranked at once.
    scratch: Mutex<Vec<Scratch>>,
}

impl SchemaRanker {
    /// The best `limit` tables and columns of `connections` for `query`,
    /// of the wanted kinds (both when `kinds` names neither), best first:
    /// those a query word found (or a table they join), then those listed
    /// only because their schema is small.
    pub fn search(
        &self,
        catalog: &Catalog,
        connections: &[&str],
        query: &str,
        kinds: &[DocKind],
        limit: usize,
    ) -> (Vec<SearchHit>, Vec<SearchHit>) {
        let wants = |kind: DocKind| kinds.is_empty() || kinds.contains(&kind);
        let wanted = Wanted {
            tables: wants(DocKind::Table),
            columns: wants(DocKind::Column),
            keep: limit,
        };
        let weights = Weights::default();
        let mut found: Vec<(Arc<SchemaModel>, Scored, f32)> = Vec::new();
        let mut scratch = self.lock_scratch().pop().unwrap_or_default();
        for connection in connections {
            let Some(model) = self.model(catalog, connection) else {
                continue;
            };
            let (ranked, mass) = score::rank(&model, query, &weights, wanted, &mut scratch);
            found.extend(ranked.into_iter().map(|s| (Arc::clone(&model), s, mass)));
        }
        self.lock_scratch().push(scratch);
        found.sort_by(|a, b| b.1.score.total_cmp(&a.1.score));
        found.truncate(limit);
        let (listed, found): (Vec<_>, Vec<_>) = found.into_iter().partition(|f| f.1.listed);
        let hits = |found: Vec<(Arc<SchemaModel>, Scored, f32)>| {
            found
                .into_iter()
                .map(|(model, s, mass)| hit(&model, &s, mass))
                .collect()
        };
        (hits(found), hits(listed))
    }

    fn lock_scratch(&self) -> std::sync::MutexGuard<'_, Vec<Scratch>> {
        self.scratch.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The connection's model for its latest scan; none when it was never
    /// scanned or its scan cannot be read.
    fn model(&self, catalog: &Catalog, connection: &str) -> Option<Arc<SchemaModel>> {
        let snapshot = catalog.latest(connection).ok()??;
        let mut models = self.models.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(model) = models.get(connection)
            && model.snapshot.manifest.sync_id == snapshot.manifest.sync_id
        {
            return Some(Arc::clone(model));
        }
        let model = Arc::new(SchemaModel::build(connection, snapshot));
        models.insert(connection.to_string(), Arc::clone(&model));
        Some(model)
    }
}

/// A ranked table or column as the index would have found it. Its score
/// is in the other lanes' units (BM25's: word rarity, a name match 3×),
/// which fusion compares to break ties between lanes.
fn hit(model: &SchemaModel, scored: &Scored, mass: f32) -> SearchHit {
    let (t, connection) = (scored.table as usize, model.connection.as_str());
    let doc = match scored.column {
        Some(c) => column_doc(connection, &model.snapshot, t, c as usize),
        None => table_doc(connection, &model.snapshot, t),
    };
    let field = match scored.reason {
        Reason::Own(Place::TableName | Place::ColumnName) => MatchField::Name,
        Reason::Own(Place::TableComment | Place::ColumnComment) => MatchField::Comment,
        Reason::Own(Place::Sample) => MatchField::SampleValue,
        // A table matched through its columns, or a column brought by its
        // table: the display names both.
        Reason::Table => MatchField::Display,
    };
    let matched_text = doc
        .fields
        .iter()
        .find(|(f, _)| *f == field)
        .or_else(|| doc.fields.first())
        .map(|(_, text)| text.clone())
        .unwrap_or_default();
    SearchHit {
        key: doc.key(),
        kind: doc.kind,
        connection: doc.connection,
        id: doc.id,
        score: scored.score * mass * NAME_BOOST,
        matched_on: field,
        matched_text,
        payload: doc.payload,
    }
}
