//! Where each kind of document lives in blob storage: the one place that knows the layout.
//! Every key of a tenant's data starts with the tenant's slug, so tenants never share a key.

use crate::domain::{Reference, SurveyRef, SurveySlug, TenantSlug};

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
pub fn incoming_answer(survey: &SurveyRef, reference: Reference) -> String {
    format!("{INCOMING}{survey}/{:020}.json", reference.0)
}

/// The shared counter of reference numbers.
pub const REFERENCE_COUNTER: &str = "counters/answer-reference";

/// The key that signs submission tokens.
pub const SIGNING_KEY: &str = "secrets/signing-key";

/// The key that encrypts session cookies.
pub const SESSION_KEY: &str = "secrets/session-key";

/// A stored answer.
pub fn answer(survey: &SurveyRef, reference: Reference) -> String {
    format!("{}{:020}.json", answers_of(survey), reference.0)
}

/// The prefix of a survey's stored answers.
pub fn answers_of(survey: &SurveyRef) -> String {
    format!("{ANSWERS}{survey}/")
}

/// The prefix of every oversized answer still waiting for a worker.
pub const INCOMING: &str = "incoming/";

/// A survey's summary, with its answer count and the commit state of its answer list.
pub fn summary(survey: &SurveyRef) -> String {
    format!("{SUMMARIES}{survey}.json")
}

/// Where a survey's answer list is kept (references in arrival order).
pub fn answer_list(survey: &SurveyRef) -> String {
    format!("lists/{survey}/")
}

/// Where the answer list of one segment is kept: under the survey's list, in a folder named
/// for the time its question became a segment question (`lists`), by a hash of the option (an
/// option may hold any character).
pub fn segment_list(survey: &SurveyRef, lists: &str, option: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(option.as_bytes());
    let hash: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("lists/{survey}/segments/{lists}/{hash}/")
}

/// One chunk of the answer list kept under `list`.
pub fn list_chunk(list: &str, chunk: u64) -> String {
    format!("{list}{chunk:010}.json")
}

/// The progress of building a survey's segments from its earlier answers.
pub fn segment_builds(survey: &SurveyRef) -> String {
    format!("segment-builds/{survey}.json")
}

/// One block of the index of references already counted in a survey's summary.
pub fn counted_block(survey: &SurveyRef, block: u64) -> String {
    format!("counted/{survey}/{block:012}")
}

/// The flag that pauses every worker.
pub const WORKERS_PAUSED: &str = "control/workers-paused";

/// The lock that lets one instance at a time run the reconcile pass.
pub const RECONCILE_LOCK: &str = "locks/reconcile";

/// The survey and reference named by an answer or incoming-answer key under `prefix`.
pub fn parse_answer_key(prefix: &str, key: &str) -> Option<(SurveyRef, Reference)> {
    let mut parts = key.strip_prefix(prefix)?.split('/');
    let tenant = TenantSlug::parse(parts.next()?).ok()?;
    let survey = SurveyRef::parse_name(tenant, parts.next()?)?;
    let reference = parts.next()?.strip_suffix(".json")?.parse().ok()?;
    parts
        .next()
        .is_none()
        .then_some((survey, Reference(reference)))
}

/// The prefix of every survey's drop-off counts.
pub const FUNNELS: &str = "funnels/";

/// A survey's drop-off counts.
pub fn funnel(survey: &SurveyRef) -> String {
    format!("{FUNNELS}{survey}.json")
}

/// The survey a drop-off counts key is filed under.
pub fn parse_funnel_key(key: &str) -> Option<SurveyRef> {
    let (tenant, survey) = key
        .strip_prefix(FUNNELS)?
        .strip_suffix(".json")?
        .split_once('/')?;
    SurveyRef::parse_name(TenantSlug::parse(tenant).ok()?, survey)
}

/// The prefix of every uploaded file.
pub const UPLOADS: &str = "uploads/";

/// The folder of one survey's uploaded files.
pub fn uploads_of(survey: &SurveyRef) -> String {
    format!("{UPLOADS}{survey}/")
}

/// The folder of the files uploaded for one answer.
pub fn uploads_of_answer(survey: &SurveyRef, reference: Reference) -> String {
    format!("{}{:020}/", uploads_of(survey), reference.0)
}

/// A file uploaded for `question` of the answer `reference`, by its id.
pub fn upload(survey: &SurveyRef, reference: Reference, question: &str, id: &str) -> String {
    format!("{}{question}/{id}", uploads_of_answer(survey, reference))
}

/// The survey, answer, question and id an upload key names.
pub fn parse_upload_key(key: &str) -> Option<(SurveyRef, Reference, String, String)> {
    let mut parts = key.strip_prefix(UPLOADS)?.split('/');
    let tenant = TenantSlug::parse(parts.next()?).ok()?;
    let survey = SurveyRef::parse_name(tenant, parts.next()?)?;
    let reference = Reference(parts.next()?.parse().ok()?);
    let question = parts.next()?.to_owned();
    let id = parts.next()?.to_owned();
    parts
        .next()
        .is_none()
        .then_some((survey, reference, question, id))
}

/// The folder of one survey's quota places (its layout: `stores::quotas`).
pub fn quotas_of(survey: &SurveyRef) -> String {
    format!("quotas/{survey}/")
}

/// The prefix of every saved progress ("continue later").
pub const PROGRESS: &str = "progress/";

/// A respondent's saved progress, by the stored name of its resume link.
pub fn progress(survey: &SurveyRef, name: &str) -> String {
    format!("{PROGRESS}{survey}/{name}.json")
}

/// The survey a saved progress key is filed under.
pub fn parse_progress_key(key: &str) -> Option<SurveyRef> {
    let mut parts = key.strip_prefix(PROGRESS)?.split('/');
    let tenant = TenantSlug::parse(parts.next()?).ok()?;
    let survey = SurveyRef::parse_name(tenant, parts.next()?)?;
    parts.next()?.strip_suffix(".json")?;
    parts.next().is_none().then_some(survey)
}

/// The prefix of every summary document.
pub const SUMMARIES: &str = "summaries/";

/// The prefix of every stored answer.
pub const ANSWERS: &str = "answers/";

/// The survey a summary key names.
pub fn parse_summary_key(key: &str) -> Option<SurveyRef> {
    let (tenant, survey) = key
        .strip_prefix(SUMMARIES)?
        .strip_suffix(".json")?
        .split_once('/')?;
    SurveyRef::parse_name(TenantSlug::parse(tenant).ok()?, survey)
}

/// An owner account, by email.
pub fn account(email: &str) -> String {
    format!("accounts/{email}.json")
}

/// A signed-in session.
pub fn session(id: &str) -> String {
    format!("sessions/{id}.json")
}

/// The prefix of the markers of one member's sessions (by a hash of their address), so all of
/// them can be ended at once.
pub fn sessions_of(email_hash: &str) -> String {
    format!("member-sessions/{email_hash}/")
}

/// A tenant's members and waiting invitations.
pub fn members(tenant: &TenantSlug) -> String {
    format!("members/{tenant}.json")
}

/// An invitation link, by the SHA-256 of its token.
pub fn invitation(hash: &str) -> String {
    format!("invitations/{hash}.json")
}

/// A password-reset link, by the SHA-256 of its token.
pub fn password_reset(hash: &str) -> String {
    format!("password-resets/{hash}.json")
}

/// The prefix of a tenant's audit log (newest first in key order).
pub fn audit_of(tenant: &TenantSlug) -> String {
    format!("audit/{tenant}/")
}

/// An API key's record, by the SHA-256 of the key (the key itself is never stored).
pub fn api_key(hash: &str) -> String {
    format!("apikeys/{hash}.json")
}

/// The prefix of a tenant's API key list.
pub fn api_keys_of(tenant: &TenantSlug) -> String {
    format!("tenant-keys/{tenant}/")
}

/// The prefix of the published versions of a survey kept when it was edited.
pub fn survey_versions(survey: &SurveyRef) -> String {
    format!("survey-versions/{survey}/")
}

/// A published version of a survey kept when the survey is edited.
pub fn survey_version(survey: &SurveyRef, version: u32) -> String {
    format!("{}{version:06}.json", survey_versions(survey))
}

/// The record of a survey's deleted responses.
pub fn deletions(survey: &SurveyRef) -> String {
    format!("deletions/{survey}.json")
}

/// Where partial responses live.
pub const PARTIALS: &str = "partials/";

/// The key of the partial response of the form `reference` of `survey`.
pub fn partial(survey: &SurveyRef, reference: crate::domain::Reference) -> String {
    format!("{PARTIALS}{survey}/{:020}.json", reference.0)
}

/// The prefix of every partial response of `survey`.
pub fn partials_of(survey: &SurveyRef) -> String {
    format!("{PARTIALS}{survey}/")
}

/// Every prefix of one survey's data besides its definition: versions, summary, deletion
/// records, segment build progress, answer lists, counted index, answers and incoming answers,
/// saved progress, partial responses, drop-off counts, quota places, uploaded files and
/// participants.
pub fn survey_data_prefixes(survey: &SurveyRef) -> [String; 14] {
    [
        survey_versions(survey),
        summary(survey),
        deletions(survey),
        segment_builds(survey),
        answer_list(survey),
        format!("counted/{survey}/"),
        answers_of(survey),
        format!("{INCOMING}{survey}/"),
        format!("{PROGRESS}{survey}/"),
        partials_of(survey),
        funnel(survey),
        quotas_of(survey),
        uploads_of(survey),
        super::participants::participants_of(survey),
    ]
}

/// Where each running worker's heartbeat is: `workers/live/{plans}/{owner}`.
pub const WORKER_HEARTBEATS: &str = "workers/live/";

/// A worker's heartbeat, named by the classes it takes and its own name.
pub fn worker_heartbeat(plans: &str, owner: &str) -> String {
    format!("{WORKER_HEARTBEATS}{plans}/{owner}")
}

/// A worker's claim on an answer queue shard: `workers/shards/{queue}`.
pub fn shard_claim(queue: &str) -> String {
    format!("workers/shards/{queue}")
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::domain::SurveyId;

    #[test]
    fn answer_and_summary_keys_parse_back() {
        let current = SurveyRef {
            tenant: TenantSlug::parse("acme").unwrap(),
            slug: SurveySlug::parse("team").unwrap(),
            id: SurveyId::generate(),
        };
        let legacy = SurveyRef {
            id: SurveyId::default(),
            ..current.clone()
        };
        assert_eq!(summary(&legacy), "summaries/acme/team.json");
        assert_eq!(
            answer(&legacy, Reference(42)),
            "answers/acme/team/00000000000000000042.json"
        );
        for s in [current, legacy] {
            let key = answer(&s, Reference(42));
            assert_eq!(
                parse_answer_key(ANSWERS, &key),
                Some((s.clone(), Reference(42)))
            );
            let key = incoming_answer(&s, Reference(7));
            assert_eq!(
                parse_answer_key(INCOMING, &key),
                Some((s.clone(), Reference(7)))
            );
            assert_eq!(parse_summary_key(&summary(&s)), Some(s.clone()));
            // Neither survey's prefixes hold the other's keys.
            assert!(
                survey_data_prefixes(&s)
                    .iter()
                    .all(|prefix| prefix.ends_with('/') || prefix.ends_with(".json"))
            );
        }
        assert_eq!(parse_answer_key(ANSWERS, "answers/acme/team/x.json"), None);
        assert_eq!(
            parse_answer_key(ANSWERS, "answers/acme/team/1.json/extra"),
            None
        );
    }
}
