//! Ids made of lowercase letters and digits (question ids, survey ids): checked when parsed,
//! stored and shown as the text they are.

/// Defines such an id type, at most 32 characters and at least `$min`.
macro_rules! lowercase_id {
    ($(#[$doc:meta])* $name:ident, min = $min:expr, what = $what:expr) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
        #[serde(try_from = "String", into = "String")]
        #[schema(pattern = "^[a-z0-9]*$", max_length = 32)]
        pub struct $name(String);

        impl $name {
            /// A fresh random id of `len` lowercase hex digits.
            fn random(len: usize) -> Self {
                Self(uuid::Uuid::new_v4().simple().to_string()[..len].to_owned())
            }

            /// Checks an id.
            pub fn parse(text: &str) -> Option<Self> {
                let ok = ($min..=32).contains(&text.len())
                    && text
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
                ok.then(|| Self(text.to_owned()))
            }

            /// The id.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = String;

            fn try_from(text: String) -> Result<Self, String> {
                Self::parse(&text).ok_or_else(|| format!("{text:?} is not {}", $what))
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

pub(crate) use lowercase_id;
