//! Canvass: a multi-tenant survey service. Respondents answer on a public site; answers travel
//! through queues to workers that keep exact summaries; tenants read them on a private site.

pub mod admin;
pub mod bench;
pub mod cli;
pub mod config;
pub mod crash;
pub mod demo;
pub mod domain;
pub mod export;
pub mod i18n;
pub mod links;
pub mod loadgen;
pub mod mail;
pub mod metrics;
pub mod outbound;
pub mod regions;
pub mod service;
pub mod signals;
pub mod sso;
pub mod startup;
pub mod storage;
pub mod stores;
pub mod telemetry;
pub mod web;
pub mod worker;
