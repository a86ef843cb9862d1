//! Texts interned by number, so a long chat's cards keep each todo text once.
//! A text is found by its FNV-1a hash in a tree (numbers compared, not texts);
//! a text whose hash an earlier text has is kept in a tree of texts instead,
//! so a log crafted to collide costs what a tree of texts costs, never a scan.

use std::collections::BTreeMap;
use std::hash::Hasher;
use std::sync::Arc;

/// Distinct texts, numbered in the order they were first seen.
///
/// # Examples
///
/// ```
/// let mut texts = oda_tasks::intern::Interner::default();
/// let id = texts.intern("Write the tests");
/// assert_eq!(texts.intern("Write the tests"), id);
/// assert_eq!(texts.get(id), Some("Write the tests"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Interner {
    texts: Vec<Arc<str>>,
    /// Each hash's first text.
    by_hash: BTreeMap<u64, u32>,
    /// Every later text of a hash already taken.
    collided: BTreeMap<Arc<str>, u32>,
}

fn hash(text: &str) -> u64 {
    let mut hasher = fnv::FnvHasher::default();
    hasher.write(text.as_bytes());
    hasher.finish()
}

impl Interner {
    /// The text numbered `id`.
    pub fn get(&self, id: u32) -> Option<&str> {
        self.texts.get(id as usize).map(|text| &**text)
    }

    /// The number of `text`, given it if new.
    pub fn intern(&mut self, text: &str) -> u32 {
        self.intern_hashed(hash(text), text)
    }

    fn intern_hashed(&mut self, hash: u64, text: &str) -> u32 {
        let first = self.by_hash.get(&hash).copied();
        if let Some(id) = first {
            if self.get(id) == Some(text) {
                return id;
            }
            if let Some(&id) = self.collided.get(text) {
                return id;
            }
        }
        let id = self.texts.len() as u32;
        let text: Arc<str> = Arc::from(text);
        self.texts.push(text.clone());
        match first {
            None => self.by_hash.insert(hash, id),
            Some(_) => self.collided.insert(text, id),
        };
        id
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Texts made to share one hash (as a crafted log would) still get numbers of their own.
    #[test]
    fn texts_that_share_a_hash_are_told_apart() {
        let mut texts = Interner::default();
        let words: Vec<String> = (0..100).map(|n| format!("task {n}")).collect();
        let ids: Vec<u32> = words.iter().map(|w| texts.intern_hashed(7, w)).collect();
        assert_eq!(ids, (0..100).collect::<Vec<u32>>());
        assert_eq!(texts.by_hash.len(), 1);
        assert_eq!(texts.collided.len(), 99, "all but the first in the tree of texts");
        for (word, id) in words.iter().zip(&ids) {
            assert_eq!(texts.intern_hashed(7, word), *id);
            assert_eq!(texts.get(*id), Some(word.as_str()));
        }
    }

    #[test]
    fn a_text_is_numbered_once_in_the_order_first_seen() {
        let mut texts = Interner::default();
        assert_eq!(["b", "a", "b", "c", "a"].map(|w| texts.intern(w)), [0, 1, 0, 2, 1]);
        assert_eq!(texts.get(2), Some("c"));
        assert_eq!(texts.get(3), None);
        assert!(texts.collided.is_empty());
    }
}
