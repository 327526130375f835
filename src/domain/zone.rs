//! An owner's time zone: times are stored in UTC and entered and shown in the zone the tenant
//! chose (an IANA name such as `Europe/Paris`; the database is bundled with the program).
//!
//! Why a second date crate: `time` is the house's date and time type everywhere, but it has
//! no time zone database; `jiff` brings one (bundled, so a server without `/usr/share/zoneinfo`
//! shows the same local times) and is used here only, to turn a UTC instant into a zone's
//! wall-clock time and back.

use std::fmt;
use std::sync::LazyLock;

use jiff::civil::DateTime;
use jiff::tz::{self, TimeZone};
use time::OffsetDateTime;

/// A named time zone.
#[derive(Clone, Debug)]
pub struct Zone {
    name: String,
    zone: TimeZone,
}

impl Default for Zone {
    fn default() -> Self {
        Self {
            name: "UTC".into(),
            zone: TimeZone::UTC,
        }
    }
}

impl fmt::Display for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl Zone {
    /// The zone of an IANA name, if the database knows it.
    pub fn named(name: &str) -> Option<Self> {
        let name = name.trim();
        let zone = tz::db().get(name).ok()?;
        Some(Self {
            name: zone.iana_name().unwrap_or(name).to_owned(),
            zone,
        })
    }

    /// The zone of a stored name, or UTC for none (or one the database no longer knows).
    pub fn or_utc(name: Option<&str>) -> Self {
        name.and_then(Self::named).unwrap_or_default()
    }

    /// Every zone's name, sorted, for a picker (listed once per process).
    pub fn names() -> &'static [String] {
        static NAMES: LazyLock<Vec<String>> = LazyLock::new(|| {
            let mut names: Vec<String> = tz::db().available().map(|n| n.to_string()).collect();
            names.sort();
            names
        });
        &NAMES
    }

    /// The instant a local date and time (`YYYY-MM-DDTHH:MM` as a browser's
    /// `datetime-local` input sends it) stands for here. A time that a clock change skips or
    /// repeats is read the way clocks are usually read (the later offset for a gap, the earlier
    /// for a fold).
    pub fn instant(&self, local: &str) -> Option<OffsetDateTime> {
        let civil: DateTime = local.trim().parse().ok()?;
        let zoned = civil.to_zoned(self.zone.clone()).ok()?;
        OffsetDateTime::from_unix_timestamp(zoned.timestamp().as_second()).ok()
    }

    /// `at` as a local `YYYY-MM-DDTHH:MM`, for a `datetime-local` input.
    pub fn local_input(&self, at: OffsetDateTime) -> String {
        self.zoned(at)
            .map(|z| z.strftime("%Y-%m-%dT%H:%M").to_string())
            .unwrap_or_default()
    }

    /// `at` in words: `1 December 2026 at 17:00 (Europe/Paris)`.
    pub fn describe(&self, at: OffsetDateTime) -> String {
        self.zoned(at)
            .map(|z| format!("{} ({})", z.strftime("%-d %B %Y at %H:%M"), self.name))
            .unwrap_or_default()
    }

    /// `at` as a local `YYYY-MM-DD HH:MM:SS`, for logs and tables.
    pub fn stamp(&self, at: OffsetDateTime) -> String {
        self.zoned(at)
            .map(|z| z.strftime("%Y-%m-%d %H:%M:%S").to_string())
            .unwrap_or_default()
    }

    fn zoned(&self, at: OffsetDateTime) -> Option<jiff::Zoned> {
        let instant = jiff::Timestamp::from_second(at.unix_timestamp()).ok()?;
        Some(instant.to_zoned(self.zone.clone()))
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    #[test]
    fn a_local_time_is_stored_in_utc_and_shown_back_as_entered() {
        let paris = Zone::named("Europe/Paris").expect("known");
        let at = paris.instant("2026-12-01T17:00").expect("a time");
        assert_eq!(at, datetime!(2026-12-01 16:00 UTC));
        assert_eq!(paris.local_input(at), "2026-12-01T17:00");
        assert_eq!(
            paris.describe(at),
            "1 December 2026 at 17:00 (Europe/Paris)"
        );
        // Summer time.
        assert_eq!(
            paris.instant("2026-07-01T17:00"),
            Some(datetime!(2026-07-01 15:00 UTC))
        );
    }

    proptest::proptest! {
        /// Any minute from year 1 to 9999 entered in UTC, and any instant shown in a zone with
        /// clock changes, comes back as it was.
        #[test]
        fn times_entered_come_back_as_entered(minutes in 0i64..5_000_000_000 / 60) {
            let instant = OffsetDateTime::UNIX_EPOCH + time::Duration::minutes(minutes - 30_000_000);
            let utc = Zone::default();
            proptest::prop_assert_eq!(utc.instant(&utc.local_input(instant)), Some(instant));
            let paris = Zone::named("Europe/Paris").expect("known");
            let shown = paris.local_input(instant);
            let back = paris.instant(&shown).expect("a time");
            // A time in the hour a clock change repeats is read as its first occurrence.
            proptest::prop_assert!((back - instant).whole_hours().abs() <= 1, "{shown}");
            proptest::prop_assert_eq!(paris.local_input(back), shown);
        }
    }

    #[test]
    fn unknown_zones_and_malformed_times_are_refused() {
        assert!(Zone::named("Mars/Olympus").is_none());
        assert_eq!(Zone::or_utc(Some("Mars/Olympus")).to_string(), "UTC");
        let utc = Zone::default();
        for bad in ["", "tomorrow", "2026-13-01T10:00", "2026-12-01 25:00"] {
            assert_eq!(utc.instant(bad), None, "case {bad:?}");
        }
        assert!(Zone::names().iter().any(|n| n == "America/New_York"));
    }
}
