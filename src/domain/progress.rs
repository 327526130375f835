//! Save and continue later: a respondent's answers so far, kept under an unguessable link for
//! a period the survey's owner sets. Progress is not a response: it is never counted, listed
//! or exported, and it goes when the answers are sent or when its period ends.

use std::collections::BTreeMap;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use time::{Duration, OffsetDateTime};

/// Days a saved progress is kept when the owner names none.
pub const DEFAULT_RESUME_DAYS: u16 = 30;
/// Most days an owner may keep saved progress.
pub const MAX_RESUME_DAYS: u16 = 365;
/// Largest saved progress, encoded: a long survey's answers fit many times over.
pub const MAX_PROGRESS_BYTES: usize = 256 * 1024;

/// Random bytes in a resume link's id (256 bits: unguessable).
const ID_BYTES: usize = 32;

/// The id in a resume link: 32 random bytes, URL-safe base64 without padding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResumeId(String);

impl ResumeId {
    /// A fresh random id (an error only if the system's random source fails).
    pub fn generate() -> Result<Self, getrandom::Error> {
        let mut bytes = [0u8; ID_BYTES];
        getrandom::fill(&mut bytes)?;
        Ok(Self(URL_SAFE_NO_PAD.encode(bytes)))
    }

    /// An id as a link carries it, if it is one's shape.
    pub fn parse(text: &str) -> Option<Self> {
        let decoded = URL_SAFE_NO_PAD.decode(text.trim()).ok()?;
        (decoded.len() == ID_BYTES).then(|| Self(text.trim().to_owned()))
    }

    /// The id as the link writes it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name its progress is stored under: a digest of the id, so that what storage
    /// holds does not open anyone's answers.
    pub fn stored_name(&self) -> String {
        let digest = Sha256::digest(self.0.as_bytes());
        digest[..16].iter().map(|b| format!("{b:02x}")).collect()
    }
}

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
    fn resume_ids_are_long_random_and_read_back() {
        let id = ResumeId::generate().expect("random bytes");
        assert_eq!(id.as_str().len(), 43);
        assert_eq!(ResumeId::parse(id.as_str()), Some(id.clone()));
        assert_ne!(id, ResumeId::generate().expect("random bytes"));
        assert_ne!(id.stored_name(), id.as_str());
        for bad in ["", "abc", "not/base64!", &"A".repeat(44)] {
            assert_eq!(ResumeId::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn progress_works_for_its_days_from_when_it_was_saved() {
        let saved_at = OffsetDateTime::UNIX_EPOCH;
        let progress = SavedProgress {
            token: "t".into(),
            page: 1,
            language: "en".into(),
            answers: BTreeMap::new(),
            saved_at,
        };
        assert!(progress.is_current(30, saved_at + Duration::days(29)));
        assert!(!progress.is_current(30, saved_at + Duration::days(30)));
        assert!(!progress.is_current(1, saved_at + Duration::hours(25)));
    }
}
