//! When a survey takes answers: a draft until first published, then open until the owner
//! unpublishes it, its close date passes or its counted answers reach its limit, whichever
//! comes first.

use serde::Serialize;
use time::OffsetDateTime;

use super::Survey;

/// Largest response limit an owner may set.
pub const MAX_RESPONSE_LIMIT: u64 = 100_000_000;

/// Where a survey is in its life, as the API names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SurveyState {
    /// Never published: respondents cannot find it (404).
    Draft,
    /// Taking answers.
    Open,
    /// No longer taking answers (410, with the owner's closing message).
    Closed,
}

/// Why a survey that was published no longer takes answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closure {
    /// The owner unpublished it.
    Unpublished,
    /// Its close date passed.
    Date,
    /// Its counted answers reached its response limit.
    Limit,
}

impl Closure {
    /// The reason in words, for the owner's pages.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Unpublished => "unpublished",
            Self::Date => "its close date passed",
            Self::Limit => "it reached its response limit",
        }
    }
}

impl SurveyState {
    /// The API name: `draft`, `open` or `closed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Open => "open",
            Self::Closed => "closed",
        }
    }
}

impl Survey {
    /// Why the survey is closed at `now` with `counted` answers counted; `None` while it is
    /// open, and for a draft that was never published, whatever its dates say.
    pub fn closure(&self, now: OffsetDateTime, counted: u64) -> Option<Closure> {
        if !self.published {
            return self.was_published.then_some(Closure::Unpublished);
        }
        if self.closes_at.is_some_and(|closes| closes <= now) {
            return Some(Closure::Date);
        }
        if self.response_limit.is_some_and(|limit| counted >= limit) {
            return Some(Closure::Limit);
        }
        None
    }

    /// The survey's state at `now` with `counted` answers counted.
    pub fn state(&self, now: OffsetDateTime, counted: u64) -> SurveyState {
        if !self.published && !self.was_published {
            SurveyState::Draft
        } else if self.closure(now, counted).is_some() {
            SurveyState::Closed
        } else {
            SurveyState::Open
        }
    }

    /// How many counted answers passed the limit (those that arrived while the last ones
    /// before it were being counted: accepted and kept, never lost).
    pub fn over_limit(&self, counted: u64) -> u64 {
        self.response_limit
            .map_or(0, |limit| counted.saturating_sub(limit))
    }
}

#[cfg(test)]
mod tests {
    use time::Duration;

    use super::*;
    use crate::domain::definition::Definition;
    use crate::domain::{SurveySlug, TenantSlug};

    fn survey() -> Survey {
        let definition = Definition {
            title: "Team".into(),
            ..Definition::default()
        };
        Survey::draft(
            TenantSlug::parse("acme").expect("a slug"),
            SurveySlug::parse("team").expect("a slug"),
            crate::domain::definition::checked::for_one_region(definition).expect("checked"),
            OffsetDateTime::UNIX_EPOCH,
        )
    }

    #[test]
    fn a_draft_stays_a_draft_until_published_and_is_closed_once_unpublished() {
        let now = OffsetDateTime::UNIX_EPOCH;
        let mut survey = survey();
        survey.closes_at = Some(now - Duration::days(1));
        assert_eq!(survey.state(now, 0), SurveyState::Draft);
        assert_eq!(survey.closure(now, 0), None);

        survey.closes_at = None;
        survey.published = true;
        survey.was_published = true;
        assert_eq!(survey.state(now, 0), SurveyState::Open);

        survey.published = false;
        assert_eq!(survey.state(now, 0), SurveyState::Closed);
        assert_eq!(survey.closure(now, 0), Some(Closure::Unpublished));
    }

    #[test]
    fn a_published_survey_closes_at_its_date_or_its_limit_whichever_comes_first() {
        let now = OffsetDateTime::UNIX_EPOCH + Duration::days(10);
        let mut survey = survey();
        survey.published = true;
        survey.was_published = true;
        survey.closes_at = Some(now + Duration::hours(1));
        survey.response_limit = Some(3);

        assert_eq!(survey.state(now, 2), SurveyState::Open);
        assert_eq!(survey.closure(now, 3), Some(Closure::Limit));
        assert_eq!(
            survey.closure(now + Duration::hours(1), 0),
            Some(Closure::Date)
        );
        assert_eq!(survey.state(now - Duration::days(1), 1), SurveyState::Open);
    }

    proptest::proptest! {
        /// Whatever the dates, limit and count: a survey never published is a draft; an open
        /// one is before its date and under its limit; and once closed by its date or its
        /// limit, it stays closed later and with more answers (closing never undoes itself).
        #[test]
        fn closing_is_consistent_and_never_undoes_itself(
            published: bool,
            was_published: bool,
            closes in proptest::option::of(-1_000_000i64..1_000_000),
            limit in proptest::option::of(proptest::prop_oneof![
                1u64..1000,
                proptest::strategy::Just(MAX_RESPONSE_LIMIT)
            ]),
            // The moment and the count are drawn around the date and the limit, so they
            // often meet them exactly.
            time_offset in -3i64..3,
            count_offset in -3i64..3,
            later in 0i64..100,
            more in 0u64..60,
        ) {
            let now = closes.unwrap_or(0) + time_offset;
            let counted = limit.unwrap_or(10).saturating_add_signed(count_offset);
            let at = |seconds: i64| OffsetDateTime::UNIX_EPOCH + Duration::seconds(seconds);
            let mut survey = survey();
            survey.published = published;
            survey.was_published = was_published || published;
            survey.closes_at = closes.map(at);
            survey.response_limit = limit;
            let state = survey.state(at(now), counted);
            proptest::prop_assert_eq!(state == SurveyState::Draft, !survey.was_published);
            if state == SurveyState::Open {
                proptest::prop_assert!(survey.closes_at.is_none_or(|c| at(now) < c));
                proptest::prop_assert!(limit.is_none_or(|l| counted < l));
                proptest::prop_assert_eq!(survey.over_limit(counted), 0);
            }
            if let Some(why @ (Closure::Date | Closure::Limit)) = survey.closure(at(now), counted) {
                let after = survey.closure(at(now + later), counted + more);
                proptest::prop_assert!(after.is_some(), "{why:?} undone");
            }
        }
    }

    #[test]
    fn answers_past_the_limit_are_counted_and_said_to_be_over_it() {
        let mut survey = survey();
        assert_eq!(survey.over_limit(50), 0);
        survey.response_limit = Some(10);
        assert_eq!(survey.over_limit(9), 0);
        assert_eq!(survey.over_limit(13), 3);
    }
}
