//! Owner accounts: an email address, a password (stored as an argon2 hash) and the tenant
//! the account owns.

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use validator::ValidateEmail;

use super::TenantSlug;

/// Shortest password accepted (NIST SP 800-63B's minimum for passwords a person chooses).
pub const MIN_PASSWORD: usize = 8;
/// Longest password accepted (hashing cost is bounded).
pub const MAX_PASSWORD: usize = 200;

/// Passwords too common to accept: the 11,611 entries of at least 8 characters among the 30,000
/// most common passwords in zxcvbn's frequency lists (MIT licence), lowercased. NIST SP 800-63B
/// asks that a chosen password be checked against such a list.
static COMMON_PASSWORDS: std::sync::LazyLock<std::collections::HashSet<&'static str>> =
    std::sync::LazyLock::new(|| include_str!("common-passwords.txt").lines().collect());

/// Longest email address (RFC 5321's path limit less its brackets).
pub const MAX_EMAIL: usize = 254;

/// A checked, lowercased email address.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Email(String);

impl Email {
    /// Checks an address with validator's email rule, and asks for a domain with a dot in
    /// it (`owner@beanthere` is valid by the RFC but reaches nobody on the internet); `None`
    /// if it is not one.
    pub fn parse(text: &str) -> Option<Self> {
        let email = text.trim().to_lowercase();
        // A name with a dot, never an address literal (`x@[127.0.0.1]`): mail goes to
        // domains, not to hosts a sender picks.
        let dotted = email.rsplit_once('@').is_some_and(|(_, domain)| {
            domain.contains('.') && !domain.starts_with(['.', '[']) && !domain.ends_with('.')
        });
        (email.len() <= MAX_EMAIL && dotted && email.validate_email()).then_some(Self(email))
    }

    /// The address.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Why a password is refused, following NIST SP 800-63B: long enough, not only spaces, not a
/// common password, not the account's own address. No rules about kinds of characters.
pub fn password_problem(password: &str, email: &str) -> Option<String> {
    let length = password.chars().count();
    let lowered = password.to_lowercase();
    if length < MIN_PASSWORD {
        Some(format!("Use at least {MIN_PASSWORD} characters."))
    } else if length > MAX_PASSWORD {
        Some(format!("Use at most {MAX_PASSWORD} characters."))
    } else if password.trim().is_empty() {
        Some("Use something other than spaces.".into())
    } else if COMMON_PASSWORDS.contains(lowered.as_str()) {
        Some("This password is one of the most common ones, so it is easy to guess. Choose another (a few unrelated words work well).".into())
    } else if lowered.trim() == email.trim().to_lowercase() {
        Some("Use something other than your email address.".into())
    } else {
        None
    }
}

/// A tenant's owner account.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Account {
    /// The address the owner signs in with.
    pub email: Email,
    /// The tenant the account owns.
    pub tenant: TenantSlug,
    /// The argon2id hash of the password, as a PHC string.
    pub password_hash: String,
    /// When it was made.
    #[serde(with = "time::serde::rfc3339")]
    pub created: OffsetDateTime,
    /// When its password was last set after it was made: reset links made before then no
    /// longer work.
    #[serde(
        default,
        with = "time::serde::rfc3339::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub password_set: Option<OffsetDateTime>,
}

/// Hashes a password with argon2id and a random salt. CPU-heavy: call it off the async runtime.
pub fn hash_password(password: &str) -> Result<String, String> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|hash| hash.to_string())
        .map_err(|error| error.to_string())
}

/// Whether `password` matches the stored hash. CPU-heavy: call it off the async runtime.
pub fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| {
        Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_checked_and_lowercased() {
        assert_eq!(
            Email::parse(" Ada@Example.com ").map(|e| e.0),
            Some("ada@example.com".into())
        );
        for bad in [
            "",
            "ada",
            "ada@",
            "@example.com",
            "a b@example.com",
            "owner@beanthere",
            "owner@beanthere.",
            "owner@.com",
            "x@[127.0.0.1]",
            "x@[ipv6:::1]",
        ] {
            assert!(Email::parse(bad).is_none(), "case {bad:?}");
        }
    }

    #[test]
    fn a_hashed_password_verifies_and_a_wrong_one_does_not() {
        let hash = hash_password("correct horse battery").expect("hashed");
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password("correct horse battery", &hash));
        assert!(!verify_password("wrong horse battery", &hash));
        assert!(!verify_password("anything", "not a hash"));
    }

    #[test]
    fn passwords_follow_nist_sp_800_63b() {
        let email = "ada@example.com";
        for (password, accepted) in [
            ("short", false),
            ("sevench", false),
            ("8 chars!", true),
            ("long enough pass", true),
            ("          ", false),
            ("\t\t\t\t\t\t\t\t", false),
            ("password1", false),
            ("PassWord1", false),
            ("12345678", false),
            ("qwertyuiop", false),
            ("iloveyou", false),
            ("Ada@Example.com", false),
            ("correct horse battery staple", true),
            ("ünïcödé pässwörd", true),
        ] {
            assert_eq!(
                password_problem(password, email).is_none(),
                accepted,
                "case {password:?}: {:?}",
                password_problem(password, email)
            );
        }
        assert!(password_problem(&"x".repeat(201), email).is_some());
        assert!(password_problem(&"x".repeat(200), email).is_none());
    }
}
