//! File questions over HTTP: a page with one is a multipart form; a file's kind is read from
//! its content (never its name) and its size bounded; it is stored apart from the answer,
//! which holds its reference, carried to later pages signed for this form (a forged one is
//! dropped); summaries count files and bytes; CSV carries name, kind, size and the members'
//! path; a member downloads it through a short-lived signed link; it goes with its response
//! and its survey; uploads are limited per client.

use reqwest::Method;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use crate::helpers::{TestApp, drain, spawn_app, spawn_app_configured, test_settings, token_in};
use crate::owner::Owner;

/// A PNG as far as its content goes (its signature and header).
fn png(size: usize) -> Vec<u8> {
    let mut bytes = vec![
        0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, b'I', b'H', b'D', b'R',
    ];
    bytes.resize(size.max(bytes.len()), 7);
    bytes
}

fn definition() -> Value {
    json!({"title": "Claims", "pages": [
        {"questions": [
            {"id": "photo", "text": "A photo of the damage", "type": "file", "required": true,
             "accept": ["image"], "max_bytes": 1048576, "help": "Taken with your phone is fine."},
            {"id": "name", "text": "Your name", "type": "short_text"}]},
        {"questions": [{"id": "notes", "text": "Anything else?", "type": "short_text"}]}
    ]})
}

/// Posts page 1 as multipart with `file` (name, bytes) for the photo question.
async fn post_photo(
    app: &TestApp,
    token: &str,
    file: Option<(&str, Vec<u8>)>,
    extra: &[(&str, &str)],
) -> reqwest::Response {
    let mut form = Form::new()
        .text("token", token.to_owned())
        .text("page", "0")
        .text("nav", "next")
        .text("q-name", "Ada");
    for (name, value) in extra {
        form = form.text((*name).to_owned(), (*value).to_owned());
    }
    let part = match file {
        Some((name, bytes)) => Part::bytes(bytes).file_name(name.to_owned()),
        None => Part::bytes(Vec::new()).file_name(""),
    };
    form = form.part("q-photo", part);
    app.client
        .post(format!("{}/s/acme/claims", app.address))
        .multipart(form)
        .send()
        .await
        .expect("answered")
}

/// The value of the hidden field that carries the photo to page 2.
fn carried(page: &str) -> String {
    let at = page
        .find(r#"name="q-photo" value=""#)
        .expect("the photo carried");
    let rest = &page[at + r#"name="q-photo" value=""#.len()..];
    rest[..rest.find('"').expect("a value")].to_owned()
}

#[tokio::test]
async fn a_respondent_uploads_a_photo_a_member_downloads_it_and_it_goes_with_its_response() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("uploads").await;
    let created = app.published_survey(&key, definition()).await;
    assert_eq!(created["questions"][0]["accept"], json!(["image"]));
    assert_eq!(created["questions"][0]["max_bytes"], 1048576);

    let form = app.form("acme", "claims").await;
    assert!(form.contains(r#"enctype="multipart/form-data""#), "{form}");
    assert!(
        form.contains(r#"type="file" accept="image/jpeg,image/png"#),
        "{form}"
    );
    assert!(
        form.contains("An image (JPEG, PNG, GIF, WebP or HEIC); at most 1 MB.")
            || form.contains("an image (JPEG, PNG, GIF, WebP or HEIC); at most 1 MB."),
        "{form}"
    );
    let token = token_in(&form);

    // Refused: a text file named like a photo, and a photo over the question's limit.
    let refused = post_photo(
        &app,
        &token,
        Some(("photo.png", b"just text, named photo.png".to_vec())),
        &[],
    )
    .await;
    assert_eq!(refused.status(), 422);
    let refused = refused.text().await.expect("a body");
    assert!(
        refused.contains("This kind of file is not taken here: please choose an image"),
        "{refused}"
    );
    assert!(refused.contains(r#"value="Ada""#), "what was typed stays");
    let large = post_photo(&app, &token, Some(("big.png", png(1_048_577))), &[]).await;
    assert_eq!(large.status(), 422);
    assert!(large.text().await.expect("a body").contains("at most 1 MB"));

    // Taken: page 2 carries it, signed; its name loses its folders.
    let next = post_photo(&app, &token, Some(("../../damage.png", png(2_000))), &[]).await;
    assert_eq!(next.status(), 200);
    let page = next.text().await.expect("a body");
    assert!(page.contains("Page 2 of 2"), "{page}");
    let signed = carried(&page);
    assert!(
        signed.contains(":image:2000:image/png:damage.png~"),
        "{signed}"
    );

    // A reference altered on the way is dropped: the required photo is missing again.
    let forged = signed.replace(":2000:", ":2001:");
    let back = app
        .client
        .post(format!("{}/s/acme/claims", app.address))
        .form(&[
            ("token", token.as_str()),
            ("page", "1"),
            ("nav", "next"),
            ("q-photo", forged.as_str()),
            ("q-name", "Ada"),
        ])
        .send()
        .await
        .expect("answered");
    assert_eq!(back.status(), 422, "back to page 1 with its problem");

    let sent = send_page_two(&app, &token, &signed).await;
    assert_eq!(sent.status(), 303);
    let stores = app.stores().await;
    drain(&stores).await;

    let (_, summary) = app
        .api(Method::GET, "/api/v1/surveys/claims/summary", &key, None)
        .await;
    let photo = &summary["questions"][0];
    assert_eq!(
        (photo["files"].clone(), photo["bytes"].clone()),
        (json!(1), json!(2000)),
        "{summary}"
    );
    let (_, responses) = app
        .api(Method::GET, "/api/v1/surveys/claims/responses", &key, None)
        .await;
    let response = &responses["responses"][0];
    let reference = response["reference"].as_u64().expect("a reference");
    assert_eq!(
        response["values"]["photo"]["file"]["name"], "damage.png",
        "{response}"
    );
    assert_eq!(response["values"]["photo"]["file"]["kind"], "image");

    let csv = owner
        .get("/tenant/surveys/claims/responses.csv")
        .await
        .text()
        .await
        .expect("a body");
    let path = format!("/tenant/surveys/claims/responses/ref/{reference}/files/photo");
    assert!(
        csv.contains("damage.png") && csv.contains("image") && csv.contains(&path),
        "{csv}"
    );

    // A member follows the path to a short-lived link and gets the file as an attachment.
    let page = owner
        .page(&format!("/tenant/surveys/claims/responses/ref/{reference}"))
        .await;
    assert!(page.contains(&path), "{page}");
    let link = owner.get(&path).await;
    assert_eq!(link.status(), 303);
    let link = link.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(link.starts_with("/files/"), "{link}");
    let file = app.get(&link).await;
    assert_eq!(file.status(), 200);
    assert_eq!(file.headers()["content-type"], "image/png");
    assert_eq!(file.headers()["x-content-type-options"], "nosniff");
    assert!(
        file.headers()["content-disposition"]
            .to_str()
            .expect("ascii")
            .starts_with("attachment; filename=\"damage.png\"")
    );
    assert_eq!(file.bytes().await.expect("the file").to_vec(), png(2_000));
    let tampered = format!("{}x", &link[..link.len() - 1]);
    assert_eq!(
        app.get(&tampered).await.status(),
        404,
        "a link altered is no link"
    );
    assert_eq!(
        app.get(&path).await.status(),
        303,
        "not signed in: to the sign-in page"
    );

    // A link made more than 5 minutes ago no longer works.
    let file: canvass::domain::upload::FileAnswer =
        serde_json::from_value(response["values"]["photo"]["file"].clone()).expect("a file");
    let made = time::OffsetDateTime::now_utc() - time::Duration::minutes(6);
    let old = canvass::web::files::signed_link(
        &stores.answering.signing_key,
        &canvass::domain::TenantSlug::parse("acme").expect("a slug"),
        &canvass::domain::SurveySlug::parse("claims").expect("a slug"),
        canvass::domain::Reference(reference),
        "photo",
        &file,
        made,
    );
    let expired = app.get(&old).await;
    assert_eq!(expired.status(), 410);
    assert!(
        expired
            .text()
            .await
            .expect("a page")
            .contains("links to files work for 5 minutes")
    );

    // Deleting the response deletes its file.
    let uploads = || async { uploads_in(&app.stores().await).await };
    assert_eq!(uploads().await, 1);
    let (status, _) = app
        .api(
            Method::DELETE,
            &format!("/api/v1/surveys/claims/responses/{reference}"),
            &key,
            None,
        )
        .await;
    assert_eq!(status, 202);
    drain(&stores).await;
    assert_eq!(uploads().await, 0, "the file went with its response");
    assert_eq!(app.get(&link).await.status(), 410);
}

#[tokio::test]
async fn files_of_a_deleted_survey_go_and_uploads_are_limited_per_client() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    app.published_survey(&key, definition()).await;
    let token = token_in(&app.form("acme", "claims").await);
    for n in 0..30 {
        let taken = post_photo(&app, &token, Some(("p.png", png(100))), &[]).await;
        assert_eq!(taken.status(), 200, "upload {n}");
    }
    let limited = post_photo(&app, &token, Some(("p.png", png(100))), &[]).await;
    assert_eq!(limited.status(), 429);
    assert!(
        limited
            .text()
            .await
            .expect("a body")
            .contains("You uploaded many files in a short while")
    );
    let stores = app.stores().await;
    assert_eq!(
        stores
            .operations
            .scan("uploads/", None)
            .await
            .expect("listed")
            .keys
            .len(),
        30
    );
    // Files no answer holds go once their grace is over.
    let later = time::OffsetDateTime::now_utc() + time::Duration::days(8);
    let swept = canvass::worker::sweeps::sweep_uploads(&stores, later).await;
    assert_eq!(swept.expect("a sweep"), 30);
    post_photo(&app, &token, Some(("p.png", png(100))), &[]).await;
    let (status, _) = app
        .api(Method::DELETE, "/api/v1/surveys/claims", &key, None)
        .await;
    assert_eq!(status, 204);
    assert!(
        stores
            .operations
            .scan("uploads/", None)
            .await
            .expect("listed")
            .keys
            .is_empty()
    );
}

#[tokio::test]
async fn a_file_question_is_refused_its_bad_settings() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    for (question, field, said) in [
        (
            json!({"text": "F", "type": "file", "accept": ["zip"]}),
            "questions[0].accept",
            "not a kind of file",
        ),
        (
            json!({"text": "F", "type": "file", "max_bytes": 0}),
            "questions[0].max_bytes",
            "104,857,600",
        ),
    ] {
        let (status, body) = app
            .api(
                Method::POST,
                "/api/v1/surveys",
                &key,
                Some(json!({"title": "T", "questions": [question]})),
            )
            .await;
        assert_eq!(status, 422, "{body}");
        let message = body["fields"][field]
            .as_str()
            .unwrap_or_else(|| panic!("no {field} in {body}"));
        assert!(message.contains(said), "{message}");
    }
    let (_, created) = app
        .api(
            Method::POST,
            "/api/v1/surveys",
            &key,
            Some(json!({"title": "T", "questions": [{"text": "F", "type": "file"}]})),
        )
        .await;
    assert_eq!(
        created["questions"][0]["accept"],
        json!(["image", "pdf", "office"])
    );
    assert_eq!(created["questions"][0]["max_bytes"], 10485760);
}

#[tokio::test]
async fn a_file_costs_one_blob_write_when_uploaded_and_the_answer_its_usual_one() {
    use canvass::storage::Operation;
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    app.published_survey(&key, definition()).await;
    let token = token_in(&app.form("acme", "claims").await);
    let before = app.storage.transactions();
    let page = post_photo(&app, &token, Some(("damage.png", png(5_000))), &[]).await;
    assert_eq!(page.status(), 200);
    let upload = app.storage.transactions().since(&before);
    assert_eq!(
        upload.of(Operation::Put),
        1,
        "the file, stored create-only: {upload:?}"
    );
    assert_eq!(upload.total(), 1, "{upload:?}");
    let signed = carried(&page.text().await.expect("a body"));
    let before = app.storage.transactions();
    let sent = app
        .client
        .post(format!("{}/s/acme/claims", app.address))
        .form(&[
            ("token", token.as_str()),
            ("page", "1"),
            ("nav", "next"),
            ("q-photo", signed.as_str()),
        ])
        .send()
        .await
        .expect("answered");
    assert_eq!(sent.status(), 303);
    let send = app.storage.transactions().since(&before);
    assert_eq!((send.of(Operation::Add), send.total()), (1, 1), "{send:?}");
}

#[tokio::test]
async fn the_files_of_one_form_stay_within_the_operators_limit_one_file_a_question() {
    let mut settings = test_settings();
    settings.upload_max_bytes = 1500;
    let app = spawn_app_configured(canvass::storage::memory::storage(), settings).await;
    let key = app.api_tenant("acme").await;
    app.published_survey(
        &key,
        json!({"title": "Claims", "questions": [
            {"id": "front", "text": "Front", "type": "file", "accept": ["image"]},
            {"id": "back", "text": "Back", "type": "file", "accept": ["image"]}]}),
    )
    .await;
    let token = token_in(&app.form("acme", "claims").await);
    let post = |parts: Vec<(&'static str, Vec<u8>)>| {
        let mut form = Form::new().text("token", token.clone());
        for (field, bytes) in parts {
            form = form.part(field, Part::bytes(bytes).file_name("p.png"));
        }
        app.client
            .post(format!("{}/s/acme/claims", app.address))
            .multipart(form)
            .send()
    };
    // Each file is within its question's limit (10 MiB) and the operator's (1,500 bytes),
    // but the two together are not: the second is refused, beside its question.
    let both = post(vec![("q-front", png(1000)), ("q-back", png(1000))])
        .await
        .expect("answered");
    assert_eq!(both.status(), 422);
    let page = both.text().await.expect("a page");
    assert!(
        page.contains(r#"id="q-back-error">This file is too large"#)
            && !page.contains(r#"id="q-front-error""#),
        "{page}"
    );
    // A second file for one question is not a form's.
    let twice = post(vec![("q-front", png(100)), ("q-front", png(100))])
        .await
        .expect("answered");
    assert_eq!(twice.status(), 400);
    let stores = app.stores().await;
    let stored = stores
        .operations
        .scan("uploads/", None)
        .await
        .expect("listed")
        .keys;
    assert_eq!(
        stored.len(),
        1,
        "only the file within the limit: {stored:?}"
    );
}

/// How many uploaded files are stored.
async fn uploads_in(stores: &canvass::stores::Stores) -> usize {
    stores
        .operations
        .scan("uploads/", None)
        .await
        .expect("listed")
        .keys
        .len()
}

/// Sends page 2 of the form, carrying the photo `signed` and Ada's name.
async fn send_page_two(app: &TestApp, token: &str, signed: &str) -> reqwest::Response {
    app.client
        .post(format!("{}/s/acme/claims", app.address))
        .form(&[
            ("token", token),
            ("page", "1"),
            ("nav", "next"),
            ("q-photo", signed),
            ("q-name", "Ada"),
        ])
        .send()
        .await
        .expect("answered")
}

/// Uploads `name` (a PNG) on page 1 and sends the form: its reference.
async fn send_photo(app: &TestApp, name: &str) -> u64 {
    let token = token_in(&app.form("acme", "claims").await);
    let page = post_photo(app, &token, Some((name, png(3_000))), &[]).await;
    assert_eq!(page.status(), 200);
    let signed = carried(&page.text().await.expect("a body"));
    let sent = send_page_two(app, &token, &signed).await;
    assert_eq!(sent.status(), 303);
    crate::helpers::reference_in(sent.headers()["location"].to_str().expect("ascii"))
}

#[tokio::test]
async fn the_sweep_keeps_the_files_of_sent_answers_queued_or_stored_and_names_downloads_by_kind() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("uploads").await;
    app.published_survey(&key, definition()).await;
    let stores = app.stores().await;
    // A sent answer, still queued (no worker has run), and a file whose form was never sent.
    let reference = send_photo(&app, "holiday.png.html").await;
    let token = token_in(&app.form("acme", "claims").await);
    post_photo(&app, &token, Some(("left.png", png(500))), &[]).await;
    assert_eq!(uploads_in(&stores).await, 2);

    // Eight days on, its answer still waiting in the queue: nothing is swept.
    let later = time::OffsetDateTime::now_utc() + time::Duration::days(8);
    let swept = canvass::worker::sweeps::sweep_uploads(&stores, later).await;
    assert_eq!(swept.expect("a sweep"), 0, "a queued answer's file stays");
    // Counted and stored: the abandoned file goes, the answer's stays.
    drain(&stores).await;
    let swept = canvass::worker::sweeps::sweep_uploads(&stores, later).await;
    assert_eq!(swept.expect("a sweep"), 1, "only the file no form sent");
    assert_eq!(uploads_in(&stores).await, 1);

    // The member downloads it, under the name of its kind.
    let path = format!("/tenant/surveys/claims/responses/ref/{reference}/files/photo");
    let link = owner.get(&path).await;
    assert_eq!(link.status(), 303);
    let link = link.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_owned();
    let file = owner.get(&link).await;
    assert_eq!(file.status(), 200);
    let disposition = file.headers()["content-disposition"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(
        disposition.contains(r#"filename="holiday.png.png""#),
        "{disposition}"
    );
    assert_eq!(file.headers()["content-type"], "image/png");
    assert_eq!(file.bytes().await.expect("a body").to_vec(), png(3_000));
}

/// A process's peak resident memory, in bytes (`VmHWM`).
fn peak_memory(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("its status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|kib| kib.split_whitespace().next()?.parse::<u64>().ok())
        .expect("a peak")
        * 1024
}

#[tokio::test]
async fn uploads_read_at_once_hold_the_memory_bound_and_a_client_its_hourly_bytes() {
    const MIB: usize = 1024 * 1024;
    let dir = tempfile::tempdir().expect("a temp dir");
    let key = crate::helpers::tenant_with_key(dir.path(), "acme", "Acme");
    // One upload read (and stored) at a time.
    let env = [
        ("CANVASS_DEMO", "false"),
        ("CANVASS_UPLOAD_CONCURRENCY", "1"),
    ];
    let serve = crate::helpers::CanvassProcess::serve(dir.path(), &env);
    let base = serve.address.clone();
    let client = reqwest::Client::new();
    let mut survey = definition();
    survey["pages"][0]["questions"][0]["max_bytes"] = json!(20 * MIB);
    let created = client
        .post(format!("{base}/api/v1/surveys"))
        .bearer_auth(&key)
        .json(&survey)
        .send()
        .await
        .expect("answered");
    assert_eq!(created.status(), 201);
    let published = client
        .post(format!("{base}/api/v1/surveys/claims/publish"))
        .bearer_auth(&key)
        .send()
        .await
        .expect("answered");
    assert_eq!(published.status(), 200);
    // One upload of 20 MiB on page 1 of a fresh form: the status.
    let upload = || {
        let client = client.clone();
        let base = base.clone();
        async move {
            let form = crate::helpers::page_at(&client, &base, "/s/acme/claims").await;
            let parts = Form::new()
                .text("token", token_in(&form))
                .text("page", "0")
                .text("nav", "next")
                .part("q-photo", Part::bytes(png(20 * MIB)).file_name("big.png"));
            client
                .post(format!("{base}/s/acme/claims"))
                .multipart(parts)
                .send()
                .await
                .expect("answered")
                .status()
                .as_u16()
        }
    };
    assert_eq!(
        upload().await,
        200,
        "one upload, which sets the process's peak"
    );
    let one = peak_memory(serve.id());

    // Eight at once, read one at a time: the peak grows by less than one more upload's worth
    // (an upload is held whole while read, and SQLite builds its row of about twice its size
    // while storing it: 60 MiB here). Read all at once, these eight grew it by over 200 MiB.
    let statuses = futures_util::future::join_all((0..8).map(|_| upload())).await;
    assert!(statuses.iter().all(|status| *status == 200), "{statuses:?}");
    let grew = peak_memory(serve.id()).saturating_sub(one);
    assert!(
        grew < 3 * 20 * MIB as u64,
        "the peak grew by {} MiB for 8 uploads of 20 MiB",
        grew / MIB as u64
    );

    // 9 × 20 MiB taken from this client; its 200 MiB an hour allow one more, then it waits.
    assert_eq!(upload().await, 200, "the tenth");
    assert_eq!(upload().await, 429, "past 200 MiB in the hour");
}

#[tokio::test]
async fn a_refused_file_does_not_hide_the_pages_other_problems() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    app.published_survey(
        &key,
        json!({"title": "Claims", "questions": [
            {"id": "photo", "text": "A photo", "type": "file", "accept": ["image"]},
            {"id": "name", "text": "Your name", "type": "short_text", "required": true},
            {"id": "age", "text": "Your age", "type": "numeric", "min": 0, "max": 130}]}),
    )
    .await;
    let token = token_in(&app.form("acme", "claims").await);
    let form = Form::new()
        .text("token", token)
        .text("q-name", "")
        .text("q-age", "400")
        .part(
            "q-photo",
            Part::bytes(b"just text".to_vec()).file_name("photo.png"),
        );
    let refused = app
        .client
        .post(format!("{}/s/acme/claims", app.address))
        .multipart(form)
        .send()
        .await
        .expect("answered");
    assert_eq!(refused.status(), 422);
    let page = refused.text().await.expect("a body");
    assert!(
        page.contains("This kind of file is not taken here"),
        "{page}"
    );
    assert!(
        page.contains("Please answer this question."),
        "the required name too: {page}"
    );
    assert!(
        page.contains("Please enter a number from 0 to 130."),
        "the age too: {page}"
    );
    assert!(
        page.contains("Please check 3 answers"),
        "one list of all three: {page}"
    );
}
