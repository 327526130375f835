//! Where each kind of document lives in blob storage: the one place that knows the layout.
//! Every key of a tenant's data starts with the tenant's slug, so tenants never share a key.

use crate::domain::{Reference, SurveySlug, TenantSlug};

/// The tenant document.
pub fn tenant(tenant: &TenantSlug) -> String {
    format!("tenants/{tenant}.json")
}

/// The prefix under which a tenant's survey definitions live.
pub fn surveys_of(tenant: &TenantSlug) -> String {
    format!("surveys/{tenant}/")
}

/// A survey definition.
pub fn survey(tenant: &TenantSlug, survey: &SurveySlug) -> String {
    format!("{}{survey}.json", surveys_of(tenant))
}

/// An oversized answer waiting for a worker (its queue message only points here).
pub fn incoming_answer(tenant: &TenantSlug, survey: &SurveySlug, reference: Reference) -> String {
    format!("{INCOMING}{tenant}/{survey}/{:020}.json", reference.0)
}

/// The shared counter of reference numbers.
pub const REFERENCE_COUNTER: &str = "counters/answer-reference";

/// The key that signs submission tokens.
pub const SIGNING_KEY: &str = "secrets/signing-key";

/// The key that encrypts session cookies.
pub const SESSION_KEY: &str = "secrets/session-key";

/// A stored answer.
pub fn answer(tenant: &TenantSlug, survey: &SurveySlug, reference: Reference) -> String {
    format!("{}{:020}.json", answers_of(tenant, survey), reference.0)
}

/// The prefix of a survey's stored answers.
pub fn answers_of(tenant: &TenantSlug, survey: &SurveySlug) -> String {
    format!("{ANSWERS}{tenant}/{survey}/")
}

/// The prefix of every oversized answer still waiting for a worker.
pub const INCOMING: &str = "incoming/";

/// A survey's summary, with its answer count and the commit state of its answer list.
pub fn summary(tenant: &TenantSlug, survey: &SurveySlug) -> String {
    format!("{SUMMARIES}{tenant}/{survey}.json")
}

/// One chunk of a survey's answer list (references in arrival order).
pub fn list_chunk(tenant: &TenantSlug, survey: &SurveySlug, chunk: u64) -> String {
    format!("lists/{tenant}/{survey}/{chunk:010}.json")
}

/// One block of the index of references already counted in a survey's summary.
pub fn counted_block(tenant: &TenantSlug, survey: &SurveySlug, block: u64) -> String {
    format!("counted/{tenant}/{survey}/{block:012}")
}

/// The flag that pauses every worker.
pub const WORKERS_PAUSED: &str = "control/workers-paused";

/// The lock that lets one instance at a time run the reconcile pass.
pub const RECONCILE_LOCK: &str = "locks/reconcile";

/// The tenant, survey and reference named by an answer or incoming-answer key under `prefix`.
pub fn parse_answer_key(prefix: &str, key: &str) -> Option<(TenantSlug, SurveySlug, Reference)> {
    let mut parts = key.strip_prefix(prefix)?.split('/');
    let tenant = TenantSlug::parse(parts.next()?).ok()?;
    let survey = SurveySlug::parse(parts.next()?).ok()?;
    let reference = parts.next()?.strip_suffix(".json")?.parse().ok()?;
    parts
        .next()
        .is_none()
        .then_some((tenant, survey, Reference(reference)))
}

/// The prefix of every summary document.
pub const SUMMARIES: &str = "summaries/";

/// The prefix of every stored answer.
pub const ANSWERS: &str = "answers/";

/// The tenant and survey a summary key names.
pub fn parse_summary_key(key: &str) -> Option<(TenantSlug, SurveySlug)> {
    let (tenant, survey) = key
        .strip_prefix(SUMMARIES)?
        .strip_suffix(".json")?
        .split_once('/')?;
    Some((
        TenantSlug::parse(tenant).ok()?,
        SurveySlug::parse(survey).ok()?,
    ))
}

/// An owner account, by email.
pub fn account(email: &str) -> String {
    format!("accounts/{email}.json")
}

/// A signed-in session.
pub fn session(id: &str) -> String {
    format!("sessions/{id}.json")
}

/// An API key's record, by the SHA-256 of the key (the key itself is never stored).
pub fn api_key(hash: &str) -> String {
    format!("apikeys/{hash}.json")
}

/// The prefix of a tenant's API key list.
pub fn api_keys_of(tenant: &TenantSlug) -> String {
    format!("tenant-keys/{tenant}/")
}

/// A published version of a survey kept when the survey is edited.
pub fn survey_version(tenant: &TenantSlug, survey: &SurveySlug, version: u32) -> String {
    format!("survey-versions/{tenant}/{survey}/{version:06}.json")
}

/// Every prefix of one survey's data besides its definition: versions, summary, answer list,
/// counted index, answers and incoming answers.
pub fn survey_data_prefixes(tenant: &TenantSlug, survey: &SurveySlug) -> [String; 6] {
    [
        format!("survey-versions/{tenant}/{survey}/"),
        summary(tenant, survey),
        format!("lists/{tenant}/{survey}/"),
        format!("counted/{tenant}/{survey}/"),
        answers_of(tenant, survey),
        format!("{INCOMING}{tenant}/{survey}/"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answer_and_summary_keys_parse_back() {
        let (t, s) = (
            TenantSlug::parse("acme").unwrap(),
            SurveySlug::parse("team").unwrap(),
        );
        let key = answer(&t, &s, Reference(42));
        assert_eq!(
            parse_answer_key(ANSWERS, &key),
            Some((t.clone(), s.clone(), Reference(42)))
        );
        let key = incoming_answer(&t, &s, Reference(7));
        assert_eq!(
            parse_answer_key(INCOMING, &key),
            Some((t.clone(), s.clone(), Reference(7)))
        );
        assert_eq!(parse_summary_key(&summary(&t, &s)), Some((t, s)));
        assert_eq!(parse_answer_key(ANSWERS, "answers/acme/team/x.json"), None);
        assert_eq!(
            parse_answer_key(ANSWERS, "answers/acme/team/1.json/extra"),
            None
        );
    }
}
