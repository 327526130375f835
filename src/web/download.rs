//! Response downloads (CSV and XLSX), answered the same way for the tenant site and the API:
//! streamed, named after the tenant and survey, never cached.

use actix_web::HttpResponse;
use actix_web::http::header::{CACHE_CONTROL, CONTENT_DISPOSITION};
use futures_util::TryStreamExt;
use serde::Deserialize;
use std::sync::Arc;

use crate::domain::Survey;
use crate::export::SheetOptions;
use crate::stores::Stores;
use crate::telemetry::error_chain;

/// A download's file type.
#[derive(Clone, Copy, Debug)]
pub enum Sheet {
    /// Comma-separated values.
    Csv,
    /// An Excel workbook.
    Xlsx,
}

/// `?bom=false` leaves out the CSV's byte order mark; `?ids=true` adds a header row of
/// question ids.
#[derive(Debug, Default, Deserialize)]
pub struct DownloadQuery {
    bom: Option<bool>,
    ids: Option<bool>,
}

impl DownloadQuery {
    fn options(&self) -> SheetOptions {
        let default = SheetOptions::default();
        SheetOptions {
            bom: self.bom.unwrap_or(default.bom),
            ids: self.ids.unwrap_or(default.ids),
        }
    }
}

/// The survey's responses as a download.
pub fn download(
    stores: Stores,
    survey: Arc<Survey>,
    sheet: Sheet,
    query: &DownloadQuery,
) -> HttpResponse {
    let options = query.options();
    let (extension, content_type) = match sheet {
        Sheet::Csv => ("csv", "text/csv; charset=utf-8"),
        Sheet::Xlsx => (
            "xlsx",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        ),
    };
    let filename = format!("{}-{}.{extension}", survey.tenant, survey.slug);
    let stopped = |error: crate::stores::StoreError| {
        tracing::error!(error = %error_chain(&error), "streaming a download failed");
        actix_web::error::ErrorInternalServerError("the download stopped")
    };
    let mut response = HttpResponse::Ok();
    response
        .content_type(content_type)
        .insert_header((CACHE_CONTROL, "no-store"))
        .insert_header((
            CONTENT_DISPOSITION,
            format!("attachment; filename=\"{filename}\""),
        ));
    match sheet {
        Sheet::Csv => {
            response.streaming(crate::export::csv_stream(stores, survey, options).map_err(stopped))
        }
        Sheet::Xlsx => {
            response.streaming(crate::export::xlsx_stream(stores, survey, options).map_err(stopped))
        }
    }
}
