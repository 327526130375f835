//! The checker a definition passes before it is stored: its own rules were met when it was
//! made (`SurveyInput::check`); here it is checked against the installation's regions and,
//! for a survey that exists, against what that survey already has (published answers, its
//! participants and their attributes). Only this module makes a `CheckedDefinition`, and
//! storage takes only that type, so no path can store a definition that skipped a check.
//!
//! The check is pure: the facts it needs from storage are read by the caller, and only those
//! `Pending::needs` asks for (most saves need none).

use std::ops::Deref;

use super::{Definition, DefinitionErrors};
use crate::domain::participant::{Access, AttributeIndex};
use crate::domain::question::QuestionKind;
use crate::domain::region::{RegionName, Residency};
use crate::domain::segment::attribute_segments_problem;

/// A definition that passed every check storing it needs. Only `Pending::finish` makes one.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedDefinition(Definition);

impl CheckedDefinition {
    /// The definition, for storing.
    pub fn into_definition(self) -> Definition {
        self.0
    }
}

impl Deref for CheckedDefinition {
    type Target = Definition;

    fn deref(&self) -> &Definition {
        &self.0
    }
}

/// The regions an installation has, as the checker needs them.
#[derive(Clone, Debug, Default)]
pub struct Installation {
    /// Every region's name; empty without a regions file.
    pub regions: Vec<RegionName>,
    /// The region this process runs in (`None` without a regions file: one implicit region).
    pub here: Option<RegionName>,
}

impl Installation {
    /// Whether the installation names its regions.
    fn named(&self) -> bool {
        self.here.is_some()
    }

    /// Whether a survey naming `regions` is answered away from this (its home) region.
    pub fn answered_away(&self, regions: &[RegionName]) -> bool {
        match &self.here {
            None => false,
            Some(here) => regions.iter().any(|name| name != here),
        }
    }
}

/// What the checker needs of the survey a definition replaces (`Survey::replaced`).
#[derive(Clone, Copy, Debug)]
pub struct Replaced<'a> {
    /// Whether it was ever published (answers may exist).
    pub was_published: bool,
    /// Who may answer it.
    pub access: Access,
    /// Whether its answers are anonymous.
    pub anonymous: bool,
    /// The participant attributes its answers are divided by.
    pub segment_attributes: &'a [String],
    /// Where its answers are kept.
    pub residency: Residency,
    /// The regions it is answered in.
    pub regions: &'a [RegionName],
}

/// Facts about the survey a definition replaces that only storage knows, read because
/// `Pending::needs` asked for them.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// Whether the survey has participants.
    pub participants: bool,
    /// Whether any answer was given to it (counted, or claimed through a personal link).
    pub answers_given: bool,
    /// Its participants' attribute index, if it has one.
    pub attributes: Option<AttributeIndex>,
}

/// Which facts the rest of the check needs read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// Whether the survey has participants.
    pub participants: bool,
    /// Whether any answer was given.
    pub answers_given: bool,
    /// The participants' attribute index.
    pub attributes: bool,
}

/// A definition that passed the checks needing no storage, waiting for the facts the rest
/// need.
#[derive(Debug)]
pub struct Pending<'a> {
    definition: Definition,
    installation: &'a Installation,
    current: Option<Replaced<'a>>,
}

/// Why a survey by invitation is answered at home.
pub const INVITATION_AT_HOME: &str = "a survey by invitation is answered in your home region, \
     where its participants are kept";

/// Why a survey with participants stays at home.
pub const PARTICIPANTS_AT_HOME: &str = "a survey with participants is answered in your home \
     region, where their personal links are kept: remove its participants first";

/// Why a survey's anonymity no longer changes.
pub const ANONYMITY_FIXED: &str = "whether answers are anonymous is chosen before the first \
     answer: answers were given under the choice it has; duplicate the survey instead";

impl<'a> Pending<'a> {
    /// Checks `definition` against the installation's regions and, when it replaces
    /// `current`, against what `current` fixed when it was published: every problem found,
    /// by field.
    pub fn new(
        definition: Definition,
        installation: &'a Installation,
        current: Option<Replaced<'a>>,
    ) -> Result<Self, DefinitionErrors> {
        let mut errors = DefinitionErrors::new();
        for (at, name) in definition.regions.iter().enumerate() {
            if installation.regions.contains(name) {
                continue;
            }
            let problem = match installation.named() {
                false => "this installation has one region: leave regions out".to_owned(),
                true => format!(
                    "{name} is not one of this installation's regions ({})",
                    installation
                        .regions
                        .iter()
                        .map(RegionName::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            errors.insert(format!("regions[{at}]"), problem);
        }
        if let Some(problem) = residency_problem(installation, &definition, current) {
            errors.insert("residency".into(), problem.into());
        }
        // Files are stored where they are uploaded and never move: a survey with a file
        // question is answered at home, or keeps its answers in the region that answers it.
        let files = definition
            .questions
            .iter()
            .any(|q| matches!(q.kind, QuestionKind::File { .. }));
        let away = installation.answered_away(&definition.regions);
        if files && away && definition.residency == Residency::Home {
            errors.insert(
                "regions".into(),
                "a survey with a file question is answered in your home region, or keeps its \
                 answers in the one region it is answered in (files stay where they are uploaded)"
                    .into(),
            );
        }
        // Participants and their links are kept at home: a survey by invitation is answered
        // there.
        let access = definition
            .access
            .or(current.map(|survey| survey.access))
            .unwrap_or_default();
        if access == Access::Invitation && away {
            errors.insert("access".into(), INVITATION_AT_HOME.into());
        }
        // Whether the attributes named can divide answers at all; their values are checked
        // against the participants' index in `finish`.
        let anonymous = definition
            .anonymous
            .or(current.map(|survey| survey.anonymous))
            .unwrap_or_default();
        let segmenting = definition
            .segment_attributes
            .as_deref()
            .or(current.map(|survey| survey.segment_attributes))
            .unwrap_or_default();
        if let Some(problem) = attribute_segments_problem(segmenting, anonymous, None) {
            errors.insert("segment_attributes".into(), problem);
        }
        match errors.is_empty() {
            true => Ok(Self {
                definition,
                installation,
                current,
            }),
            false => Err(errors),
        }
    }

    /// The facts `finish` needs read: none for a new survey, and for one that exists only
    /// those its changes touch.
    pub fn needs(&self) -> Needs {
        let Some(current) = self.current else {
            return Needs::default();
        };
        let definition = &self.definition;
        Needs {
            answers_given: definition
                .anonymous
                .is_some_and(|wanted| wanted != current.anonymous),
            participants: self.installation.answered_away(&definition.regions),
            attributes: definition.segment_attributes.is_some(),
        }
    }

    /// The rest of the check, with the facts `needs` asked for (others may be left at their
    /// defaults): the first problem found, as today's pages and API report it.
    pub fn finish(self, facts: &Facts) -> Result<CheckedDefinition, DefinitionErrors> {
        let Some(current) = self.current else {
            return Ok(CheckedDefinition(self.definition));
        };
        let needs = self.needs();
        let definition = &self.definition;
        let one = |field: &str, problem: String| Err([(field.to_owned(), problem)].into());
        // Answers were given under the choice it has, and would not be what a new one promises.
        if needs.answers_given && facts.answers_given {
            return one("anonymous", ANONYMITY_FIXED.to_owned());
        }
        // Participants and their links are kept at home, where their links are answered.
        if needs.participants && facts.participants {
            return one("regions", PARTICIPANTS_AT_HOME.to_owned());
        }
        if let Some(names) = &definition.segment_attributes {
            let anonymous = definition.anonymous.unwrap_or(current.anonymous);
            if let Some(problem) =
                attribute_segments_problem(names, anonymous, facts.attributes.as_ref())
            {
                return one("segment_attributes", problem);
            }
        }
        Ok(CheckedDefinition(self.definition))
    }
}

/// Why the survey cannot keep its answers where it asks to. Answers that stay in their region
/// are counted by that one region, so there must be exactly one; and once answers may exist,
/// moving where they are kept (or which region keeps them) would split them in two places.
fn residency_problem(
    installation: &Installation,
    definition: &Definition,
    current: Option<Replaced<'_>>,
) -> Option<&'static str> {
    let resident = definition.residency == Residency::Region;
    if resident && !installation.named() {
        return Some("this installation has one region: leave residency out");
    }
    if resident && definition.regions.len() != 1 {
        return Some(
            "answers that stay in their region need exactly one region to be answered in: name one in regions",
        );
    }
    let current = current.filter(|survey| survey.was_published)?;
    let was_resident = current.residency == Residency::Region;
    let moved = current.residency != definition.residency
        || ((resident || was_resident) && current.regions != definition.regions.as_slice());
    moved.then_some(
        "where answers are kept, and for answers that stay in their region which region, cannot change once the survey was published: its answers would be split; duplicate it instead",
    )
}

/// `definition` checked for a new survey on an installation without regions: what tools and
/// tests that make surveys of their own (the demo, benchmarks) store.
pub fn for_one_region(definition: Definition) -> Result<CheckedDefinition, DefinitionErrors> {
    Pending::new(definition, &Installation::default(), None)?.finish(&Facts::default())
}

#[cfg(test)]
#[path = "checked_tests.rs"]
mod tests;
