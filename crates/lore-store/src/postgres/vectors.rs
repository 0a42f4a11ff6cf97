//! The embedding cache, as the SQLite store's (`sqlite/vectors.rs`):
//! vectors by model and text hash, not knowledge (no transactions, no
//! history), stored as little-endian `f32`s.

use std::collections::HashMap;

use super::session::{Session, get};
use crate::error::StoreError;

/// The cached vectors of `model` for those of `hashes` it has.
pub(super) fn cached(
    session: &mut Session,
    model: &str,
    hashes: &[String],
) -> Result<HashMap<String, Vec<f32>>, StoreError> {
    if hashes.is_empty() {
        return Ok(HashMap::new());
    }
    let rows = session.query(
        "SELECT hash, vector FROM embeddings WHERE model = $1 AND hash = ANY($2)",
        &[&model, &hashes],
    )?;
    let mut found = HashMap::new();
    for row in &rows {
        let hash: String = get(row, 0)?;
        let blob: Vec<u8> = get(row, 1)?;
        if let Some(vector) = decode(&blob) {
            found.insert(hash, vector);
        }
    }
    Ok(found)
}

/// Caches vectors of `model` (replacing any under the same hash), all in
/// one transaction.
pub(super) fn cache(
    session: &mut Session,
    model: &str,
    vectors: &[(String, Vec<f32>)],
) -> Result<(), StoreError> {
    if vectors.is_empty() {
        return Ok(());
    }
    let now = lore_core::time::UtcMillis::now().to_iso();
    // In hash order, so two writers of overlapping batches cannot
    // deadlock.
    let mut sorted: Vec<&(String, Vec<f32>)> = vectors.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut tx = session.begin()?;
    for (hash, vector) in sorted {
        tx.execute(
            "INSERT INTO embeddings (model, hash, vector, created_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (model, hash) DO UPDATE
             SET vector = EXCLUDED.vector, created_at = EXCLUDED.created_at",
            &[&model, hash, &encode(vector), &now],
        )?;
    }
    tx.commit()
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
