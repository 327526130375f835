//! How a worker's loops wait when they find nothing to do. Every storage call is billed (the
//! source articles batch on a timer for that reason), so an idle loop polls less and less
//! often: its wait doubles from the first (250 ms) up to the most, `CANVASS_IDLE_POLL_MAX_MS`,
//! and goes back to none as soon as it finds work. A worker in the process that queued an
//! answer is woken at once (see `AnswerQueues::queued_here`); one in another process finds it
//! within its current wait.

use std::time::Duration;

/// Whether the workers are paused, as the worker's main loop last read it: its other loops
/// (deliveries, email, mailings, segment builds) hold while it is set, without a storage call
/// of their own.
pub type Paused = tokio::sync::watch::Receiver<bool>;

/// Whether the workers are paused now (the borrow is let go at once: it must not be held
/// across a wait).
pub fn paused_now(paused: &Paused) -> bool {
    *paused.borrow()
}

/// The first wait of an idle loop.
pub const FIRST_IDLE_WAIT: Duration = Duration::from_millis(250);
/// The longest wait of an idle loop, by default, in milliseconds.
pub const DEFAULT_IDLE_POLL_MAX_MS: u64 = 8_000;

/// An idle loop's next wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    first: Duration,
    most: Duration,
    next: Duration,
}

impl Backoff {
    /// Waits from `first`, doubling, up to `most` (at least `first`).
    pub fn new(first: Duration, most: Duration) -> Self {
        Self {
            first,
            most: most.max(first),
            next: first,
        }
    }

    /// The wait after a round that found nothing (the next one will be twice as long, up to
    /// the most).
    pub fn idle(&mut self) -> Duration {
        let wait = self.next;
        self.next = (self.next * 2).min(self.most);
        wait
    }

    /// After a round that found work: the next idle wait is the first again.
    pub fn busy(&mut self) {
        self.next = self.first;
    }

    /// The longest wait.
    pub fn most(&self) -> Duration {
        self.most
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Self::new(
            FIRST_IDLE_WAIT,
            Duration::from_millis(DEFAULT_IDLE_POLL_MAX_MS),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_up_to_the_most_and_start_again_after_work() {
        let ms = Duration::from_millis;
        let mut backoff = Backoff::new(ms(250), ms(1_000));
        let waits: Vec<Duration> = (0..4).map(|_| backoff.idle()).collect();
        assert_eq!(waits, [ms(250), ms(500), ms(1_000), ms(1_000)]);
        backoff.busy();
        assert_eq!(backoff.idle(), ms(250));
        assert_eq!(Backoff::new(ms(250), ms(10)).most(), ms(250));
    }
}
