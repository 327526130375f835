//! Private links: an unguessable id a link carries (a resume link, a participant's personal
//! link). Whoever holds the link may use it, so storage keeps only a digest of the id.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

/// Random bytes in a link's id (256 bits: unguessable).
const ID_BYTES: usize = 32;

/// The id in a private link: 32 random bytes, URL-safe base64 without padding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrivateLink(String);

impl PrivateLink {
    /// A fresh random id (an error only if the system's random source fails).
    pub fn generate() -> Result<Self, getrandom::Error> {
        let mut bytes = [0u8; ID_BYTES];
        getrandom::fill(&mut bytes)?;
        Ok(Self(URL_SAFE_NO_PAD.encode(bytes)))
    }

    /// An id as a link carries it, if it is one's shape.
    pub fn parse(text: &str) -> Option<Self> {
        let decoded = URL_SAFE_NO_PAD.decode(text.trim()).ok()?;
        (decoded.len() == ID_BYTES).then(|| Self(text.trim().to_owned()))
    }

    /// The id as the link writes it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name what it opens is stored under: a digest of the id, so that what storage
    /// holds opens nothing.
    pub fn stored_name(&self) -> String {
        let digest = Sha256::digest(self.0.as_bytes());
        digest[..16].iter().map(|b| format!("{b:02x}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_long_random_read_back_and_stored_as_a_digest() {
        let link = PrivateLink::generate().expect("random bytes");
        assert_eq!(link.as_str().len(), 43);
        assert_eq!(PrivateLink::parse(link.as_str()), Some(link.clone()));
        assert_ne!(link, PrivateLink::generate().expect("random bytes"));
        assert_ne!(link.stored_name(), link.as_str());
        assert_eq!(link.stored_name().len(), 32);
        for bad in ["", "abc", "not/base64!", &"A".repeat(44)] {
            assert_eq!(PrivateLink::parse(bad), None, "{bad}");
        }
    }
}
