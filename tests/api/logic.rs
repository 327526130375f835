//! Surveys of several pages with display and skip logic, over HTTP as owners and respondents
//! use them: the definition's JSON as documented, the checks that refuse bad logic, a
//! respondent's way through the pages without JavaScript (Next, Back, errors when leaving a
//! page, a jump to the end), and what is stored: never an answer to a question not shown.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, drain, spawn_app, token_in};
use crate::owner::{Owner, form_fields};

/// The definition of the README and the issue, with a number question on page 2.
pub(crate) fn definition() -> Value {
    json!({"title": "Tasting", "pages": [
        {"title": "About you", "questions": [
            {"id": "likes", "text": "Do you like it?", "type": "single_choice", "required": true,
             "options": ["Yes", "No"]},
            {"id": "why", "text": "Why not?", "type": "long_text", "required": true,
             "show_if": {"all": [{"question": "likes", "equals": "No"}]}}],
         "jumps": [{"if": {"all": [{"question": "likes", "equals": "Yes"}]}, "to": "end"}]},
        {"title": "More", "description": "Two more minutes.", "questions": [
            {"id": "score", "text": "How likely are you to come back?", "type": "numeric",
             "required": true, "min": 0, "max": 10, "integer": true},
            {"id": "cheap", "text": "What would you pay?", "type": "numeric", "required": false,
             "show_if": {"any": [{"question": "why", "contains": "dear"}]}}]}
    ]})
}

/// POSTs a page of the form: the token, the page, the button and the fields.
async fn post_page(
    app: &TestApp,
    token: &str,
    page: usize,
    nav: &str,
    fields: &[(&str, &str)],
) -> (u16, String) {
    post_page_to(app, "/s/tasters/tasting", token, page, nav, fields).await
}

/// POSTs a page of the form at `path` (a query may follow it): the status, and the page or
/// the address it sends to.
pub(crate) async fn post_page_to(
    app: &TestApp,
    path: &str,
    token: &str,
    page: usize,
    nav: &str,
    fields: &[(&str, &str)],
) -> (u16, String) {
    let mut pairs = vec![
        ("token".to_owned(), token.to_owned()),
        ("page".to_owned(), page.to_string()),
        ("nav".to_owned(), nav.to_owned()),
    ];
    pairs.extend(
        fields
            .iter()
            .map(|(q, v)| (format!("q-{q}"), (*v).to_owned())),
    );
    let response = app
        .client
        .post(format!("{}{path}", app.address))
        .form(&pairs)
        .send()
        .await
        .expect("answered");
    let status = response.status().as_u16();
    let body = match response.headers().get("location") {
        Some(location) => location.to_str().expect("ascii").to_owned(),
        None => response.text().await.expect("a body"),
    };
    (status, body)
}

#[tokio::test]
async fn a_survey_of_pages_with_logic_is_stored_and_shown_in_the_documented_json() {
    let app = spawn_app().await;
    let key = app.api_tenant("tasters").await;

    let created = app.create_survey(&key, definition()).await;

    let pages = created["pages"].as_array().expect("pages");
    assert_eq!(pages.len(), 2);
    assert_eq!(pages[0]["title"], "About you");
    assert_eq!(
        pages[0]["questions"][1]["show_if"],
        json!({"all": [{"question": "likes", "equals": "No"}]})
    );
    assert_eq!(
        pages[0]["jumps"],
        json!([{"if": {"all": [{"question": "likes", "equals": "Yes"}]}, "to": "end"}])
    );
    assert_eq!(pages[1]["description"], "Two more minutes.");
    assert_eq!(pages[1]["questions"][0]["id"], "score");
    let flat: Vec<&str> = created["questions"]
        .as_array()
        .expect("every page's questions together")
        .iter()
        .map(|q| q["id"].as_str().expect("an id"))
        .collect();
    assert_eq!(flat, ["likes", "why", "score", "cheap"]);
    assert_eq!(
        created["layout"], "pages",
        "shown page by page unless asked otherwise"
    );

    // What the API shows can be sent back as it is.
    let (status, updated) = app
        .api(
            Method::PUT,
            "/api/v1/surveys/tasting",
            &key,
            Some(created.clone()),
        )
        .await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["pages"], created["pages"]);

    // The definition exactly as documented (with an NPS question on page 2).
    let documented = app
        .create_survey(
            &key,
            json!({"title": "T", "pages": [
              {"title": "About you", "questions": [
                 {"id": "likes", "text": "Do you like it?", "type": "single_choice", "required": true, "options": ["Yes", "No"]},
                 {"id": "why", "text": "Why not?", "type": "long_text", "required": true,
                  "show_if": {"all": [{"question": "likes", "equals": "No"}]}}],
               "jumps": [{"if": {"all": [{"question": "likes", "equals": "Yes"}]}, "to": "end"}]},
              {"title": "More", "questions": [{"id": "score", "text": "How likely...?", "type": "nps", "required": false}]}]}),
        )
        .await;
    assert_eq!(documented["pages"][1]["questions"][0]["type"], "nps");

    // A definition without pages is still one page, as before.
    let plain = app
        .create_survey(
            &key,
            json!({"title": "Plain", "questions": [{"text": "Name?", "type": "short_text"}]}),
        )
        .await;
    assert_eq!(plain["pages"].as_array().map(Vec::len), Some(1));
    assert_eq!(plain["pages"][0]["questions"], plain["questions"]);
}

#[tokio::test]
async fn logic_that_looks_ahead_names_no_option_or_jumps_back_is_refused_at_its_field() {
    let app = spawn_app().await;
    let key = app.api_tenant("tasters").await;
    let refused = |mutate: fn(&mut Value)| {
        let mut definition = definition();
        mutate(&mut definition);
        definition
    };
    // A change to the definition, the field refused, and what its message says.
    type Case = (fn(&mut Value), &'static str, &'static str);
    let cases: [Case; 8] = [
        (
            |d| {
                d["pages"][0]["questions"][1]["show_if"] =
                    json!({"question": "score", "answered": true})
            },
            "pages[0].questions[1].show_if",
            "question 2 (\"Why not?\"): it refers to question 3 (\"score\"), which does not come before it",
        ),
        (
            |d| {
                d["pages"][0]["questions"][1]["show_if"] =
                    json!({"question": "nope", "answered": true})
            },
            "pages[0].questions[1].show_if",
            "\"nope\", which is not a question of this survey",
        ),
        (
            |d| {
                d["pages"][0]["questions"][1]["show_if"] =
                    json!({"question": "likes", "equals": "Maybe"})
            },
            "pages[0].questions[1].show_if",
            "\"Maybe\" is not an option of question \"likes\"",
        ),
        (
            |d| {
                d["pages"][0]["questions"][1]["show_if"] =
                    json!({"question": "likes", "greater_than": 1})
            },
            "pages[0].questions[1].show_if",
            "compares numbers, and question \"likes\" is single_choice",
        ),
        (
            |d| {
                d["pages"][1]["jumps"] =
                    json!([{"if": {"question": "score", "less_than": 5}, "to": 0}])
            },
            "pages[1].jumps[0]",
            "jumps only go forward",
        ),
        (
            |d| d["pages"][0]["jumps"][0]["to"] = json!(7),
            "pages[0].jumps[0]",
            "there is no page index 7",
        ),
        (
            |d| d["pages"][1]["show_if"] = json!({"question": "score", "answered": true}),
            "pages[1].show_if",
            "page 2: it refers to question 3 (\"score\"), which does not come before it",
        ),
        (
            |d| d["pages"][0]["questions"][1]["show_if"] = json!({"all": []}),
            "pages[0].questions[1].show_if",
            "\"all\" needs at least one condition",
        ),
    ];
    for (mutate, field, message) in cases {
        let (status, body) = app
            .api(Method::POST, "/api/v1/surveys", &key, Some(refused(mutate)))
            .await;
        assert_eq!(status, 422, "{body}");
        let said = body["fields"][field].as_str().unwrap_or_default();
        assert!(said.contains(message), "at {field}: {said:?} in {body}");
    }
}

#[tokio::test]
async fn a_respondent_goes_page_by_page_back_and_forth_and_a_jump_ends_the_survey() {
    let app = spawn_app().await;
    let key = app.api_tenant("tasters").await;
    app.published_survey(&key, definition()).await;

    let form = app.form("tasters", "tasting").await;
    assert!(form.contains("Page 1 of 2"), "{form}");
    assert!(form.contains("About you"));
    // A question decided by this page's answers is in the page, with a hint and the script.
    assert!(form.contains("data-show-if="), "{form}");
    assert!(
        form.contains("Answer this if your answer to &#34;Do you like it?&#34; is &#34;No&#34;."),
        "{form}"
    );
    assert!(form.contains(&canvass::web::assets::url("logic.js")));
    assert!(!form.contains("How likely"), "page 2 is not shown yet");
    assert!(form.contains(">Next<"), "{form}");
    let token = token_in(&form);

    // Leaving page 1 checks it: "why" is shown (likes is No) and required.
    let (status, page) = post_page(&app, &token, 0, "next", &[("likes", "No"), ("why", "")]).await;
    assert_eq!(status, 422);
    assert!(page.contains("Please answer this question."), "{page}");
    assert!(page.contains("Page 1 of 2"));

    let (status, page) = post_page(
        &app,
        &token,
        0,
        "next",
        &[("likes", "No"), ("why", "Too dear")],
    )
    .await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Page 2 of 2"), "{page}");
    assert!(page.contains("Two more minutes."));
    assert!(
        page.contains(r#"<input type="hidden" name="q-likes" value="No">"#),
        "{page}"
    );
    assert!(page.contains(r#"<input type="hidden" name="q-why" value="Too dear">"#));
    assert!(
        page.contains("What would you pay?"),
        "decided by page 1: shown"
    );
    assert!(page.contains(">Send my answers<"));
    assert!(page.contains(">Back<"));

    // Back keeps what was typed on both pages.
    let (status, page) = post_page(
        &app,
        &token,
        1,
        "back",
        &[("likes", "No"), ("why", "Too dear"), ("score", "7")],
    )
    .await;
    assert_eq!(status, 200);
    assert!(page.contains("Page 1 of 2"));
    assert!(page.contains(r#"value="No" checked"#), "{page}");
    assert!(page.contains(">Too dear</textarea>"), "{page}");
    assert!(
        page.contains(r#"<input type="hidden" name="q-score" value="7">"#),
        "{page}"
    );

    let (status, page) = post_page(
        &app,
        &token,
        0,
        "next",
        &[("likes", "No"), ("why", "Too dear"), ("score", "7")],
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        page.contains(r#"value="7""#),
        "the score typed before is back: {page}"
    );
    let (status, page) = post_page(
        &app,
        &token,
        1,
        "next",
        &[("likes", "No"), ("why", "Too dear"), ("score", "11")],
    )
    .await;
    assert_eq!(status, 422, "page 2 is checked when sent");
    assert!(
        page.contains("Please enter a number from 0 to 10."),
        "{page}"
    );
    let (status, thanks) = post_page(
        &app,
        &token,
        1,
        "next",
        &[
            ("likes", "No"),
            ("why", "Too dear"),
            ("score", "7"),
            ("cheap", "3"),
        ],
    )
    .await;
    assert_eq!(status, 303, "{thanks}");
    assert!(thanks.starts_with("/s/tasters/tasting/thanks/"), "{thanks}");

    // "Yes" jumps to the end: Next on page 1 sends, and answers to questions this respondent
    // was never shown (forged into the POST) are dropped.
    let token = token_in(&app.form("tasters", "tasting").await);
    let (status, thanks) = post_page(
        &app,
        &token,
        0,
        "next",
        &[
            ("likes", "Yes"),
            ("why", "forged"),
            ("score", "1"),
            ("cheap", "9"),
        ],
    )
    .await;
    assert_eq!(status, 303, "{thanks}");

    drain(&app.stores().await).await;
    let (_, responses) = app
        .api(Method::GET, "/api/v1/surveys/tasting/responses", &key, None)
        .await;
    let responses = responses["responses"].as_array().expect("responses");
    assert_eq!(responses.len(), 2);
    let yes = responses
        .iter()
        .find(|r| r["values"]["likes"]["choice"] == "Yes")
        .expect("the Yes response");
    let keys: Vec<&String> = yes["values"].as_object().expect("values").keys().collect();
    assert_eq!(keys, ["likes"], "nothing hidden is stored: {yes}");
    let no = responses
        .iter()
        .find(|r| r["values"]["likes"]["choice"] == "No")
        .expect("the No response");
    assert_eq!(no["values"]["score"]["number"], 7.0);
    assert_eq!(no["values"]["cheap"]["number"], 3.0);

    let (_, summary) = app
        .api(Method::GET, "/api/v1/surveys/tasting/summary", &key, None)
        .await;
    assert_eq!(summary["total"], 2);
    let shown: Vec<(String, u64, u64)> = summary["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .map(|q| {
            (
                q["id"].as_str().expect("an id").to_owned(),
                q["shown"].as_u64().expect("shown"),
                q["answered"].as_u64().expect("answered"),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("likes".to_owned(), 2, 2),
            ("why".to_owned(), 1, 1),
            ("score".to_owned(), 1, 1),
            ("cheap".to_owned(), 1, 1)
        ]
    );
}

#[tokio::test]
async fn a_page_posted_out_of_turn_never_stores_anything_and_a_one_page_form_is_unchanged() {
    let app = spawn_app().await;
    let key = app.api_tenant("tasters").await;
    app.published_survey(&key, definition()).await;
    let token = token_in(&app.form("tasters", "tasting").await);

    // A POST claiming page 2 without page 1's answers: page 1 again, with what is missing.
    let (status, page) = post_page(&app, &token, 1, "next", &[("score", "5")]).await;
    assert_eq!(status, 422, "{page}");
    assert!(page.contains("Page 1 of 2"), "{page}");
    assert!(page.contains("Please answer this question."), "{page}");
    let (status, page) = post_page(&app, &token, 9, "next", &[("likes", "Yes")]).await;
    assert_eq!(
        status, 200,
        "a page that does not exist: back on the route, {page}"
    );
    let response = app
        .client
        .post(format!("{}/s/tasters/tasting", app.address))
        .form(&[("token", token.as_str()), ("page", "x")])
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 400);
    drain(&app.stores().await).await;
    let (_, responses) = app
        .api(Method::GET, "/api/v1/surveys/tasting/responses", &key, None)
        .await;
    assert_eq!(responses["total"], 0, "{responses}");

    // A survey of one page has no progress line, no Back and no page field.
    let demo = app.form("demo", "customer-satisfaction").await;
    assert!(!demo.contains("Page 1 of"));
    assert!(!demo.contains(">Back<"));
    assert!(!demo.contains(r#"name="page""#));
    assert!(!demo.contains("logic.js"));
    assert!(demo.contains(">Send my answers<"));
}

/// Saves the designer form of the survey `tasting` (303) and reads the survey back.
async fn saved_and_read(
    app: &TestApp,
    owner: &Owner<'_>,
    key: &str,
    form: &[(String, String)],
) -> Value {
    let saved = owner.post_owned("/tenant/surveys/tasting", form).await;
    assert_eq!(
        saved.status(),
        303,
        "{}",
        saved.text().await.unwrap_or_default()
    );
    app.api(Method::GET, "/api/v1/surveys/tasting", key, None)
        .await
        .1
}

/// Sets (or adds) a form field.
fn set(form: &mut Vec<(String, String)>, name: &str, value: &str) {
    form.retain(|(n, _)| n != name);
    form.push((name.to_owned(), value.to_owned()));
}

#[tokio::test]
async fn the_designer_edits_pages_conditions_and_jumps_keeps_them_when_saved_and_says_who_saw_what()
{
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Tasters", "tasters", "owner@tasters.test").await;
    let key = app.api_key("tasters").await;
    let created = app.published_survey(&key, definition()).await;

    // The designer shows each page break, condition and jump in its fields.
    let path = "/tenant/surveys/tasting";
    let designer = owner.page(path).await;
    let form = form_fields(&designer, r#"<form class="designer"#);
    let value = |name: &str| {
        form.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("no {name} in {form:?}"))
    };
    assert_eq!(value("q0.page_title"), "About you");
    assert_eq!(
        (
            value("q1.if_question"),
            value("q1.if_test"),
            value("q1.if_value")
        ),
        ("likes", "equals", "No")
    );
    assert_eq!(
        (
            value("q0.jump_question"),
            value("q0.jump_value"),
            value("q0.jump_to")
        ),
        ("likes", "Yes", "end")
    );
    assert_eq!(
        (value("q2.page_break"), value("q2.page_title")),
        ("on", "More")
    );
    assert_eq!(value("q2.page_description"), "Two more minutes.");
    assert_eq!(
        (
            value("q3.if_question"),
            value("q3.if_test"),
            value("q3.if_value")
        ),
        ("why", "contains", "dear")
    );
    // Pages are headed by number and title; pickers offer only what saving accepts.
    assert!(
        designer.contains("<h2>Page 1: About you</h2>"),
        "{designer}"
    );
    assert!(designer.contains("<h2>Page 2: More</h2>"), "{designer}");
    let options = |select: &str| -> Vec<String> {
        let list =
            crate::owner::between(&designer, &format!(r#"<select id="{select}""#), "</select>");
        list.split("<option value=\"")
            .skip(1)
            .map(|option| option[..option.find('"').expect("a value")].to_owned())
            .collect()
    };
    assert_eq!(
        options("q1-if-question"),
        ["", "likes"],
        "only earlier questions"
    );
    assert_eq!(options("q3-if-question"), ["", "likes", "why", "score"]);
    assert_eq!(
        options("q0-jump-question"),
        ["", "likes", "why"],
        "questions of its page and before"
    );
    assert_eq!(
        options("q0-jump-to"),
        ["end", "1"],
        "the end first: the usual skip"
    );
    assert_eq!(options("q2-jump-to"), ["end"], "no page after the last");
    assert!(
        designer.contains(r#"<option value="1" selected>Page 2: More</option>"#)
            || designer.contains(r#"<option value="1">Page 2: More</option>"#),
        "{designer}"
    );
    // A rule's value field suggests the answers the question offers.
    assert!(
        designer.contains(r#"<datalist id="values-likes"><option value="Yes"></option><option value="No"></option></datalist>"#),
        "{designer}"
    );
    assert!(designer.contains(r#"list="values-likes""#), "{designer}");

    // Saved as shown, the survey is unchanged (and, nothing having changed, no new version).
    let mut saving = form.clone();
    set(&mut saving, "action", "save");
    let after = saved_and_read(&app, &owner, &key, &saving).await;
    assert_eq!(after["pages"], created["pages"]);
    assert_eq!(after["version"], 1);

    // Edited in the designer: question 4 now shows for a low score, page 2 jumps to the end
    // for a score of 9 or more, and question 2 is no longer conditional.
    // The designer's form stands on the version it was made from: edits go on from the new one.
    let mut editing = saving.clone();
    let saved_from = form_fields(&owner.page(path).await, r#"<form class="designer"#);
    set(
        &mut editing,
        "edited_from",
        &crate::owner::field_of(&saved_from, "edited_from"),
    );
    for (name, v) in [
        ("q3.if_question", "score"),
        ("q3.if_test", "less_than"),
        ("q3.if_value", "5"),
        ("q2.jump_question", "score"),
        ("q2.jump_test", "greater_than"),
        ("q2.jump_value", "8"),
        ("q2.jump_to", "end"),
        ("q1.if_question", ""),
    ] {
        set(&mut editing, name, v);
    }
    let after = saved_and_read(&app, &owner, &key, &editing).await;
    assert_eq!(
        after["pages"][1]["questions"][1]["show_if"],
        json!({"question": "score", "less_than": 5.0})
    );
    assert_eq!(
        after["pages"][1]["jumps"],
        json!([{"if": {"question": "score", "greater_than": 8.0}, "to": "end"}])
    );
    assert!(
        after["pages"][0]["questions"][1].get("show_if").is_none(),
        "{after}"
    );

    // A condition on a later question is refused at the question, naming it.
    let mut backwards = editing.clone();
    let saved_from = form_fields(&owner.page(path).await, r#"<form class="designer"#);
    set(
        &mut backwards,
        "edited_from",
        &crate::owner::field_of(&saved_from, "edited_from"),
    );
    set(&mut backwards, "q0.if_question", "score");
    set(&mut backwards, "q0.if_test", "answered");
    let refused = owner.post_owned(path, &backwards).await;
    assert_eq!(refused.status(), 422);
    let page = refused.text().await.expect("a body");
    assert!(
        page.contains("it refers to question 3, \u{201c}How likely are you to come back?\u{201d}, which does not come before it"),
        "{page}"
    );
    assert!(!page.contains("&#34;score&#34;"), "no internal id: {page}");
    let mut no_number = backwards.clone();
    set(&mut no_number, "q0.if_question", "");
    set(&mut no_number, "q3.if_value", "low");
    let refused = owner.post_owned(path, &no_number).await;
    assert_eq!(refused.status(), 422);
    assert!(
        refused
            .text()
            .await
            .expect("a body")
            .contains("Enter a number (or a date, YYYY-MM-DD) to compare with.")
    );

    // Answered once each way: the summary says who was shown what.
    let token = token_in(&app.form("tasters", "tasting").await);
    let (status, _) = post_page(
        &app,
        &token,
        0,
        "next",
        &[("likes", "Yes"), ("why", "Just so")],
    )
    .await;
    assert_eq!(
        status, 303,
        "question 2 has no condition now, and Yes still ends the survey"
    );
    let token = token_in(&app.form("tasters", "tasting").await);
    post_page(
        &app,
        &token,
        1,
        "next",
        &[
            ("likes", "No"),
            ("why", "Dear"),
            ("score", "4"),
            ("cheap", "2"),
        ],
    )
    .await;
    drain(&app.stores().await).await;
    let summary = owner.page("/tenant/surveys/tasting/summary").await;
    assert!(summary.contains("Shown to 1, answered by 1"), "{summary}");
    assert!(summary.contains("2 answered"), "{summary}");
}

#[tokio::test]
async fn loadgen_walks_the_pages_of_a_survey_with_logic_without_a_single_unexpected_answer() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let server = crate::helpers::CanvassProcess::serve(dir.path(), &[]);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_canvass"))
        .args([
            "loadgen",
            "--pages",
            "--no-ceiling",
            "--duration",
            "1",
            "--clients",
            "2",
        ])
        .args(["--url", &server.address])
        .env("CANVASS_DATA_DIR", dir.path())
        .env("CANVASS_LOG", "warn")
        .output()
        .expect("canvass loadgen runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Every page POST was answered with the next page, every last one with the thanks.
    let line = stdout
        .lines()
        .find(|line| line.starts_with("canvass serve, last page"))
        .unwrap_or_else(|| panic!("no result line in {stdout}"));
    assert!(line.ends_with(" 0 errors)"), "{line}");
    assert!(!line.contains("(0 ok"), "{line}");
    assert!(stdout.contains("every POST of the pages:"), "{stdout}");
}

#[tokio::test]
async fn an_owner_previews_a_draft_page_by_page_and_nothing_is_stored() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Tasters", "tasters", "owner@tasters.test").await;
    let key = app.api_key("tasters").await;
    app.create_survey(&key, definition()).await;
    assert_eq!(
        app.get("/s/tasters/tasting").await.status(),
        404,
        "a draft is not public"
    );

    let path = "/tenant/surveys/tasting/preview";
    let first = owner.page(path).await;
    assert!(first.contains("<strong>Preview.</strong>"), "{first}");
    assert!(first.contains("Page 1 of 2"));
    assert!(first.contains(r#"action="/tenant/surveys/tasting/preview""#));
    let csrf = crate::owner::value_of(&first, "csrf");
    let post = |fields: Vec<(&str, &str)>| {
        let mut form: Vec<(String, String)> = vec![
            ("csrf".into(), csrf.clone()),
            ("token".into(), "preview".into()),
        ];
        form.extend(
            fields
                .into_iter()
                .map(|(n, v)| (n.to_owned(), v.to_owned())),
        );
        let owner = &owner;
        async move {
            let response = owner.post_owned(path, &form).await;
            let status = response.status().as_u16();
            (status, response.text().await.expect("a body"))
        }
    };
    let (status, page) = post(vec![("page", "0"), ("nav", "next"), ("q-likes", "No")]).await;
    assert_eq!(status, 422, "checked as respondents are");
    assert!(page.contains("Please answer this question."));
    let (status, page) = post(vec![
        ("page", "0"),
        ("nav", "next"),
        ("q-likes", "No"),
        ("q-why", "Dear"),
    ])
    .await;
    assert_eq!(status, 200);
    assert!(
        page.contains("Page 2 of 2") && page.contains("<strong>Preview.</strong>"),
        "{page}"
    );
    let (status, page) = post(vec![
        ("page", "1"),
        ("nav", "next"),
        ("q-likes", "No"),
        ("q-why", "Dear"),
        ("q-score", "6"),
    ])
    .await;
    assert_eq!(status, 200);
    assert!(page.contains("The answers would be sent now."), "{page}");
    assert!(
        page.contains("3 answers were checked and dropped"),
        "{page}"
    );
    let (status, _) = post(vec![("page", "0"), ("nav", "next"), ("q-likes", "Yes")]).await;
    assert_eq!(status, 200, "a jump to the end ends the preview too");

    drain(&app.stores().await).await;
    let (_, responses) = app
        .api(Method::GET, "/api/v1/surveys/tasting/responses", &key, None)
        .await;
    assert_eq!(responses["total"], 0, "nothing stored: {responses}");
    let queued = app
        .stores()
        .await
        .answering
        .queues
        .waiting(canvass::domain::Subscription::Standard)
        .await
        .expect("counted");
    assert_eq!(queued, 0);

    // Only the survey's own owner, signed in, can preview it.
    let stranger = Owner::signed_up(&app, "Others", "others", "owner@others.test").await;
    assert_eq!(stranger.get(path).await.status(), 404);
    let anonymous = Owner::new(&app);
    assert_ne!(anonymous.get(path).await.status(), 200);
}
