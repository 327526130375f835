//! Secrets handed to a person once (API keys, invitation and password-reset links): 256
//! random bits, of which only the SHA-256 is stored. A fast hash is as good as a slow one for
//! secrets this long: nobody can guess their way back from the hash.

use sha2::{Digest, Sha256};

use super::StoreError;
use crate::storage::Error;

/// A fresh random token (64 hex characters) and its hash.
pub fn new_token(doing: &str) -> Result<(String, String), StoreError> {
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).map_err(|error| StoreError::Storage {
        doing: doing.to_owned(),
        source: Error::backend(error.to_string()),
    })?;
    let token = hex(&secret);
    let hash = hash(&token);
    Ok((token, hash))
}

/// The SHA-256 of a token, hex: what is stored and looked up.
pub fn hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// Whether `text` has the shape of a token (so it can name a blob safely).
pub fn well_formed(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Bytes as lowercase hexadecimal digits, two a byte (in keys, names and tokens).
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_well_formed_and_stored_only_as_their_hash() {
        let (a, a_hash) = new_token("testing").unwrap();
        let (b, _) = new_token("testing").unwrap();
        assert_ne!(a, b);
        assert!(well_formed(&a) && well_formed(&a_hash));
        assert_eq!(hash(&a), a_hash);
        assert_ne!(a, a_hash);
        assert!(!well_formed("../accounts/x") && !well_formed(&a[1..]));
    }
}
