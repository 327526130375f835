//! `MessageQueue` on the local queue file. Receiving is one `update ... returning` statement
//! that hides the oldest visible messages and hands each a fresh pop receipt, so two processes
//! never receive the same message while its visibility lasts.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use bytes::Bytes;
use rusqlite::{Connection, ErrorCode, OptionalExtension, params};

use super::layout::Layout;
use super::writer;
use super::{from_millis, millis, sqlite};
use crate::storage::{
    Error, Message, MessageQueue, MessageUpdate, Operation, PopReceipt, QueueName, Result,
    TransactionCounter, check_batch_size, check_message_size,
};

/// Queues in the local data directory.
#[derive(Debug)]
pub struct LocalQueue {
    layout: Arc<Layout>,
    counter: TransactionCounter,
}

impl LocalQueue {
    pub(super) fn new(layout: Arc<Layout>) -> Self {
        Self {
            layout,
            counter: TransactionCounter::default(),
        }
    }
}

fn duration_millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// Ids are the table's integer keys; anything else names no message.
fn parse_id(id: &str) -> Result<i64> {
    id.parse().map_err(|_| Error::message_not_found(id))
}

fn queue_exists(connection: &Connection, queue: &str) -> Result<bool> {
    connection
        .prepare_cached("select 1 from queue where name = ?1")
        .and_then(|mut select| select.query_row([queue], |_| Ok(())).optional())
        .map(|found| found.is_some())
        .map_err(sqlite)
}

/// Why a conditional message statement touched no row: no such message, or a stale receipt.
fn not_held(connection: &Connection, queue: &str, id: i64) -> Error {
    let found = connection
        .prepare_cached("select 1 from message where queue = ?1 and id = ?2")
        .and_then(|mut select| select.query_row(params![queue, id], |_| Ok(())).optional());
    match found {
        Ok(Some(())) => Error::PopReceiptMismatch { id: id.to_string() },
        Ok(None) => Error::message_not_found(&id.to_string()),
        Err(error) => sqlite(error),
    }
}

/// Inserts one message; a queue that does not exist is this message's own error.
fn insert_message(
    connection: &Connection,
    queue: &str,
    body: &[u8],
    inserted_at: i64,
    visible_at: i64,
) -> Result<String> {
    let inserted = connection
        .prepare_cached("insert into message (queue, inserted_at, visible_at) values (?1, ?2, ?3)")
        .and_then(|mut insert| insert.execute(params![queue, inserted_at, visible_at]));
    match inserted {
        Ok(_) => {
            let id = connection.last_insert_rowid();
            connection
                .prepare_cached("insert into message_body (id, body) values (?1, ?2)")
                .and_then(|mut insert| insert.execute(params![id, body]))
                .map_err(sqlite)?;
            Ok(id.to_string())
        }
        Err(error) if error.sqlite_error_code() == Some(ErrorCode::ConstraintViolation) => {
            Err(Error::queue_not_found(queue))
        }
        Err(error) => Err(sqlite(error)),
    }
}

/// Deletes a message if it is held with `receipt`.
fn delete_message(connection: &Connection, queue: &str, id: i64, receipt: &str) -> Result<()> {
    let deleted = connection
        .prepare_cached("delete from message where queue = ?1 and id = ?2 and pop_receipt = ?3")
        .and_then(|mut delete| delete.execute(params![queue, id, receipt]))
        .map_err(sqlite)?;
    if deleted == 0 {
        return Err(not_held(connection, queue, id));
    }
    connection
        .prepare_cached("delete from message_body where id = ?1")
        .and_then(|mut delete| delete.execute([id]))
        .map_err(sqlite)?;
    Ok(())
}

/// Hides up to `max` visible messages until `hidden_until` and returns them, oldest first.
fn receive(
    connection: &Connection,
    queue: &str,
    max: usize,
    now: i64,
    hidden_until: i64,
) -> Result<Vec<Message>> {
    // The updated rows, then each one's body; ids stay numbers until the messages are built.
    let mut held: Vec<(i64, String, u32, i64)> = connection
        .prepare_cached(
            "update message set visible_at = ?1,
                 pop_receipt = lower(hex(randomblob(16))),
                 dequeue_count = dequeue_count + 1
             where id in (select id from message
                          where queue = ?2 and visible_at <= ?3
                          order by visible_at, id limit ?4)
             returning id, pop_receipt, dequeue_count, inserted_at",
        )
        .and_then(|mut update| {
            update
                .query_map(params![hidden_until, queue, now, max as i64], |row| {
                    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(sqlite)?;
    held.sort_by_key(|(id, ..)| *id);
    let mut body = connection
        .prepare_cached("select body from message_body where id = ?1")
        .map_err(sqlite)?;
    let messages = held
        .into_iter()
        .map(|(id, receipt, dequeue_count, inserted_at)| {
            Ok(Message {
                id: id.to_string(),
                pop_receipt: PopReceipt::new(receipt),
                dequeue_count,
                inserted_at: from_millis(inserted_at),
                body: Bytes::from(body.query_row([id], |row| row.get::<_, Vec<u8>>(0))?),
            })
        })
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(sqlite)?;
    drop(body);
    if messages.is_empty() && !queue_exists(connection, queue)? {
        return Err(Error::queue_not_found(queue));
    }
    Ok(messages)
}

#[async_trait]
impl MessageQueue for LocalQueue {
    async fn create_queue(&self, queue: &QueueName) -> Result<()> {
        let queue = queue.as_str().to_owned();
        self.layout
            .queues
            .write(move |connection| {
                connection
                    .prepare_cached("insert into queue (name) values (?1) on conflict do nothing")
                    .and_then(|mut insert| insert.execute([&queue]))
                    .map_err(sqlite)?;
                Ok(())
            })
            .await
    }

    async fn add(
        &self,
        queue: &QueueName,
        body: Bytes,
        initial_invisibility: Option<Duration>,
    ) -> Result<String> {
        check_message_size(&body)?;
        self.counter.record(Operation::Add);
        let queue = queue.as_str().to_owned();
        let now = millis(SystemTime::now());
        let visible_at = now + initial_invisibility.map_or(0, duration_millis);
        self.layout
            .queues
            .write(move |connection| insert_message(connection, &queue, &body, now, visible_at))
            .await
    }

    async fn get(
        &self,
        queue: &QueueName,
        max: usize,
        visibility: Duration,
    ) -> Result<Vec<Message>> {
        check_batch_size(max)?;
        self.counter.record(Operation::GetMessages);
        let queue = queue.as_str().to_owned();
        let now = millis(SystemTime::now());
        let hidden_until = now + duration_millis(visibility);
        self.layout
            .queues
            .write(move |connection| receive(connection, &queue, max, now, hidden_until))
            .await
    }

    async fn update(
        &self,
        queue: &QueueName,
        id: &str,
        receipt: &PopReceipt,
        update: MessageUpdate,
    ) -> Result<PopReceipt> {
        if let Some(body) = &update.body {
            check_message_size(body)?;
        }
        self.counter.record(Operation::Update);
        let queue = queue.as_str().to_owned();
        let id = parse_id(id)?;
        let receipt = receipt.as_str().to_owned();
        let visible_at = millis(SystemTime::now()) + duration_millis(update.visibility);
        self.layout
            .queues
            .write(move |connection| {
                let renewed: Option<String> = connection
                    .prepare_cached(
                        "update message set visible_at = ?1,
                             pop_receipt = lower(hex(randomblob(16)))
                         where queue = ?2 and id = ?3 and pop_receipt = ?4
                         returning pop_receipt",
                    )
                    .and_then(|mut renew| {
                        renew
                            .query_row(params![visible_at, queue, id, receipt], |row| row.get(0))
                            .optional()
                    })
                    .map_err(sqlite)?;
                let receipt = renewed.ok_or_else(|| not_held(connection, &queue, id))?;
                if let Some(body) = &update.body {
                    connection
                        .prepare_cached("update message_body set body = ?1 where id = ?2")
                        .and_then(|mut replace| replace.execute(params![body.as_ref(), id]))
                        .map_err(sqlite)?;
                }
                Ok(PopReceipt::new(receipt))
            })
            .await
    }

    async fn delete(&self, queue: &QueueName, id: &str, receipt: &PopReceipt) -> Result<()> {
        self.counter.record(Operation::DeleteMessage);
        let queue = queue.as_str().to_owned();
        let id = parse_id(id)?;
        let receipt = receipt.as_str().to_owned();
        // The message must not be gone from disk while what was made of it is not there yet.
        self.layout.flush_blobs().await?;
        self.layout
            .queues
            .write(move |connection| delete_message(connection, &queue, id, &receipt))
            .await
    }

    async fn delete_many(
        &self,
        queue: &QueueName,
        messages: &[(String, PopReceipt)],
    ) -> Result<Vec<Result<()>>> {
        // One job for the lot, instead of one per message.
        let held: Vec<Result<(i64, String)>> = messages
            .iter()
            .map(|(id, receipt)| {
                self.counter.record(Operation::DeleteMessage);
                Ok((parse_id(id)?, receipt.as_str().to_owned()))
            })
            .collect();
        let queue = queue.as_str().to_owned();
        // As in `delete`: what was made of the messages reaches the disk first.
        self.layout.flush_blobs().await?;
        self.layout
            .queues
            .write(move |connection| {
                writer::each(
                    held.into_iter()
                        .map(|held| {
                            let (id, receipt) = held?;
                            delete_message(connection, &queue, id, &receipt)
                        })
                        .collect(),
                )
            })
            .await
    }

    async fn head_inserted_at(&self, queue: &QueueName) -> Result<Option<SystemTime>> {
        self.counter.record(Operation::Peek);
        let name = queue.as_str().to_owned();
        let now = millis(SystemTime::now());
        let (known, head): (bool, Option<i64>) = self
            .layout
            .queues
            .read(move |connection| {
                // The order a receive takes them in, so this is the message it would return.
                connection
                    .prepare_cached(
                        "select exists (select 1 from queue where name = ?1),
                                (select inserted_at from message
                                 where queue = ?1 and visible_at <= ?2
                                 order by visible_at, id limit 1)",
                    )?
                    .query_row(params![name, now], |row| Ok((row.get(0)?, row.get(1)?)))
            })
            .await?;
        if !known {
            return Err(Error::queue_not_found(queue.as_str()));
        }
        Ok(head.map(from_millis))
    }

    async fn approximate_length(&self, queue: &QueueName) -> Result<u64> {
        self.counter.record(Operation::Length);
        let name = queue.as_str().to_owned();
        let length: Option<i64> = self
            .layout
            .queues
            .read(move |connection| {
                connection
                    .prepare_cached(
                        "select (select count(*) from message where queue = ?1)
                         from queue where name = ?1",
                    )?
                    .query_row([&name], |row| row.get(0))
                    .optional()
            })
            .await?;
        length
            .map(|length| u64::try_from(length).unwrap_or(0))
            .ok_or_else(|| Error::queue_not_found(queue.as_str()))
    }

    fn transactions(&self) -> &TransactionCounter {
        &self.counter
    }
}
