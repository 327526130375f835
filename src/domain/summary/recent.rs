//! The latest answers to a text question, newest first, in bounded space: so owners can read
//! what respondents wrote from the summary alone (one read), without paging through responses.
//!
//! Keeping the `RECENT_TEXTS` newest of a set is mergeable: the newest of a union are the
//! newest of the parts' newest, whatever the grouping and order.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::domain::Reference;

/// Answers kept per text question.
pub const RECENT_TEXTS: usize = 10;

/// Characters of each answer kept (the rest is on the response's own page).
pub const RECENT_TEXT_CHARS: usize = 500;

/// One text answer, as the summary keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RecentText {
    /// The response it is part of.
    pub reference: Reference,
    /// When it was submitted.
    #[schema(value_type = String, format = DateTime)]
    #[serde(with = "time::serde::rfc3339")]
    pub submitted_at: OffsetDateTime,
    /// What was written, cut at `RECENT_TEXT_CHARS` characters.
    pub text: String,
    /// Whether `text` was cut.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

/// The newest text answers of a question, newest first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RecentTexts(Vec<RecentText>);

impl RecentTexts {
    /// The list holding one answer.
    pub fn of(reference: Reference, submitted_at: OffsetDateTime, text: &str) -> Self {
        // No more bytes than the limit in characters: nothing to count or cut.
        let (text, cut) = if text.len() <= RECENT_TEXT_CHARS {
            (text.to_owned(), false)
        } else {
            let kept: String = text.chars().take(RECENT_TEXT_CHARS).collect();
            let cut = kept.len() < text.len();
            (kept, cut)
        };
        Self(vec![RecentText {
            reference,
            submitted_at,
            text,
            cut,
        }])
    }

    /// Adds the answers of another list, keeping the newest (ties: the higher reference, the
    /// one issued later).
    pub fn merge(&mut self, other: &RecentTexts) {
        for recent in &other.0 {
            self.insert(recent);
        }
    }

    /// Adds one answer in its place, if it is among the newest (no copy of it otherwise: the
    /// worker merges every text answer through here).
    fn insert(&mut self, recent: &RecentText) {
        let key = |r: &RecentText| std::cmp::Reverse((r.submitted_at, r.reference));
        match self.0.binary_search_by_key(&key(recent), key) {
            // Already here (the same response).
            Ok(_) => {}
            Err(place) if place < RECENT_TEXTS => {
                self.0.insert(place, recent.clone());
                self.0.truncate(RECENT_TEXTS);
            }
            Err(_) => {}
        }
    }

    /// Drops the answers of these responses (deleted ones).
    pub fn remove(&mut self, part: &RecentTexts) {
        self.0
            .retain(|recent| !part.0.iter().any(|gone| gone.reference == recent.reference));
    }

    /// The answers, newest first.
    pub fn iter(&self) -> impl Iterator<Item = &RecentText> {
        self.0.iter()
    }

    /// True when it holds no answer.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> OffsetDateTime {
        OffsetDateTime::UNIX_EPOCH + time::Duration::seconds(seconds)
    }

    #[test]
    fn keeps_the_newest_ten_newest_first() {
        let mut recent = RecentTexts::default();
        for i in 0..25 {
            recent.merge(&RecentTexts::of(Reference(1000 + i), at(i as i64), "x"));
        }
        let kept: Vec<u64> = recent.iter().map(|r| r.reference.0).collect();
        assert_eq!(kept, (1015..1025).rev().collect::<Vec<_>>());
    }

    #[test]
    fn long_answers_are_cut_and_marked() {
        let long = "é".repeat(RECENT_TEXT_CHARS + 1);
        let recent = RecentTexts::of(Reference(1), at(0), &long);
        let kept = recent.iter().next().expect("one answer");
        assert!(kept.cut);
        assert_eq!(kept.text.chars().count(), RECENT_TEXT_CHARS);
        assert!(!RecentTexts::of(Reference(1), at(0), "short").0[0].cut);
    }
}
