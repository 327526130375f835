//! Regions: where a tenant lives (its home) and where a survey is answered (its hosting
//! regions), and whether a survey's answers may leave the region they were given in.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Longest region name accepted.
pub const MAX_REGION_NAME: usize = 20;

/// Most regions a survey may be hosted in.
pub const MAX_HOSTING_REGIONS: usize = 8;

/// Why a string is not a region name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a region name: use 1-20 lowercase letters, digits and dashes, starting with a letter"
)]
pub struct RegionNameError(pub String);

/// A region's name as the regions file gives it (`us`, `eu-west`).
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(try_from = "String", into = "String")]
#[schema(pattern = "^[a-z][a-z0-9-]*$", max_length = 20)]
pub struct RegionName(String);

impl RegionName {
    /// Checks a region name.
    pub fn parse(text: &str) -> Result<Self, RegionNameError> {
        let mut chars = text.chars();
        let first_is_letter = chars.next().is_some_and(|c| c.is_ascii_lowercase());
        let rest_fits = chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if first_is_letter && rest_fits && text.len() <= MAX_REGION_NAME && !text.ends_with('-') {
            Ok(Self(text.to_owned()))
        } else {
            Err(RegionNameError(text.to_owned()))
        }
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for RegionName {
    type Error = RegionNameError;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        Self::parse(&text)
    }
}

impl From<RegionName> for String {
    fn from(name: RegionName) -> Self {
        name.0
    }
}

impl fmt::Display for RegionName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a survey's answers are kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Residency {
    /// Answers given in a hosting region move to the tenant's home region once, where they
    /// are counted, listed and exported (the default).
    #[default]
    Home,
    /// Answers stay in the region they were given in: counted, listed and exported there, and
    /// read from there by the home site.
    Region,
}

impl Residency {
    /// Whether this is the default.
    pub fn is_home(&self) -> bool {
        *self == Residency::Home
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_names_are_short_lowercase_words() {
        for good in ["us", "eu-west", "ap2", "a"] {
            assert!(RegionName::parse(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "US",
            "2eu",
            "-eu",
            "eu-",
            "eu west",
            "e_u",
            "abcdefghijklmnopqrstu",
        ] {
            assert!(RegionName::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn residency_reads_as_the_api_writes_it() {
        let region: Residency = serde_json::from_str("\"region\"").expect("known");
        assert_eq!(region, Residency::Region);
        assert_eq!(
            serde_json::to_string(&Residency::Home).expect("json"),
            "\"home\""
        );
        assert!(serde_json::from_str::<Residency>("\"elsewhere\"").is_err());
    }
}
