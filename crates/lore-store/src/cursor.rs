//! Page cursors, and the transaction a read sees. A cursor pins the transaction a listing reads, its
//! position, and a fingerprint of its filters, so the next page reads the
//! same state (stable under concurrent writes) and a cursor replayed with
//! other filters is refused instead of silently skipping rows.

use lore_core::cursor::PageCursor;

use crate::error::StoreError;
use crate::model::{Page, TxId};

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

/// The transaction a read sees: the requested one (checked to exist, given
/// the newest, `newest`) or the newest.
pub(crate) fn check_as_of(requested: Option<TxId>, newest: TxId) -> Result<TxId, StoreError> {
    match requested {
        None => Ok(newest),
        Some(tx) if tx < 0 => Err(StoreError::Invalid(
            "as_of_tx_id must be 0 or more".to_string(),
        )),
        Some(tx) if tx > newest => Err(StoreError::Invalid(format!(
            "as_of_tx_id {tx} is in the future: the newest transaction is {newest}"
        ))),
        Some(tx) => Ok(tx),
    }
}

/// Where a paged listing starts: the transaction it asks to read (the
/// cursor's, which an explicit `as_of` must agree with) and the offset.
pub(crate) fn page_start(
    cursor: Option<&str>,
    as_of: Option<TxId>,
    filters: u64,
) -> Result<(Option<TxId>, i64), StoreError> {
    match cursor {
        Some(text) => {
            let cursor = Cursor::decode(text, filters)?;
            if let Some(requested) = as_of
                && requested != cursor.as_of
            {
                return Err(StoreError::Invalid(format!(
                    "the cursor reads as of transaction {}, not {requested}; drop as_of_tx_id or the cursor",
                    cursor.as_of
                )));
            }
            Ok((Some(cursor.as_of), cursor.position))
        }
        None => Ok((as_of, 0)),
    }
}

/// Cuts the look-ahead row of a page read with `limit + 1` rows and makes
/// the next cursor.
pub(crate) fn finish_page<T: Clone>(
    items: &mut Vec<T>,
    limit: usize,
    as_of: TxId,
    offset: i64,
    filters: u64,
) -> Page<T> {
    let more = items.len() > limit;
    items.truncate(limit);
    Page {
        items: items.clone(),
        next_cursor: more.then(|| {
            Cursor {
                as_of,
                position: offset + limit as i64,
                filters,
            }
            .encode()
        }),
        as_of_tx_id: as_of,
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
