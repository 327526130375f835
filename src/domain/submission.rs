//! One-time submission tokens: a form carries its answer's reference, signed, so a repeated
//! POST of the same form (double click, browser retry) gives the same answer, not a second one,
//! without a storage write to remember which tokens were used.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::{Reference, SurveySlug, TenantSlug};

type HmacSha256 = Hmac<Sha256>;

/// The server's secret for signing tokens.
#[derive(Clone)]
pub struct SigningKey([u8; 32]);

impl SigningKey {
    /// Wraps 32 secret bytes.
    pub fn new(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    fn mac(&self) -> HmacSha256 {
        // HMAC accepts keys of any length, so this cannot fail for 32 bytes.
        <HmacSha256 as Mac>::new_from_slice(&self.0).expect("HMAC takes any key length")
    }
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKey(..)")
    }
}

/// Why a posted token was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// No token was posted.
    #[error("the form has no submission token")]
    Missing,
    /// The token is not one this server signed for this survey.
    #[error("the submission token is not valid for this survey")]
    Invalid,
}

/// What a form's token stands for: the answer's reference, for one survey.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubmissionToken {
    /// The reference the answer will have.
    pub reference: Reference,
    /// The tenant the form belongs to.
    pub tenant: TenantSlug,
    /// The survey the form belongs to.
    pub survey: SurveySlug,
}

impl SubmissionToken {
    fn payload(&self) -> String {
        format!("{}.{}.{}", self.reference, self.tenant, self.survey)
    }

    /// The token as the form carries it: `reference.tenant.survey.signature`.
    pub fn sign(&self, key: &SigningKey) -> String {
        let payload = self.payload();
        let mut mac = key.mac();
        mac.update(payload.as_bytes());
        let signature = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        format!("{payload}.{signature}")
    }

    /// Checks a posted token against the survey it was posted to.
    pub fn verify(
        key: &SigningKey,
        token: &str,
        tenant: &TenantSlug,
        survey: &SurveySlug,
    ) -> Result<SubmissionToken, TokenError> {
        if token.is_empty() {
            return Err(TokenError::Missing);
        }
        let (payload, signature) = token.rsplit_once('.').ok_or(TokenError::Invalid)?;
        let signature = URL_SAFE_NO_PAD
            .decode(signature)
            .map_err(|_| TokenError::Invalid)?;
        let mut mac = key.mac();
        mac.update(payload.as_bytes());
        // verify_slice compares in constant time.
        mac.verify_slice(&signature)
            .map_err(|_| TokenError::Invalid)?;
        let expected = format!(".{tenant}.{survey}");
        let reference = payload
            .strip_suffix(&expected)
            .and_then(|number| number.parse().ok())
            .ok_or(TokenError::Invalid)?;
        Ok(SubmissionToken {
            reference: Reference(reference),
            tenant: tenant.clone(),
            survey: survey.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token() -> SubmissionToken {
        SubmissionToken {
            reference: Reference(4321),
            tenant: TenantSlug::parse("acme").expect("a slug"),
            survey: SurveySlug::parse("team").expect("a slug"),
        }
    }

    #[test]
    fn a_signed_token_verifies_for_its_survey() {
        let key = SigningKey::new([7; 32]);
        let signed = token().sign(&key);

        let verified = SubmissionToken::verify(&key, &signed, &token().tenant, &token().survey);

        assert_eq!(verified, Ok(token()));
    }

    #[test]
    fn tampered_forged_or_misplaced_tokens_are_refused() {
        let key = SigningKey::new([7; 32]);
        let signed = token().sign(&key);
        let other_key = SigningKey::new([8; 32]);
        let other_survey = SurveySlug::parse("other").expect("a slug");
        let tampered = signed.replacen("4321", "4322", 1);

        for (case, result) in [
            (
                "empty",
                SubmissionToken::verify(&key, "", &token().tenant, &token().survey),
            ),
            (
                "tampered",
                SubmissionToken::verify(&key, &tampered, &token().tenant, &token().survey),
            ),
            (
                "other key",
                SubmissionToken::verify(&other_key, &signed, &token().tenant, &token().survey),
            ),
            (
                "other survey",
                SubmissionToken::verify(&key, &signed, &token().tenant, &other_survey),
            ),
            (
                "garbage",
                SubmissionToken::verify(&key, "a.b.c.d", &token().tenant, &token().survey),
            ),
            (
                "no dot",
                SubmissionToken::verify(&key, "abc", &token().tenant, &token().survey),
            ),
        ] {
            assert!(result.is_err(), "case {case}: {result:?}");
        }
    }
}
