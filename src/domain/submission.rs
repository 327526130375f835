//! One-time submission tokens: a form carries its answer's reference, signed, so a repeated
//! POST of the same form (double click, browser retry) gives the same answer, not a second one,
//! without a storage write to remember which tokens were used.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::{Reference, SurveyRef};

type HmacSha256 = Hmac<Sha256>;

/// The server's secret for signing tokens, kept as an HMAC already keyed with it: each
/// signature then clones that state instead of hashing the key's pads again (half the hashing
/// of a submission's token check and thank-you link).
#[derive(Clone)]
pub struct SigningKey(HmacSha256);

impl SigningKey {
    /// Wraps 32 secret bytes.
    pub fn new(bytes: [u8; 32]) -> Self {
        // HMAC accepts keys of any length, so this cannot fail for 32 bytes.
        Self(<HmacSha256 as Mac>::new_from_slice(&bytes).expect("HMAC takes any key length"))
    }

    fn mac(&self) -> HmacSha256 {
        self.0.clone()
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

/// What a form's token stands for: the answer's reference, for one survey (by its identity,
/// so a form of a deleted survey is refused by a new one with the same slug).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubmissionToken {
    /// The reference the answer will have.
    pub reference: Reference,
    /// The survey the form belongs to.
    pub survey: SurveyRef,
}

impl SubmissionToken {
    fn payload(&self) -> String {
        payload(&self.survey, self.reference)
    }

    /// The token as the form carries it: `reference.tenant.survey.id.signature`.
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
        survey: &SurveyRef,
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
        let expected = format!(".{}", survey_part(survey));
        let reference = payload
            .strip_suffix(&expected)
            .and_then(|number| number.parse().ok())
            .ok_or(TokenError::Invalid)?;
        Ok(SubmissionToken {
            reference: Reference(reference),
            survey: survey.clone(),
        })
    }
}

/// `reference.tenant.slug.id` (`reference.tenant.slug` for a survey older than identities, as
/// tokens were before): what a token or a thank-you link vouches for.
fn payload(survey: &SurveyRef, reference: Reference) -> String {
    format!("{reference}.{}", survey_part(survey))
}

fn survey_part(survey: &SurveyRef) -> String {
    match survey.id.as_str() {
        "" => format!("{}.{}", survey.tenant, survey.slug),
        id => format!("{}.{}.{id}", survey.tenant, survey.slug),
    }
}

/// The signature a thank-you link carries: only the server that took an answer can link to
/// its thanks, so a made-up reference is never confirmed as received.
pub fn thanks_signature(key: &SigningKey, survey: &SurveyRef, reference: Reference) -> String {
    let mut mac = key.mac();
    // A prefix of its own, so a token's signature can never pass for a link's or back.
    mac.update(b"thanks:");
    mac.update(payload(survey, reference).as_bytes());
    URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
}

/// The signature of what a thank-you link shows of a response's outcome (`result`, see
/// `outcome::Outcome::result`), so a respondent cannot change their shown score or ending.
pub fn result_signature(
    key: &SigningKey,
    survey: &SurveyRef,
    reference: Reference,
    result: &str,
) -> String {
    let mut mac = key.mac();
    mac.update(b"result:");
    mac.update(payload(survey, reference).as_bytes());
    mac.update(b"|");
    mac.update(result.as_bytes());
    URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
}

/// Whether `signature` is `result_signature` of these.
pub fn result_signed(
    key: &SigningKey,
    survey: &SurveyRef,
    reference: Reference,
    result: &str,
    signature: &str,
) -> bool {
    let Ok(signature) = URL_SAFE_NO_PAD.decode(signature) else {
        return false;
    };
    let mut mac = key.mac();
    mac.update(b"result:");
    mac.update(payload(survey, reference).as_bytes());
    mac.update(b"|");
    mac.update(result.as_bytes());
    mac.verify_slice(&signature).is_ok()
}

/// Whether `signature` is the thank-you signature of `reference` for `survey`.
pub fn thanks_signed(
    key: &SigningKey,
    survey: &SurveyRef,
    reference: Reference,
    signature: &str,
) -> bool {
    let Ok(signature) = URL_SAFE_NO_PAD.decode(signature) else {
        return false;
    };
    let mut mac = key.mac();
    mac.update(b"thanks:");
    mac.update(payload(survey, reference).as_bytes());
    mac.verify_slice(&signature).is_ok()
}

impl SigningKey {
    /// The signature of `text` for one `purpose` (a prefix of its own, so a signature made for
    /// one purpose never passes for another's).
    pub fn sign_for(&self, purpose: &str, text: &str) -> String {
        let mut mac = self.mac();
        mac.update(purpose.as_bytes());
        mac.update(b":");
        mac.update(text.as_bytes());
        URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
    }

    /// Whether `signature` is the signature of `text` for `purpose` (compared in constant
    /// time).
    pub fn signed_for(&self, purpose: &str, text: &str, signature: &str) -> bool {
        let Ok(signature) = URL_SAFE_NO_PAD.decode(signature) else {
            return false;
        };
        let mut mac = self.mac();
        mac.update(purpose.as_bytes());
        mac.update(b":");
        mac.update(text.as_bytes());
        mac.verify_slice(&signature).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::domain::{SurveyId, SurveySlug, TenantSlug};

    #[test]
    fn a_signature_holds_for_its_purpose_and_text_only() {
        let key = SigningKey::new([3; 32]);
        let signature = key.sign_for("file", "abc");
        assert!(key.signed_for("file", "abc", &signature));
        assert!(!key.signed_for("file", "abd", &signature));
        assert!(!key.signed_for("link", "abc", &signature));
        assert!(!key.signed_for("file", "abc", "not base64!"));
        assert!(!SigningKey::new([4; 32]).signed_for("file", "abc", &signature));
    }

    fn team() -> SurveyRef {
        SurveyRef {
            tenant: TenantSlug::parse("acme").expect("a slug"),
            slug: SurveySlug::parse("team").expect("a slug"),
            id: SurveyId::parse("abc123").expect("an id"),
        }
    }

    fn token() -> SubmissionToken {
        SubmissionToken {
            reference: Reference(4321),
            survey: team(),
        }
    }

    #[test]
    fn a_signed_token_verifies_for_its_survey() {
        let key = SigningKey::new([7; 32]);
        let signed = token().sign(&key);

        let verified = SubmissionToken::verify(&key, &signed, &team());

        assert_eq!(verified, Ok(token()));
    }

    #[test]
    fn tampered_forged_or_misplaced_tokens_are_refused() {
        let key = SigningKey::new([7; 32]);
        let signed = token().sign(&key);
        let other_key = SigningKey::new([8; 32]);
        let other_survey = SurveyRef {
            slug: SurveySlug::parse("other").expect("a slug"),
            ..team()
        };
        let same_slug_new_survey = SurveyRef {
            id: SurveyId::parse("def456").expect("an id"),
            ..team()
        };
        let tampered = signed.replacen("4321", "4322", 1);

        for (case, result) in [
            ("empty", SubmissionToken::verify(&key, "", &team())),
            (
                "tampered",
                SubmissionToken::verify(&key, &tampered, &team()),
            ),
            (
                "other key",
                SubmissionToken::verify(&other_key, &signed, &team()),
            ),
            (
                "other survey",
                SubmissionToken::verify(&key, &signed, &other_survey),
            ),
            (
                "a new survey with the same slug",
                SubmissionToken::verify(&key, &signed, &same_slug_new_survey),
            ),
            ("garbage", SubmissionToken::verify(&key, "a.b.c.d", &team())),
            ("no dot", SubmissionToken::verify(&key, "abc", &team())),
        ] {
            assert!(result.is_err(), "case {case}: {result:?}");
        }
    }

    #[test]
    fn thanks_links_verify_only_for_their_reference_and_survey() {
        let key = SigningKey::new([7; 32]);
        let signature = thanks_signature(&key, &team(), Reference(4321));

        assert!(thanks_signed(&key, &team(), Reference(4321), &signature));
        assert!(!thanks_signed(&key, &team(), Reference(4322), &signature));
        assert!(!thanks_signed(
            &SigningKey::new([8; 32]),
            &team(),
            Reference(4321),
            &signature
        ));
        assert!(!thanks_signed(&key, &team(), Reference(4321), ""));
        assert!(!thanks_signed(&key, &team(), Reference(4321), "%%%"));
        // A form's token signature is not a thanks signature.
        let token = token().sign(&key);
        let token_signature = token.rsplit_once('.').map(|(_, s)| s).unwrap_or("");
        assert!(!thanks_signed(
            &key,
            &team(),
            Reference(4321),
            token_signature
        ));
    }
}
