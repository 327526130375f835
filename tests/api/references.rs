//! Reference numbers across processes: several `canvass serve` processes sharing one data
//! directory never give two forms the same reference.

use std::collections::HashSet;

use crate::helpers::{CanvassProcess, token_in};

#[tokio::test]
async fn several_serve_processes_sharing_one_store_never_issue_the_same_reference() {
    let dir = tempfile::tempdir().expect("a temp dir");
    // Tiny ranges force the processes to contend for the counter again and again.
    let servers: Vec<_> = (0..3)
        .map(|_| CanvassProcess::serve(dir.path(), &[("CANVASS_REFERENCE_RANGE", "5")]))
        .collect();
    let client = reqwest::Client::new();

    let mut requests = Vec::new();
    for server in &servers {
        for _ in 0..150 {
            let url = format!("{}/s/demo/customer-satisfaction", server.address);
            let client = client.clone();
            requests.push(tokio::spawn(async move {
                let html = client
                    .get(url)
                    .send()
                    .await
                    .expect("answered")
                    .text()
                    .await
                    .expect("a body");
                token_in(&html)
                    .split('.')
                    .next()
                    .expect("a reference")
                    .to_owned()
            }));
        }
    }
    let mut references = Vec::new();
    for request in requests {
        references.push(request.await.expect("joined"));
    }

    let distinct: HashSet<_> = references.iter().collect();
    assert_eq!(references.len(), 450);
    assert_eq!(distinct.len(), 450, "some reference was issued twice");
}
