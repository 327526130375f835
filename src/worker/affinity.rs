//! Affinity by hashing (seed 004): each survey's answers go to one shard of its class (a stable
//! hash of tenant and survey, `AnswerQueues::queue_for`), and each shard is taken by one worker
//! at a time, so one worker merges a given survey's summary and workers do not race on it.
//!
//! The shards are dealt in turn among the running workers (in their names' order) through the
//! roster: every worker writes a heartbeat each half lease and claims the shards dealt
//! to it. One that joins is dealt its share as soon as the holders let go at their next
//! heartbeat; one that stops lets go on its way out; one that dies loses its shards once its
//! heartbeat is a lease old. Counting stays exact whatever the claims say: the summary's
//! ETag merge stands behind them (a worker held up past its lease may still finish the batch
//! it had, and the merge sorts that out as it did before affinity).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::storage::{ETag, QueueName};
use crate::stores::roster::{Member, Roster};
use crate::stores::{AnswerQueues, StoreError};

use super::Plans;

/// A worker's lease on its shards, in seconds, by default: a dead worker's shards are taken
/// over within this (and a heartbeat's wait), inside the 60 s a dead worker's held messages
/// stay hidden anyway.
pub const DEFAULT_SHARD_LEASE_SECS: u64 = 45;

/// The longest wait between heartbeats while the shards are being dealt (a worker joined or
/// left, or a shard is not yet taken), so a rebalance takes seconds, not leases.
const DEALING_BEAT: Duration = Duration::from_secs(1);

/// The shards of both classes dealt to `me`: shard `i` of a class goes to the class's member
/// `(i + offset) mod n`, where the standard shards start after the premium ones, so workers
/// that take both classes share each class alike.
pub fn dealt<'a>(
    premium: &'a [QueueName],
    standard: &'a [QueueName],
    members: &[Member],
    me: &str,
) -> Vec<&'a QueueName> {
    let mut mine = Vec::new();
    for (shards, takes, offset) in [
        (premium, Plans::premium as fn(Plans) -> bool, 0),
        (standard, Plans::standard, premium.len()),
    ] {
        let takers: Vec<&str> = members
            .iter()
            .filter(|member| plans_of(member).is_some_and(takes))
            .map(|member| member.owner.as_str())
            .collect();
        if !takers.contains(&me) {
            continue;
        }
        for (i, shard) in shards.iter().enumerate() {
            if takers[(i + offset) % takers.len()] == me {
                mine.push(shard);
            }
        }
    }
    mine
}

/// The classes a member takes, from the name its heartbeat carries (`--plans`' own).
fn plans_of(member: &Member) -> Option<Plans> {
    <Plans as clap::ValueEnum>::from_str(&member.plans, false).ok()
}

/// The name a plan goes by in the roster: the one `--plans` takes.
fn plans_name(plans: Plans) -> String {
    clap::ValueEnum::to_possible_value(&plans)
        .map(|value| value.get_name().to_owned())
        .unwrap_or_default()
}

/// One worker's place in the roster and the shards it holds.
#[derive(Debug)]
pub struct Affinity {
    me: Member,
    lease: Duration,
    /// The claims held, with their versions.
    held: BTreeMap<QueueName, ETag>,
    /// Until when (this machine's clock) the held claims are surely still this worker's: the
    /// other workers count its heartbeat live for a lease after it was written.
    trusted_until: Option<Instant>,
    next_beat: Instant,
    /// The latest an idle worker may wake for its next heartbeat: the beat itself once the
    /// shards are dealt, when the beat may wait for the idle loop's next look (so it costs no
    /// wake of its own) by up to a sixth of the lease, still well inside the claims' trust.
    wake_by: Instant,
    members: Vec<Member>,
}

impl Affinity {
    /// A new member of the roster taking `plans`, holding its shards for `lease`.
    pub fn new(plans: Plans, lease: Duration) -> Self {
        Self {
            me: Member {
                owner: uuid::Uuid::new_v4().simple().to_string(),
                plans: plans_name(plans),
            },
            lease: lease.max(Duration::from_secs(1)),
            held: BTreeMap::new(),
            trusted_until: None,
            next_beat: Instant::now(),
            wake_by: Instant::now(),
            members: Vec::new(),
        }
    }

    /// Whether this worker may take messages from `queue` now.
    pub fn takes(&self, queue: &QueueName) -> bool {
        self.held.contains_key(queue) && self.trusted_until.is_some_and(|t| Instant::now() < t)
    }

    /// How long an idle worker may wait before it must wake for its next heartbeat.
    pub fn wake_within(&self) -> Duration {
        self.wake_by.saturating_duration_since(Instant::now())
    }

    /// The shards held, for logs and tests.
    pub fn held(&self) -> impl Iterator<Item = &QueueName> {
        self.held.keys()
    }

    /// Writes the heartbeat and takes or lets go of shards, when a heartbeat is due.
    pub async fn keep(&mut self, roster: &Roster, queues: &AnswerQueues) -> Result<(), StoreError> {
        if Instant::now() < self.next_beat {
            return Ok(());
        }
        let started = Instant::now();
        let trusted = self.trusted_until.is_some_and(|t| started < t);
        let now = roster.beat(&self.me).await?;
        let mut members = roster.members(now, self.lease).await?;
        if !members.contains(&self.me) {
            members.push(self.me.clone());
            members.sort();
        }
        if !trusted || members != self.members {
            // This worker's heartbeat may have lapsed (a stall, a storage outage), or workers
            // came or went: a claim it holds is checked against the storage, so a claim another
            // took, or one lost on the way, is no longer counted as this worker's.
            self.trusted_until = None;
            let held = std::mem::take(&mut self.held);
            for queue in held.into_keys() {
                if let Some(claimed) = roster.holder(&queue).await?
                    && claimed.owner == self.me.owner
                {
                    self.held.insert(queue, claimed.etag);
                }
            }
        }
        let (premium, standard) = queues.work_queues();
        let wanted: Vec<QueueName> = dealt(premium, standard, &members, &self.me.owner)
            .into_iter()
            .cloned()
            .collect();
        let before: Vec<QueueName> = self.held.keys().cloned().collect();
        // Let go first, so the worker they are dealt to can take them at its next heartbeat.
        for queue in &before {
            if !wanted.contains(queue)
                && let Some(etag) = self.held.remove(queue)
            {
                roster.release(queue, &etag).await?;
            }
        }
        let live = |owner: &str| members.iter().any(|member| member.owner == owner);
        for queue in &wanted {
            if !self.held.contains_key(queue)
                && let Some(etag) = roster
                    .claim(queue, &self.me.owner, live, now, self.lease)
                    .await?
            {
                self.held.insert(queue.clone(), etag);
            }
        }
        self.trusted_until = Some(started + self.lease - self.lease / 6);
        let settled = wanted.len() == self.held.len() && members == self.members;
        if self.held.keys().ne(before.iter()) {
            let held: Vec<&str> = self.held.keys().map(QueueName::as_str).collect();
            tracing::info!(
                workers = members.len(),
                shards = ?held,
                "this worker's answer shards changed"
            );
        }
        self.members = members;
        // Dealt: a heartbeat each half lease, which may wait a sixth more for the idle loop's
        // next look. Dealing: every second, on time.
        (self.next_beat, self.wake_by) = if settled {
            let next = started + self.lease / 2;
            (next, next + self.lease / 6)
        } else {
            let next = started + DEALING_BEAT.min(self.lease / 2);
            (next, next)
        };
        Ok(())
    }

    /// Lets go of every shard and leaves the roster, so the others take the shards at once.
    pub async fn leave(&mut self, roster: &Roster) -> Result<(), StoreError> {
        for (queue, etag) in std::mem::take(&mut self.held) {
            roster.release(&queue, &etag).await?;
        }
        self.trusted_until = None;
        roster.leave(&self.me).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queues(base: &str, n: usize) -> Vec<QueueName> {
        (0..n)
            .map(|i| QueueName::parse(&format!("{base}-{i}")).expect("a name"))
            .collect()
    }

    fn member(owner: &str, plans: &str) -> Member {
        Member {
            owner: owner.into(),
            plans: plans.into(),
        }
    }

    fn names(shards: Vec<&QueueName>) -> Vec<&str> {
        shards.into_iter().map(QueueName::as_str).collect()
    }

    #[test]
    fn a_lone_worker_is_dealt_every_shard() {
        let (premium, standard) = (queues("p", 2), queues("s", 2));
        let me = [member("a", "both")];
        assert_eq!(
            names(dealt(&premium, &standard, &me, "a")),
            ["p-0", "p-1", "s-0", "s-1"]
        );
    }

    #[test]
    fn two_workers_share_one_shard_of_each_class_one_each() {
        let (premium, standard) = (queues("p", 1), queues("s", 1));
        let both = [member("a", "both"), member("b", "both")];
        assert_eq!(names(dealt(&premium, &standard, &both, "a")), ["p-0"]);
        assert_eq!(names(dealt(&premium, &standard, &both, "b")), ["s-0"]);
    }

    #[test]
    fn every_shard_is_dealt_to_exactly_one_taker_and_evenly() {
        for shards in 1..=16 {
            for workers in 1..=6 {
                let (premium, standard) = (queues("p", shards), queues("s", shards));
                let members: Vec<Member> = (0..workers)
                    .map(|w| member(&format!("w{w}"), "both"))
                    .collect();
                let mut seen = BTreeMap::new();
                let mut counts = Vec::new();
                for m in &members {
                    let mine = dealt(&premium, &standard, &members, &m.owner);
                    counts.push(mine.len());
                    for shard in mine {
                        *seen.entry(shard.as_str().to_owned()).or_insert(0) += 1;
                    }
                }
                assert_eq!(seen.len(), 2 * shards, "every shard is dealt");
                assert!(seen.values().all(|&n| n == 1), "to one worker only");
                let (most, least) = (counts.iter().max(), counts.iter().min());
                assert!(most.zip(least).is_some_and(|(a, b)| a - b <= 1));
            }
        }
    }

    #[test]
    fn a_worker_of_one_class_is_dealt_only_that_classs_shards() {
        let (premium, standard) = (queues("p", 2), queues("s", 2));
        let members = [member("a", "premium"), member("b", "standard")];
        assert_eq!(
            names(dealt(&premium, &standard, &members, "a")),
            ["p-0", "p-1"]
        );
        assert_eq!(
            names(dealt(&premium, &standard, &members, "b")),
            ["s-0", "s-1"]
        );
    }

    #[test]
    fn a_worker_missing_from_the_roster_is_dealt_nothing() {
        let (premium, standard) = (queues("p", 2), queues("s", 2));
        let members = [member("a", "both")];
        assert!(dealt(&premium, &standard, &members, "z").is_empty());
    }
}
