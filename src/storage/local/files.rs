//! Where things are in a data directory's files: the name of each blob file, which file holds
//! a key, and the plain connections opening and upgrading use (shared by `layout` and
//! `upgrade`, so neither needs the other's insides).

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use sha2::{Digest, Sha256};

use super::busy;
use super::database::open_file;
use crate::storage::Result;

/// The path of blob file `n`.
pub(super) fn blob_path(data_dir: &Path, n: u32) -> PathBuf {
    data_dir.join(format!("canvass-blobs-{n}.sqlite3"))
}

/// Which of `files` holds `key`: a hash that is the same in every process and every build.
pub(super) fn file_of(key: &str, files: usize) -> usize {
    let digest = Sha256::digest(key.as_bytes());
    let mut first = [0; 8];
    first.copy_from_slice(&digest[..8]);
    (u64::from_be_bytes(first) % files.max(1) as u64) as usize
}

/// A connection for the one-off work of opening: waits for other processes like the rest.
pub(super) fn open_plain(path: &Path, vfs: Option<&str>) -> Result<Connection> {
    let connection = open_file(path, vfs).map_err(super::sqlite)?;
    busy::install(&connection).map_err(super::sqlite)?;
    Ok(connection)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_always_lands_in_the_same_file() {
        // Pinned (the first 8 bytes of the key's SHA-256, big-endian, modulo the file count):
        // a change here would strand every blob of an existing data directory.
        for (key, file) in [
            ("a", 2),
            ("answers/acme/team/00000000000000000001.json", 2),
            ("summaries/acme/team.json", 0),
            ("tenants/demo.json", 0),
        ] {
            assert_eq!(file_of(key, 4), file, "{key}");
        }
        assert_eq!(file_of("anything", 1), 0);
    }
}
