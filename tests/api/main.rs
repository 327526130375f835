//! Integration tests: the application driven over HTTP, and the storage ports driven through
//! their shared conformance suite. One binary, so linking happens once.

mod helpers;
mod site;
mod storage;
