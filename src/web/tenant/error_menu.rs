//! Error pages of the tenant site keep its menu: a signed-in member who follows a bad link
//! still sees where they can go, as on every other page of the site.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;

use super::session::{session_id, signed_in};
use crate::web::{State, WebError};

/// Renders the tenant site's error pages again with its menu when a member is signed in.
/// Only error responses pay for the session lookup.
pub async fn with_menu(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let response = next.call(request).await?.map_into_boxed_body();
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return Ok(response);
    }
    let Some(state) = response.request().app_data::<State>().cloned() else {
        return Ok(response);
    };
    let Some(id) = session_id(response.request(), &state) else {
        return Ok(response);
    };
    let Some(error) = response
        .response()
        .error()
        .and_then(|error| error.as_error::<WebError>())
    else {
        return Ok(response);
    };
    // A failed lookup keeps the page as it was: the error already being shown matters more.
    let Ok(Some(member)) = signed_in(&state, &id).await else {
        return Ok(response);
    };
    let page = error.page(Some((member.role, member.session.csrf.clone())));
    let (request, _) = response.into_parts();
    Ok(ServiceResponse::new(request, page))
}
