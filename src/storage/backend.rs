//! Which adapter stands behind the ports, and where: what a process (or a region of the
//! regions file) names as its storage, opened the same way everywhere.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use super::local::Durability;
use super::{Error, Result, Storage};

/// A storage backend and its place.
#[derive(Clone, PartialEq, Eq)]
pub enum Backend {
    /// SQLite files in a data directory.
    Local {
        /// The directory.
        data_dir: PathBuf,
    },
    /// Nothing kept: gone when the process stops. For trials and tests.
    Memory,
    /// An Azure Storage account (or Azurite).
    Azure {
        /// A standard connection string; it holds the account key, so it is never printed.
        connection_string: String,
    },
}

impl fmt::Debug for Backend {
    // The connection string carries the account key: never print it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Local { data_dir } => write!(f, "Local({})", data_dir.display()),
            Self::Memory => f.write_str("Memory"),
            Self::Azure { .. } => f.write_str("Azure(***)"),
        }
    }
}

impl Backend {
    /// Opens both ports; a local handle commits with `durability`.
    pub async fn open(&self, durability: Durability) -> Result<Storage> {
        match self {
            Self::Local { data_dir } => super::local::storage_with(data_dir, durability).await,
            Self::Memory => Ok(super::memory::storage()),
            Self::Azure { connection_string } if connection_string.trim().is_empty() => {
                Err(Error::InvalidArgument(
                    "CANVASS_STORAGE=azure needs CANVASS_AZURE_CONNECTION_STRING".into(),
                ))
            }
            Self::Azure { connection_string } => super::azure::storage(connection_string).await,
        }
    }

    /// What two backends share when they are one storage: a local directory (made absolute,
    /// `.` and `..` resolved) or an Azure account's blob endpoint. `None` for memory, which
    /// nothing shares.
    pub fn place(&self) -> Result<Option<String>> {
        match self {
            Self::Local { data_dir } => Ok(Some(format!(
                "the directory {}",
                absolute(data_dir)?.display()
            ))),
            Self::Memory => Ok(None),
            Self::Azure { connection_string } => {
                let parsed = super::azure::ConnectionString::parse(connection_string)
                    .map_err(|error| Error::InvalidArgument(error.to_string()))?;
                let endpoint = parsed.blob_endpoint.trim_end_matches('/').to_lowercase();
                Ok(Some(format!("the Azure account at {endpoint}")))
            }
        }
    }
}

/// `path` made absolute against the working directory, `.` and `..` resolved by name (the
/// directory may not exist yet, so it cannot be asked of the file system).
fn absolute(path: &Path) -> Result<PathBuf> {
    let joined = std::env::current_dir().map_err(Error::backend)?.join(path);
    let mut clean = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                clean.pop();
            }
            other => clean.push(other),
        }
    }
    Ok(clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_directory_named_two_ways_is_one_place() {
        let a = Backend::Local {
            data_dir: "/var/lib/canvass/us".into(),
        };
        let b = Backend::Local {
            data_dir: "/var/lib/canvass/eu/../us/.".into(),
        };
        assert_eq!(a.place().expect("a place"), b.place().expect("a place"));
        let c = Backend::Local {
            data_dir: "/var/lib/canvass/eu".into(),
        };
        assert_ne!(a.place().expect("a place"), c.place().expect("a place"));
    }

    #[test]
    fn azure_accounts_are_told_apart_by_their_endpoint_and_keys_never_print() {
        let account = |name: &str| Backend::Azure {
            connection_string: format!(
                "DefaultEndpointsProtocol=http;AccountName={name};AccountKey=AAAA;\
                 BlobEndpoint=http://127.0.0.1:10000/{name};QueueEndpoint=http://127.0.0.1:10001/{name};"
            ),
        };
        let one = account("devstoreaccount1").place().expect("a place");
        assert_eq!(
            one.as_deref(),
            Some("the Azure account at http://127.0.0.1:10000/devstoreaccount1")
        );
        assert_ne!(one, account("second").place().expect("a place"));
        assert!(!format!("{:?}", account("x")).contains("AAAA"));
    }
}
