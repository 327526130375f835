//! The export job: runs the next export request, if any, once answers are done, into the
//! tenant's own database or the server's.

use super::{StepOutcome, Worker};
use crate::export::Target;
use crate::stores::StoreError;
use crate::stores::exports::ExportStatus;
use crate::telemetry::error_chain;
use crate::telemetry::metrics::ExportState;

impl Worker {
    /// Runs the next export request, if any: answers come first, exports when they are done.
    pub(super) async fn export(&self) -> Result<StepOutcome, StoreError> {
        let visibility = self.settings.visibility;
        let Some((mut held, request)) = self.stores.operations.exports.receive(visibility).await?
        else {
            return Ok(StepOutcome::QueuesEmpty);
        };
        let job = match request {
            Ok(request) => {
                self.stores
                    .operations
                    .exports
                    .get(&request.tenant, &request.id)
                    .await?
            }
            Err(_) => None,
        };
        let Some(mut job) = job else {
            tracing::warn!(id = %held.message.id, "dropping an export request without a job");
            self.stores.operations.exports.finish(&held.message).await?;
            return Ok(StepOutcome::QueuesEmpty);
        };
        let id = job.id.clone();
        if matches!(job.status, ExportStatus::Done | ExportStatus::Failed) {
            self.stores.operations.exports.finish(&held.message).await?;
            return Ok(StepOutcome::ExportDone { id });
        }
        tracing::info!(tenant = %job.tenant, survey = %job.survey, %id, "exporting");
        // The tenant's own database when it set one, else the server's.
        let own = self
            .stores
            .catalog
            .settings
            .get(&job.tenant)
            .await?
            .export_database_url;
        let target = match (&own, &self.settings.export_database_url) {
            (Some(url), _) => Target::Tenant(url, &self.settings.export_hosts),
            (None, Some(url)) => Target::Server(url),
            (None, None) => Target::Nowhere,
        };
        match crate::export::run(&self.stores, &mut job, target, &mut held).await {
            Ok(()) => crate::telemetry::metrics::export(match job.status {
                ExportStatus::Failed => ExportState::Failed,
                _ => ExportState::Done,
            }),
            // Our own storage hiccuped: leave the request to come back and resume.
            Err(error) if error.is_transient() => {
                crate::telemetry::metrics::export(ExportState::Interrupted);
                tracing::error!(%id, error = %error_chain(&error), "export interrupted; it will resume");
                return Ok(StepOutcome::ExportDone { id });
            }
            Err(error) => {
                crate::telemetry::metrics::export(ExportState::Failed);
                tracing::error!(%id, error = %error_chain(&error), "export failed");
                job.status = ExportStatus::Failed;
                job.error = Some(error.to_string());
                job.finished = Some(time::OffsetDateTime::now_utc());
                self.stores.operations.exports.save(&job).await?;
            }
        }
        self.stores.operations.exports.finish(&held.message).await?;
        Ok(StepOutcome::ExportDone { id })
    }
}
