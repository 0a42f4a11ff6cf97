//! The embedding cache: vectors computed by an embedding model, keyed by
//! the model and a hash of the text embedded. A text embedded once is never
//! sent to the provider again, whichever process asks. The cache is not
//! knowledge: it has no transactions and no history.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params};

use super::SqliteStore;
use crate::error::StoreError;

/// The cached vectors of `model` for those of `hashes` it has.
pub(super) fn cached(
    store: &SqliteStore,
    model: &str,
    hashes: &[String],
) -> Result<HashMap<String, Vec<f32>>, StoreError> {
    store.with_reader(|conn| {
        let mut statement =
            conn.prepare_cached("SELECT vector FROM embeddings WHERE model = ?1 AND hash = ?2")?;
        let mut found = HashMap::new();
        for hash in hashes {
            let blob: Option<Vec<u8>> = statement
                .query_row(params![model, hash], |row| row.get(0))
                .optional()?;
            if let Some(vector) = blob.as_deref().and_then(decode) {
                found.insert(hash.clone(), vector);
            }
        }
        Ok(found)
    })
}

/// Caches vectors of `model` (replacing any under the same hash), all in
/// one write.
pub(super) fn cache(
    store: &SqliteStore,
    model: &str,
    vectors: &[(String, Vec<f32>)],
) -> Result<(), StoreError> {
    if vectors.is_empty() {
        return Ok(());
    }
    let now = lore_core::time::UtcMillis::now().to_iso();
    store.with_writer(|conn| {
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            {
                let mut statement = tx.prepare_cached(
                    "INSERT OR REPLACE INTO embeddings (model, hash, vector, created_at) VALUES (?1, ?2, ?3, ?4)",
                )?;
                for (hash, vector) in vectors {
                    statement.execute(params![model, hash, encode(vector), now])?;
                }
            }
            tx.commit()?;
            Ok(())
        })
}

impl SqliteStore {
    /// How many vectors of `model` are cached.
    #[cfg(test)]
    pub fn cached_vector_count(&self, model: &str) -> Result<u64, StoreError> {
        self.with_reader(|conn| {
            let count: i64 = conn.query_row(
                "SELECT count(*) FROM embeddings WHERE model = ?1",
                [model],
                |row| row.get(0),
            )?;
            Ok(count.max(0) as u64)
        })
    }
}

/// Little-endian `f32`s.
fn encode(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn decode(blob: &[u8]) -> Option<Vec<f32>> {
    if blob.is_empty() || !blob.len().is_multiple_of(4) {
        return None;
    }
    Some(
        blob.chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use crate::{Durability, KnowledgeStore, SqliteStore};

    #[test]
    fn vectors_round_trip_per_model_without_touching_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("store.db"), Durability::Process).unwrap();
        let head = store.head().unwrap();
        store
            .cache_vectors(
                "m@3",
                &[
                    ("a".to_string(), vec![0.5, -1.0, 2.25]),
                    ("b".to_string(), vec![1.0, 0.0, 0.0]),
                ],
            )
            .unwrap();
        let found = store
            .cached_vectors("m@3", &["a".to_string(), "c".to_string()])
            .unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found["a"], vec![0.5, -1.0, 2.25]);
        assert!(
            store
                .cached_vectors("other", &["a".to_string()])
                .unwrap()
                .is_empty()
        );
        assert_eq!(store.cached_vector_count("m@3").unwrap(), 2);
        assert_eq!(
            store.head().unwrap(),
            head,
            "the cache is not a transaction"
        );
    }
}
