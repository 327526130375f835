//! The Azure Storage adapter: blobs in one container and queues of one account, through the
//! official SDK crates, so web and worker processes on many machines share one state.
//!
//! Configured by a standard connection string (`CANVASS_AZURE_CONNECTION_STRING`); the
//! container is created once when the storage is opened, queues by their owners at start-up.

mod blob;
mod connection;
mod queue;
mod sas;

use std::sync::Arc;

use azure_core::error::ErrorKind;
use azure_core::http::policies::Policy;
use azure_core::http::{ClientOptions, StatusCode, Url};
use azure_storage_blob::{BlobServiceClient, BlobServiceClientOptions};
use azure_storage_queue::{QueueServiceClient, QueueServiceClientOptions};

pub use blob::AzureBlobStore;
pub use connection::{ConnectionString, ConnectionStringError, Credential};
pub use queue::AzureMessageQueue;

use crate::storage::{Error, Result, Storage};

/// The container every blob lives in.
pub const CONTAINER: &str = "canvass";

/// Opens the account a connection string names and makes sure the container exists.
pub async fn storage(connection_string: &str) -> Result<Storage> {
    let connection = ConnectionString::parse(connection_string)
        .map_err(|error| Error::InvalidArgument(error.to_string()))?;
    // One signer for both services, so they share its minted token.
    let signer: Arc<dyn Policy> = sas::SasPolicy::new(connection.credential);
    let client_options = || ClientOptions {
        per_call_policies: vec![signer.clone()],
        ..Default::default()
    };

    let blob_service = BlobServiceClient::new(
        endpoint(&connection.blob_endpoint)?,
        None,
        Some(BlobServiceClientOptions {
            client_options: client_options(),
            ..Default::default()
        }),
    )
    .map_err(backend)?;
    let container = blob_service.blob_container_client(CONTAINER);
    if let Err(error) = container.create(None).await
        && failure(&error) != Failure::Conflict
    {
        return Err(backend(error));
    }

    let queue_service = QueueServiceClient::new(
        endpoint(&connection.queue_endpoint)?,
        None,
        Some(QueueServiceClientOptions {
            client_options: client_options(),
            ..Default::default()
        }),
    )
    .map_err(backend)?;

    Ok(Storage {
        blobs: Arc::new(AzureBlobStore::new(container)),
        queues: Arc::new(AzureMessageQueue::new(queue_service)),
    })
}

fn endpoint(url: &str) -> Result<Url> {
    Url::parse(url).map_err(|error| {
        Error::InvalidArgument(format!(
            "CANVASS_AZURE_CONNECTION_STRING: endpoint {url:?}: {error}"
        ))
    })
}

/// Wraps an SDK failure as a backend error, with every SAS signature in it blanked: the SDK
/// quotes request URLs in its messages, and a signature is a credential that must not reach
/// logs.
fn backend(error: impl std::error::Error) -> Error {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text = format!("{text}: {cause_text}");
        }
        source = cause.source();
    }
    Error::backend(redact_signatures(&text))
}

fn redact_signatures(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("sig=") {
        let (before, after) = rest.split_at(at + "sig=".len());
        out.push_str(before);
        out.push_str("REDACTED");
        let end = after
            .find(|c: char| c == '&' || c == ')' || c == '"' || c.is_whitespace())
            .unwrap_or(after.len());
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// What a failed call means to the ports, read from its status and the service's error code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Failure {
    QueueNotFound,
    NotFound,
    Conflict,
    Precondition,
    PopReceiptMismatch,
    Other,
}

fn failure(error: &azure_core::Error) -> Failure {
    match (error.http_status(), error_code(error)) {
        (_, Some("PopReceiptMismatch")) => Failure::PopReceiptMismatch,
        (_, Some("QueueNotFound")) => Failure::QueueNotFound,
        (Some(StatusCode::NotFound), _) => Failure::NotFound,
        (Some(StatusCode::Conflict), _) => Failure::Conflict,
        (Some(StatusCode::PreconditionFailed), _) => Failure::Precondition,
        _ => Failure::Other,
    }
}

fn error_code(error: &azure_core::Error) -> Option<&str> {
    match error.kind() {
        ErrorKind::HttpResponse { error_code, .. } => error_code.as_deref(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_never_reach_error_messages() {
        let text =
            "error sending request for url (http://h/c?sv=1&sig=abc%3D&se=2): refused; sig=xyz";
        assert_eq!(
            redact_signatures(text),
            "error sending request for url (http://h/c?sv=1&sig=REDACTED&se=2): refused; sig=REDACTED"
        );
    }
}
