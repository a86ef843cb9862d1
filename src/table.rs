//! A small hash table from text to a position: the only map the core needs
//! (item texts in a list diff, offer ids, briefs). One open-addressing table
//! instead of std's `HashMap` keeps the shipped module small; keys are kept in
//! insertion order, so nothing depends on hashing order.

/// Text keys (`&str` or `String`) to numbers.
#[derive(Debug, Clone, Default)]
pub struct TextTable<K> {
    entries: Vec<(K, usize)>,
    /// Entry index + 1 per slot, 0 for an empty slot; a power of two long.
    slots: Vec<u32>,
}

impl<K: AsRef<str>> TextTable<K> {
    pub fn new() -> Self {
        TextTable {
            entries: Vec::new(),
            slots: Vec::new(),
        }
    }

    pub fn with_capacity(n: usize) -> Self {
        let mut table = Self::new();
        table.entries.reserve(n);
        table.grow_to(n);
        table
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The keys, in the order they were first inserted.
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<usize> {
        match self.find(key) {
            (_, Some(at)) => self.entries.get(at).map(|(_, v)| *v),
            _ => None,
        }
    }

    pub fn contains(&self, key: &str) -> bool {
        self.find(key).1.is_some()
    }

    /// Sets `key` to `value`; the value it had, if any.
    pub fn insert(&mut self, key: K, value: usize) -> Option<usize> {
        let (slot, found) = self.find(key.as_ref());
        if let Some(entry) = found.and_then(|at| self.entries.get_mut(at)) {
            return Some(std::mem::replace(&mut entry.1, value));
        }
        self.add(slot, key, value);
        None
    }

    /// Sets `key` to `value` unless it has one; whether it was added.
    pub fn insert_new(&mut self, key: K, value: usize) -> bool {
        let (slot, found) = self.find(key.as_ref());
        if found.is_some() {
            return false;
        }
        self.add(slot, key, value);
        true
    }

    fn add(&mut self, slot: usize, key: K, value: usize) {
        self.entries.push((key, value));
        let index = self.entries.len() as u32;
        // Kept at most half full, so every probe ends at an empty slot.
        if self.entries.len() * 2 > self.slots.len() {
            self.grow_to(self.entries.len());
        } else if let Some(s) = self.slots.get_mut(slot) {
            *s = index;
        }
    }

    /// Rebuilds the slots for `n` entries (at most a quarter full).
    fn grow_to(&mut self, n: usize) {
        let size = (n * 4).max(8).next_power_of_two();
        if size <= self.slots.len() {
            return;
        }
        self.slots = vec![0; size];
        let mask = size - 1;
        for (i, (key, _)) in self.entries.iter().enumerate() {
            let mut slot = hash(key.as_ref()) as usize & mask;
            while self.slots.get(slot).is_some_and(|s| *s != 0) {
                slot = (slot + 1) & mask;
            }
            if let Some(s) = self.slots.get_mut(slot) {
                *s = i as u32 + 1;
            }
        }
    }

    /// The slot where `key` is or would go, and its entry index if present.
    fn find(&self, key: &str) -> (usize, Option<usize>) {
        if self.slots.is_empty() {
            return (0, None);
        }
        let mask = self.slots.len() - 1;
        let mut slot = hash(key) as usize & mask;
        loop {
            match self.slots.get(slot).copied() {
                None | Some(0) => return (slot, None),
                Some(index) => {
                    let at = index as usize - 1;
                    if self.entries.get(at).is_some_and(|(k, _)| k.as_ref() == key) {
                        return (slot, Some(at));
                    }
                }
            }
            slot = (slot + 1) & mask;
        }
    }
}

/// A multiply-rotate hash over eight bytes at a time (not keyed: the table
/// holds one chat's texts).
fn hash(text: &str) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let bytes = text.as_bytes();
    let mut h = bytes.len() as u64;
    let mut at = 0;
    while let Some(&[a, b, c, d, e, f, g, i]) = bytes.get(at..at + 8) {
        h = (h.rotate_left(5) ^ u64::from_le_bytes([a, b, c, d, e, f, g, i])).wrapping_mul(K);
        at += 8;
    }
    let mut last = 0u64;
    for (k, b) in bytes.iter().skip(at).enumerate() {
        last |= u64::from(*b) << (8 * k);
    }
    h = (h.rotate_left(5) ^ last).wrapping_mul(K);
    h ^ h >> 29
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_a_hash_map_on_many_keys() {
        let mut table: TextTable<String> = TextTable::new();
        let mut map = std::collections::HashMap::new();
        for i in 0..20_000usize {
            let key = format!("k{}", (i * 7919) % 5_000);
            assert_eq!(table.insert(key.clone(), i), map.insert(key.clone(), i));
            assert_eq!(
                table.insert_new(format!("n{i}"), i),
                map.insert(format!("n{i}"), i).is_none()
            );
        }
        assert_eq!(table.len(), map.len());
        for (k, v) in &map {
            assert_eq!(table.get(k), Some(*v));
        }
        assert_eq!(table.get("absent"), None);
        assert!(!table.contains(""));
        let mut small: TextTable<&str> = TextTable::with_capacity(2);
        assert!(small.insert_new("", 1));
        assert!(!small.insert_new("", 2));
        assert_eq!(small.get(""), Some(1));
    }
}
