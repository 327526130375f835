//! Serving what the process counts (`crate::telemetry::metrics`) to Prometheus: the request
//! timer (`http`), the `/metrics` listener on its own address (`listener`), and the queue
//! depths and storage transactions read when scraped (`scrape`), so they are never staler than
//! the scrape.

pub mod http;
pub mod listener;
mod scrape;

pub use scrape::Scraped;
