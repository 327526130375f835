//! Canvass: a multi-tenant survey service. Respondents answer on a public site; answers travel
//! through queues to workers that keep exact summaries; tenants read them on a private site.

pub mod config;
pub mod startup;
pub mod storage;
pub mod telemetry;
pub mod web;
