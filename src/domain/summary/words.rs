//! The most frequent words of text answers, in bounded memory: a Misra-Gries heavy-hitters
//! sketch, which is mergeable (Agarwal et al., "Mergeable summaries").
//!
//! With `CAPACITY` counters, every word counted more than n / (CAPACITY + 1) times out of n is
//! kept, and a kept count is low by at most that much. While a sketch has seen no more distinct
//! words than it has counters, its counts are exact.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Counters kept per text question.
pub const CAPACITY: usize = 100;

/// Words that say nothing about what respondents wrote.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "me",
    "more",
    "most",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// The words of a text worth counting: lowercase, letters and digits, no stop words, and
/// nothing taken from email addresses or links (their pieces, "com" or "www", are not words
/// anyone wrote).
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split_whitespace()
        .filter(|token| !is_address(token))
        .flat_map(|token| token.split(|c: char| !c.is_alphanumeric() && c != '\''))
        .map(|word| word.trim_matches('\'').to_lowercase())
        .filter(|word| word.chars().count() > 1 && !STOP_WORDS.contains(&word.as_str()))
}

/// Whether a whitespace-separated token is an email address or a link (no allocation: this
/// runs for every word of every text answer the worker counts).
fn is_address(token: &str) -> bool {
    let token = token.trim_matches(|c: char| !c.is_alphanumeric());
    let starts = |prefix: &str| {
        token
            .get(..prefix.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(prefix))
    };
    let email = token
        .split_once('@')
        .is_some_and(|(local, domain)| !local.is_empty() && domain.contains('.'));
    email || token.contains("://") || starts("www.") || starts("mailto:")
}

/// A bounded, mergeable count of frequent words.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct WordSketch(BTreeMap<String, u64>);

impl WordSketch {
    /// Counts the words of one text.
    pub fn add_text(&mut self, text: &str) {
        let mut one = WordSketch::default();
        for word in words(text) {
            *one.0.entry(word).or_default() += 1;
        }
        self.merge(&one);
    }

    /// Adds another sketch: sum the counters, then, if more than `CAPACITY` remain, subtract
    /// the (CAPACITY+1)-th largest count from all and drop those at or below zero.
    pub fn merge(&mut self, other: &WordSketch) {
        for (word, count) in &other.0 {
            *self.0.entry(word.clone()).or_default() += count;
        }
        if self.0.len() > CAPACITY {
            let mut counts: Vec<u64> = self.0.values().copied().collect();
            counts.sort_unstable_by(|a, b| b.cmp(a));
            let cut = counts[CAPACITY];
            self.0.retain(|_, count| {
                *count = count.saturating_sub(cut);
                *count > 0
            });
        }
    }

    /// The `n` most frequent words, most frequent first (ties alphabetically).
    pub fn top(&self, n: usize) -> Vec<(String, u64)> {
        let mut top: Vec<(String, u64)> = self.0.iter().map(|(w, c)| (w.clone(), *c)).collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        top.truncate(n);
        top
    }

    /// How many words it tracks.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when it tracks no word.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lowercased_and_stop_words_dropped() {
        let found: Vec<String> =
            words("The coffee was GREAT, and the staff's smile: great!").collect();
        assert_eq!(found, vec!["coffee", "great", "staff's", "smile", "great"]);
    }

    #[test]
    fn email_addresses_and_links_are_not_words() {
        let found: Vec<String> = words(
            "Write to guest12@example.com, (see https://example.org/menu) or www.cafe.example! Thanks",
        )
        .collect();
        assert_eq!(found, vec!["write", "see", "thanks"]);
        assert_eq!(words("<Ana@Example.COM>").count(), 0);
        // An @ alone is not an address.
        assert_eq!(
            words("meet @ noon").collect::<Vec<_>>(),
            vec!["meet", "noon"]
        );
    }

    #[test]
    fn frequent_words_come_first() {
        let mut sketch = WordSketch::default();
        sketch.add_text("tasty coffee");
        sketch.add_text("coffee was cold");
        sketch.add_text("cold coffee");
        assert_eq!(
            sketch.top(2),
            vec![("coffee".to_string(), 3), ("cold".to_string(), 2)]
        );
    }

    #[test]
    fn memory_stays_bounded_and_heavy_hitters_survive() {
        let mut sketch = WordSketch::default();
        for i in 0..20_000 {
            sketch.add_text(&format!("espresso unique{i}"));
        }
        assert!(sketch.len() <= CAPACITY);
        let (word, count) = &sketch.top(1)[0];
        assert_eq!(word, "espresso");
        // Low by at most n / (CAPACITY + 1) of the 40,000 words counted.
        assert!(*count >= 20_000 - 40_000 / (CAPACITY as u64 + 1), "{count}");
    }
}
