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

/// What a side loop of the worker (deliveries, email, mailings, segment builds) waits by: its
/// backoff, the workers' pause and the stop signal.
#[derive(Clone, Debug)]
pub struct Looping {
    /// Its idle waits.
    pub backoff: Backoff,
    /// Whether the workers are paused.
    pub paused: Paused,
    /// Turns true when the worker stops.
    pub stop: tokio::sync::watch::Receiver<bool>,
}

impl Looping {
    /// Whether the worker is still running.
    pub fn going(&self) -> bool {
        !*self.stop.borrow()
    }

    /// What `step` found, or `Ok(false)` without running it while the workers are paused.
    pub async fn unless_paused<E>(
        &self,
        step: impl Future<Output = Result<bool, E>>,
    ) -> Result<bool, E> {
        // The borrow is let go at once: it must not be held across the step.
        let paused = *self.paused.borrow();
        match paused {
            true => Ok(false),
            false => step.await,
        }
    }

    /// Waits after a step: not at all when it `found` work, the idle wait when it found none,
    /// and `retry_in` when it failed (logged as `failing` failed); less if the worker stops.
    pub async fn rest_after<E: std::error::Error>(
        &mut self,
        found: Result<bool, E>,
        failing: &str,
        retry_in: Duration,
    ) {
        let wait = self.backoff.after_step(found, failing, retry_in);
        if wait.is_zero() {
            return;
        }
        tokio::select! {
            _ = self.stop.changed() => {}
            () = tokio::time::sleep(wait) => {}
        }
    }

    /// Waits for the worker to stop: for a loop that can do nothing here.
    pub async fn until_stopped(mut self) {
        let _ = self.stop.wait_for(|stopped| *stopped).await;
    }
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

    /// The wait after a step of a loop: none when it `found` work (`Ok(true)`), the idle wait
    /// when it found none, and `retry_in` when it failed (logged as `failing` failed).
    fn after_step<E: std::error::Error>(
        &mut self,
        found: Result<bool, E>,
        failing: &str,
        retry_in: Duration,
    ) -> Duration {
        match found {
            Ok(true) => {
                self.busy();
                Duration::ZERO
            }
            Ok(false) => self.idle(),
            Err(error) => {
                let error = crate::telemetry::error_chain(&error);
                tracing::error!(%error, "{failing} failed");
                retry_in
            }
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

    #[test]
    fn a_step_that_found_work_goes_on_at_once_one_that_found_none_backs_off_a_failure_waits_its_own()
     {
        let ms = Duration::from_millis;
        let retry = ms(1_500);
        let mut backoff = Backoff::new(ms(250), ms(1_000));
        let none = || Ok::<bool, std::io::Error>(false);
        assert_eq!(backoff.after_step(none(), "a step", retry), ms(250));
        assert_eq!(backoff.after_step(none(), "a step", retry), ms(500));
        let failed = Err(std::io::Error::other("the disk is gone"));
        assert_eq!(backoff.after_step(failed, "a step", retry), retry);
        assert_eq!(
            backoff.after_step(none(), "a step", retry),
            ms(1_000),
            "a failure leaves the idle waits where they were"
        );
        assert_eq!(
            backoff.after_step(Ok::<bool, std::io::Error>(true), "a step", retry),
            Duration::ZERO
        );
        assert_eq!(
            backoff.after_step(none(), "a step", retry),
            ms(250),
            "work found starts the idle waits again"
        );
    }

    #[tokio::test]
    async fn a_paused_loop_does_not_step_and_a_stopped_one_stops_resting() {
        let (pause, paused) = tokio::sync::watch::channel(true);
        let (stop_tx, stop) = tokio::sync::watch::channel(false);
        let hour = Duration::from_secs(3_600);
        let mut looping = Looping {
            backoff: Backoff::new(hour, hour),
            paused,
            stop,
        };
        let stepped = std::cell::Cell::new(false);
        let step = async {
            stepped.set(true);
            Ok::<bool, std::io::Error>(true)
        };
        assert!(!looping.unless_paused(step).await.expect("no failure"));
        assert!(!stepped.get(), "no step runs while paused");
        pause.send(false).expect("sent");
        let step = async { Ok::<bool, std::io::Error>(true) };
        assert!(looping.unless_paused(step).await.expect("no failure"));
        assert!(looping.going());
        stop_tx.send(true).expect("sent");
        // An hour's idle wait ends at once: the stop has come.
        tokio::time::timeout(
            Duration::from_secs(5),
            looping.rest_after(Ok::<bool, std::io::Error>(false), "a step", hour),
        )
        .await
        .expect("rest ends when the worker stops");
        assert!(!looping.going());
    }
}
