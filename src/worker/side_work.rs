//! A batch's side work: for each newly listed answer, a webhook delivery to each enabled
//! endpoint of its tenant, email notices to members who asked, and segment builds, queued
//! before the answers' messages are deleted.

use std::collections::BTreeSet;

use super::batch::Work;
use super::{Worker, mail};
use crate::domain::{Answer, Reference, SurveyRef};
use crate::stores::StoreError;
use crate::telemetry::error_chain;

impl Worker {
    /// Queues the side work of newly listed answers: a webhook delivery to each enabled
    /// endpoint of their tenant (endpoint lists are cached for a few seconds: most tenants
    /// have none), email notices, and segment builds. Returns the answers whose side work
    /// failed: only their messages are held back for redelivery (where they are listed and
    /// queued again, with the same ids), so one answer's failure never holds up another's.
    pub(super) async fn side_work(
        &self,
        finished: &[Work],
        listed: &[Answer],
        to_build: &[SurveyRef],
    ) -> BTreeSet<(SurveyRef, Reference)> {
        let mut held = BTreeSet::new();
        for answer in listed {
            if let Err(error) = self.queue_deliveries(answer).await {
                let (survey, reference) = (answer.survey_ref(), answer.reference);
                tracing::error!(%survey, %reference, error = %error_chain(&error), "queueing webhook deliveries failed; the answer will be redelivered");
                held.insert((survey, reference));
            }
        }
        let mut surveys: BTreeSet<SurveyRef> = listed.iter().map(Answer::survey_ref).collect();
        surveys.extend(to_build.iter().cloned());
        for survey in surveys {
            let answers: Vec<Answer> = listed
                .iter()
                .filter(|answer| answer.survey_ref() == survey)
                .cloned()
                .collect();
            let outcome = async {
                mail::queue_notices(&self.stores, &self.settings.mailer, &answers).await?;
                if to_build.contains(&survey) {
                    self.stores.operations.segments.request(&survey).await?;
                }
                Ok::<_, StoreError>(())
            };
            if let Err(error) = outcome.await {
                tracing::error!(%survey, error = %error_chain(&error), "queueing notices or a segment build failed; the survey's answers will be redelivered");
                held.extend(
                    finished
                        .iter()
                        .filter(|w| w.answer.survey_ref() == survey)
                        .map(|w| (survey.clone(), w.answer.reference)),
                );
            }
        }
        held
    }

    /// Queues a webhook delivery of one answer to each enabled endpoint of its tenant. An
    /// anonymous survey's answers have none: a delivery, seconds after the answer, would tell
    /// the moment it was given, which its answers do not keep (only their day).
    async fn queue_deliveries(&self, answer: &Answer) -> Result<(), StoreError> {
        let webhooks = &self.stores.operations.webhooks;
        let endpoints = webhooks.cached(&answer.tenant).await?;
        if endpoints.iter().all(|e| e.disabled.is_some()) {
            return Ok(());
        }
        let survey = self
            .stores
            .counted_here(&answer.tenant, &answer.survey)
            .await?;
        if survey.is_some_and(|survey| survey.anonymous) {
            return Ok(());
        }
        for endpoint in endpoints.iter().filter(|e| e.disabled.is_none()) {
            let delivery = crate::stores::webhooks::DeliveryMessage::event(
                &answer.tenant,
                &endpoint.id,
                format!("msg_{}_{}", answer.reference, endpoint.id),
                "response.counted",
                answer,
            );
            webhooks.enqueue(&delivery).await?;
        }
        Ok(())
    }
}
