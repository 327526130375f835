//! Addresses of the site's pages that are handed out away from the site (in email, from the
//! shell): one place that knows these routes, so a link always leads where its page is.

use crate::domain::SurveySlug;

/// The page that accepts an invitation.
pub fn invitation(site: &str, token: &str) -> String {
    format!("{site}/tenant/join/{token}")
}

/// The page that sets a new password.
pub fn password_reset(site: &str, token: &str) -> String {
    format!("{site}/tenant/reset-password/{token}")
}

/// A survey's responses on the tenant site.
pub fn responses(site: &str, survey: &SurveySlug) -> String {
    format!("{site}/tenant/surveys/{survey}/responses")
}

/// A participant's personal link to a survey (at `survey_url`, the survey's address).
pub fn personal(survey_url: &str, link: &str) -> String {
    format!("{survey_url}/p/{link}")
}

/// Where a participant stops mail from the survey's tenant (`survey_url` as for `personal`).
pub fn opt_out(survey_url: &str, link: &str) -> String {
    format!("{survey_url}/p/{link}/opt-out")
}

/// Where a member downloads the file a response gave to a file question (the path, as
/// downloads and exports carry it: it leads to a short-lived signed link once signed in).
pub fn file_download(
    survey: &SurveySlug,
    reference: crate::domain::Reference,
    question: &str,
) -> String {
    format!("/tenant/surveys/{survey}/responses/ref/{reference}/files/{question}")
}
