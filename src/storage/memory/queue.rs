//! `MessageQueue` over ordered maps behind a mutex.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use bytes::Bytes;
use uuid::Uuid;

use crate::storage::{
    Error, Message, MessageQueue, MessageUpdate, Operation, PopReceipt, QueueName, Result,
    TransactionCounter, check_batch_size, check_message_size,
};

#[derive(Debug)]
struct Stored {
    body: Bytes,
    inserted_at: SystemTime,
    visible_at: SystemTime,
    pop_receipt: Option<String>,
    dequeue_count: u32,
}

#[derive(Debug, Default)]
struct State {
    queues: HashMap<QueueName, BTreeMap<u64, Stored>>,
    next_id: u64,
}

/// Queues in memory.
#[derive(Debug, Default)]
pub struct MemoryQueue {
    state: Mutex<State>,
    counter: TransactionCounter,
}

impl MemoryQueue {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // Every change is a single map operation, so a poisoned lock still guards a
        // consistent state.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn parse_id(id: &str) -> Result<u64> {
    id.parse().map_err(|_| Error::message_not_found(id))
}

fn held<'a>(
    state: &'a mut State,
    queue: &QueueName,
    id: &str,
    receipt: &PopReceipt,
) -> Result<&'a mut Stored> {
    let messages = state
        .queues
        .get_mut(queue)
        .ok_or_else(|| Error::queue_not_found(queue.as_str()))?;
    let message = messages
        .get_mut(&parse_id(id)?)
        .ok_or_else(|| Error::message_not_found(id))?;
    if message.pop_receipt.as_deref() != Some(receipt.as_str()) {
        return Err(Error::PopReceiptMismatch { id: id.into() });
    }
    Ok(message)
}

#[async_trait]
impl MessageQueue for MemoryQueue {
    async fn create_queue(&self, queue: &QueueName) -> Result<()> {
        self.lock().queues.entry(queue.clone()).or_default();
        Ok(())
    }

    async fn add(
        &self,
        queue: &QueueName,
        body: Bytes,
        initial_invisibility: Option<Duration>,
    ) -> Result<String> {
        check_message_size(&body)?;
        self.counter.record(Operation::Add);
        let mut state = self.lock();
        state.next_id += 1;
        let id = state.next_id;
        let now = SystemTime::now();
        let messages = state
            .queues
            .get_mut(queue)
            .ok_or_else(|| Error::queue_not_found(queue.as_str()))?;
        messages.insert(
            id,
            Stored {
                body,
                inserted_at: now,
                visible_at: now + initial_invisibility.unwrap_or_default(),
                pop_receipt: None,
                dequeue_count: 0,
            },
        );
        Ok(id.to_string())
    }

    async fn get(
        &self,
        queue: &QueueName,
        max: usize,
        visibility: Duration,
    ) -> Result<Vec<Message>> {
        check_batch_size(max)?;
        self.counter.record(Operation::GetMessages);
        let mut state = self.lock();
        let messages = state
            .queues
            .get_mut(queue)
            .ok_or_else(|| Error::queue_not_found(queue.as_str()))?;
        let now = SystemTime::now();
        let received = messages
            .iter_mut()
            .filter(|(_, message)| message.visible_at <= now)
            .take(max)
            .map(|(id, message)| {
                let receipt = Uuid::new_v4().simple().to_string();
                message.visible_at = now + visibility;
                message.dequeue_count += 1;
                message.pop_receipt = Some(receipt.clone());
                Message {
                    id: id.to_string(),
                    pop_receipt: PopReceipt::new(receipt),
                    dequeue_count: message.dequeue_count,
                    inserted_at: message.inserted_at,
                    body: message.body.clone(),
                }
            })
            .collect();
        Ok(received)
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
        let mut state = self.lock();
        let message = held(&mut state, queue, id, receipt)?;
        let receipt = Uuid::new_v4().simple().to_string();
        if let Some(body) = update.body {
            message.body = body;
        }
        message.visible_at = SystemTime::now() + update.visibility;
        message.pop_receipt = Some(receipt.clone());
        Ok(PopReceipt::new(receipt))
    }

    async fn delete(&self, queue: &QueueName, id: &str, receipt: &PopReceipt) -> Result<()> {
        self.counter.record(Operation::DeleteMessage);
        let mut state = self.lock();
        held(&mut state, queue, id, receipt)?;
        if let Some(messages) = state.queues.get_mut(queue) {
            messages.remove(&parse_id(id)?);
        }
        Ok(())
    }

    async fn approximate_length(&self, queue: &QueueName) -> Result<u64> {
        self.counter.record(Operation::Length);
        self.lock()
            .queues
            .get(queue)
            .map(|messages| messages.len() as u64)
            .ok_or_else(|| Error::queue_not_found(queue.as_str()))
    }

    async fn head_inserted_at(&self, queue: &QueueName) -> Result<Option<SystemTime>> {
        self.counter.record(Operation::Peek);
        let now = SystemTime::now();
        let state = self.lock();
        let messages = state
            .queues
            .get(queue)
            .ok_or_else(|| Error::queue_not_found(queue.as_str()))?;
        Ok(messages
            .values()
            .find(|message| message.visible_at <= now)
            .map(|message| message.inserted_at))
    }

    fn transactions(&self) -> &TransactionCounter {
        &self.counter
    }
}
