//! The mailer: sends queued email, a few at a time, beside the answer loop (a slow mail server
//! never slows counting). At least once: a message is deleted only after the server took it,
//! when the server refused it for good (a 5xx reply, logged), or when given up a day after it
//! was queued; any other failure waits longer each time (5 s, 20 s, 80 s, ... at most 5 hours),
//! as webhook deliveries do.

use std::time::Duration;

use futures_util::future::join_all;
use time::OffsetDateTime;

use std::collections::BTreeMap;

use super::mailer::MailerSettings;
use crate::domain::account::Email;
use crate::domain::member::Notify;
use crate::domain::webhook::{GIVE_UP_AFTER, retry_delay};
use crate::domain::{Answer, SurveySlug, TenantSlug};
use crate::mail::{Sender, responses_message};
use crate::storage::Message;
use crate::stores::mail::MailMessage;
use crate::stores::{Panel, StoreError, Stores};

/// Sends the messages that are due now (up to `concurrency`); returns how many it tried.
pub async fn step(
    stores: &Panel,
    sender: &Sender,
    settings: &MailerSettings,
) -> Result<usize, StoreError> {
    // Hidden long enough for the SMTP timeout (20 s) and the bookkeeping after it.
    let visibility = Duration::from_secs(60);
    let due = stores
        .mail
        .queue()
        .receive_many::<MailMessage>(settings.concurrency.max(1), visibility)
        .await?;
    let tried = due.len();
    let sends = due
        .into_iter()
        .map(|(message, content)| handle(stores, sender, settings, message, content));
    for outcome in join_all(sends).await {
        outcome?;
    }
    Ok(tried)
}

/// Sends until the worker stops, waiting a little when nothing is due. Without a sender it
/// only waits for the stop.
pub async fn run(stores: Stores, settings: MailerSettings, mut looping: super::idle::Looping) {
    let Some(sender) = settings.sender.clone() else {
        return looping.until_stopped().await;
    };
    let mut last_digest: Option<tokio::time::Instant> = None;
    while looping.going() {
        let sent = async {
            if last_digest.is_none_or(|at| at.elapsed() >= settings.digest_check) {
                last_digest = Some(tokio::time::Instant::now());
                if let Err(error) = super::digests::send_due(&stores, &settings).await {
                    let error = crate::telemetry::error_chain(&error);
                    tracing::error!(%error, "making daily digests failed");
                }
            }
            let tried = step(&stores.panel, &sender, &settings).await;
            tried.map(|tried| tried > 0)
        };
        let found = looping.unless_paused(sent).await;
        looping
            .rest_after(found, "a mail step", Duration::from_secs(1))
            .await;
    }
}

/// Queues a notice of newly counted answers to each member of their tenant who asked for one
/// on each response: one message per member and survey per batch ("3 new responses"). Only
/// when this worker can send email and knows the site's address (else nothing would ever send
/// them, or their links would guess).
pub async fn queue_notices(
    stores: &Stores,
    settings: &MailerSettings,
    listed: &[Answer],
) -> Result<(), StoreError> {
    let Some(site) = settings.links() else {
        return Ok(());
    };
    if listed.is_empty() {
        return Ok(());
    }
    let mut by_survey: BTreeMap<(TenantSlug, SurveySlug), u64> = BTreeMap::new();
    for answer in listed {
        *by_survey
            .entry((answer.tenant.clone(), answer.survey.clone()))
            .or_default() += 1;
    }
    for ((tenant, slug), count) in by_survey {
        let Some(tenant) = stores.catalog.tenants.get(&tenant).await? else {
            continue;
        };
        let wanting: Vec<Email> = stores
            .membership
            .members
            .cached(&tenant)
            .await?
            .members
            .iter()
            .filter(|member| member.notify == Notify::Each)
            .map(|member| member.email.clone())
            .collect();
        if wanting.is_empty() {
            continue;
        }
        let Some(survey) = stores.catalog.surveys.get(&tenant.slug, &slug).await? else {
            continue;
        };
        // An anonymous survey's answers keep only their day: a notice seconds after each
        // would tell its moment (the daily digest counts them).
        if survey.anonymous {
            continue;
        }
        let link = crate::links::responses(site, &slug);
        for email in &wanting {
            let mail = responses_message(email, &survey.title, count, &link);
            stores.panel.mail.send(&mail).await?;
        }
    }
    Ok(())
}

async fn handle(
    stores: &Panel,
    sender: &Sender,
    settings: &MailerSettings,
    message: Message,
    content: Result<MailMessage, String>,
) -> Result<(), StoreError> {
    let queue = stores.mail.queue();
    let Some(queued) = queue.readable(&message, content).await? else {
        return Ok(());
    };
    let error = match sender.send(&queued.mail).await {
        Ok(()) => {
            tracing::info!(subject = %queued.mail.subject, "sent an email");
            return queue.finish(&message).await;
        }
        Err(error) => error,
    };
    let attempt = queued.attempts + 1;
    if error.is_permanent() {
        // A 5xx reply: the server will never take it (no such mailbox, relaying refused).
        tracing::error!(%error, to = %queued.mail.to.as_str(), subject = %queued.mail.subject, attempt, "the mail server refused an email for good; it is not retried");
        return queue.finish(&message).await;
    }
    let age = (OffsetDateTime::now_utc() - queued.queued).unsigned_abs();
    if age >= GIVE_UP_AFTER {
        tracing::error!(%error, subject = %queued.mail.subject, attempt, "gave up sending an email");
        return queue.finish(&message).await;
    }
    tracing::warn!(%error, subject = %queued.mail.subject, attempt, "sending an email failed; it will be retried");
    let wait = retry_delay(attempt).mul_f64(settings.retry_scale);
    let again = MailMessage {
        attempts: attempt,
        ..queued
    };
    queue.replace(&message, &again, wait).await
}
