//! The conformance suite on the in-memory adapter.

use crate::storage::conformance::Fixture;

async fn fixture() -> Fixture {
    Fixture::new(canvass::storage::memory::storage(), None)
}

conformance_suite!(fixture());
