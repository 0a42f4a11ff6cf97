//! Page cursors. A cursor pins the transaction a listing reads, its
//! position, and a fingerprint of its filters, so the next page reads the
//! same state (stable under concurrent writes) and a cursor replayed with
//! other filters is refused instead of silently skipping rows.

use lore_core::cursor::PageCursor;

use crate::error::StoreError;
use crate::model::TxId;

/// A decoded cursor of the store's listings (kind `c1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cursor {
    /// The transaction the listing reads.
    pub as_of: TxId,
    /// Where the next page starts (an offset or a last-seen key).
    pub position: i64,
    /// Fingerprint of the filters the listing was started with.
    pub filters: u64,
}

/// The kind of the store's own cursors.
const KIND: &str = "c1";

impl Cursor {
    /// The opaque text handed to clients.
    pub fn encode(self) -> String {
        PageCursor {
            as_of: self.as_of,
            position: self.position,
            filters: self.filters,
        }
        .encode(KIND)
    }

    /// Parses a cursor and checks it belongs to a listing with `filters`.
    pub fn decode(text: &str, filters: u64) -> Result<Cursor, StoreError> {
        let cursor = PageCursor::decode(text, KIND, filters)
            .map_err(|e| StoreError::Invalid(e.to_string()))?;
        Ok(Cursor {
            as_of: cursor.as_of,
            position: cursor.position,
            filters,
        })
    }
}

/// FNV-1a over the parts of a filter: stable across processes and releases.
pub(crate) fn fingerprint(parts: &[&str]) -> u64 {
    let bytes: Vec<&[u8]> = parts.iter().map(|p| p.as_bytes()).collect();
    lore_core::cursor::fingerprint(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_round_trips_and_refuses_other_filters() {
        let cursor = Cursor {
            as_of: 42,
            position: 20,
            filters: fingerprint(&["topic", "deployment"]),
        };
        let text = cursor.encode();
        assert_eq!(Cursor::decode(&text, cursor.filters).unwrap(), cursor);
        let other = fingerprint(&["topic", "billing"]);
        assert!(matches!(
            Cursor::decode(&text, other),
            Err(StoreError::Invalid(m)) if m.contains("other filters")
        ));
        assert!(Cursor::decode("c1.x.1.0", 0).is_err());
        assert!(Cursor::decode("nonsense", 0).is_err());
    }
}
