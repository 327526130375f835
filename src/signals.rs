//! Waiting for the operator to ask the process to stop.

use std::future::Future;

/// Resolves on Ctrl-C (SIGINT) or SIGTERM. The handlers are installed when this is called, not
/// when the future is first polled: a signal that arrives while the process is still starting
/// (opening storage can take a while on a remote account) is kept, and the process then stops
/// cleanly instead of being killed by the signal's default action.
#[cfg(unix)]
pub fn shutdown() -> impl Future<Output = ()> {
    use tokio::signal::unix::{SignalKind, signal};
    let interrupt = signal(SignalKind::interrupt());
    let terminate = signal(SignalKind::terminate());
    async move {
        match (interrupt, terminate) {
            (Ok(mut interrupt), Ok(mut terminate)) => {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
                }
            }
            (Ok(mut only), Err(_)) | (Err(_), Ok(mut only)) => {
                only.recv().await;
            }
            (Err(_), Err(_)) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
}

/// Resolves on Ctrl-C.
#[cfg(not(unix))]
pub fn shutdown() -> impl Future<Output = ()> {
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}
