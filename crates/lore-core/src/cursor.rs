//! Page cursors, one codec for every listing: a cursor pins the
//! transaction a listing reads, its position, and a fingerprint of its
//! filters, so the next page reads the same state (stable under concurrent
//! writes) and a cursor replayed with other filters is refused instead of
//! silently skipping rows. The text is opaque to clients:
//! `<kind>.<as_of>.<position>.<filters as 16 hex digits>`, where the kind
//! says which listing issued it (`c1` the store's, `i1` the ranked memory
//! search's).

/// A decoded cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageCursor {
    /// The transaction the listing reads.
    pub as_of: i64,
    /// Where the next page starts (an offset or a last-seen key).
    pub position: i64,
    /// Fingerprint of the filters the listing was started with.
    pub filters: u64,
}

/// Why a cursor was refused; the message says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CursorError {
    /// Not a cursor of this kind (or not a cursor at all).
    #[error("cursor `{0}` is not one this server issued; start again without a cursor")]
    Foreign(String),
    /// A cursor of a listing with other filters.
    #[error(
        "cursor belongs to a listing with other filters; pass the same filters as the first page, or start again without a cursor"
    )]
    OtherFilters,
}

impl PageCursor {
    /// The opaque text handed to clients, for listings of `kind`.
    pub fn encode(self, kind: &str) -> String {
        format!(
            "{kind}.{}.{}.{:016x}",
            self.as_of, self.position, self.filters
        )
    }

    /// Whether `text` is a cursor of `kind` (without checking the rest).
    pub fn is_kind(text: &str, kind: &str) -> bool {
        text.strip_prefix(kind)
            .is_some_and(|rest| rest.starts_with('.'))
    }

    /// Parses a cursor of `kind` and checks it belongs to a listing with
    /// `filters`.
    pub fn decode(text: &str, kind: &str, filters: u64) -> Result<PageCursor, CursorError> {
        let foreign = || CursorError::Foreign(text.chars().take(40).collect());
        let mut parts = text.split('.');
        if parts.next() != Some(kind) {
            return Err(foreign());
        }
        let mut number = || parts.next().and_then(|p| p.parse::<i64>().ok());
        let (Some(as_of), Some(position)) = (number(), number()) else {
            return Err(foreign());
        };
        let hash = parts
            .next()
            .and_then(|p| u64::from_str_radix(p, 16).ok())
            .ok_or_else(foreign)?;
        if parts.next().is_some() || as_of < 0 || position < 0 {
            return Err(foreign());
        }
        if hash != filters {
            return Err(CursorError::OtherFilters);
        }
        Ok(PageCursor {
            as_of,
            position,
            filters,
        })
    }
}

/// A fingerprint of a listing's filters: stable across processes and
/// releases (FNV-1a, see [`crate::hash`]).
pub fn fingerprint(parts: &[&[u8]]) -> u64 {
    crate::hash::fnv1a(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_refuse_other_kinds_filters_and_garbage() {
        let cursor = PageCursor {
            as_of: 42,
            position: 7,
            filters: fingerprint(&[b"topic"]),
        };
        let text = cursor.encode("c1");
        assert!(PageCursor::is_kind(&text, "c1") && !PageCursor::is_kind(&text, "i1"));
        assert_eq!(PageCursor::decode(&text, "c1", cursor.filters), Ok(cursor));
        assert_eq!(
            PageCursor::decode(&text, "c1", cursor.filters + 1),
            Err(CursorError::OtherFilters)
        );
        for bad in [
            "i1.42.7.0000000000000000",
            "c1.-1.7.0",
            "c1.1.2",
            "c1.1.2.zz",
            "c1.1.2.0.extra",
            "",
            "c1.\u{0}.1.0",
        ] {
            assert!(
                matches!(
                    PageCursor::decode(bad, "c1", 0),
                    Err(CursorError::Foreign(_))
                ),
                "{bad}"
            );
        }
    }
}

#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn any_text_decodes_or_is_refused(text in "\\PC{0,80}", filters in any::<u64>()) {
            let _ = PageCursor::decode(&text, "c1", filters);
        }

        #[test]
        fn every_cursor_round_trips(as_of in 0i64.., position in 0i64.., filters in any::<u64>()) {
            let cursor = PageCursor { as_of, position, filters };
            prop_assert_eq!(PageCursor::decode(&cursor.encode("i1"), "i1", filters), Ok(cursor));
        }
    }
}
