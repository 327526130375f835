//! The installation's own state as the sites report it: whether storage answers (readiness).

use super::App;

/// Whether storage answers: a blob read (the workers' pause flag) and a queue read (the
/// poison queue's length), side by side; the first failure, in words for the log.
pub async fn storage_answers(app: &App) -> Result<(), String> {
    let stores = app.stores();
    let poison = stores.answering.queues.poison();
    let (blobs, queues) = tokio::join!(
        stores.operations.control.paused(),
        stores.answering.queues.length(poison)
    );
    blobs.map_err(|e| format!("blob storage: {e}"))?;
    queues.map_err(|e| format!("queue storage: {e}"))?;
    Ok(())
}
