//! Integration tests: the application driven over HTTP, and the storage ports driven through
//! their shared conformance suite. One binary, so linking happens once.

mod accounts;
mod azure;
mod branding;
mod browser;
mod claims;
mod export;
mod faults;
mod first_run;
mod guarantees;
mod hardening;
mod helpers;
mod isolation;
mod json_api;
mod lifecycle;
mod logic;
mod lost_writes;
mod mail;
mod mailbox;
mod members;
mod owner;
mod power_cut;
mod public;
mod question_types;
mod references;
mod responses;
mod segments;
mod site;
mod sso;
pub mod storage;
mod stores;
mod tenant_site;
mod untrusted_input;
mod webhooks;
mod worker;
mod worker_crash;
