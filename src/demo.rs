//! The demo tenant and survey created on first start, so a fresh install has something to
//! answer and look at. The survey uses the six original question types.

use time::OffsetDateTime;

use crate::domain::definition::Definition;
use crate::domain::{
    Question, QuestionId, QuestionKind, Subscription, Survey, SurveySlug, Tenant, TenantSlug,
};
use crate::stores::{StoreError, Stores};

/// The demo tenant's slug.
pub const TENANT: &str = "demo";
/// The demo survey's slug.
pub const SURVEY: &str = "customer-satisfaction";

fn slug<T>(parse: impl Fn(&str) -> Result<T, crate::domain::SlugError>, text: &str) -> T {
    parse(text).expect("the demo slugs are valid")
}

fn question(id: &str, text: &str, required: bool, kind: QuestionKind) -> Question {
    Question {
        id: QuestionId::parse(id).expect("the demo question ids are valid"),
        text: text.into(),
        required,
        kind,
        show_if: None,
    }
}

/// The demo tenant.
pub fn tenant(now: OffsetDateTime) -> Tenant {
    Tenant {
        slug: slug(TenantSlug::parse, TENANT),
        name: "Demo Coffee Roasters".into(),
        subscription: Subscription::Standard,
        created: now,
        owner: None,
        time_zone: None,
        branding: Default::default(),
    }
}

/// The demo survey, published, with one question of each of the six original types.
pub fn survey(now: OffsetDateTime) -> Survey {
    let options = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect();
    Survey::draft(
        slug(TenantSlug::parse, TENANT),
        slug(SurveySlug::parse, SURVEY),
        Definition {
            title: "How was your visit?".into(),
            description: Some(
                "Tell us about your last visit to one of our coffee bars. It takes two minutes."
                    .into(),
            ),
            questions: vec![
                question(
                    "overall",
                    "How would you rate your visit overall?",
                    true,
                    QuestionKind::FiveStars,
                ),
                question(
                    "drink",
                    "What did you order?",
                    true,
                    QuestionKind::SingleChoice {
                        options: options(&[
                            "Espresso",
                            "Flat white",
                            "Filter coffee",
                            "Tea",
                            "Something else",
                        ]),
                        other: false,
                    },
                ),
                question(
                    "liked",
                    "What did you like? (tick all that apply)",
                    false,
                    QuestionKind::MultipleChoice {
                        options: options(&["Taste", "Service", "Price", "Atmosphere", "Speed"]),
                        other: false,
                    },
                ),
                question(
                    "wait",
                    "How many minutes did you wait?",
                    false,
                    QuestionKind::Numeric {
                        min: Some(0.0),
                        max: Some(120.0),
                        integer: true,
                    },
                ),
                question(
                    "location",
                    "Which coffee bar did you visit?",
                    false,
                    QuestionKind::ShortText,
                ),
                question(
                    "comments",
                    "Anything else you would like to tell us?",
                    false,
                    QuestionKind::LongText,
                ),
            ],
            ..Definition::default()
        },
        now,
    )
    .published()
}

/// Creates the demo tenant and survey unless the demo tenant exists; true if it created them.
pub async fn seed(stores: &Stores) -> Result<bool, StoreError> {
    let now = OffsetDateTime::now_utc();
    let tenant = tenant(now);
    if stores.tenants.get(&tenant.slug).await?.is_some() {
        return Ok(false);
    }
    // Survey first: if this stops half-way, the next start sees no tenant and tries again.
    stores.surveys.save(&survey(now)).await?;
    stores.tenants.create(&tenant).await
}
