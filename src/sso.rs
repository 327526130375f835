//! Single sign-on through a tenant's own OpenID Connect provider, with the openidconnect
//! crate: discovery, the authorization code flow with PKCE, a random state and nonce, and the
//! ID token's signature, issuer, audience, expiry and nonce checked before its (verified)
//! email address is believed. Every request to the provider goes through `outbound`: https to
//! public addresses unless the operator allows the host, pinned, no redirects followed.

use std::time::Duration;

use openidconnect::core::{CoreAuthenticationFlow, CoreClient, CoreProviderMetadata};
use openidconnect::{
    AuthorizationCode, ClientId, ClientSecret, CsrfToken, IssuerUrl, Nonce, OAuth2TokenResponse,
    PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope, TokenResponse,
};
use serde::{Deserialize, Serialize};

use crate::domain::account::Email;
use crate::domain::member::Role;
use crate::outbound::AllowedHosts;

/// The longest wait for one answer of the provider.
const TIMEOUT: Duration = Duration::from_secs(10);
/// The largest answer of the provider read (discovery documents and key sets are small).
const MAX_ANSWER: usize = 1024 * 1024;
/// Longest issuer URL, client id and client secret accepted.
pub const MAX_FIELD: usize = 2_000;

/// A tenant's provider, as its owner set it up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SsoSettings {
    /// The issuer URL (discovery is at `{issuer}/.well-known/openid-configuration`).
    pub issuer: String,
    /// The client id the provider gave Canvass.
    pub client_id: String,
    /// The client secret it gave.
    pub client_secret: String,
    /// Whether members other than owners must sign in through it (owners keep their password,
    /// so a broken provider never locks the tenant out).
    #[serde(default)]
    pub required: bool,
}

impl SsoSettings {
    /// Whether a member of `role` must sign in through the provider (never an owner: a broken
    /// provider must not lock the tenant out).
    pub fn binds(&self, role: Role) -> bool {
        self.required && role != Role::Owner
    }
}

/// Why single sign-on failed, in words for the person signing in or the owner setting it up.
#[derive(Debug, thiserror::Error)]
pub enum SsoError {
    /// The provider's settings cannot be used.
    #[error("{0}")]
    Settings(String),
    /// The provider could not be reached or answered wrongly.
    #[error("the identity provider could not be used: {0}")]
    Provider(String),
    /// The answer that came back is not the one this sign-in asked for, or its token does not
    /// verify.
    #[error("the sign-in could not be verified: {0}")]
    Refused(String),
}

/// What a sign-in in progress must remember until the provider sends the person back: kept in
/// an encrypted cookie, never on the server.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Flow {
    /// The state sent (the answer must carry it back).
    pub state: String,
    /// The nonce sent (the ID token must carry it).
    pub nonce: String,
    /// The PKCE verifier of the challenge sent.
    pub verifier: String,
    /// The tenant being signed in to.
    pub tenant: String,
    /// The invitation being accepted, if any (its link's token).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invitation: Option<String>,
}

/// A provider found by discovery, ready for sign-ins.
pub struct Provider {
    metadata: CoreProviderMetadata,
    settings: SsoSettings,
    allowed: AllowedHosts,
}

/// Sends one of the library's requests through `outbound`.
async fn send(
    allowed: &AllowedHosts,
    request: openidconnect::HttpRequest,
) -> Result<openidconnect::HttpResponse, SsoHttpError> {
    let uri = request.uri().to_string();
    let pinned = crate::outbound::pinned(&uri, allowed, TIMEOUT)
        .await
        .map_err(SsoHttpError)?;
    let (parts, body) = request.into_parts();
    let mut answer = pinned
        .client
        .request(parts.method, pinned.url)
        .headers(parts.headers)
        .body(body)
        .send()
        .await
        .map_err(|error| SsoHttpError(crate::telemetry::error_chain(&error)))?;
    let mut response = openidconnect::http::Response::builder().status(answer.status());
    for (name, value) in answer.headers() {
        response = response.header(name, value);
    }
    // Read a chunk at a time, so an answer over the limit is refused before it is all held.
    let too_large = || SsoHttpError(format!("an answer over {MAX_ANSWER} bytes"));
    if answer
        .content_length()
        .is_some_and(|length| length > MAX_ANSWER as u64)
    {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = answer
        .chunk()
        .await
        .map_err(|error| SsoHttpError(error.to_string()))?
    {
        if body.len() + chunk.len() > MAX_ANSWER {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    response
        .body(body)
        .map_err(|error| SsoHttpError(error.to_string()))
}

/// Why a request to the provider failed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SsoHttpError(String);

impl Provider {
    /// Finds the provider by discovery; fails with the reason when it cannot be used.
    pub async fn discover(
        settings: &SsoSettings,
        allowed: &AllowedHosts,
    ) -> Result<Self, SsoError> {
        for (field, value) in [
            ("issuer URL", &settings.issuer),
            ("client id", &settings.client_id),
            ("client secret", &settings.client_secret),
        ] {
            if value.trim().is_empty() || value.len() > MAX_FIELD {
                return Err(SsoError::Settings(format!(
                    "Give the {field} (at most {MAX_FIELD} characters)."
                )));
            }
        }
        let issuer = IssuerUrl::new(settings.issuer.trim().trim_end_matches('/').to_owned())
            .map_err(|_| SsoError::Settings("The issuer URL is not a URL.".into()))?;
        let http = |request| send(allowed, request);
        let metadata = CoreProviderMetadata::discover_async(issuer, &http)
            .await
            .map_err(|error| SsoError::Provider(crate::telemetry::error_chain(&error)))?;
        Ok(Self {
            metadata,
            settings: settings.clone(),
            allowed: allowed.clone(),
        })
    }

    fn client(
        &self,
        redirect: &str,
    ) -> Result<
        CoreClient<
            openidconnect::EndpointSet,
            openidconnect::EndpointNotSet,
            openidconnect::EndpointNotSet,
            openidconnect::EndpointNotSet,
            openidconnect::EndpointMaybeSet,
            openidconnect::EndpointMaybeSet,
        >,
        SsoError,
    > {
        let redirect = RedirectUrl::new(redirect.to_owned())
            .map_err(|error| SsoError::Settings(error.to_string()))?;
        Ok(CoreClient::from_provider_metadata(
            self.metadata.clone(),
            ClientId::new(self.settings.client_id.trim().to_owned()),
            Some(ClientSecret::new(
                self.settings.client_secret.trim().to_owned(),
            )),
        )
        .set_redirect_uri(redirect))
    }

    /// Starts a sign-in: the provider's address to send the person to, and what to remember.
    pub fn start(
        &self,
        redirect: &str,
        tenant: &str,
        invitation: Option<String>,
    ) -> Result<(String, Flow), SsoError> {
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let (url, state, nonce) = self
            .client(redirect)?
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .add_scope(Scope::new("email".into()))
            .set_pkce_challenge(challenge)
            .url();
        let flow = Flow {
            state: state.secret().clone(),
            nonce: nonce.secret().clone(),
            verifier: verifier.secret().clone(),
            tenant: tenant.to_owned(),
            invitation,
        };
        Ok((url.to_string(), flow))
    }

    /// Finishes a sign-in: checks the state, trades the code (with the PKCE verifier) for
    /// tokens, verifies the ID token, and answers its subject's verified email address (from
    /// the ID token, or else from the UserInfo endpoint for the same subject).
    pub async fn finish(
        &self,
        redirect: &str,
        flow: &Flow,
        code: &str,
        state: &str,
    ) -> Result<Email, SsoError> {
        use subtle::ConstantTimeEq;
        if !bool::from(state.as_bytes().ct_eq(flow.state.as_bytes())) {
            return Err(SsoError::Refused(
                "the answer is not for this sign-in".into(),
            ));
        }
        let client = self.client(redirect)?;
        let http = |request| send(&self.allowed, request);
        let tokens = client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .map_err(|error| SsoError::Provider(error.to_string()))?
            .set_pkce_verifier(PkceCodeVerifier::new(flow.verifier.clone()))
            .request_async(&http)
            .await
            .map_err(|error| SsoError::Provider(crate::telemetry::error_chain(&error)))?;
        let id_token = tokens
            .id_token()
            .ok_or_else(|| SsoError::Refused("the provider sent no ID token".into()))?;
        let claims = id_token
            .claims(&client.id_token_verifier(), &Nonce::new(flow.nonce.clone()))
            .map_err(|error| SsoError::Refused(error.to_string()))?;
        let (email, verified) = match claims.email() {
            Some(email) => (email.as_str().to_owned(), claims.email_verified()),
            // Many providers keep scope claims to the UserInfo endpoint (OpenID Connect Core
            // 5.4): ask it, for the same subject.
            None => {
                let info: openidconnect::core::CoreUserInfoClaims = client
                    .user_info(
                        tokens.access_token().clone(),
                        Some(claims.subject().clone()),
                    )
                    .map_err(|error| SsoError::Provider(error.to_string()))?
                    .request_async(&http)
                    .await
                    .map_err(|error| SsoError::Provider(crate::telemetry::error_chain(&error)))?;
                let email = info.email().ok_or_else(|| {
                    SsoError::Refused("the provider gave no email address".into())
                })?;
                (email.as_str().to_owned(), info.email_verified())
            }
        };
        // Only an address the provider vouches for: one it says it has not verified, or says
        // nothing about, could be anyone's (OpenID Connect Core 5.1, `email_verified`).
        if verified != Some(true) {
            return Err(SsoError::Refused(
                "the provider has not said the email address is verified".into(),
            ));
        }
        Email::parse(&email)
            .ok_or_else(|| SsoError::Refused(format!("the provider's address {email} is not one")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(required: bool) -> SsoSettings {
        SsoSettings {
            issuer: "https://id.example.com".into(),
            client_id: "canvass".into(),
            client_secret: "secret".into(),
            required,
        }
    }

    #[test]
    fn a_required_provider_binds_editors_and_viewers_but_never_owners() {
        for role in [Role::Owner, Role::Editor, Role::Viewer] {
            assert_eq!(settings(true).binds(role), role != Role::Owner, "{role:?}");
            assert!(!settings(false).binds(role), "{role:?}");
        }
    }
}
