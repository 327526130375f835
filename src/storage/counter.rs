//! Counts storage transactions per operation, as a cloud storage bill would.
//!
//! Every adapter owns one counter and bumps it once per call that reaches storage (a get, a put,
//! a list page, a batch receive...), so later code can report transactions per answer the way
//! the Tailspin chapter does.

use std::ops::Add;
use std::sync::atomic::{AtomicU64, Ordering};

/// One kind of billable storage call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    /// Read a blob.
    Get,
    /// Write a blob (any condition).
    Put,
    /// Delete a blob.
    Delete,
    /// One page of a blob listing.
    List,
    /// Add a message.
    Add,
    /// Receive a batch of messages.
    GetMessages,
    /// Update a message's content or visibility.
    Update,
    /// Delete a message.
    DeleteMessage,
    /// Read a queue's approximate length.
    Length,
    /// Look at the next message without receiving it.
    Peek,
}

const OPERATIONS: usize = 10;

impl Operation {
    /// Every operation, in order.
    pub const ALL: [Operation; OPERATIONS] = [
        Operation::Get,
        Operation::Put,
        Operation::Delete,
        Operation::List,
        Operation::Add,
        Operation::GetMessages,
        Operation::Update,
        Operation::DeleteMessage,
        Operation::Length,
        Operation::Peek,
    ];

    /// Its name, as metrics label it.
    pub fn name(self) -> &'static str {
        match self {
            Operation::Get => "get",
            Operation::Put => "put",
            Operation::Delete => "delete",
            Operation::List => "list",
            Operation::Add => "add",
            Operation::GetMessages => "get_messages",
            Operation::Update => "update",
            Operation::DeleteMessage => "delete_message",
            Operation::Length => "length",
            Operation::Peek => "peek",
        }
    }
}

/// A live, shareable counter of storage transactions.
#[derive(Debug, Default)]
pub struct TransactionCounter {
    counts: [AtomicU64; OPERATIONS],
}

impl TransactionCounter {
    /// Records one transaction.
    pub fn record(&self, operation: Operation) {
        self.counts[operation as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// The counts so far.
    pub fn snapshot(&self) -> TransactionCounts {
        TransactionCounts {
            counts: std::array::from_fn(|i| self.counts[i].load(Ordering::Relaxed)),
        }
    }
}

/// A point-in-time copy of a counter; subtract two to measure a stretch of work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TransactionCounts {
    counts: [u64; OPERATIONS],
}

impl TransactionCounts {
    /// Transactions of one kind.
    pub fn of(&self, operation: Operation) -> u64 {
        self.counts[operation as usize]
    }

    /// All transactions.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// What happened between `earlier` and `self`.
    pub fn since(&self, earlier: &TransactionCounts) -> TransactionCounts {
        TransactionCounts {
            counts: std::array::from_fn(|i| self.counts[i].saturating_sub(earlier.counts[i])),
        }
    }
}

impl Add for TransactionCounts {
    type Output = TransactionCounts;

    fn add(self, other: TransactionCounts) -> TransactionCounts {
        TransactionCounts {
            counts: std::array::from_fn(|i| self.counts[i] + other.counts[i]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_operation_is_counted_on_its_own_and_in_the_total() {
        let counter = TransactionCounter::default();
        counter.record(Operation::Get);
        counter.record(Operation::Get);
        counter.record(Operation::DeleteMessage);

        let counts = counter.snapshot();

        assert_eq!(counts.of(Operation::Get), 2);
        assert_eq!(counts.of(Operation::DeleteMessage), 1);
        assert_eq!(counts.of(Operation::Put), 0);
        assert_eq!(counts.total(), 3);
    }

    #[test]
    fn since_measures_the_work_between_two_snapshots() {
        let counter = TransactionCounter::default();
        counter.record(Operation::Put);
        let before = counter.snapshot();
        counter.record(Operation::Put);
        counter.record(Operation::List);

        let delta = counter.snapshot().since(&before);

        assert_eq!(delta.of(Operation::Put), 1);
        assert_eq!(delta.total(), 2);
    }
}
