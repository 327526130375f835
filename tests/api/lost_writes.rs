//! A SQLite VFS that loses what a power cut would lose, as LazyFS does for Jepsen: every file
//! opened through it (`cut`) keeps, beside the real file the process reads and writes, the
//! image its disk would hold, updated only when the file is fsynced. At a chosen write or
//! sync (`cut_after`) the images freeze, as if the power went off there; the process may run
//! on, but `restore` then puts the frozen images in place of the files: every write not
//! fsynced before the cut is gone, every fsynced one is there.
//!
//! Files present when first opened through the VFS count as on disk. Deletes before the cut
//! are kept, after it undone. The shared-memory index (`-shm`) is never durable and is removed.

use std::collections::HashMap;
use std::ffi::{CStr, c_char, c_int, c_void};
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use rusqlite::ffi;

/// The VFS's name, for `local::Options::vfs`.
pub const NAME: &str = "lost-writes";

/// What the disk holds of one file.
#[derive(Default)]
struct Image {
    /// The bytes as of the last fsync.
    bytes: Vec<u8>,
    /// Whether the file exists on disk (it may never have been fsynced).
    exists: bool,
    /// Ranges written since the last fsync.
    dirty: Vec<(u64, usize)>,
}

/// The state of the VFS, one per process.
struct State {
    /// The underlying (default) VFS.
    base: *mut ffi::sqlite3_vfs,
    /// Writes, truncations and syncs so far.
    operations: AtomicU64,
    /// The operation at which the images freeze (`u64::MAX`: never).
    cut_at: AtomicU64,
    frozen: AtomicBool,
    /// Files open through the VFS.
    open: AtomicI64,
    images: Mutex<HashMap<String, Image>>,
}

// The base VFS pointer is SQLite's static default VFS, usable from any thread.
unsafe impl Send for State {}
unsafe impl Sync for State {}

fn state() -> &'static State {
    static STATE: OnceLock<&'static State> = OnceLock::new();
    STATE.get_or_init(register)
}

fn images() -> MutexGuard<'static, HashMap<String, Image>> {
    state()
        .images
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A file opened through the VFS: SQLite's header, then the real file's handle.
#[repr(C)]
struct CutFile {
    base: ffi::sqlite3_file,
    real: *mut ffi::sqlite3_file,
    /// The path, for files whose writes are tracked (databases and their logs).
    path: *mut String,
}

fn register() -> &'static State {
    // SAFETY: registering a VFS copied from SQLite's default one, with our open, delete and
    // file methods; the struct and its name are leaked, so they live as long as the process.
    unsafe {
        let base = ffi::sqlite3_vfs_find(std::ptr::null());
        assert!(!base.is_null(), "SQLite has a default VFS");
        let mut ours = *base;
        ours.zName = c"lost-writes".as_ptr();
        ours.pNext = std::ptr::null_mut();
        ours.szOsFile = std::mem::size_of::<CutFile>() as c_int;
        ours.xOpen = Some(open);
        ours.xDelete = Some(delete);
        let ours = Box::leak(Box::new(ours));
        assert_eq!(ffi::sqlite3_vfs_register(ours, 0), ffi::SQLITE_OK);
        Box::leak(Box::new(State {
            base,
            operations: AtomicU64::new(0),
            cut_at: AtomicU64::new(u64::MAX),
            frozen: AtomicBool::new(false),
            open: AtomicI64::new(0),
            images: Mutex::new(HashMap::new()),
        }))
    }
}

/// Holds the VFS for one test at a time (its state is the process's): keep the guard until
/// the test is done.
pub async fn exclusive() -> tokio::sync::MutexGuard<'static, ()> {
    static TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    TURN.lock().await
}

/// Makes the VFS ready: registered, nothing frozen, no images, no operations counted.
pub fn reset() {
    let state = state();
    state.operations.store(0, Ordering::SeqCst);
    state.cut_at.store(u64::MAX, Ordering::SeqCst);
    state.frozen.store(false, Ordering::SeqCst);
    images().clear();
}

/// Freezes the images at the `n`-th write, truncation or sync from now (that one is lost).
pub fn cut_after(n: u64) {
    let state = state();
    state.cut_at.store(
        state.operations.load(Ordering::SeqCst) + n,
        Ordering::SeqCst,
    );
}

/// Freezes the images now: the power goes off.
pub fn cut_now() {
    state().frozen.store(true, Ordering::SeqCst);
}

/// Whether the power has gone off.
pub fn cut() -> bool {
    state().frozen.load(Ordering::SeqCst)
}

/// Writes, truncations and syncs counted so far.
pub fn operations() -> u64 {
    state().operations.load(Ordering::SeqCst)
}

/// Files open through the VFS.
pub fn open_files() -> i64 {
    state().open.load(Ordering::SeqCst)
}

/// Waits until every file opened through the VFS is closed (writer threads close theirs a
/// moment after their store is dropped).
pub async fn wait_until_closed() {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while open_files() > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the files were not closed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

/// Puts the disk's images in place of the files (every file must be closed): what the
/// directory holds after the power comes back. Removes every `-shm` file in `dir`.
pub fn restore(dir: &std::path::Path) {
    assert_eq!(
        open_files(),
        0,
        "every file is closed before the power comes back"
    );
    for (path, image) in images().drain() {
        if image.exists {
            std::fs::write(&path, &image.bytes).expect("the image is written back");
        } else {
            let _ = std::fs::remove_file(&path);
        }
    }
    for entry in std::fs::read_dir(dir).expect("the data directory") {
        let path = entry.expect("an entry").path();
        if path.to_string_lossy().ends_with("-shm") {
            std::fs::remove_file(path).expect("the index is removed");
        }
    }
}

/// Counts an operation; returns whether the images are still live (not frozen) for it.
fn live() -> bool {
    let state = state();
    let n = state.operations.fetch_add(1, Ordering::SeqCst) + 1;
    if n >= state.cut_at.load(Ordering::SeqCst) {
        state.frozen.store(true, Ordering::SeqCst);
    }
    !state.frozen.load(Ordering::SeqCst)
}

unsafe extern "C" fn open(
    _: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    let state = state();
    // SAFETY: SQLite gives `file` with room for a `CutFile`; the real file gets room of the
    // base VFS's size, freed in `close` (or here, if the base cannot open it).
    unsafe {
        let ours = file.cast::<CutFile>();
        (*ours).base.pMethods = std::ptr::null();
        let layout = real_layout();
        let real = std::alloc::alloc_zeroed(layout).cast::<ffi::sqlite3_file>();
        let base_open = (*state.base).xOpen.expect("the base VFS opens files");
        let code = base_open(state.base, name, real, flags, out_flags);
        if code != ffi::SQLITE_OK {
            std::alloc::dealloc(real.cast(), layout);
            return code;
        }
        (*ours).real = real;
        (*ours).path = std::ptr::null_mut();
        let tracked = flags & (ffi::SQLITE_OPEN_MAIN_DB | ffi::SQLITE_OPEN_WAL) != 0;
        if tracked && !name.is_null() {
            let path = CStr::from_ptr(name).to_string_lossy().into_owned();
            images()
                .entry(path.clone())
                .or_insert_with(|| match std::fs::read(&path) {
                    Ok(bytes) => Image {
                        bytes,
                        exists: true,
                        ..Image::default()
                    },
                    Err(_) => Image::default(),
                });
            (*ours).path = Box::into_raw(Box::new(path));
        }
        (*ours).base.pMethods = &METHODS;
        state.open.fetch_add(1, Ordering::SeqCst);
        ffi::SQLITE_OK
    }
}

fn real_layout() -> std::alloc::Layout {
    // SAFETY: reading a field of SQLite's default VFS.
    let size = unsafe { (*state().base).szOsFile } as usize;
    std::alloc::Layout::from_size_align(size.max(8), 8).expect("a layout")
}

unsafe extern "C" fn delete(
    _: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    sync_dir: c_int,
) -> c_int {
    let state = state();
    // SAFETY: forwarding SQLite's own arguments to the base VFS.
    let code = unsafe {
        let base_delete = (*state.base).xDelete.expect("the base VFS deletes files");
        base_delete(state.base, name, sync_dir)
    };
    if code == ffi::SQLITE_OK && live() {
        // SAFETY: SQLite passes a NUL-terminated path.
        let path = unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned();
        if let Some(image) = images().get_mut(&path) {
            *image = Image::default();
        }
    }
    code
}

/// The real file behind one of ours.
unsafe fn real(
    file: *mut ffi::sqlite3_file,
) -> (*mut ffi::sqlite3_file, &'static ffi::sqlite3_io_methods) {
    // SAFETY: `file` is a `CutFile` opened by `open`, whose real file has its methods.
    unsafe {
        let real = (*file.cast::<CutFile>()).real;
        (real, &*(*real).pMethods)
    }
}

/// The tracked path of one of ours, if any.
unsafe fn path_of(file: *mut ffi::sqlite3_file) -> Option<&'static String> {
    // SAFETY: set by `open`, freed by `close` only.
    unsafe { (*file.cast::<CutFile>()).path.as_ref() }
}

unsafe extern "C" fn close(file: *mut ffi::sqlite3_file) -> c_int {
    // SAFETY: closing the real file once, then freeing what `open` allocated.
    unsafe {
        let (real, methods) = real(file);
        let code = methods.xClose.map_or(ffi::SQLITE_OK, |close| close(real));
        std::alloc::dealloc(real.cast(), real_layout());
        let ours = file.cast::<CutFile>();
        if !(*ours).path.is_null() {
            drop(Box::from_raw((*ours).path));
            (*ours).path = std::ptr::null_mut();
        }
        state().open.fetch_sub(1, Ordering::SeqCst);
        code
    }
}

unsafe extern "C" fn write(
    file: *mut ffi::sqlite3_file,
    buffer: *const c_void,
    amount: c_int,
    offset: ffi::sqlite3_int64,
) -> c_int {
    let live = live();
    // SAFETY: forwarding SQLite's own arguments to the real file.
    unsafe {
        let (real, methods) = real(file);
        let code = methods.xWrite.expect("files write")(real, buffer, amount, offset);
        if let (Some(path), ffi::SQLITE_OK, true) = (path_of(file), code, live)
            && let Some(image) = images().get_mut(path)
        {
            image.dirty.push((offset as u64, amount as usize));
        }
        code
    }
}

unsafe extern "C" fn truncate(file: *mut ffi::sqlite3_file, size: ffi::sqlite3_int64) -> c_int {
    // Counted as an operation; the new length reaches the image with the next fsync.
    live();
    // SAFETY: forwarding SQLite's own arguments to the real file.
    unsafe {
        let (real, methods) = real(file);
        methods.xTruncate.expect("files truncate")(real, size)
    }
}

unsafe extern "C" fn sync(file: *mut ffi::sqlite3_file, flags: c_int) -> c_int {
    let live = live();
    // SAFETY: forwarding SQLite's own arguments to the real file.
    unsafe {
        let (real, methods) = real(file);
        let code = methods.xSync.expect("files sync")(real, flags);
        if let (Some(path), ffi::SQLITE_OK, true) = (path_of(file), code, live) {
            persist(path);
        }
        code
    }
}

/// What an fsync makes durable: the file's length, and the ranges written since the last one,
/// read back from the file (a later write to a range is synced too).
fn persist(path: &str) {
    let mut images = images();
    let Some(image) = images.get_mut(path) else {
        return;
    };
    let disk = std::fs::File::open(path).expect("the synced file is readable");
    let size = disk.metadata().expect("the synced file's length").len() as usize;
    image.bytes.resize(size, 0);
    for (offset, length) in std::mem::take(&mut image.dirty) {
        let start = (offset as usize).min(size);
        let end = (offset as usize + length).min(size);
        disk.read_exact_at(&mut image.bytes[start..end], start as u64)
            .expect("the synced range is readable");
    }
    image.exists = true;
}

macro_rules! forward {
    ($name:ident, $field:ident, ($($arg:ident: $ty:ty),*)) => {
        unsafe extern "C" fn $name(file: *mut ffi::sqlite3_file $(, $arg: $ty)*) -> c_int {
            // SAFETY: forwarding SQLite's own arguments to the real file.
            unsafe {
                let (real, methods) = real(file);
                methods.$field.expect(concat!("files have ", stringify!($field)))(real $(, $arg)*)
            }
        }
    };
}

forward!(read, xRead, (buffer: *mut c_void, amount: c_int, offset: ffi::sqlite3_int64));
forward!(file_size, xFileSize, (size: *mut ffi::sqlite3_int64));
forward!(lock, xLock, (level: c_int));
forward!(unlock, xUnlock, (level: c_int));
forward!(check_reserved_lock, xCheckReservedLock, (out: *mut c_int));
forward!(file_control, xFileControl, (op: c_int, argument: *mut c_void));
forward!(sector_size, xSectorSize, ());
forward!(device_characteristics, xDeviceCharacteristics, ());
forward!(shm_map, xShmMap, (region: c_int, size: c_int, extend: c_int, out: *mut *mut c_void));
forward!(shm_lock, xShmLock, (offset: c_int, n: c_int, flags: c_int));
forward!(shm_unmap, xShmUnmap, (delete: c_int));

unsafe extern "C" fn shm_barrier(file: *mut ffi::sqlite3_file) {
    // SAFETY: forwarding to the real file.
    unsafe {
        let (real, methods) = real(file);
        if let Some(barrier) = methods.xShmBarrier {
            barrier(real);
        }
    }
}

/// Version 2: shared memory for WAL mode, no memory-mapped I/O (which would bypass writes).
static METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 2,
    xClose: Some(close),
    xRead: Some(read),
    xWrite: Some(write),
    xTruncate: Some(truncate),
    xSync: Some(sync),
    xFileSize: Some(file_size),
    xLock: Some(lock),
    xUnlock: Some(unlock),
    xCheckReservedLock: Some(check_reserved_lock),
    xFileControl: Some(file_control),
    xSectorSize: Some(sector_size),
    xDeviceCharacteristics: Some(device_characteristics),
    xShmMap: Some(shm_map),
    xShmLock: Some(shm_lock),
    xShmBarrier: Some(shm_barrier),
    xShmUnmap: Some(shm_unmap),
    xFetch: None,
    xUnfetch: None,
};
