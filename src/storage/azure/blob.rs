//! `BlobStore` over one Azure Blob Storage container, through the official SDK.

use std::fmt;
use std::num::NonZero;
use std::time::SystemTime;

use async_trait::async_trait;
use azure_core::http::Etag;
use azure_storage_blob::models::{
    BlobClientDeleteOptions, BlobClientDownloadOptions, BlobContainerClientListBlobsOptions,
    BlockBlobClientUploadOptions,
};
use azure_storage_blob::{BlobClient, BlobContainerClient};
use bytes::Bytes;
use futures_util::StreamExt;

use super::{Failure, backend, failure};
use crate::storage::{
    Blob, BlobMeta, BlobStore, ETag, Error, ListPage, ListRequest, Operation, PutMode, Result,
    TransactionCounter, check_key,
};

/// One request moves a whole blob: ours are documents, far below this.
const ONE_REQUEST: usize = 256 * 1024 * 1024;
const ONE_DOWNLOAD: NonZero<usize> = NonZero::new(ONE_REQUEST).expect("non-zero");
const ONE_UPLOAD: NonZero<u64> = NonZero::new(ONE_REQUEST as u64).expect("non-zero");

/// Blobs in one container of an Azure Storage account.
pub struct AzureBlobStore {
    container: BlobContainerClient,
    counter: TransactionCounter,
}

impl fmt::Debug for AzureBlobStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The URL only: the SAS is added per request, never stored in it.
        f.debug_struct("AzureBlobStore")
            .field("container", &self.container.url().as_str())
            .finish_non_exhaustive()
    }
}

impl AzureBlobStore {
    pub(super) fn new(container: BlobContainerClient) -> Self {
        Self {
            container,
            counter: TransactionCounter::default(),
        }
    }

    fn blob(&self, key: &str) -> BlobClient {
        // The SDK percent-encodes the whole key as one path segment (`/` becomes `%2F`); the
        // service decodes it back, so the blob's name is the key exactly.
        self.container.blob_client(key)
    }
}

fn meta(
    key: &str,
    etag: Option<Etag>,
    last_modified: Option<time::OffsetDateTime>,
    size: u64,
) -> Result<BlobMeta> {
    let etag = etag.ok_or_else(|| Error::backend(format!("no ETag came back for {key:?}")))?;
    Ok(BlobMeta {
        key: key.to_owned(),
        etag: ETag::new(etag.to_string()),
        last_modified: last_modified.map_or_else(SystemTime::now, SystemTime::from),
        size,
    })
}

#[async_trait]
impl BlobStore for AzureBlobStore {
    async fn get(&self, key: &str) -> Result<Blob> {
        check_key(key)?;
        self.counter.record(Operation::Get);
        let options = BlobClientDownloadOptions {
            partition_size: Some(ONE_DOWNLOAD),
            ..Default::default()
        };
        let response =
            self.blob(key)
                .download(Some(options))
                .await
                .map_err(|error| match failure(&error) {
                    Failure::NotFound => Error::blob_not_found(key),
                    _ => backend(error),
                })?;
        let properties = response.properties;
        let body = response.body.collect().await.map_err(backend)?;
        let size = body.len() as u64;
        Ok(Blob {
            meta: meta(key, properties.etag, properties.last_modified, size)?,
            body,
        })
    }

    async fn put(&self, key: &str, body: Bytes, mode: PutMode) -> Result<BlobMeta> {
        check_key(key)?;
        self.counter.record(Operation::Put);
        let size = body.len() as u64;
        let mut options = BlockBlobClientUploadOptions {
            partition_size: Some(ONE_UPLOAD),
            ..Default::default()
        };
        match &mode {
            PutMode::Overwrite => {}
            PutMode::Create => options.if_none_match = Some(Etag::from("*")),
            PutMode::Update(etag) => options.if_match = Some(Etag::from(etag.as_str())),
        }
        let written = self
            .blob(key)
            .upload(body.into(), Some(options))
            .await
            .map_err(|error| match (failure(&error), &mode) {
                // The service says 409 BlobAlreadyExists to a create-only put; 412 is possible
                // through some proxies.
                (Failure::Conflict | Failure::Precondition, PutMode::Create) => {
                    Error::AlreadyExists { key: key.into() }
                }
                // If-Match on a missing blob fails its condition, as on every other backend.
                (Failure::Precondition | Failure::NotFound, PutMode::Update(_)) => {
                    Error::Precondition { key: key.into() }
                }
                _ => backend(error),
            })?;
        meta(key, written.etag, written.last_modified, size)
    }

    async fn delete(&self, key: &str, if_match: Option<&ETag>) -> Result<()> {
        check_key(key)?;
        self.counter.record(Operation::Delete);
        let options = BlobClientDeleteOptions {
            if_match: if_match.map(|etag| Etag::from(etag.as_str())),
            ..Default::default()
        };
        self.blob(key)
            .delete(Some(options))
            .await
            .map_err(|error| match failure(&error) {
                Failure::NotFound => Error::blob_not_found(key),
                Failure::Precondition => Error::Precondition { key: key.into() },
                _ => backend(error),
            })?;
        Ok(())
    }

    async fn list(&self, request: &ListRequest) -> Result<ListPage> {
        self.counter.record(Operation::List);
        let options = BlobContainerClientListBlobsOptions {
            prefix: Some(request.prefix.clone()).filter(|prefix| !prefix.is_empty()),
            marker: request.continuation.clone(),
            maxresults: i32::try_from(request.effective_page_size()).ok(),
            ..Default::default()
        };
        let mut pages = self
            .container
            .list_blobs(Some(options))
            .map_err(backend)?
            .into_pages();
        // One page is one transaction: only the first is read, its marker is the token.
        let Some(page) = pages.next().await else {
            return Ok(ListPage::default());
        };
        let listing = page.map_err(backend)?.into_model().map_err(backend)?;
        let items = listing
            .blob_items
            .into_iter()
            .filter_map(|item| {
                let key = item.name?;
                let properties = item.properties?;
                meta(
                    &key,
                    properties.etag,
                    properties.last_modified,
                    properties.content_length.unwrap_or(0),
                )
                .ok()
            })
            .collect();
        Ok(ListPage {
            items,
            continuation: listing.next_marker.filter(|marker| !marker.is_empty()),
        })
    }

    fn transactions(&self) -> &TransactionCounter {
        &self.counter
    }
}
