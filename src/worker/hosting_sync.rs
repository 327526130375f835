//! Retrying pushes to hosting regions: a push an owner's publish (or edit, close, delete)
//! could not bring to a region waits on the `hosting-syncs` queue at home, and a worker
//! brings that region up to date with the survey as it is then, until it can be reached.

use crate::service::hosting::sync;
use crate::stores::StoreError;
use crate::stores::hosted::HostingSync;
use crate::telemetry::error_chain;

use super::{StepOutcome, Worker};

impl Worker {
    /// Takes one waiting sync and tries its regions again; `None` when none waits.
    pub(super) async fn hosting_sync(&self) -> Result<Option<StepOutcome>, StoreError> {
        let Some(queue) = &self.stores.residency.hosting_syncs else {
            return Ok(None);
        };
        let Some((message, content)) = queue.receive(self.settings.visibility).await? else {
            return Ok(None);
        };
        let Some(request) = queue.readable::<HostingSync>(&message, content).await? else {
            return Ok(Some(StepOutcome::QueuesEmpty));
        };
        let failed = match sync(
            &crate::service::App::new(self.stores.clone()),
            &request.tenant,
            &request.survey,
            &request.regions,
        )
        .await
        {
            Ok(failed) => failed,
            Err(error) => {
                tracing::warn!(error = %error_chain(&error), "a hosting sync failed; it is tried again");
                return Ok(Some(StepOutcome::QueuesEmpty));
            }
        };
        if failed.is_empty() {
            queue.finish(&message).await?;
            return Ok(Some(StepOutcome::HostingSynced {
                regions: request.regions.len(),
            }));
        }
        // The regions still out of reach, tried again after the visibility timeout.
        let rest = HostingSync {
            regions: failed,
            ..request
        };
        queue
            .replace(&message, &rest, self.settings.visibility)
            .await?;
        Ok(Some(StepOutcome::QueuesEmpty))
    }
}
