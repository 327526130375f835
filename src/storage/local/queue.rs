//! `MessageQueue` on the local SQLite database. Receiving is one `update ... returning`
//! statement that hides the oldest visible messages and hands each a fresh pop receipt, so two
//! processes never receive the same message while its visibility lasts.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use bytes::Bytes;
use sqlx::error::ErrorKind;
use sqlx::{QueryBuilder, Row, Sqlite, SqliteConnection};

use super::writer::{HeldMessage, NewMessage};
use super::{Database, from_millis, millis, retry};
use crate::storage::{
    Error, Message, MessageQueue, MessageUpdate, Operation, PopReceipt, QueueName, Result,
    TransactionCounter, check_batch_size, check_message_size,
};

/// Queues in the local database.
#[derive(Debug)]
pub struct LocalQueue {
    database: Arc<Database>,
    counter: TransactionCounter,
}

impl LocalQueue {
    pub(super) fn new(database: Arc<Database>) -> Self {
        Self {
            database,
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

async fn queue_exists(connection: &mut SqliteConnection, queue: &str) -> Result<bool> {
    let found: Option<i64> = sqlx::query_scalar("select 1 from queue where name = ?")
        .bind(queue)
        .fetch_optional(connection)
        .await
        .map_err(Error::backend)?;
    Ok(found.is_some())
}

/// Why a conditional message statement touched no row: no such message, or a stale receipt.
async fn not_held(connection: &mut SqliteConnection, queue: &str, id: &str) -> Error {
    let Ok(numeric) = parse_id(id) else {
        return Error::message_not_found(id);
    };
    match sqlx::query_scalar::<_, i64>("select 1 from message where queue = ? and id = ?")
        .bind(queue)
        .bind(numeric)
        .fetch_optional(connection)
        .await
    {
        Ok(Some(_)) => Error::PopReceiptMismatch { id: id.into() },
        Ok(None) => Error::message_not_found(id),
        Err(error) => Error::backend(error),
    }
}

/// Inserts messages with one multi-row statement and returns each one's id, or its own error.
/// Only the writer calls this, inside its transaction.
pub(super) async fn insert_messages(
    connection: &mut SqliteConnection,
    messages: &[NewMessage],
) -> Result<Vec<Result<String>>> {
    let mut insert =
        QueryBuilder::<Sqlite>::new("insert into message (queue, body, inserted_at, visible_at) ");
    insert.push_values(messages, |mut row, message| {
        row.push_bind(&message.queue)
            .push_bind(message.body.as_ref())
            .push_bind(message.inserted_at)
            .push_bind(message.visible_at);
    });
    match insert.build().execute(&mut *connection).await {
        // One statement under the write lock numbers its rows consecutively.
        Ok(done) => {
            let last = done.last_insert_rowid();
            let first = last - messages.len() as i64 + 1;
            Ok((first..=last).map(|id| Ok(id.to_string())).collect())
        }
        // Some message names a queue that does not exist: add them one by one so only
        // that one fails.
        Err(sqlx::Error::Database(error)) if error.kind() == ErrorKind::ForeignKeyViolation => {
            let mut ids = Vec::with_capacity(messages.len());
            for message in messages {
                ids.push(insert_message(connection, message).await?);
            }
            Ok(ids)
        }
        Err(error) => Err(Error::backend(error)),
    }
}

/// Deletes held messages with one statement; a message not deleted gets its own reason (gone,
/// or held with another receipt). Only the writer calls this, inside its transaction.
pub(super) async fn delete_messages(
    connection: &mut SqliteConnection,
    messages: &[HeldMessage],
) -> Result<Vec<Result<()>>> {
    let mut delete =
        QueryBuilder::<Sqlite>::new("delete from message where (queue, id, pop_receipt) in (");
    delete.push_values(messages, |mut row, message| {
        row.push_bind(&message.queue)
            .push_bind(message.id.parse::<i64>().unwrap_or(-1))
            .push_bind(&message.receipt);
    });
    delete.push(") returning id");
    let deleted: HashSet<i64> = delete
        .build_query_scalar::<i64>()
        .fetch_all(&mut *connection)
        .await
        .map_err(Error::backend)?
        .into_iter()
        .collect();
    let mut results = Vec::with_capacity(messages.len());
    for message in messages {
        let gone = message
            .id
            .parse()
            .is_ok_and(|id: i64| deleted.contains(&id));
        results.push(if gone {
            Ok(())
        } else {
            Err(not_held(connection, &message.queue, &message.id).await)
        });
    }
    Ok(results)
}

/// Inserts one message; an unknown queue is that message's own error.
async fn insert_message(
    connection: &mut SqliteConnection,
    message: &NewMessage,
) -> Result<Result<String>> {
    let inserted = sqlx::query(
        "insert into message (queue, body, inserted_at, visible_at) values (?, ?, ?, ?)",
    )
    .bind(&message.queue)
    .bind(message.body.as_ref())
    .bind(message.inserted_at)
    .bind(message.visible_at)
    .execute(connection)
    .await;
    match inserted {
        Ok(done) => Ok(Ok(done.last_insert_rowid().to_string())),
        Err(sqlx::Error::Database(error)) if error.kind() == ErrorKind::ForeignKeyViolation => {
            Ok(Err(Error::queue_not_found(&message.queue)))
        }
        Err(error) => Err(Error::backend(error)),
    }
}

#[async_trait]
impl MessageQueue for LocalQueue {
    async fn create_queue(&self, queue: &QueueName) -> Result<()> {
        let queue = queue.as_str().to_owned();
        self.database
            .writer
            .write(move |connection| {
                Box::pin(async move {
                    sqlx::query("insert into queue (name) values (?) on conflict do nothing")
                        .bind(&queue)
                        .execute(connection)
                        .await
                        .map_err(Error::backend)?;
                    Ok(())
                })
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
        let now = millis(SystemTime::now());
        self.database
            .writer
            .add(NewMessage {
                queue: queue.as_str().to_owned(),
                body,
                inserted_at: now,
                visible_at: now + initial_invisibility.map_or(0, duration_millis),
            })
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
        self.database
            .writer
            .write(move |connection| {
                Box::pin(async move {
                    let rows = sqlx::query(
                        "update message set visible_at = ?1,
                             pop_receipt = lower(hex(randomblob(16))),
                             dequeue_count = dequeue_count + 1
                         where id in (select id from message
                                      where queue = ?2 and visible_at <= ?3
                                      order by visible_at, id limit ?4)
                         returning id, pop_receipt, dequeue_count, inserted_at, body",
                    )
                    .bind(hidden_until)
                    .bind(&queue)
                    .bind(now)
                    .bind(max as i64)
                    .fetch_all(&mut *connection)
                    .await
                    .map_err(Error::backend)?;
                    if rows.is_empty() && !queue_exists(connection, &queue).await? {
                        return Err(Error::queue_not_found(&queue));
                    }
                    let mut messages = rows
                        .iter()
                        .map(|row| {
                            Ok(Message {
                                id: row.try_get::<i64, _>("id")?.to_string(),
                                pop_receipt: PopReceipt::new(
                                    row.try_get::<String, _>("pop_receipt")?,
                                ),
                                dequeue_count: row.try_get("dequeue_count")?,
                                inserted_at: from_millis(row.try_get("inserted_at")?),
                                body: Bytes::from(row.try_get::<Vec<u8>, _>("body")?),
                            })
                        })
                        .collect::<Result<Vec<_>, sqlx::Error>>()
                        .map_err(Error::backend)?;
                    messages.sort_by_key(|message| message.id.parse::<i64>().unwrap_or(0));
                    Ok(messages)
                })
            })
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
        let id = id.to_owned();
        let numeric = parse_id(&id)?;
        let receipt = receipt.as_str().to_owned();
        let visible_at = millis(SystemTime::now()) + duration_millis(update.visibility);
        self.database
            .writer
            .write(move |connection| {
                Box::pin(async move {
                    let renewed: Option<String> = sqlx::query_scalar(
                        "update message set body = coalesce(?1, body), visible_at = ?2,
                             pop_receipt = lower(hex(randomblob(16)))
                         where queue = ?3 and id = ?4 and pop_receipt = ?5
                         returning pop_receipt",
                    )
                    .bind(update.body.as_deref())
                    .bind(visible_at)
                    .bind(&queue)
                    .bind(numeric)
                    .bind(&receipt)
                    .fetch_optional(&mut *connection)
                    .await
                    .map_err(Error::backend)?;
                    match renewed {
                        Some(receipt) => Ok(PopReceipt::new(receipt)),
                        None => Err(not_held(connection, &queue, &id).await),
                    }
                })
            })
            .await
    }

    async fn delete(&self, queue: &QueueName, id: &str, receipt: &PopReceipt) -> Result<()> {
        self.counter.record(Operation::DeleteMessage);
        parse_id(id)?;
        self.database
            .writer
            .delete_message(HeldMessage {
                queue: queue.as_str().to_owned(),
                id: id.to_owned(),
                receipt: receipt.as_str().to_owned(),
            })
            .await
    }

    async fn approximate_length(&self, queue: &QueueName) -> Result<u64> {
        self.counter.record(Operation::Length);
        let name = queue.as_str();
        let length: Option<i64> = retry::busy(|| {
            sqlx::query_scalar(
                "select (select count(*) from message where queue = ?1)
                 from queue where name = ?1",
            )
            .bind(name)
            .fetch_optional(&self.database.readers)
        })
        .await?;
        length
            .map(|length| u64::try_from(length).unwrap_or(0))
            .ok_or_else(|| Error::queue_not_found(name))
    }

    fn transactions(&self) -> &TransactionCounter {
        &self.counter
    }
}
