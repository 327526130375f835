//! The demo created on first start, so a fresh install shows the whole product: a tenant with
//! an owner who can sign in, a survey using the six original question types, and a few dozen
//! sample responses submitted through the answer path, so the first dashboard, charts and
//! response pages are not empty.

use time::OffsetDateTime;

use crate::domain::account::{Account, Email, hash_password};
use crate::domain::definition::Definition;
use crate::domain::definition::checked::for_one_region;
use crate::domain::{
    Answer, Question, QuestionId, QuestionKind, RawAnswers, Subscription, Survey, SurveySlug,
    Tenant, TenantSlug,
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
    let id = QuestionId::parse(id).expect("the demo question ids are valid");
    Question {
        required,
        ..Question::new(id, text, kind)
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
        for_one_region(Definition {
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
        })
        .expect("the demo survey passes the definition check"),
        now,
    )
    .published()
}

/// The demo owner's address; the password is made on the first start and printed once.
pub const OWNER_EMAIL: &str = "owner@demo.example";

/// Most sample responses a first start submits.
pub const MAX_SAMPLE_RESPONSES: u32 = 1000;

/// Sample responses the demo survey gets by default: enough for charts that show a shape.
pub const DEFAULT_RESPONSES: u32 = 36;

/// What a first start made, for the newcomer to be told.
#[derive(Debug)]
pub struct Welcome {
    /// The owner's generated password (the address is `OWNER_EMAIL`).
    pub password: String,
    /// How many sample responses were queued (the worker counts them).
    pub responses: u32,
}

/// Why the demo could not be made.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot hash the demo owner's password: {0}")]
    Password(String),
    #[error("sample response {0} does not fit the demo survey: {1}")]
    Sample(u64, String),
}

/// A readable random password: five groups of four hex digits (80 bits).
fn password() -> String {
    let hex = uuid::Uuid::new_v4().simple().to_string();
    hex.as_bytes()
        .chunks(4)
        .take(5)
        .map(|group| String::from_utf8_lossy(group).into_owned())
        .collect::<Vec<_>>()
        .join("-")
}

/// Sample `n` (of any number) as a respondent's form would post it: varied, deterministic,
/// and as answered by people (most rate 4 or 5, some leave optional questions blank).
pub fn sample_form(n: u64) -> RawAnswers {
    // A small integer hash of n, so neighbouring samples differ.
    let mut state = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    let mut next = |modulo: u64| {
        state ^= state >> 31;
        state = state.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        state ^= state >> 29;
        state % modulo
    };
    const STARS: [&str; 10] = ["5", "5", "4", "5", "4", "3", "4", "5", "2", "4"];
    const DRINKS: [&str; 6] = [
        "Flat white",
        "Espresso",
        "Flat white",
        "Filter coffee",
        "Tea",
        "Something else",
    ];
    const LIKED: [&str; 5] = ["Taste", "Service", "Price", "Atmosphere", "Speed"];
    const BARS: [&str; 4] = [
        "Harbour Street",
        "Station Square",
        "Old Town",
        "Harbour Street",
    ];
    const COMMENTS: [&str; 8] = [
        "Lovely staff, and the flat white was perfect.",
        "A bit crowded at lunchtime, but worth the wait.",
        "Could you offer oat milk at the Old Town bar too?",
        "Best espresso in town.",
        "The music was too loud for a quiet coffee.",
        "Friendly barista, quick service.",
        "Please bring back the lemon cake!",
        "Prices went up, quality stayed great.",
    ];
    let mut form = RawAnswers::default();
    let mut put = |question: &str, value: &str| form.push(question, value.to_owned());
    put("overall", STARS[next(10) as usize]);
    put("drink", DRINKS[next(6) as usize]);
    for liked in LIKED {
        if next(5) < 2 {
            put("liked", liked);
        }
    }
    if next(3) > 0 {
        put("wait", &(1 + next(12) + next(8)).to_string());
    }
    if next(2) == 0 {
        put("location", BARS[next(4) as usize]);
    }
    if next(3) == 0 {
        put("comments", COMMENTS[next(8) as usize]);
    }
    form
}

/// Creates the demo tenant, its owner and its survey unless the demo tenant exists, and
/// submits `responses` sample responses through the answer path (validated as a form is,
/// then queued for the worker), spread over the past two weeks. `None` if it existed.
pub async fn seed(stores: &Stores, responses: u32) -> Result<Option<Welcome>, DemoError> {
    let now = OffsetDateTime::now_utc();
    let mut tenant = tenant(now);
    if stores.catalog.tenants.get(&tenant.slug).await?.is_some() {
        return Ok(None);
    }
    let survey = survey(now);
    // Survey, owner and answers first, the tenant last: if this stops half-way, the next
    // start sees no tenant and makes everything again (a new survey identity, which the
    // worker tells apart from answers queued for the first one).
    stores.catalog.surveys.save(&survey).await?;
    let email = Email::parse(OWNER_EMAIL).expect("the demo owner's address is valid");
    let password = password();
    let hash = {
        let password = password.clone();
        tokio::task::spawn_blocking(move || hash_password(&password))
            .await
            .map_err(|error| DemoError::Password(error.to_string()))?
            .map_err(DemoError::Password)?
    };
    let account = Account {
        email: email.clone(),
        tenant: tenant.slug.clone(),
        password_hash: hash,
        created: now,
        password_set: None,
    };
    let earlier = stores
        .membership
        .accounts
        .get_versioned(&email)
        .await?
        .map(|(_, etag)| etag);
    stores
        .membership
        .accounts
        .create(&account, earlier.as_ref())
        .await?;
    let responses = responses.min(MAX_SAMPLE_RESPONSES);
    for n in 0..u64::from(responses) {
        let walk = survey.walk(&sample_form(n), None);
        if !walk.errors.is_empty() {
            return Err(DemoError::Sample(n, format!("{:?}", walk.errors)));
        }
        // Oldest first, about one every nine hours up to now.
        let ago = time::Duration::hours(9 * (i64::from(responses) - n as i64));
        let reference = stores.answering.references.next().await?;
        let answer = Answer {
            survey_id: survey.id.clone(),
            survey_version: survey.version,
            skipped: walk.skipped,
            ..Answer::new(
                tenant.slug.clone(),
                survey.slug.clone(),
                reference,
                now - ago,
                walk.values,
            )
        };
        stores
            .answering
            .queues
            .submit(&answer, tenant.subscription)
            .await?;
    }
    tenant.owner = Some(email);
    stores.catalog.tenants.create(&tenant).await?;
    Ok(Some(Welcome {
        password,
        responses,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sample_is_a_valid_response_and_they_vary() {
        let survey = survey(OffsetDateTime::UNIX_EPOCH);
        let mut ratings = std::collections::BTreeSet::new();
        for n in 0..u64::from(MAX_SAMPLE_RESPONSES) {
            let values = survey.validate(&sample_form(n)).expect("a valid sample");
            assert!(values.len() >= 2, "the required questions are answered");
            let overall = QuestionId::parse("overall").expect("an id");
            ratings.insert(format!("{:?}", values.get(&overall)));
        }
        assert!(ratings.len() >= 4, "ratings vary: {ratings:?}");
    }

    #[test]
    fn the_password_is_long_and_readable() {
        let made = password();
        assert_eq!(made.len(), 24);
        assert!(crate::domain::account::password_problem(&made, OWNER_EMAIL).is_none());
        assert_ne!(made, password());
    }
}
