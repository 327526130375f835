//! Participants over HTTP: added in bulk through the API (all or none, bad ones named by their
//! place), paged and searched, removed; a survey by invitation opens only through personal
//! links, each answering once; a spreadsheet imported on the tenant site after a preview, or
//! refused with its bad rows' numbers.

use reqwest::Method;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use crate::helpers::{TestApp, drain, spawn_app, token_in};
use crate::owner::{Owner, value_of};

fn people(emails: &[&str]) -> Value {
    let list: Vec<Value> = emails.iter().map(|email| json!({"email": email})).collect();
    json!({ "participants": list })
}

async fn add(app: &TestApp, key: &str, slug: &str, body: Value) -> (u16, Value) {
    let path = format!("/api/v1/surveys/{slug}/participants");
    app.api(Method::POST, &path, key, Some(body)).await
}

async fn listed(app: &TestApp, key: &str, query: &str) -> Value {
    let path = format!("/api/v1/surveys/visit/participants{query}");
    let (status, page) = app.api(Method::GET, &path, key, None).await;
    assert_eq!(status, 200, "{page}");
    page
}

fn emails(page: &Value) -> Vec<String> {
    page["participants"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|p| p["email"].as_str().expect("an email").to_owned())
        .collect()
}

/// A path of the app from one of its full addresses.
fn path_of(app: &TestApp, link: &str) -> String {
    link.strip_prefix(&app.address)
        .expect("a link of the app")
        .to_owned()
}

#[tokio::test]
async fn participants_are_added_all_or_none_paged_searched_and_removed() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    app.create_survey(
        &key,
        json!({"title": "Visit", "languages": ["en", "de"],
               "questions": [{"text": "How was it?", "type": "five_stars"}]}),
    )
    .await;
    let (status, added) = add(
        &app,
        &key,
        "visit",
        json!({"participants": [
            {"email": "Ann@Example.com", "first_name": "Ann", "language": "de",
             "attributes": {"team": "Sales"}},
            {"email": "bob@example.com"}]}),
    )
    .await;
    assert_eq!(status, 201, "{added}");
    let ann = &added["participants"][0];
    assert_eq!(ann["email"], "ann@example.com");
    assert_eq!(ann["status"], "added");
    assert_eq!(ann["language"], "de");
    assert_eq!(ann["attributes"]["team"], "Sales");
    let link = ann["link"].as_str().expect("a link");
    assert!(
        link.starts_with(&format!("{}/s/acme/visit/p/", app.address)),
        "{link}"
    );

    // One bad entry refuses the whole list, each named by its place.
    let (status, refused) = add(
        &app,
        &key,
        "visit",
        json!({"participants": [
            {"email": "cy@example.com"}, {"email": "not an address"}, {"email": "bob@example.com"},
            {"email": "dee@example.com", "language": "fr"}, {"email": "CY@example.com"}]}),
    )
    .await;
    assert_eq!(status, 422, "{refused}");
    let fields = &refused["fields"];
    assert!(
        fields["participants[1]"]
            .as_str()
            .expect("a reason")
            .contains("not an email address")
    );
    assert!(
        fields["participants[2]"]
            .as_str()
            .expect("a reason")
            .contains("a participant already")
    );
    assert!(
        fields["participants[3]"]
            .as_str()
            .expect("a reason")
            .contains("not one of the survey's languages")
    );
    assert!(
        fields["participants[4]"]
            .as_str()
            .expect("a reason")
            .contains("given twice")
    );
    assert!(fields.get("participants[0]").is_none(), "{refused}");
    assert_eq!(
        emails(&listed(&app, &key, "").await),
        ["ann@example.com", "bob@example.com"]
    );

    // 250 more: pages of 100 in email order, and a search by the start of an address.
    let many: Vec<String> = (0..250).map(|n| format!("p{n:03}@example.com")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let (status, _) = add(&app, &key, "visit", people(&many)).await;
    assert_eq!(status, 201);
    let first = listed(&app, &key, "").await;
    assert_eq!(emails(&first).len(), 100);
    let next = first["next"].as_str().expect("more pages");
    let second = listed(&app, &key, &format!("?after={next}")).await;
    assert_eq!(emails(&second)[0], "p098@example.com");
    let third = listed(
        &app,
        &key,
        &format!("?after={}", second["next"].as_str().expect("more")),
    )
    .await;
    assert_eq!(emails(&third).len(), 52);
    assert!(third["next"].is_null());
    let found = listed(&app, &key, "?search=P24").await;
    assert_eq!(
        emails(&found),
        (240..250)
            .map(|n| format!("p{n}@example.com"))
            .collect::<Vec<_>>()
    );

    // Removed: the link stops working, and removing again is a 404.
    let id = ann["id"].as_str().expect("an id");
    let path = format!("/api/v1/surveys/visit/participants/{id}");
    assert_eq!(app.api(Method::DELETE, &path, &key, None).await.0, 204);
    assert_eq!(app.api(Method::DELETE, &path, &key, None).await.0, 404);
    let (status, _) = app
        .api(Method::POST, "/api/v1/surveys/visit/publish", &key, None)
        .await;
    assert_eq!(status, 200);
    let gone = app.get(&path_of(&app, link)).await;
    assert_eq!(gone.status(), 404);
    assert!(
        gone.text()
            .await
            .expect("a page")
            .contains("This link does not open the survey")
    );

    // Participants go with their survey.
    let stores = app.stores().await;
    assert!(
        !stores
            .operations
            .scan("participants/", None)
            .await
            .expect("listed")
            .keys
            .is_empty()
    );
    let (status, _) = app
        .api(Method::DELETE, "/api/v1/surveys/visit", &key, None)
        .await;
    assert_eq!(status, 204);
    let left = stores
        .operations
        .scan("participants/", None)
        .await
        .expect("listed")
        .keys;
    assert!(left.is_empty(), "{left:?}");
}

#[tokio::test]
async fn a_survey_by_invitation_opens_only_through_personal_links_each_answering_once() {
    let app = spawn_app().await;
    let key = app.api_tenant("acme").await;
    let created = app
        .published_survey(
            &key,
            json!({"title": "Visit", "access": "invitation", "languages": ["en", "de"],
                   "questions": [{"id": "stars", "text": "How was it?", "type": "five_stars",
                                  "required": true}]}),
        )
        .await;
    assert_eq!(created["access"], "invitation");
    let (_, added) = add(
        &app,
        &key,
        "visit",
        json!({"participants": [{"email": "ann@example.com", "language": "de"},
                                {"email": "bob@example.com"}]}),
    )
    .await;
    let ann = path_of(
        &app,
        added["participants"][0]["link"].as_str().expect("a link"),
    );

    // The tenant's public list leaves it out: strangers would only be turned away.
    let list = app.get("/s/acme").await.text().await.expect("a page");
    assert!(!list.contains("/s/acme/visit"), "{list}");
    // The public address, and a post without a personal link, say it is by invitation.
    let public = app.get("/s/acme/visit").await;
    assert_eq!(public.status(), 403);
    assert!(
        public
            .text()
            .await
            .expect("a page")
            .contains("This survey is by invitation")
    );
    let form = app.get(&ann).await;
    assert_eq!(form.status(), 200);
    let form = form.text().await.expect("a page");
    assert!(form.contains(r#"<html lang="de""#), "Ann's language");
    assert!(
        !form.contains("anonymous-note"),
        "answers tied to their participant are not called anonymous"
    );
    let token = token_in(&form);
    let participant = value_of(&form, "participant");
    let plain = app.submit("acme", "visit", &token, &[("stars", "4")]).await;
    assert_eq!(plain.status(), 403, "no personal link, no answer");
    // A second form of the same link, opened before the first is sent.
    let later = app.get(&ann).await.text().await.expect("a page");
    let post = |token: String, stars: &'static str| {
        app.client
            .post(format!("{}/s/acme/visit?lang=de", app.address))
            .form(&[
                ("token", token),
                ("participant", participant.clone()),
                ("q-stars", stars.to_owned()),
            ])
            .send()
    };
    let sent = post(token.clone(), "4").await.expect("answered");
    assert_eq!(sent.status(), 303);
    let again = post(token.clone(), "4").await.expect("answered");
    assert_eq!(
        again.status(),
        303,
        "the same form sent twice is the same answer"
    );
    let other = post(token_in(&later), "1").await.expect("answered");
    assert_eq!(other.status(), 410, "the link answered already");
    let used = app.get(&ann).await;
    assert_eq!(used.status(), 410);
    assert!(
        used.text()
            .await
            .expect("a page")
            .contains("Sie haben bereits geantwortet")
    );

    let stores = app.stores().await;
    drain(&stores).await;
    let (_, summary) = app
        .api(Method::GET, "/api/v1/surveys/visit/summary", &key, None)
        .await;
    assert_eq!(summary["total"], 1, "{summary}");
    let page = listed(&app, &key, "").await;
    assert_eq!(page["participants"][0]["status"], "finished");
    assert_eq!(page["participants"][1]["status"], "added");
    // Bob opens his link: started, not finished.
    let bob = path_of(
        &app,
        page["participants"][1]["link"].as_str().expect("a link"),
    );
    assert_eq!(app.get(&bob).await.status(), 200);
    let page = listed(&app, &key, "").await;
    assert_eq!(page["participants"][1]["status"], "started");
    assert!(page["participants"][1]["started"].is_string(), "{page}");
    assert!(page["participants"][1]["finished"].is_null(), "{page}");
}

#[tokio::test]
async fn a_spreadsheet_is_previewed_then_added_or_refused_with_its_rows() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("Test").await;
    app.create_survey(
        &key,
        json!({"title": "Visit", "questions": [{"text": "How was it?", "type": "five_stars"}]}),
    )
    .await;
    let page = "/tenant/surveys/visit/participants";
    let csrf = owner.csrf(page).await;
    let upload = |csv: &'static str| {
        let form = Form::new().text("csrf", csrf.clone()).part(
            "sheet",
            Part::bytes(csv.as_bytes().to_vec()).file_name("people.csv"),
        );
        owner
            .client
            .post(format!("{}{page}/import", owner.address()))
            .multipart(form)
            .send()
    };
    let bad = upload("email,first_name,team\nann@example.com,Ann,Sales\nnot an address,Bob,\nann@example.com,Ann,\n")
        .await
        .expect("answered");
    assert_eq!(bad.status(), 422);
    let said = bad.text().await.expect("a page");
    assert!(
        said.contains("Row 3: &#34;not an address&#34; is not an email address"),
        "{said}"
    );
    assert!(
        said.contains("Row 4: ann@example.com is given twice (first in row 2)"),
        "{said}"
    );
    assert!(owner.page(page).await.contains("0 participants"));

    let good =
        upload("Email,First name,Team\nann@example.com,Ann,Sales\nbob@example.com,Bob,Support\n")
            .await
            .expect("answered");
    assert_eq!(good.status(), 200);
    let preview = good.text().await.expect("a page");
    assert!(preview.contains("Add 2 participants?"), "{preview}");
    assert!(preview.contains("Support"));
    let action = preview
        .split("action=\"")
        .find(|rest| rest.starts_with(&format!("{page}/import/")))
        .and_then(|rest| rest.split('"').next())
        .expect("the form that adds them")
        .to_owned();
    let added = owner.post(&action, &[("csrf", &csrf)]).await;
    assert_eq!(added.status(), 303);
    let list = owner.page(page).await;
    assert!(list.contains("Added 2 participants."), "{list}");
    assert!(list.contains("2 participants") && list.contains("bob@example.com"));
    // The preview's sheet is taken once.
    assert_eq!(owner.post(&action, &[("csrf", &csrf)]).await.status(), 410);

    // One participant changed: a language the survey does not offer is refused.
    let one = list
        .split("href=\"/tenant/surveys/visit/participants/")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a participant's page")
        .to_owned();
    let path = format!("{page}/{one}");
    assert!(owner.page(&path).await.contains("ann@example.com"));
    let refused = owner
        .post(
            &path,
            &[("csrf", &csrf), ("first_name", "Annie"), ("language", "de")],
        )
        .await;
    assert_eq!(refused.status(), 422);
    assert!(
        refused
            .text()
            .await
            .expect("a page")
            .contains("not one of the survey")
    );
    let saved = owner
        .post(
            &path,
            &[("csrf", &csrf), ("first_name", "Annie"), ("language", "")],
        )
        .await;
    assert_eq!(saved.status(), 303);
    // The list as a spreadsheet: names as changed, attributes as columns, links.
    let csv = owner
        .get(&format!("{page}.csv"))
        .await
        .text()
        .await
        .expect("a CSV");
    assert!(
        csv.contains(
            "email,first_name,last_name,language,status,added,answered,invited,reminded,\
             opted_out,bounced,link,team"
        ),
        "{csv}"
    );
    assert!(
        csv.contains("ann@example.com,Annie,,,Not opened yet,"),
        "{csv}"
    );
    assert!(
        csv.contains("/s/acme/visit/p/") && csv.contains("Support"),
        "{csv}"
    );
    let xlsx = owner.get(&format!("{page}.xlsx")).await;
    assert_eq!(xlsx.status(), 200);
    assert!(xlsx.bytes().await.expect("a workbook").starts_with(b"PK"));
}
