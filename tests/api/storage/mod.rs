//! The storage ports: one conformance suite run against every adapter, and the multi-process
//! races on the local adapter.

#[macro_use]
mod conformance;
pub mod azure;
mod local;
mod memory;
mod multi_process;
