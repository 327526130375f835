//! What a process killed mid-way leaves: a participant import killed once every participant
//! was written (its marker not yet removed) leaves the list as it was, and the same list
//! imported again once the import is seen abandoned is taken whole; drop-off counts made
//! before the last 10-second merge survive `serve` being killed with SIGKILL.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{CanvassProcess, tenant_with_key, token_in};

/// Calls the API of the `serve` at `base`: the status and the JSON answer.
async fn api(
    base: &str,
    key: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .request(method, format!("{base}/api/v1{path}"))
        .bearer_auth(key);
    if let Some(body) = body {
        request = request.json(&body);
    }
    match request.send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            (status, response.json().await.unwrap_or_default())
        }
        Err(_) => (0, Value::Null),
    }
}

#[tokio::test]
async fn a_participant_import_killed_half_way_leaves_the_list_and_the_same_file_goes_in_again() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let key = tenant_with_key(dir.path(), "acme", "Acme");
    let env = [
        ("CANVASS_DEMO", "false"),
        (canvass::crash::VARIABLE, "before-import-done"),
    ];
    let dying = CanvassProcess::serve(dir.path(), &env);
    let base = dying.address.clone();
    let survey =
        json!({"title": "Visit", "questions": [{"text": "How was it?", "type": "five_stars"}]});
    assert_eq!(
        api(&base, &key, Method::POST, "/surveys", Some(survey))
            .await
            .0,
        201
    );
    let people: Vec<Value> = (0..40)
        .map(|n| json!({"email": format!("p{n}@example.com"), "first_name": format!("P{n}")}))
        .collect();
    let list = json!({ "participants": people });
    let path = "/surveys/visit/participants";

    let (status, _) = api(&base, &key, Method::POST, path, Some(list.clone())).await;
    assert_eq!(status, 0, "killed before it answered");
    drop(dying);

    let serve = CanvassProcess::serve(dir.path(), &[("CANVASS_DEMO", "false")]);
    let base = serve.address.clone();
    let (status, listed) = api(&base, &key, Method::GET, path, None).await;
    assert_eq!(status, 200);
    assert_eq!(listed["participants"], json!([]), "the list as it was");
    // Once the dead import is seen abandoned, the same list is taken whole.
    let deadline = Instant::now() + canvass::stores::participants::ABANDONED_AFTER * 3;
    let (status, added) = loop {
        let (status, added) = api(&base, &key, Method::POST, path, Some(list.clone())).await;
        if status != 422 || Instant::now() > deadline {
            break (status, added);
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    assert_eq!(status, 201, "{added}");
    let (_, listed) = api(&base, &key, Method::GET, path, None).await;
    let emails: Vec<&str> = listed["participants"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|p| p["email"].as_str())
        .collect();
    assert_eq!(emails.len(), 40, "{listed}");
}

#[tokio::test]
async fn drop_off_counts_older_than_the_merge_survive_a_killed_serve() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let key = tenant_with_key(dir.path(), "acme", "Acme");
    let serve = CanvassProcess::serve(dir.path(), &[("CANVASS_DEMO", "false")]);
    let base = serve.address.clone();
    let survey = json!({"title": "Two", "pages": [
        {"questions": [{"id": "a", "text": "A?", "type": "short_text"}]},
        {"questions": [{"id": "b", "text": "B?", "type": "short_text"}]}]});
    assert_eq!(
        api(&base, &key, Method::POST, "/surveys", Some(survey))
            .await
            .0,
        201
    );
    let (status, _) = api(&base, &key, Method::POST, "/surveys/two/publish", None).await;
    assert_eq!(status, 200);
    // Three open it; two of them go on to page 2.
    let client = reqwest::Client::new();
    for n in 0..3 {
        let form = crate::helpers::page_at(&client, &base, "/s/acme/two").await;
        if n < 2 {
            let next = client
                .post(format!("{base}/s/acme/two"))
                .form(&[
                    ("token", token_in(&form)),
                    ("page", "0".into()),
                    ("nav", "next".into()),
                ])
                .send()
                .await
                .expect("answered");
            assert_eq!(next.status(), 200);
        }
    }
    // After a merge (every 10 s), the process dies without a chance to merge again.
    tokio::time::sleep(canvass::web::funnel::FLUSH_EVERY + Duration::from_secs(2)).await;
    serve.kill();

    let serve = CanvassProcess::serve(dir.path(), &[("CANVASS_DEMO", "false")]);
    let (status, dropoff) = api(
        &serve.address,
        &key,
        Method::GET,
        "/surveys/two/dropoff",
        None,
    )
    .await;
    assert_eq!(status, 200, "{dropoff}");
    assert_eq!(dropoff["opened"], 3, "{dropoff}");
    assert_eq!(dropoff["started"], 2, "{dropoff}");
    assert_eq!(
        dropoff["pages"],
        json!([{"page": 2, "reached": 2}]),
        "{dropoff}"
    );
}
