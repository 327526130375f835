//! Generated answers for the benchmarks: a standard and a premium tenant, one survey each.

use std::collections::BTreeMap;

use time::OffsetDateTime;

use crate::domain::definition::Definition;
use crate::domain::definition::checked::for_one_region;
use crate::domain::{
    Answer, AnswerValue, QuestionId, Reference, SurveyId, SurveyRef, SurveySlug, TenantSlug,
};

/// The benchmark tenant of a subscription.
pub(super) fn tenant(premium: bool) -> TenantSlug {
    TenantSlug::parse(if premium {
        "bench-premium"
    } else {
        "bench-standard"
    })
    .expect("the bench slugs are valid")
}

/// The `i`th benchmark survey.
pub(super) fn survey(i: u64) -> SurveySlug {
    SurveySlug::parse(&format!("bench-{i}")).expect("the bench slugs are valid")
}

/// The identity every benchmark survey has (each is made once per fresh directory).
fn survey_id() -> SurveyId {
    SurveyId::parse("bench").expect("the bench survey id is valid")
}

/// Where the `i`th benchmark survey of the standard tenant is filed.
pub(super) fn survey_ref(i: u64) -> SurveyRef {
    SurveyRef {
        tenant: tenant(false),
        slug: survey(i),
        id: survey_id(),
    }
}

/// The first benchmark survey of the standard tenant, as stored in `catalog`.
pub(super) async fn first_survey(
    catalog: &crate::stores::Catalog,
) -> Result<std::sync::Arc<crate::domain::Survey>, super::BenchError> {
    let at = survey_ref(0);
    catalog
        .surveys
        .get(&at.tenant, &at.slug)
        .await?
        .ok_or_else(|| super::BenchError::Setup("no benchmark survey".into()))
}

fn id(text: &str) -> QuestionId {
    QuestionId::parse(text).expect("the bench question ids are valid")
}

/// The `n`th answer, to one of `surveys` surveys: a rating, a choice, a number, a
/// recommendation (NPS) and, often, a short comment.
pub(super) fn answer(reference: Reference, n: u64, premium: bool, surveys: u64) -> Answer {
    let mut values = BTreeMap::new();
    values.insert(id("rating"), AnswerValue::Stars((1 + n % 5) as u8));
    values.insert(
        id("drink"),
        AnswerValue::Choice(["Tea", "Coffee", "Water"][(n % 3) as usize].into()),
    );
    values.insert(id("minutes"), AnswerValue::Number((n % 40) as f64));
    values.insert(id("recommend"), AnswerValue::Point((n % 11) as u8));
    if n.is_multiple_of(2) {
        values.insert(
            id("comments"),
            AnswerValue::Text(format!("good coffee and friendly staff {}", n % 9)),
        );
    }
    let survey_slug = survey(n % surveys.max(1));
    Answer {
        survey_id: survey_id(),
        ..Answer::new(
            tenant(premium),
            survey_slug,
            reference,
            OffsetDateTime::now_utc(),
            values,
        )
    }
}

/// The benchmark survey's choice-type questions, in the order `seed` makes them segment
/// questions.
const SEGMENT_QUESTIONS: [&str; 3] = ["drink", "rating", "recommend"];

/// Stores the benchmark surveys' definitions (the worker drops answers to unknown surveys),
/// with the first `segments` of `SEGMENT_QUESTIONS` segment questions.
pub(super) async fn seed(
    stores: &crate::stores::Stores,
    surveys: u64,
    segments: usize,
) -> Result<(), crate::stores::StoreError> {
    use crate::domain::{Question, QuestionKind, Survey};
    let now = OffsetDateTime::now_utc();
    let marked = &SEGMENT_QUESTIONS[..segments.min(SEGMENT_QUESTIONS.len())];
    let question = |id_text: &str, kind: QuestionKind| Question {
        segment: marked.contains(&id_text),
        ..Question::new(id(id_text), id_text, kind)
    };
    for premium in [false, true] {
        for i in 0..surveys.max(1) {
            stores
                .catalog
                .surveys
                .save(&Survey {
                    // A fixed identity: the drain benchmark files answers under it.
                    id: survey_id(),
                    ..Survey::draft(
                        tenant(premium),
                        survey(i),
                        for_one_region(Definition {
                            title: format!("Benchmark {i}"),
                            description: None,
                            questions: vec![
                                question("rating", QuestionKind::FiveStars),
                                question(
                                    "drink",
                                    QuestionKind::SingleChoice {
                                        options: vec![
                                            "Tea".into(),
                                            "Coffee".into(),
                                            "Water".into(),
                                        ],
                                        other: false,
                                    },
                                ),
                                question(
                                    "minutes",
                                    QuestionKind::Numeric {
                                        min: None,
                                        max: None,
                                        integer: true,
                                    },
                                ),
                                question("recommend", QuestionKind::Nps),
                                question("comments", QuestionKind::LongText),
                            ],
                            ..Definition::default()
                        })
                        .expect("the benchmark's survey passes the definition check"),
                        now,
                    )
                    .published()
                })
                .await?;
        }
    }
    Ok(())
}
