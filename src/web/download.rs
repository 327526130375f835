//! Response downloads (CSV and XLSX), answered the same way for the tenant site and the API:
//! streamed, named after the tenant and survey, never cached.

use actix_web::http::header::{CACHE_CONTROL, CONTENT_DISPOSITION};
use actix_web::{HttpResponse, HttpResponseBuilder};
use futures_util::TryStreamExt;
use serde::Deserialize;
use std::sync::Arc;

use crate::domain::Survey;
use crate::export::{SheetFormat, SheetOptions};
use crate::service::{App, StoreError};
use crate::telemetry::error_chain;

/// `?bom=false` leaves out the CSV's byte order mark; `?ids=true` adds a header row of
/// question ids.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DownloadQuery {
    /// Whether a CSV starts with a byte order mark (so spreadsheet programs read it as
    /// UTF-8); `true` when absent.
    bom: Option<bool>,
    /// Whether a header row of question ids comes first; `false` when absent.
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
pub async fn download(
    app: &App,
    survey: Arc<Survey>,
    format: SheetFormat,
    query: &DownloadQuery,
) -> Result<HttpResponse, StoreError> {
    let filename = format!("{}-{}.{}", survey.tenant, survey.slug, format.extension());
    let stream = crate::service::responses::download(app, survey, format, query.options())
        .await?
        .map_err(|error| {
            tracing::error!(error = %error_chain(&error), "streaming a download failed");
            actix_web::error::ErrorInternalServerError("the download stopped")
        });
    Ok(attachment(format, &filename).streaming(stream))
}

/// The survey's responses for a statistics tool: `zip` (R: the CSV and a script), `dta`
/// (Stata) or `sav` (SPSS); `None` for another extension.
pub async fn download_for_tool(
    app: &App,
    survey: Arc<Survey>,
    extension: &str,
) -> Result<Option<HttpResponse>, StoreError> {
    let Some(tool) = crate::export::ToolFile::from_extension(extension) else {
        return Ok(None);
    };
    let stream = crate::service::responses::download_for_tool(app, survey.clone(), tool).await?;
    let content_type = tool.content_type();
    let filename = format!("{}-{}.{extension}", survey.tenant, survey.slug);
    let stream = stream.map_err(|error| {
        tracing::error!(error = %error_chain(&error), "streaming a download failed");
        actix_web::error::ErrorInternalServerError("the download stopped")
    });
    Ok(Some(
        HttpResponse::Ok()
            .content_type(content_type)
            .insert_header((CACHE_CONTROL, "no-store"))
            .insert_header((
                CONTENT_DISPOSITION,
                format!("attachment; filename=\"{filename}\""),
            ))
            .streaming(stream),
    ))
}

/// The start of a download in `format` saved as `filename`: its type, never cached.
pub fn attachment(format: SheetFormat, filename: &str) -> HttpResponseBuilder {
    let mut response = HttpResponse::Ok();
    response
        .content_type(format.content_type())
        .insert_header((CACHE_CONTROL, "no-store"))
        .insert_header((
            CONTENT_DISPOSITION,
            format!("attachment; filename=\"{filename}\""),
        ));
    response
}

/// The XLSForm of `survey` as a download; what it could not carry is named in the
/// `X-Canvass-Skipped` header, `; `-separated (empty when nothing was left out).
pub fn xlsform(survey: &Survey) -> Result<HttpResponse, rust_xlsxwriter::XlsxError> {
    let form = crate::export::xlsform::XlsForm::of(survey);
    let body = form.to_xlsx()?;
    let filename = format!("{}-{}-xlsform.xlsx", survey.tenant, survey.slug);
    Ok(attachment(SheetFormat::Xlsx, &filename)
        .insert_header(("x-canvass-skipped", form.skipped.join("; ")))
        .body(body))
}
