//! A small stable hash for fingerprints that are written down (cursors,
//! the wiki's sync ledger): the same input gives the same value in every
//! process and release, unlike `std`'s hashers.

/// FNV-1a (64-bit) over `parts`, each followed by a `0xff` separator so
/// `["ab", "c"]` and `["a", "bc"]` differ.
pub fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.iter().copied().chain(std::iter::once(0xff)) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}

/// The fingerprint of content Lore wrote or read (wiki files, installed
/// skills and bundles, embedded documents): 16 hex digits of [`fnv1a`],
/// the same in every process and release.
pub fn content_hash(content: impl AsRef<[u8]>) -> String {
    format!("{:016x}", fnv1a(&[content.as_ref()]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_keep_parts_apart_and_values_are_stable() {
        assert_ne!(fnv1a(&[b"ab", b"c"]), fnv1a(&[b"a", b"bc"]));
        // A written-down value must never change between releases.
        assert_eq!(fnv1a(&[b""]), 0xaf64_724c_8602_eb6e);
    }
}
