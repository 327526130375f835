//! Sending mailings: a worker takes a mailing's message, walks the survey's participants a
//! page at a time from where the mailing got, and sends to each one it goes to, at most
//! `rate` a second. Each send is recorded on the participant (the mailing's id) before the
//! message ends (see `mail::once`), so no one gets a mailing twice, whichever worker is killed
//! when. After each page the mailing records how far it got and the message stays hidden a
//! while longer; a killed worker's message reappears and another goes on from there. Those
//! the server could not take for now get another pass later, up to `MAX_PASSES`.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use time::OffsetDateTime;
use tokio::sync::Mutex;

use super::mailer::MailerSettings;
use crate::domain::Survey;
use crate::domain::mailing::{MAX_PASSES, MailingKind, MailingState, Templates, Values, goes_to};
use crate::domain::participant::Participant;
use crate::mail::{Lane, Outcome, Sender, letter};
use crate::storage::Message;
use crate::stores::mailings::MailingMessage;
use crate::stores::participants::Mark;
use crate::stores::{Panel, StoreError, Stores};

/// Participants read at a time (the mailing records its progress after each page).
const PAGE: usize = 50;

/// Takes the next mailing and sends it; whether there was one.
pub async fn step(
    stores: &Stores,
    sender: &Sender,
    settings: &MailerSettings,
    stop: &tokio::sync::watch::Receiver<bool>,
) -> Result<bool, StoreError> {
    let queue = stores.panel.mailings.queue();
    let Some((message, content)) = queue
        .receive::<MailingMessage>(settings.mailing_visibility)
        .await?
    else {
        return Ok(false);
    };
    let Some(named) = queue.readable(&message, content).await? else {
        return Ok(true);
    };
    send(stores, sender, settings, stop, message, named).await?;
    Ok(true)
}

/// Sends mailings until the worker stops.
pub async fn run(stores: Stores, settings: MailerSettings, mut looping: super::idle::Looping) {
    let (Some(sender), Some(_)) = (settings.sender.clone(), settings.site.clone()) else {
        // Without a sender or the site's address (for the links) nothing can be sent.
        return looping.until_stopped().await;
    };
    while looping.going() {
        // Each mailing resumes where it stopped after a pause.
        let sent = step(&stores, &sender, &settings, &looping.stop);
        let found = looping.unless_paused(sent).await;
        looping
            .rest_after(found, "a mailing step", Duration::from_secs(2))
            .await;
    }
}

/// What one participant's send came to.
enum Sent {
    Yes,
    Not,
    Bounced,
    Deferred,
}

/// What a mailing needs to write its letters.
struct Writer {
    survey: Arc<Survey>,
    /// Worked out once per mailing, not per letter.
    at: crate::domain::SurveyRef,
    default: crate::domain::language::LanguageTag,
    survey_url: String,
    templates: Templates,
    kind: MailingKind,
    mailing: String,
    host: String,
    /// Who the letters say added the address: the tenant's name as its members gave it.
    sent_by: String,
}

async fn send(
    stores: &Stores,
    sender: &Sender,
    settings: &MailerSettings,
    stop: &tokio::sync::watch::Receiver<bool>,
    mut message: Message,
    named: MailingMessage,
) -> Result<(), StoreError> {
    let queue = stores.panel.mailings.queue();
    let Some(survey) = stores
        .catalog
        .surveys
        .get(&named.tenant, &named.survey)
        .await?
    else {
        return queue.finish(&message).await;
    };
    let at = survey.survey_ref();
    let Some((mut mailing, mut etag)) = stores.panel.mailings.get(&at, &named.id).await? else {
        return queue.finish(&message).await;
    };
    if mailing.state == MailingState::Finished {
        return queue.finish(&message).await;
    }
    let site = settings.site.clone().unwrap_or_default();
    let host = url::Url::parse(&site)
        .ok()
        .and_then(|url| url.host_str().map(str::to_owned))
        .unwrap_or_else(|| "canvass.invalid".into());
    // The organisation by its name ("Acme Research"), not its address's slug.
    let sent_by = match stores.catalog.tenants.get(&named.tenant).await? {
        Some(tenant) => tenant.name.clone(),
        None => named.tenant.to_string(),
    };
    let writer = Arc::new(Writer {
        sent_by,
        templates: stores.panel.mailings.templates(&at).await?.0,
        kind: mailing.kind,
        mailing: mailing.id.clone(),
        at: at.clone(),
        default: survey.offered_languages().remove(0),
        survey_url: format!("{site}/s/{}/{}", survey.tenant, survey.slug),
        survey: survey.clone(),
        host,
    });
    let lanes: Arc<Mutex<Vec<Lane>>> = Arc::new(Mutex::new(Vec::new()));
    let pace = settings.mailing_rate.map(|rate| {
        let mut interval =
            tokio::time::interval(Duration::from_secs_f64(1.0 / f64::from(rate.max(1))));
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Arc::new(Mutex::new(interval))
    });
    let outcome = loop {
        if *stop.borrow() {
            // Another worker goes on from the recorded page once the message reappears.
            break Ok(());
        }
        let page = stores
            .panel
            .participants
            .page(&at, None, mailing.cursor.as_deref(), PAGE)
            .await?;
        // Reached by this mailing before (by a worker killed before it recorded the page):
        // counted again here, so the count is exact whatever was killed when.
        let reached = page
            .participants
            .iter()
            .filter(|p| p.mail.mailings.contains(&mailing.id))
            .count() as u64;
        mailing.sent += reached;
        let due: Vec<Participant> = page
            .participants
            .into_iter()
            .filter(|participant| goes_to(mailing.kind, &mailing.id, participant))
            .collect();
        let emails: Vec<_> = due.iter().map(|p| &p.person.email).collect();
        let opted_out = stores.panel.mailings.opted_out(&at.tenant, &emails).await?;
        let mut to_send = Vec::with_capacity(due.len());
        for (participant, opted_out) in due.into_iter().zip(opted_out) {
            match opted_out {
                true => {
                    let now = OffsetDateTime::now_utc();
                    stores
                        .panel
                        .participants
                        .set_mark(&at, Mark::OptedOut, &participant.id)
                        .await?;
                    stores
                        .panel
                        .participants
                        .change_if(&at, &participant.id, |p| {
                            p.mail.opted_out.is_none() && {
                                p.mail.opted_out = Some(now);
                                true
                            }
                        })
                        .await?;
                }
                false => to_send.push(participant),
            }
        }
        let results: Vec<Result<Sent, StoreError>> = futures_util::stream::iter(to_send)
            .map(|participant| {
                let (lanes, pace, writer) = (lanes.clone(), pace.clone(), writer.clone());
                async move {
                    if let Some(pace) = &pace {
                        pace.lock().await.tick().await;
                    }
                    let mut lane = lanes.lock().await.pop().unwrap_or_else(|| sender.lane());
                    let sent =
                        send_one(&stores.panel, sender, &mut lane, &writer, &participant).await;
                    lanes.lock().await.push(lane);
                    sent
                }
            })
            .buffer_unordered(settings.mailing_lanes.max(1))
            .collect()
            .await;
        let mut failed = None;
        for result in results {
            match result {
                Ok(Sent::Yes) => mailing.sent += 1,
                Ok(Sent::Bounced) => mailing.bounced += 1,
                Ok(Sent::Deferred) => mailing.deferred += 1,
                Ok(Sent::Not) => {}
                Err(error) => failed = Some(error),
            }
        }
        if let Some(error) = failed {
            // Left as recorded: the next try sends to those this page did not reach.
            break Err(error);
        }
        mailing.cursor = page.next.clone();
        let finished = page.next.is_none();
        if finished {
            if mailing.deferred > 0 && mailing.pass < MAX_PASSES {
                // The next pass counts everyone it reached again, from the start.
                mailing.pass += 1;
                mailing.deferred = 0;
                mailing.sent = 0;
            } else {
                mailing.state = MailingState::Finished;
                mailing.finished = Some(OffsetDateTime::now_utc());
            }
        }
        let Some(saved) = stores.panel.mailings.save(&at, &mailing, etag).await? else {
            // Another worker took the mailing over (this one's hold lapsed): it goes on.
            tracing::warn!(mailing = %mailing.id, "another worker took over a mailing");
            break Ok(());
        };
        etag = saved;
        if mailing.state == MailingState::Finished {
            tracing::info!(mailing = %mailing.id, sent = mailing.sent, bounced = mailing.bounced, "a mailing finished");
            queue.finish(&message).await?;
            break Ok(());
        }
        if finished {
            // Another pass, later, for those the server could not take this time.
            queue.replace(&message, &named, settings.pass_wait).await?;
            break Ok(());
        }
        queue
            .extend(&mut message, settings.mailing_visibility)
            .await?;
    };
    for mut lane in lanes.lock().await.drain(..) {
        lane.close().await;
    }
    outcome
}

/// Writes and sends one participant's letter, recording it on them first.
async fn send_one(
    stores: &Panel,
    sender: &Sender,
    lane: &mut Lane,
    writer: &Writer,
    participant: &Participant,
) -> Result<Sent, StoreError> {
    let (survey, at, survey_url) = (&writer.survey, &writer.at, &writer.survey_url);
    let language = participant.person.language.as_ref();
    let template = writer
        .templates
        .for_language(writer.kind, language, &writer.default);
    let tag = language.unwrap_or(&writer.default).to_string();
    let title = survey.text_in(&tag, "title", &survey.title);
    let link = crate::links::personal(survey_url, &participant.link);
    let filled = template.fill(&Values::of(participant, title, link.clone()));
    let message_id = format!("<{}.{}@{}>", writer.mailing, participant.id, writer.host);
    let opt_out = crate::links::opt_out(survey_url, &participant.link);
    let letter = letter(
        &participant.person.email,
        &filled,
        &writer.sent_by,
        &opt_out,
        message_id,
    );
    let message = match sender.letter(&letter) {
        Ok(message) => message,
        Err(error) => {
            tracing::error!(%error, participant = %participant.id, "a mailing's letter could not be written");
            return Ok(Sent::Bounced);
        }
    };
    let (kind, mailing) = (writer.kind, writer.mailing.clone());
    let now = OffsetDateTime::now_utc();
    let invited = (kind == MailingKind::Invitation).then_some(Mark::Invited);
    let record = async {
        marked_then_changed(stores, at, invited, &participant.id, |p| {
            if !goes_to(kind, &mailing, p) {
                return false;
            }
            p.mail.mailings.push(mailing.clone());
            match kind {
                MailingKind::Invitation => p.mail.invited = Some(now),
                MailingKind::Reminder => {
                    p.mail.reminded += 1;
                    p.mail.last_reminded = Some(now);
                }
            }
            true
        })
        .await
    };
    let outcome = match lane.send_once(&message, record).await {
        Ok(outcome) => outcome,
        Err(error) => {
            tracing::warn!(%error, "the mail server could not be reached for a mailing");
            return Ok(Sent::Deferred);
        }
    };
    match outcome {
        Outcome::Sent => Ok(Sent::Yes),
        Outcome::Declined => {
            settle_invited(stores, at, kind, &participant.id).await?;
            Ok(Sent::Not)
        }
        Outcome::NotRecorded(error) => Err(error),
        Outcome::Refused {
            reason,
            permanent,
            recorded,
        } => {
            let mailing = writer.mailing.clone();
            let bounced = permanent.then_some(Mark::Bounced);
            marked_then_changed(stores, at, bounced, &participant.id, |p| {
                let mut changed = false;
                if recorded && p.mail.mailings.contains(&mailing) {
                    p.mail.mailings.retain(|id| *id != mailing);
                    match kind {
                        MailingKind::Invitation => p.mail.invited = None,
                        MailingKind::Reminder => {
                            p.mail.reminded = p.mail.reminded.saturating_sub(1)
                        }
                    }
                    changed = true;
                }
                if permanent && p.mail.bounced.is_none() {
                    p.mail.bounced = Some(now);
                    changed = true;
                }
                changed
            })
            .await?;
            settle_invited(stores, at, kind, &participant.id).await?;
            match permanent {
                true => {
                    tracing::warn!(%reason, participant = %participant.id, "a participant's mail server refused a mailing for good");
                    Ok(Sent::Bounced)
                }
                false => {
                    tracing::warn!(%reason, participant = %participant.id, "a mailing's message waits for the next pass");
                    Ok(Sent::Deferred)
                }
            }
        }
    }
}

/// Sets `mark` (if any) on participant `id`, then changes their document where `change` says
/// so. The marker first: the document then says so, or the next try does (or undoes it).
async fn marked_then_changed(
    stores: &Panel,
    at: &crate::domain::SurveyRef,
    mark: Option<Mark>,
    id: &str,
    change: impl Fn(&mut Participant) -> bool,
) -> Result<bool, StoreError> {
    if let Some(mark) = mark {
        stores.participants.set_mark(at, mark, id).await?;
    }
    stores.participants.change_if(at, id, change).await
}

/// Removes the invited marker an invitation set for a send that did not happen, unless the
/// participant is invited all the same.
async fn settle_invited(
    stores: &Panel,
    at: &crate::domain::SurveyRef,
    kind: MailingKind,
    id: &str,
) -> Result<(), StoreError> {
    if kind != MailingKind::Invitation {
        return Ok(());
    }
    let invited = stores
        .participants
        .get(at, id)
        .await?
        .is_some_and(|p| p.mail.invited.is_some());
    match invited {
        true => Ok(()),
        false => stores.participants.clear_mark(at, Mark::Invited, id).await,
    }
}
