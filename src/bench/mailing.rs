//! `canvass bench mailing`: an invitation mailing to N participants through an SMTP server
//! (`--smtp`, a local one such as aiosmtpd), sent as a worker sends it: messages a second at
//! the rate cap asked for (0: uncapped), and the storage transactions each costs.

use std::time::{Duration, Instant};

use super::{BenchError, Scratch, answers, open};
use crate::domain::mailing::{MailingKind, MailingState};
use crate::domain::participant::GivenParticipant;
use crate::mail::Sender;
use crate::worker::mailer::MailerSettings;

/// Sends an invitation to `count` new participants through `smtp`, at most `rate` a second
/// (0: as fast as the server takes them).
pub(super) async fn run(count: u64, smtp: &str, rate: u32) -> Result<(), BenchError> {
    let dir = Scratch::new();
    let stores = open(&dir, 1).await?;
    let survey = answers::first_survey(&stores.catalog).await?;
    let sender = Sender::new(smtp, "Canvass bench <bench@localhost>")
        .map_err(|error| BenchError::Setup(error.to_string()))?;
    eprintln!("adding {count} participants");
    let given = (0..count)
        .map(|n| {
            let one = GivenParticipant {
                email: format!("person{n:07}@example.com"),
                first_name: Some(format!("First{n}")),
                ..GivenParticipant::default()
            };
            (n as usize + 1, one)
        })
        .collect();
    crate::service::participants::add(&crate::service::App::new(stores.clone()), &survey, given)
        .await?
        .map_err(|refusal| BenchError::Setup(refusal.to_string()))?;
    let filed = survey.survey_ref();
    let mailing = stores
        .panel
        .mailings
        .start(&filed, MailingKind::Invitation, "bench")
        .await
        .map_err(|error| BenchError::Setup(error.to_string()))?;
    let settings = MailerSettings {
        sender: Some(sender.clone()),
        site: Some("http://127.0.0.1:8080".into()),
        mailing_rate: (rate > 0).then_some(rate),
        ..MailerSettings::default()
    };
    let cap = match rate {
        0 => "uncapped".to_owned(),
        rate => format!("at most {rate}/s"),
    };
    eprintln!("sending the invitation to {count} participants through {smtp}, {cap}");
    let before = stores.operations.storage.transactions();
    let started = Instant::now();
    let (_stop, stop) = tokio::sync::watch::channel(false);
    let sending = {
        let stores = stores.clone();
        tokio::spawn(async move {
            crate::worker::mailings::step(&stores, &sender, &settings, &stop).await
        })
    };
    // Progress while it sends: the mailing records how far it got after each page.
    let done = loop {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let (now, _) = stores
            .panel
            .mailings
            .get(&filed, &mailing.id)
            .await?
            .ok_or_else(|| BenchError::Setup("the mailing vanished".into()))?;
        eprintln!(
            "  {} of {count} sent ({:.0}/s)",
            now.sent,
            now.sent as f64 / started.elapsed().as_secs_f64()
        );
        if now.state == MailingState::Finished || sending.is_finished() {
            break now;
        }
    };
    sending
        .await
        .map_err(|error| BenchError::Setup(error.to_string()))??;
    let took = started.elapsed().as_secs_f64();
    let spent = stores.operations.storage.transactions().since(&before);
    println!("mailing (local backend, one survey, {cap}):");
    println!(
        "  {} of {count} invitations sent in {took:.1} s: {:.0} messages/s, {:.2} storage transactions each ({} bounced, {} waiting)",
        done.sent,
        done.sent as f64 / took,
        spent.total() as f64 / done.sent.max(1) as f64,
        done.bounced,
        done.deferred,
    );
    Ok(())
}
