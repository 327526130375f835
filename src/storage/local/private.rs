//! The data directory and its files are the operator's alone: directories 0700 and files 0600
//! whatever the umask, since the blob files hold the session and signing keys (under
//! `secrets/`) and every answer. SQLite gives a file's `-wal` and `-shm` the mode of the file
//! itself, so making the file first is enough.

use std::path::Path;

use crate::storage::{Error, Result};

/// Creates `dir` (and its parents) if missing, and makes it readable by its owner only.
pub fn private_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|error| Error::backend(format!("cannot create {}: {error}", dir.display())))?;
    restrict(dir, 0o700)
}

/// Creates `file` empty if missing (SQLite takes an empty file as a new database), and makes
/// it readable and writable by its owner only; an existing file is tightened too.
pub fn private_file(file: &Path) -> Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
        .open(file)
        .map_err(|error| Error::backend(format!("cannot create {}: {error}", file.display())))?;
    restrict(file, 0o600)
}

#[cfg(unix)]
fn restrict(path: &Path, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|error| Error::backend(format!("cannot restrict {}: {error}", path.display())))
}

#[cfg(not(unix))]
fn restrict(_: &Path, _: u32) -> Result<()> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path)
            .expect("metadata")
            .permissions()
            .mode()
            & 0o777
    }

    #[test]
    fn new_and_existing_paths_are_the_owners_alone() {
        let root = tempfile::tempdir().expect("a temporary directory");
        let dir = root.path().join("data");
        private_dir(&dir).expect("made");
        assert_eq!(mode(&dir), 0o700);
        let file = dir.join("file");
        private_file(&file).expect("made");
        assert_eq!(mode(&file), 0o600);
        std::fs::write(&file, b"kept").expect("written");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("loosened");
        private_file(&file).expect("tightened");
        assert_eq!(mode(&file), 0o600);
        assert_eq!(
            std::fs::read(&file).expect("read"),
            b"kept",
            "an existing file keeps its bytes"
        );
    }
}
