//! Log lines written to stderr in batches. A busy server writes a line for every request;
//! written one by one, each was a write call, about 5% of a page step's CPU (perf under
//! `canvass loadgen --pages`). Here lines gather in memory and go out together: within
//! `FLUSH_EVERY` of the first one waiting, from a thread of their own (asleep while none
//! waits), as soon as `FULL` bytes wait, and at once for a
//! warning or an error (after every line before it, so the order holds). The process writes
//! out what waits when it exits, panics or crashes on purpose; one killed outright loses at
//! most the last `FLUSH_EVERY` of lines below a warning, never a warning or an error.
//!
//! (tracing-appender's non-blocking writer hands each line to a thread of its own, and waking
//! that thread costs about what the write call did.)

use std::io::{self, Write};
use std::sync::{Condvar, Mutex, MutexGuard, Once, TryLockError};
use std::time::Duration;

use tracing::{Level, Metadata};
use tracing_subscriber::fmt::MakeWriter;

/// How long a line below a warning waits at the most before it is written.
pub const FLUSH_EVERY: Duration = Duration::from_millis(50);

/// Bytes waiting that are written at once (about 250 request lines).
const FULL: usize = 64 * 1024;

/// Lines waiting to be written, in order, and where they go.
struct Batch<W> {
    waiting: Vec<u8>,
    sink: W,
}

impl<W: Write> Batch<W> {
    const fn new(sink: W) -> Self {
        Self {
            waiting: Vec::new(),
            sink,
        }
    }

    /// Adds a line (the formatter hands over a whole one), writing out what waits when the
    /// line must go at once or the batch is full.
    fn add(&mut self, line: &[u8], at_once: bool) -> io::Result<()> {
        self.waiting.extend_from_slice(line);
        match at_once || self.waiting.len() >= FULL {
            true => self.write_out(),
            false => Ok(()),
        }
    }

    /// Writes out every line waiting. They are dropped even if the write fails: a log that
    /// cannot be written must not hold the server's memory.
    fn write_out(&mut self) -> io::Result<()> {
        if self.waiting.is_empty() {
            return Ok(());
        }
        let written = self.sink.write_all(&self.waiting);
        self.waiting.clear();
        written.and_then(|()| self.sink.flush())
    }
}

/// The process's stderr, as a sink a static can hold.
struct Stderr;

impl Write for Stderr {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        io::stderr().write(bytes)
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        io::stderr().write_all(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stderr().flush()
    }
}

static STDERR: Mutex<Batch<Stderr>> = Mutex::new(Batch::new(Stderr));

/// Told when a line comes to an empty batch: the writer thread sleeps while none waits, so an
/// idle process is not woken twenty times a second for nothing.
static LINES_WAITING: Condvar = Condvar::new();

/// The batch, even if a thread panicked while holding it (its lines are still lines).
fn batch() -> MutexGuard<'static, Batch<Stderr>> {
    STDERR
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Writes out every line waiting. Never blocks: called from a panic, whose thread may be the
/// one holding the batch.
pub fn flush() {
    let mut batch = match STDERR.try_lock() {
        Ok(batch) => batch,
        Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
        Err(TryLockError::WouldBlock) => return,
    };
    let _ = batch.write_out();
}

/// Starts the thread that writes waiting lines within `FLUSH_EVERY`, and has a panic write
/// them out before its message (once per process).
pub(super) fn start() {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        let flushing = std::thread::Builder::new()
            .name("log-flush".into())
            .spawn(|| {
                loop {
                    let mut waiting = batch();
                    while waiting.waiting.is_empty() {
                        waiting = LINES_WAITING
                            .wait(waiting)
                            .unwrap_or_else(|poisoned| poisoned.into_inner());
                    }
                    // The first line waits at most this long, and those after it less.
                    drop(waiting);
                    std::thread::sleep(FLUSH_EVERY);
                    let _ = batch().write_out();
                }
            });
        if let Err(error) = flushing {
            eprintln!("canvass: cannot start the log's writer thread ({error}); lines wait until a batch fills");
        }
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |panic| {
            flush();
            previous(panic);
        }));
    });
}

/// The formatter's writer: stderr, in batches.
#[derive(Clone, Copy, Debug, Default)]
pub struct BatchedStderr;

/// One line's writer: whether it goes out at once.
pub struct Line {
    at_once: bool,
}

impl Write for Line {
    fn write(&mut self, line: &[u8]) -> io::Result<usize> {
        let mut batch = batch();
        let was_empty = batch.waiting.is_empty();
        batch.add(line, self.at_once)?;
        if was_empty && !batch.waiting.is_empty() {
            LINES_WAITING.notify_one();
        }
        Ok(line.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for BatchedStderr {
    type Writer = Line;

    /// A line of no known level goes out at once.
    fn make_writer(&'a self) -> Line {
        Line { at_once: true }
    }

    fn make_writer_for(&'a self, meta: &Metadata<'_>) -> Line {
        // Levels order by verbosity: a warning or an error is at most WARN.
        Line {
            at_once: *meta.level() <= Level::WARN,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_wait_until_a_warning_which_goes_out_after_them_in_order() {
        let mut batch = Batch::new(Vec::new());
        batch.add(b"one\n", false).expect("added");
        batch.add(b"two\n", false).expect("added");
        assert!(batch.sink.is_empty(), "lines below a warning wait");
        batch.add(b"warning\n", true).expect("added");
        assert_eq!(batch.sink, b"one\ntwo\nwarning\n");
        assert!(batch.waiting.is_empty());
        batch.add(b"three\n", false).expect("added");
        batch.write_out().expect("written");
        assert_eq!(batch.sink, b"one\ntwo\nwarning\nthree\n");
    }

    #[test]
    fn a_full_batch_is_written_without_waiting() {
        let mut batch = Batch::new(Vec::new());
        let line = [b'x'; 100];
        let mut added = 0;
        while batch.sink.is_empty() {
            batch.add(&line, false).expect("added");
            added += line.len();
            assert!(added <= FULL + line.len(), "written once full");
        }
        assert!(added >= FULL, "not before it is full");
        assert_eq!(batch.sink.len(), added);
        assert!(batch.waiting.is_empty());
    }

    /// A sink that refuses every write.
    struct Broken;

    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::other("the disk is gone"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_that_cannot_be_written_are_not_kept() {
        let mut batch = Batch::new(Broken);
        batch.add(b"one\n", false).expect("added");
        assert!(batch.add(b"error\n", true).is_err(), "the failure is told");
        assert!(batch.waiting.is_empty(), "and nothing is held");
    }

    #[test]
    fn warnings_and_errors_go_out_at_once_and_the_rest_wait() {
        // Spans are made only under a subscriber that takes them; their metadata is the point.
        let _default = tracing::subscriber::set_default(
            tracing_subscriber::fmt()
                .with_max_level(Level::TRACE)
                .finish(),
        );
        let spans = [
            (tracing::error_span!("s"), true),
            (tracing::warn_span!("s"), true),
            (tracing::info_span!("s"), false),
            (tracing::debug_span!("s"), false),
            (tracing::trace_span!("s"), false),
        ];
        for (span, at_once) in spans {
            let meta = span.metadata().expect("a span taken");
            assert_eq!(
                BatchedStderr.make_writer_for(meta).at_once,
                at_once,
                "{}",
                meta.level()
            );
        }
    }
}
