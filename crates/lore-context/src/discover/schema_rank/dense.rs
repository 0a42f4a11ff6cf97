//! Maps keyed by a table's or a column's number, stored as flat vectors
//! and emptied in constant time (a generation stamp per slot). A question
//! whose words occur in every table of a large schema then touches each
//! table and column once, without hashing or allocating.

/// A map from numbers below a bound to values, in a flat vector.
pub(super) struct DenseMap<V> {
    /// Per key: its stamp and value; it holds a value when the stamp is
    /// the current generation (side by side: one cache line per lookup).
    slots: Vec<(u32, V)>,
    /// The keys present, in insertion order.
    keys: Vec<u32>,
    generation: u32,
}

impl<V> Default for DenseMap<V> {
    fn default() -> Self {
        DenseMap {
            slots: Vec::new(),
            keys: Vec::new(),
            generation: 1,
        }
    }
}

impl<V: Copy> DenseMap<V> {
    /// Empties the map and makes room for keys below `bound` (`filler`
    /// only fills new room; it is never read).
    pub fn reset(&mut self, bound: usize, filler: V) {
        if self.slots.len() < bound {
            self.slots.resize(bound, (0, filler));
        }
        self.keys.clear();
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            for slot in &mut self.slots {
                slot.0 = 0;
            }
            self.generation = 1;
        }
    }

    /// The value at `key`, if any.
    pub fn get(&self, key: u32) -> Option<&V> {
        let (stamp, value) = &self.slots[key as usize];
        (*stamp == self.generation).then_some(value)
    }

    /// Whether `key` holds a value.
    pub fn contains(&self, key: u32) -> bool {
        self.slots[key as usize].0 == self.generation
    }

    /// The value at `key`, set to `init` first when it had none.
    pub fn entry(&mut self, key: u32, init: V) -> &mut V {
        let slot = &mut self.slots[key as usize];
        if slot.0 != self.generation {
            *slot = (self.generation, init);
            self.keys.push(key);
        }
        &mut slot.1
    }

    /// The keys present, in the order they were first set.
    pub fn keys(&self) -> &[u32] {
        &self.keys
    }

    /// The entries, in the order their keys were first set.
    pub fn iter(&self) -> impl Iterator<Item = (u32, V)> + '_ {
        self.keys.iter().map(|&k| (k, self.slots[k as usize].1))
    }
}

#[cfg(test)]
mod tests {
    use super::DenseMap;

    #[test]
    fn a_reset_map_is_empty_and_lists_keys_in_insertion_order() {
        let mut map = DenseMap::default();
        map.reset(10, 0.0f32);
        *map.entry(7, 1.0) += 1.0;
        *map.entry(2, 5.0) += 1.0;
        *map.entry(7, 9.0) += 1.0;
        assert_eq!(map.iter().collect::<Vec<_>>(), vec![(7, 3.0), (2, 6.0)]);
        map.reset(10, 0.0);
        assert!(!map.contains(7) && map.get(2).is_none() && map.keys().is_empty());
        assert_eq!(*map.entry(2, 4.0), 4.0);
    }
}
