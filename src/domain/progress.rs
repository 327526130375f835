//! Save and continue later: a respondent's answers so far, kept under an unguessable link for
//! a period the survey's owner sets. Progress is not a response: it is never counted, listed
//! or exported, and it goes when the answers are sent or when its period ends.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use time::{Duration, OffsetDateTime};

use super::hidden::HiddenValues;

/// Days a saved progress is kept when the owner names none.
pub const DEFAULT_RESUME_DAYS: u16 = 30;
/// Most days an owner may keep saved progress.
pub const MAX_RESUME_DAYS: u16 = 365;
/// Largest saved progress, encoded: a long survey's answers fit many times over.
pub const MAX_PROGRESS_BYTES: usize = 256 * 1024;

/// The id in a resume link: an unguessable private link.
pub type ResumeId = super::PrivateLink;

/// What a respondent had answered when they chose to continue later.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedProgress {
    /// The form's signed token (its answer's reference): sending later is the same answer.
    pub token: String,
    /// The page they were on, from 0.
    pub page: usize,
    /// The language they were answering in.
    pub language: String,
    /// Every answer field posted so far (`q-` taken off), values in the order posted.
    pub answers: BTreeMap<String, Vec<String>>,
    /// When it was saved.
    #[serde(with = "time::serde::rfc3339")]
    pub saved_at: OffsetDateTime,
    /// The personal link of the participant answering, if one is.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub participant: String,
    /// The hidden fields' values the survey's address gave.
    #[serde(default, skip_serializing_if = "HiddenValues::is_empty")]
    pub hidden: HiddenValues,
}

impl SavedProgress {
    /// When progress saved at `saved_at` stops working, kept `days`.
    pub fn expires_at(saved_at: OffsetDateTime, days: u16) -> OffsetDateTime {
        saved_at + Duration::days(i64::from(days))
    }

    /// Whether it still works at `now`, kept `days` from when it was saved.
    pub fn is_current(&self, days: u16, now: OffsetDateTime) -> bool {
        now < Self::expires_at(self.saved_at, days)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_works_for_its_days_from_when_it_was_saved() {
        let saved_at = OffsetDateTime::UNIX_EPOCH;
        let progress = SavedProgress {
            token: "t".into(),
            page: 1,
            language: "en".into(),
            answers: BTreeMap::new(),
            saved_at,
            participant: String::new(),
            hidden: HiddenValues::default(),
        };
        assert!(progress.is_current(30, saved_at + Duration::days(29)));
        assert!(!progress.is_current(30, saved_at + Duration::days(30)));
        assert!(!progress.is_current(1, saved_at + Duration::hours(25)));
    }
}
