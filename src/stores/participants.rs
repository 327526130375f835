//! A survey's participants, each a document of its own so that a list of 100,000 pages and
//! searches in O(page). The layout, under `participants/{survey}/`:
//!
//! - `people/{hex of email}`: the participant. Keys in email order, so a page is one listing
//!   and a search by the start of an address is a listing of a narrower prefix.
//! - `ids/{id}`: the email key of the participant with that id (the API names them by id).
//! - `links/{digest of link}`: the id of the participant whose personal link that is; storage
//!   keeps only a digest, so what it holds does not open anyone's link.
//! - `answered/{id}`: the claim of the answer given through their link (`AnswerClaim`).
//!   Written create-only before that answer is queued, as `sending:R` (the answer is being
//!   sent under reference R), so a link answers once; rewritten once it is queued as `R`,
//!   or empty for a survey whose answers are anonymous (it then says only that they
//!   answered). A claim still `sending` pins the link to R: a queue write that failed, or a
//!   process killed between the writes, leaves it so, and the link's form is sent again as
//!   R (the worker counts one answer per reference), never turned away.
//! - `marks/{invited|started|opted_out|bounced}/{id}`: empty markers of where each one
//!   got, so totals are listings of keys rather than reads of 100,000 documents. A marker
//!   is written before the document says so and removed after it stops saying so, so a
//!   process killed in between leaves a marker that the next try makes true or removes.
//! - `attributes`: the attributes the participants were given (`AttributeIndex`: every name,
//!   a column of the answers' downloads, and a few values of each), written before the
//!   participants that have them.
//! - `sheets/{id}`: an uploaded sheet held while its owner looks at the preview.
//! - `imports/{id}`: an import under way. Its participants are written with its id and count
//!   as absent while it exists; it is deleted once all are written, which takes the whole
//!   list in at once. The importing process touches it every 2 s: a process killed half-way
//!   leaves an import that never ends, whose participants stay absent, and once its marker
//!   has gone untouched for `ABANDONED_AFTER` an import of the same addresses replaces them
//!   (sooner, it is refused: the first may still be writing).

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;

use super::error::{decode, encode};
use super::tokens::hex;
use super::{Context, StoreError};
use crate::domain::participant::{
    AttributeIndex, AttributeLimit, Moment, NewParticipant, Participant,
};
use crate::domain::{Email, PrivateLink, Reference, SurveyRef};
use crate::storage::{BlobPut, BlobStore, ETag, Error, ListRequest, PutMode};

/// Participants written at once (a list is written in such chunks, under one import, so an
/// import of 100,000 holds one chunk's writes in memory).
const WRITE_CHUNK: usize = 5_000;

/// How long an import's marker may go untouched before the import counts as abandoned (its
/// process died) and a later one takes over what it wrote. A running import touches it every
/// `HEARTBEAT`.
pub const ABANDONED_AFTER: std::time::Duration = std::time::Duration::from_secs(10);
const HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(2);

/// Where an import stands, by its marker.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ImportState {
    /// Its marker is gone: every participant it wrote is listed.
    Done,
    /// Its marker was touched lately: it is writing.
    Running,
    /// Its marker was left untouched for `ABANDONED_AFTER`: its process died.
    Abandoned,
}

/// The folder of one survey's participants.
pub fn participants_of(survey: &SurveyRef) -> String {
    format!("participants/{survey}/")
}

fn person_key(survey: &SurveyRef, email: &str) -> String {
    format!(
        "{}people/{}",
        participants_of(survey),
        hex(email.as_bytes())
    )
}

fn id_key(survey: &SurveyRef, id: &str) -> String {
    format!("{}ids/{id}", participants_of(survey))
}

fn link_key(survey: &SurveyRef, link: &PrivateLink) -> String {
    format!("{}links/{}", participants_of(survey), link.stored_name())
}

fn answered_key(survey: &SurveyRef, id: &str) -> String {
    format!("{}answered/{id}", participants_of(survey))
}

/// A marker of where a participant got (see the module's doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Invited,
    Started,
    OptedOut,
    Bounced,
}

impl Mark {
    const ALL: [Mark; 4] = [Mark::Invited, Mark::Started, Mark::OptedOut, Mark::Bounced];

    fn folder(self) -> &'static str {
        match self {
            Mark::Invited => "invited",
            Mark::Started => "started",
            Mark::OptedOut => "opted_out",
            Mark::Bounced => "bounced",
        }
    }
}

fn mark_key(survey: &SurveyRef, mark: Mark, id: &str) -> String {
    format!("{}marks/{}/{id}", participants_of(survey), mark.folder())
}

/// How many of a survey's participants got how far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct Totals {
    pub participants: u64,
    pub invited: u64,
    pub started: u64,
    pub finished: u64,
    pub opted_out: u64,
    pub bounced: u64,
}

fn import_key(survey: &SurveyRef, import: &str) -> String {
    format!("{}imports/{import}", participants_of(survey))
}

fn attributes_key(survey: &SurveyRef) -> String {
    format!("{}attributes", participants_of(survey))
}

fn sheet_key(survey: &SurveyRef, id: &str) -> String {
    format!("{}sheets/{id}", participants_of(survey))
}

/// A stored participant and the import it came in with.
#[derive(serde::Serialize, serde::Deserialize)]
struct Stored {
    #[serde(flatten)]
    participant: Participant,
    /// The import that wrote it: absent while that import is under way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    import: Option<String>,
}

/// Why participants were not added.
#[derive(Debug, thiserror::Error)]
pub enum AddError {
    /// These addresses were added by someone else meanwhile: nothing was kept.
    #[error("some addresses were added meanwhile")]
    Listed(Vec<Email>),
    /// The list would pass the most participants a survey has.
    #[error("a survey has at most {0} participants")]
    TooMany(usize),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// One page of participants, in email order.
pub struct ParticipantPage {
    pub participants: Vec<Participant>,
    /// Where the next page starts (pass back as `after`), if there is one.
    pub next: Option<String>,
}

/// How a participant's link was found.
pub enum LinkState {
    /// Not a link of this survey.
    Unknown,
    /// Their answer was sent, with this reference (`None`: an anonymous survey's, unnamed).
    Answered(Participant, Option<Reference>),
    /// Their answer is being sent (or its send failed or was cut off) under this reference:
    /// the link's form is that answer, whatever is sent next.
    Sending(Participant, Reference),
    /// Not answered yet.
    Open(Participant),
}

impl LinkState {
    /// The participant whose link it is, if any.
    pub fn participant(self) -> Option<Participant> {
        match self {
            LinkState::Unknown => None,
            LinkState::Answered(participant, _)
            | LinkState::Sending(participant, _)
            | LinkState::Open(participant) => Some(participant),
        }
    }
}

/// Where the one answer of a participant's link stands, as its claim says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnswerClaim {
    /// Being sent under this reference (claimed, not yet known to be queued).
    Sending(Reference),
    /// Sent: queued, under this reference (`None`: an anonymous survey's, unnamed).
    Sent(Option<Reference>),
}

impl AnswerClaim {
    const SENDING: &'static str = "sending:";

    fn body(self) -> Bytes {
        match self {
            AnswerClaim::Sending(reference) => format!("{}{}", Self::SENDING, reference.0).into(),
            AnswerClaim::Sent(Some(reference)) => reference.0.to_string().into(),
            AnswerClaim::Sent(None) => Bytes::new(),
        }
    }

    fn read(body: &[u8]) -> Self {
        let text = String::from_utf8_lossy(body);
        match text.strip_prefix(Self::SENDING) {
            Some(number) => match number.parse() {
                Ok(number) => AnswerClaim::Sending(Reference(number)),
                Err(_) => AnswerClaim::Sent(None),
            },
            None => AnswerClaim::Sent(text.parse().ok().map(Reference)),
        }
    }
}

/// Touches an import's marker every `HEARTBEAT` until stopped (or its process dies).
struct Heartbeat(tokio::task::JoinHandle<()>);

impl Heartbeat {
    fn start(blobs: Arc<dyn BlobStore>, marker: String) -> Self {
        Self(tokio::spawn(async move {
            loop {
                tokio::time::sleep(HEARTBEAT).await;
                // Only while it is there: the import may have just removed it.
                let Ok(blob) = blobs.get(&marker).await else {
                    return;
                };
                let touched = blobs.put(&marker, blob.body, PutMode::Update(blob.meta.etag));
                if let Err(error) = touched.await {
                    tracing::warn!(%error, %marker, "an import's marker was not touched");
                }
            }
        }))
    }

    fn stop(self) {
        self.0.abort();
    }
}

/// Participants, by survey.
#[derive(Clone, Debug)]
pub struct ParticipantStore {
    blobs: Arc<dyn BlobStore>,
}

impl ParticipantStore {
    pub(super) fn new(blobs: Arc<dyn BlobStore>) -> Self {
        Self { blobs }
    }

    /// Whether the survey has any participant.
    pub async fn any(&self, survey: &SurveyRef) -> Result<bool, StoreError> {
        self.any_under(format!("{}people/", participants_of(survey)))
            .await
    }

    /// Whether any participant's link has an answer claimed (sent, or being sent).
    pub async fn any_answer(&self, survey: &SurveyRef) -> Result<bool, StoreError> {
        self.any_under(format!("{}answered/", participants_of(survey)))
            .await
    }

    /// Whether any key starts with `prefix` (one listing of one key).
    async fn any_under(&self, prefix: String) -> Result<bool, StoreError> {
        let page = self
            .blobs
            .list(&ListRequest::new(prefix.clone(), 1))
            .await
            .context(|| format!("listing {prefix}"))?;
        Ok(!page.items.is_empty())
    }

    /// Forgets when participants opened their links (their survey's answers became
    /// anonymous): each who did keeps only that they did. How many were changed.
    pub async fn untime_openings(&self, survey: &SurveyRef) -> Result<usize, StoreError> {
        let prefix = format!(
            "{}marks/{}/",
            participants_of(survey),
            Mark::Started.folder()
        );
        let mut listing = super::Listing::new(self.blobs.as_ref(), &prefix, 100);
        let mut changed = 0;
        while let Some(page) = listing.next().await? {
            let ids: Vec<&str> = page
                .items
                .iter()
                .filter_map(|item| item.key.strip_prefix(&prefix))
                .collect();
            let untimed = ids.iter().map(|id| {
                self.change_if(survey, id, |participant| {
                    let timed = |moment: &Option<Moment>| matches!(moment, Some(Moment::At(_)));
                    let was = timed(&participant.started) || timed(&participant.finished);
                    for moment in [&mut participant.started, &mut participant.finished] {
                        if timed(moment) {
                            *moment = Some(Moment::Untimed);
                        }
                    }
                    was
                })
            });
            for done in futures_util::future::join_all(untimed).await {
                changed += usize::from(done?);
            }
        }
        Ok(changed)
    }

    /// Whether an import is under way (or was abandoned): its participants are absent.
    async fn pending(
        &self,
        survey: &SurveyRef,
        import: &str,
        known: &mut HashMap<String, ImportState>,
    ) -> Result<bool, StoreError> {
        Ok(self.import_state(survey, import, known).await? != ImportState::Done)
    }

    /// Where an import stands (each import read once per `known`).
    async fn import_state(
        &self,
        survey: &SurveyRef,
        import: &str,
        known: &mut HashMap<String, ImportState>,
    ) -> Result<ImportState, StoreError> {
        if let Some(&state) = known.get(import) {
            return Ok(state);
        }
        let key = import_key(survey, import);
        let state = match self.blobs.get(&key).await {
            Ok(marker) => match marker.meta.last_modified.elapsed() {
                Ok(age) if age >= ABANDONED_AFTER => ImportState::Abandoned,
                _ => ImportState::Running,
            },
            Err(Error::NotFound { .. }) => ImportState::Done,
            Err(error) => return Err(error).context(|| format!("reading {key}")),
        };
        known.insert(import.to_owned(), state);
        Ok(state)
    }

    /// A stored document as a participant, unless its import is under way.
    async fn present(
        &self,
        survey: &SurveyRef,
        key: &str,
        body: &[u8],
        known: &mut HashMap<String, ImportState>,
    ) -> Result<Option<Participant>, StoreError> {
        let stored: Stored = decode(key, body)?;
        match &stored.import {
            Some(import) if self.pending(survey, import, known).await? => Ok(None),
            _ => Ok(Some(stored.participant)),
        }
    }

    /// Which of `emails` are participants already.
    pub async fn listed(
        &self,
        survey: &SurveyRef,
        emails: &[Email],
    ) -> Result<Vec<Email>, StoreError> {
        let mut known = HashMap::new();
        let mut listed = Vec::new();
        for emails in emails.chunks(WRITE_CHUNK) {
            let keys: Vec<String> = emails
                .iter()
                .map(|email| person_key(survey, email.as_str()))
                .collect();
            let found = self
                .blobs
                .get_many(&keys)
                .await
                .context(|| format!("reading participants of {survey}"))?;
            for ((email, key), blob) in emails.iter().zip(&keys).zip(found) {
                match blob {
                    Ok(blob) => {
                        if self
                            .present(survey, key, &blob.body, &mut known)
                            .await?
                            .is_some()
                        {
                            listed.push(email.clone());
                        }
                    }
                    Err(Error::NotFound { .. }) => {}
                    Err(error) => return Err(error).context(|| format!("reading {key}")),
                }
            }
        }
        Ok(listed)
    }

    /// How many participants the survey has (a listing of their ids).
    pub async fn count(&self, survey: &SurveyRef) -> Result<usize, StoreError> {
        self.count_keys(format!("{}ids/", participants_of(survey)))
            .await
    }

    /// How many got how far: listings of keys (the ids, the markers, the answer claims).
    pub async fn totals(&self, survey: &SurveyRef) -> Result<Totals, StoreError> {
        let folder = participants_of(survey);
        let mut totals = Totals {
            participants: self.count_keys(format!("{folder}ids/")).await? as u64,
            finished: self.count_keys(format!("{folder}answered/")).await? as u64,
            ..Totals::default()
        };
        for mark in Mark::ALL {
            let count = self
                .count_keys(format!("{folder}marks/{}/", mark.folder()))
                .await? as u64;
            match mark {
                Mark::Invited => totals.invited = count,
                Mark::Started => totals.started = count,
                Mark::OptedOut => totals.opted_out = count,
                Mark::Bounced => totals.bounced = count,
            }
        }
        Ok(totals)
    }

    /// Sets a participant's marker (again is harmless).
    pub async fn set_mark(
        &self,
        survey: &SurveyRef,
        mark: Mark,
        id: &str,
    ) -> Result<(), StoreError> {
        let key = mark_key(survey, mark, id);
        match self.blobs.put(&key, Bytes::new(), PutMode::Create).await {
            Ok(_) | Err(Error::AlreadyExists { .. }) => Ok(()),
            Err(error) => Err(error).context(|| format!("writing {key}")),
        }
    }

    /// Removes a participant's marker, if set.
    pub async fn clear_mark(
        &self,
        survey: &SurveyRef,
        mark: Mark,
        id: &str,
    ) -> Result<(), StoreError> {
        self.delete_key(&mark_key(survey, mark, id)).await
    }

    async fn count_keys(&self, prefix: String) -> Result<usize, StoreError> {
        let mut listing = super::Listing::new(self.blobs.as_ref(), &prefix, 0);
        let mut count = 0;
        while let Some(page) = listing.next().await? {
            count += page.items.len();
        }
        Ok(count)
    }

    /// Adds `people` (checked, none listed already), all or none: each gets an id and a
    /// personal link made by `link`. Written under an import that takes them in at once.
    pub async fn add(
        &self,
        survey: &SurveyRef,
        people: Vec<NewParticipant>,
        now: time::OffsetDateTime,
        links: Vec<PrivateLink>,
    ) -> Result<Vec<Participant>, AddError> {
        let total = self.count(survey).await? + people.len();
        if total > crate::domain::participant::MAX_PARTICIPANTS {
            return Err(AddError::TooMany(
                crate::domain::participant::MAX_PARTICIPANTS,
            ));
        }
        let import = uuid::Uuid::new_v4().simple().to_string();
        let marker = import_key(survey, &import);
        self.blobs
            .put(&marker, Bytes::from_static(b"{}"), PutMode::Create)
            .await
            .context(|| format!("starting an import of participants to {survey}"))?;
        // The marker is touched while this import runs: once its process dies, a later import
        // of the same people finds it abandoned within `ABANDONED_AFTER` and takes over.
        let heartbeat = Heartbeat::start(self.blobs.clone(), marker.clone());
        let added = self
            .write_import(survey, &import, &marker, people, now, links)
            .await;
        heartbeat.stop();
        added
    }

    /// Writes an import's participants under its marker, then removes the marker.
    async fn write_import(
        &self,
        survey: &SurveyRef,
        import: &str,
        marker: &str,
        people: Vec<NewParticipant>,
        now: time::OffsetDateTime,
        links: Vec<PrivateLink>,
    ) -> Result<Vec<Participant>, AddError> {
        let mut added = Vec::with_capacity(people.len());
        // Every key this import wrote, to take back should it fail.
        let mut written = Vec::new();
        let mut refused = Vec::new();
        let mut failure = None;
        // Pointers of abandoned imports' participants this one takes over, and imports seen.
        let (mut stale, mut known) = (Vec::new(), HashMap::new());
        let mut people = people.into_iter().zip(links);
        loop {
            let chunk: Vec<_> = people.by_ref().take(WRITE_CHUNK).collect();
            if chunk.is_empty() || !refused.is_empty() || failure.is_some() {
                break;
            }
            // Keys an abandoned import holds are taken over; others are written create-only.
            let keys: Vec<String> = chunk
                .iter()
                .map(|(person, _)| person_key(survey, person.email.as_str()))
                .collect();
            let there = self
                .blobs
                .get_many(&keys)
                .await
                .context(|| format!("reading participants of {survey}"))?;
            let mut puts = Vec::with_capacity(chunk.len() * 3);
            let mut emails = Vec::with_capacity(chunk.len());
            for (((person, link), key), found) in chunk.into_iter().zip(keys).zip(there) {
                let mode = match found {
                    Err(_) => PutMode::Create,
                    Ok(blob) => match self.abandoned(survey, &key, &blob, &mut known).await? {
                        Some(was) => {
                            stale.push(id_key(survey, &was.id));
                            if let Some(link) = PrivateLink::parse(&was.link) {
                                stale.push(link_key(survey, &link));
                            }
                            PutMode::Update(blob.meta.etag)
                        }
                        // Listed, or being added by another import right now.
                        None => {
                            refused.push(person.email);
                            continue;
                        }
                    },
                };
                let participant = Participant {
                    id: uuid::Uuid::new_v4().simple().to_string()[..16].to_owned(),
                    person,
                    link: link.as_str().to_owned(),
                    added: now,
                    started: None,
                    finished: None,
                    mail: Default::default(),
                };
                let stored = Stored {
                    participant,
                    import: Some(import.to_owned()),
                };
                let participant = &stored.participant;
                let key_name = key.rsplit('/').next().unwrap_or_default().to_owned();
                puts.push(BlobPut {
                    key: id_key(survey, &participant.id),
                    body: key_name.into(),
                    mode: PutMode::Create,
                });
                puts.push(BlobPut {
                    key: link_key(survey, &link),
                    body: participant.id.clone().into(),
                    mode: PutMode::Create,
                });
                puts.push(BlobPut {
                    body: encode(&key, &stored)?.into(),
                    key,
                    mode,
                });
                emails.push(participant.person.email.clone());
                added.push(stored.participant);
            }
            let keys: Vec<String> = puts.iter().map(|put| put.key.clone()).collect();
            let results = self
                .blobs
                .put_many(puts)
                .await
                .context(|| format!("writing participants of {survey}"))?;
            for (at, (result, key)) in results.into_iter().zip(keys).enumerate() {
                match result {
                    Ok(_) => written.push(key),
                    // A participant's own document is every third write.
                    Err(Error::AlreadyExists { .. } | Error::Precondition { .. })
                        if at % 3 == 2 =>
                    {
                        refused.push(emails[at / 3].clone());
                    }
                    Err(error) => failure = failure.or(Some(error)),
                }
            }
        }
        if !refused.is_empty() || failure.is_some() {
            // Someone added some of these meanwhile, or storage failed: take back what this
            // import wrote.
            for key in written {
                self.delete_key(&key).await?;
            }
            self.delete_key(marker).await?;
            return match failure {
                Some(error) => Err(error)
                    .context(|| format!("writing participants of {survey}"))
                    .map_err(AddError::Store),
                None => Err(AddError::Listed(refused)),
            };
        }
        crate::crash::reached(crate::crash::Point::BeforeImportDone);
        // The import is done: every participant it wrote is there at once.
        self.delete_key(marker).await?;
        for key in stale {
            self.delete_key(&key).await?;
        }
        Ok(added)
    }

    /// The participant an import abandoned (its marker left untouched for `ABANDONED_AFTER`)
    /// under `key`, whom a new import may take over; `None` for one listed, or one an import
    /// is adding right now.
    async fn abandoned(
        &self,
        survey: &SurveyRef,
        key: &str,
        blob: &crate::storage::Blob,
        known: &mut HashMap<String, ImportState>,
    ) -> Result<Option<Participant>, StoreError> {
        let stored: Stored = decode(key, &blob.body)?;
        let Some(import) = &stored.import else {
            return Ok(None);
        };
        let abandoned = self.import_state(survey, import, known).await? == ImportState::Abandoned;
        Ok(abandoned.then_some(stored.participant))
    }

    async fn delete_key(&self, key: &str) -> Result<(), StoreError> {
        match self.blobs.delete(key, None).await {
            Ok(()) | Err(Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(error).context(|| format!("deleting {key}")),
        }
    }

    /// Up to `size` participants in email order, from where the page token `after` (a
    /// page's `next`, as storage made it) left off, whose address starts with `search` when
    /// given.
    pub async fn page(
        &self,
        survey: &SurveyRef,
        search: Option<&str>,
        after: Option<&str>,
        size: usize,
    ) -> Result<ParticipantPage, StoreError> {
        let people = format!("{}people/", participants_of(survey));
        let prefix = format!("{people}{}", hex(search.unwrap_or_default().as_bytes()));
        let mut request = ListRequest::new(prefix.clone(), size);
        request.continuation = after.map(str::to_owned);
        let mut known = HashMap::new();
        let mut participants = Vec::with_capacity(size);
        loop {
            let page = self
                .blobs
                .list(&request)
                .await
                .context(|| format!("listing {prefix}"))?;
            let keys: Vec<String> = page.items.into_iter().map(|meta| meta.key).collect();
            let blobs = self
                .blobs
                .get_many(&keys)
                .await
                .context(|| format!("reading participants of {survey}"))?;
            for (key, blob) in keys.iter().zip(blobs) {
                let Ok(blob) = blob else { continue };
                if let Some(participant) = self.present(survey, key, &blob.body, &mut known).await?
                {
                    participants.push(participant);
                }
            }
            match page.continuation {
                // A page short of participants an import holds back reads on.
                Some(token) if participants.len() < size => {
                    request.continuation = Some(token);
                    request.page_size = size - participants.len();
                }
                next => return Ok(ParticipantPage { participants, next }),
            }
        }
    }

    /// The participant with `id`, and the key their document is under.
    async fn by_id(
        &self,
        survey: &SurveyRef,
        id: &str,
    ) -> Result<Option<(String, Participant, ETag)>, StoreError> {
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(None);
        }
        let key = id_key(survey, id);
        let name = match self.blobs.get(&key).await {
            Ok(blob) => String::from_utf8_lossy(&blob.body).into_owned(),
            Err(Error::NotFound { .. }) => return Ok(None),
            Err(error) => return Err(error).context(|| format!("reading {key}")),
        };
        let person = format!("{}people/{name}", participants_of(survey));
        let blob = match self.blobs.get(&person).await {
            Ok(blob) => blob,
            Err(Error::NotFound { .. }) => return Ok(None),
            Err(error) => return Err(error).context(|| format!("reading {person}")),
        };
        let found = self
            .present(survey, &person, &blob.body, &mut HashMap::new())
            .await?
            .filter(|participant| participant.id == id);
        Ok(found.map(|participant| (person, participant, blob.meta.etag)))
    }

    /// The participant with `id`, if any.
    pub async fn get(
        &self,
        survey: &SurveyRef,
        id: &str,
    ) -> Result<Option<Participant>, StoreError> {
        Ok(self
            .by_id(survey, id)
            .await?
            .map(|(_, participant, _)| participant))
    }

    /// Removes the participant with `id` (their link stops working); whether there was one.
    pub async fn remove(&self, survey: &SurveyRef, id: &str) -> Result<bool, StoreError> {
        let Some((key, participant, _)) = self.by_id(survey, id).await? else {
            return Ok(false);
        };
        if let Some(link) = PrivateLink::parse(&participant.link) {
            self.delete_key(&link_key(survey, &link)).await?;
        }
        self.delete_key(&key).await?;
        self.delete_key(&id_key(survey, id)).await?;
        for mark in Mark::ALL {
            self.clear_mark(survey, mark, id).await?;
        }
        self.delete_key(&answered_key(survey, id)).await?;
        Ok(true)
    }

    /// Where the personal link `link` stands.
    pub async fn by_link(&self, survey: &SurveyRef, link: &str) -> Result<LinkState, StoreError> {
        let Some(link) = PrivateLink::parse(link) else {
            return Ok(LinkState::Unknown);
        };
        let key = link_key(survey, &link);
        let id = match self.blobs.get(&key).await {
            Ok(blob) => String::from_utf8_lossy(&blob.body).into_owned(),
            Err(Error::NotFound { .. }) => return Ok(LinkState::Unknown),
            Err(error) => return Err(error).context(|| format!("reading {key}")),
        };
        let Some(participant) = self.get(survey, &id).await? else {
            return Ok(LinkState::Unknown);
        };
        if participant.link != link.as_str() {
            return Ok(LinkState::Unknown);
        }
        Ok(match self.claim_of(survey, &participant.id).await? {
            Some(AnswerClaim::Sent(reference)) => LinkState::Answered(participant, reference),
            Some(AnswerClaim::Sending(reference)) => LinkState::Sending(participant, reference),
            None => LinkState::Open(participant),
        })
    }

    /// The claim of a participant's answer, if their link has one.
    async fn claim_of(
        &self,
        survey: &SurveyRef,
        id: &str,
    ) -> Result<Option<AnswerClaim>, StoreError> {
        let key = answered_key(survey, id);
        match self.blobs.get(&key).await {
            Ok(blob) => Ok(Some(AnswerClaim::read(&blob.body))),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| format!("reading {key}")),
        }
    }

    /// Claims a participant's one answer for `reference`, before it is queued: the claim
    /// their link holds after (`Sending(reference)` when it is theirs: claimed now, or by
    /// this same form before; anything else when their link answered, or is being answered,
    /// under another reference).
    pub async fn claim_answer(
        &self,
        survey: &SurveyRef,
        id: &str,
        reference: Reference,
    ) -> Result<AnswerClaim, StoreError> {
        let key = answered_key(survey, id);
        let sending = AnswerClaim::Sending(reference);
        loop {
            match self.blobs.put(&key, sending.body(), PutMode::Create).await {
                Ok(_) => return Ok(sending),
                Err(Error::AlreadyExists { .. }) => {
                    if let Some(claim) = self.claim_of(survey, id).await? {
                        return Ok(claim);
                    }
                    // Removed with its participant meanwhile: claim it again.
                }
                Err(error) => return Err(error).context(|| format!("writing {key}")),
            }
        }
    }

    /// Settles a claim once its answer is queued: `Sent(Some(R))` names the answer,
    /// `Sent(None)` (an anonymous survey's) only says that they answered, and no longer holds
    /// the reference it was sent under.
    pub async fn settle_answer(
        &self,
        survey: &SurveyRef,
        id: &str,
        sent: AnswerClaim,
    ) -> Result<(), StoreError> {
        let key = answered_key(survey, id);
        self.blobs
            .put(&key, sent.body(), PutMode::Overwrite)
            .await
            .map(|_| ())
            .context(|| format!("settling {key}"))
    }

    /// Holds an uploaded sheet while its owner looks at the preview; returns its id.
    pub async fn hold_sheet(&self, survey: &SurveyRef, sheet: Bytes) -> Result<String, StoreError> {
        let id = uuid::Uuid::new_v4().simple().to_string();
        let key = sheet_key(survey, &id);
        self.blobs
            .put(&key, sheet, PutMode::Create)
            .await
            .context(|| format!("holding a participants sheet for {survey}"))?;
        Ok(id)
    }

    /// A held sheet, if it is still held.
    pub async fn held_sheet(
        &self,
        survey: &SurveyRef,
        id: &str,
    ) -> Result<Option<Bytes>, StoreError> {
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(None);
        }
        let key = sheet_key(survey, id);
        match self.blobs.get(&key).await {
            Ok(blob) => Ok(Some(blob.body)),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| format!("reading {key}")),
        }
    }

    /// Lets a held sheet go (added, or refused).
    pub async fn drop_sheet(&self, survey: &SurveyRef, id: &str) -> Result<(), StoreError> {
        self.delete_key(&sheet_key(survey, id)).await
    }

    /// Changes the participant with `id` as `change` says, under If-Match (again if someone
    /// changed them meanwhile); whether there was one.
    pub async fn change(
        &self,
        survey: &SurveyRef,
        id: &str,
        change: impl Fn(&mut Participant),
    ) -> Result<bool, StoreError> {
        self.change_if(survey, id, |participant| {
            change(participant);
            true
        })
        .await
    }

    /// Changes the participant with `id` when `change` says it did (it returns whether),
    /// under If-Match (again, from what is stored then, if someone changed them meanwhile);
    /// whether they were changed. A mailing records a send this way, exactly once.
    pub async fn change_if(
        &self,
        survey: &SurveyRef,
        id: &str,
        change: impl Fn(&mut Participant) -> bool,
    ) -> Result<bool, StoreError> {
        loop {
            let Some((key, mut participant, etag)) = self.by_id(survey, id).await? else {
                return Ok(false);
            };
            if !change(&mut participant) {
                return Ok(false);
            }
            let stored = Stored {
                participant,
                import: None,
            };
            let body = encode(&key, &stored)?;
            match self
                .blobs
                .put(&key, body.into(), PutMode::Update(etag))
                .await
            {
                Ok(_) => return Ok(true),
                Err(Error::Precondition { .. }) => continue,
                Err(error) => return Err(error).context(|| format!("writing {key}")),
            }
        }
    }

    /// The attributes the survey's participants were given; `None` for a survey never given
    /// participants (since the index was kept).
    pub async fn attributes(
        &self,
        survey: &SurveyRef,
    ) -> Result<Option<AttributeIndex>, StoreError> {
        let key = attributes_key(survey);
        match self.blobs.get(&key).await {
            Ok(blob) => Ok(Some(decode(&key, &blob.body)?)),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(error) => Err(error).context(|| format!("reading {key}")),
        }
    }

    /// Takes what `people` were given into the survey's attribute index (under If-Match),
    /// unless that passes a limit (see `AttributeIndex::add`).
    pub async fn note_attributes(
        &self,
        survey: &SurveyRef,
        people: &[NewParticipant],
        segmenting: &[String],
    ) -> Result<Result<(), AttributeLimit>, StoreError> {
        let key = attributes_key(survey);
        loop {
            let (mut index, mode) = match self.blobs.get(&key).await {
                Ok(blob) => (decode(&key, &blob.body)?, PutMode::Update(blob.meta.etag)),
                Err(Error::NotFound { .. }) => (AttributeIndex::default(), PutMode::Create),
                Err(error) => return Err(error).context(|| format!("reading {key}")),
            };
            let changed = match index.add(people, segmenting) {
                Ok(changed) => changed,
                Err(limit) => return Ok(Err(limit)),
            };
            // Written even when empty the first time: the survey then has participants.
            if !changed && !matches!(mode, PutMode::Create) {
                return Ok(Ok(()));
            }
            let body = encode(&key, &index)?;
            match self.blobs.put(&key, body.into(), mode).await {
                Ok(_) => return Ok(Ok(())),
                Err(Error::Precondition { .. } | Error::AlreadyExists { .. }) => continue,
                Err(error) => return Err(error).context(|| format!("writing {key}")),
            }
        }
    }

    /// Records when a participant's answer was sent (shown in lists; the claim decides).
    pub async fn finished(
        &self,
        survey: &SurveyRef,
        id: &str,
        at: Moment,
    ) -> Result<(), StoreError> {
        self.change(survey, id, |participant| participant.finished = Some(at))
            .await
            .map(|_| ())
    }
}
