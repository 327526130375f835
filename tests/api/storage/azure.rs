//! The conformance suite on the Azure adapter, against the Azurite that `scripts/test` starts
//! (`CANVASS_TEST_AZURE_CONNECTION_STRING` names it). Without it these tests fail: nothing is
//! skipped.

use crate::storage::conformance::Fixture;

/// The connection string of the emulator the tests run against.
pub fn connection_string() -> String {
    std::env::var("CANVASS_TEST_AZURE_CONNECTION_STRING").unwrap_or_else(|_| {
        panic!(
            "CANVASS_TEST_AZURE_CONNECTION_STRING is not set: run the tests with scripts/test, \
             which starts Azurite, or point it at an emulator or account"
        )
    })
}

async fn fixture() -> Fixture {
    let storage = canvass::storage::azure::storage(&connection_string())
        .await
        .expect("Azurite answers");
    Fixture::new(storage, None)
}

conformance_suite!(fixture());
