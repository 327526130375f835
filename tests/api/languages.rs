//! A survey offered in several languages: the site's own words in the language asked for in
//! the link, else the browser's best, else the survey's default; `<html lang dir>`; a
//! switcher; the choice carried through the pages and the thanks.

use reqwest::Method;
use serde_json::json;

use crate::helpers::{TestApp, spawn_app, token_in};

/// A page of the site asked for with `Accept-Language: accept`.
async fn page(app: &TestApp, path: &str, accept: &str) -> (u16, String) {
    let response = app
        .client
        .get(format!("{}{path}", app.address))
        .header("accept-language", accept)
        .send()
        .await
        .expect("answered");
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

/// "Trip", in English (the default), German and Arabic: one required rating, one number.
async fn trip(app: &TestApp) -> (crate::owner::Owner<'_>, String) {
    let owner = crate::owner::Owner::signed_up(app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("languages").await;
    let survey = app
        .published_survey(
            &key,
            json!({
                "title": "Trip",
                "languages": ["en", "de", "ar"],
                "questions": [
                    {"id": "overall", "text": "How was it?", "type": "five_stars", "required": true},
                    {"id": "nights", "text": "Nights", "type": "numeric", "min": 1, "max": 1000, "integer": true},
                ],
            }),
        )
        .await;
    assert_eq!(survey["languages"], json!(["en", "de", "ar"]), "{survey}");
    (owner, key)
}

#[tokio::test]
async fn the_site_speaks_the_language_asked_for_else_the_browsers_else_the_surveys_default() {
    let app = spawn_app().await;
    let (owner, key) = trip(&app).await;

    // The browser's languages, best match first.
    let (status, german) = page(&app, "/s/acme/trip", "fr;q=0.9, de;q=0.8, en;q=0.1").await;
    assert_eq!(status, 200);
    assert!(german.contains(r#"<html lang="de" dir="ltr">"#), "{german}");
    assert!(
        german.contains("Antworten absenden"),
        "the send button in German"
    );
    assert!(german.contains("(Pflichtfeld)"));
    assert!(
        german.contains("Eine ganze Zahl von 1 bis 1.000."),
        "grouped the German way"
    );
    // The form posts back in the same language.
    assert!(
        german.contains(r#"action="/s/acme/trip?lang=de""#),
        "{german}"
    );
    // A switcher names each language in its own words: buttons of the form, so what was
    // typed stays (the page's own language is not offered again).
    for (tag, name) in [("en", "English"), ("de", "Deutsch"), ("ar", "العربية")] {
        assert!(
            german.contains(&format!(
                r#"value="stay" formaction="/s/acme/trip?lang={tag}" formnovalidate lang="{tag}""#
            )),
            "{tag}"
        );
        assert!(german.contains(name), "{name}");
    }
    assert!(german.contains(r#"lang="de" aria-current="true" disabled>Deutsch"#));
    let switched = app
        .client
        .post(format!("{}/s/acme/trip?lang=ar", app.address))
        .form(&[
            ("token", token_in(&german).as_str()),
            ("q-nights", "3"),
            ("nav", "stay"),
        ])
        .send()
        .await
        .expect("answered");
    assert_eq!(switched.status(), 200, "no answer checked yet");
    let switched = switched.text().await.expect("a body");
    assert!(switched.contains(r#"<html lang="ar" dir="rtl">"#));
    assert!(switched.contains(r#"value="3""#), "what was typed is kept");
    assert!(!switched.contains("يرجى الإجابة"), "nothing checked yet");

    // The link's choice wins over the browser's, and Arabic is right to left.
    let (_, arabic) = page(&app, "/s/acme/trip?lang=ar", "de").await;
    assert!(arabic.contains(r#"<html lang="ar" dir="rtl">"#), "{arabic}");
    assert!(arabic.contains("إرسال إجاباتي"));

    // A language the survey does not offer: the default.
    let (_, default) = page(&app, "/s/acme/trip", "ja").await;
    assert!(default.contains(r#"<html lang="en" dir="ltr">"#));
    assert!(default.contains("Send my answers"));

    // What is wrong is said in the respondent's language, and the thanks too.
    let token = token_in(&german);
    let refused = app
        .client
        .post(format!("{}/s/acme/trip?lang=de", app.address))
        .form(&[("token", token.as_str()), ("q-nights", "2.5")])
        .send()
        .await
        .expect("answered");
    assert_eq!(refused.status(), 422);
    let refused = refused.text().await.expect("a body");
    assert!(
        refused.contains("Bitte prüfen Sie 2 Antworten"),
        "{refused}"
    );
    assert!(refused.contains("Bitte beantworten Sie diese Frage."));
    assert!(refused.contains("Bitte geben Sie eine ganze Zahl ein."));
    let thanked = app
        .client
        .post(format!("{}/s/acme/trip?lang=de", app.address))
        .form(&[
            ("token", token.as_str()),
            ("q-overall", "5"),
            ("q-nights", "3"),
        ])
        .send()
        .await
        .expect("answered");
    assert_eq!(thanked.status(), 303);
    let thanks = thanked.headers()["location"]
        .to_str()
        .expect("a location")
        .to_owned();
    assert!(thanks.ends_with("&lang=de"), "{thanks}");
    let (status, thanks) = page(&app, &thanks, "en").await;
    assert_eq!(status, 200);
    assert!(thanks.contains("Vielen Dank!"), "{thanks}");
    assert!(thanks.contains(r#"Ihre Referenznummer ist <strong class="reference">"#));

    // The response records its language: in the API, on its page, in every export.
    let english = app.answer("acme", "trip", &[("overall", "4")]).await;
    assert_eq!(english.status(), 303);
    crate::helpers::drain(&app.stores().await).await;
    let (_, listed) = app
        .api(Method::GET, "/api/v1/surveys/trip/responses", &key, None)
        .await;
    let languages: Vec<&str> = listed["responses"]
        .as_array()
        .expect("responses")
        .iter()
        .map(|r| r["language"].as_str().expect("a language"))
        .collect();
    assert_eq!(languages, ["en", "de"], "newest first: {listed}");
    let german_one = owner.page("/tenant/surveys/trip/responses/2").await;
    assert!(
        german_one.contains(r#"in <span lang="de">Deutsch</span> (de)"#),
        "{german_one}"
    );
    let csv = owner
        .page("/tenant/surveys/trip/responses.csv?ids=true&bom=false")
        .await;
    let header = csv.lines().nth(1).expect("the ids row");
    assert!(
        header.starts_with("reference,submitted_at,survey_version,language,"),
        "{csv}"
    );
    assert!(
        csv.lines().nth(2).is_some_and(|row| row.contains(",de,")),
        "{csv}"
    );
    let database = crate::export::TestDatabase::create().await;
    let (status, _) = app
        .api(Method::POST, "/api/v1/surveys/trip/exports", &key, None)
        .await;
    assert_eq!(status, 202);
    crate::export::work(&app, &database.url).await;
    assert_eq!(
        database
            .count("select count(*) from canvass.response where language = 'de'")
            .await,
        1
    );
}

#[tokio::test]
async fn a_survey_names_only_real_languages_each_once() {
    let app = spawn_app().await;
    let owner = crate::owner::Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("languages").await;
    let offered = |languages: serde_json::Value| {
        let trip = json!({"title": "Trip", "languages": languages,
                          "questions": [{"id": "q", "text": "Why?", "type": "short_text"}]});
        app.api(Method::POST, "/api/v1/surveys", &key, Some(trip))
    };
    let not_a_tag = |said: &serde_json::Value| {
        said.as_str()
            .is_some_and(|said| said.contains("not a language tag"))
    };
    let (status, refused) = offered(json!(["en", "klingon please", "en"])).await;
    assert_eq!(status, 422, "{refused}");
    assert!(not_a_tag(&refused["fields"]["languages[1]"]), "{refused}");
    assert_eq!(refused["fields"]["languages[2]"], "en is named twice");
    // A language's name, or a well-formed tag of no language ISO 639 knows, is not a tag.
    let (status, refused) = offered(json!(["French", "xx"])).await;
    assert_eq!(status, 422, "{refused}");
    assert_eq!(
        refused["fields"]["languages[0]"], r#""French" is a language's name, not its tag: use fr"#,
        "{refused}"
    );
    assert!(not_a_tag(&refused["fields"]["languages[1]"]), "{refused}");
    // A survey that names none is in English, and says so.
    let survey = app
        .published_survey(
            &key,
            json!({"title": "Plain", "questions": [{"id": "q", "text": "Why?", "type": "short_text"}]}),
        )
        .await;
    assert_eq!(survey["languages"], json!(["en"]));
    let (_, form) = page(&app, "/s/acme/plain", "de").await;
    assert!(form.contains(r#"<html lang="en" dir="ltr">"#));
    assert!(!form.contains("?lang="), "no switcher, no carried choice");
}

/// "Lunch" in English, German and Arabic, its texts given in place per language, some left
/// untranslated.
fn lunch() -> serde_json::Value {
    json!({
        "title": {"en": "Lunch", "de": "Mittagessen", "ar": "الغداء"},
        "description": "Tell us about it.",
        "languages": ["en", "de", "ar"],
        "questions": [
            {"id": "drink", "text": {"en": "What did you drink?", "de": "Was haben Sie getrunken?"},
             "type": "single_choice", "required": true,
             "options": [{"en": "Tea", "de": "Tee", "ar": "شاي"}, "Coffee"]},
            {"id": "grid", "text": "Rate it", "type": "matrix",
             "rows": [{"en": "Food", "de": "Essen"}], "columns": ["Good", {"en": "Poor", "de": "Schlecht"}]},
        ],
        "thank_you": {"en": "Enjoy!", "de": "Guten Appetit!"},
    })
}

#[tokio::test]
async fn texts_given_per_language_are_shown_in_the_respondents_language_else_the_default() {
    let app = spawn_app().await;
    let owner = crate::owner::Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("languages").await;
    let survey = app.published_survey(&key, lunch()).await;
    // The default language's texts are the survey's own; the others are its translations.
    assert_eq!(survey["title"], "Lunch");
    assert_eq!(survey["questions"][0]["options"], json!(["Tea", "Coffee"]));
    assert_eq!(survey["translations"]["de"]["title"], "Mittagessen");
    assert_eq!(survey["translations"]["de"]["q:drink:option:0"], "Tee");
    assert_eq!(survey["translations"]["de"]["q:grid:column:1"], "Schlecht");
    assert_eq!(survey["translations"]["ar"]["q:drink:option:0"], "شاي");

    // In German: each text translated, or the default where it is not (text by text).
    let (_, german) = page(&app, "/s/acme/lunch", "de").await;
    for shown in [
        "<h1>Mittagessen</h1>",
        "Was haben Sie getrunken?",
        "<span>Tee</span>",
        "<span>Coffee</span>",
        "Tell us about it.",
        ">Essen</th>",
        ">Schlecht</th>",
        "Rate it",
    ] {
        assert!(german.contains(shown), "{shown} in {german}");
    }
    // What is posted stays the default language's, so every language pools.
    assert!(german.contains(r#"value="Tea""#) && !german.contains(r#"value="Tee""#));
    assert!(german.contains(r#"value="Poor""#));
    let (_, arabic) = page(&app, "/s/acme/lunch?lang=ar", "").await;
    assert!(arabic.contains("<h1>الغداء</h1>") && arabic.contains("What did you drink?"));

    for (lang, drink) in [("de", "Tea"), ("ar", "Tea"), ("en", "Coffee")] {
        let (_, form) = page(&app, &format!("/s/acme/lunch?lang={lang}"), "").await;
        let sent = app
            .client
            .post(format!("{}/s/acme/lunch?lang={lang}", app.address))
            .form(&[
                ("token", token_in(&form).as_str()),
                ("q-drink", drink),
                ("q-grid.0", "Poor"),
            ])
            .send()
            .await
            .expect("answered");
        assert_eq!(sent.status(), 303, "{lang}");
        if lang == "de" {
            let thanks = sent.headers()["location"]
                .to_str()
                .expect("a location")
                .to_owned();
            let (_, thanks) = page(&app, &thanks, "").await;
            assert!(thanks.contains("Guten Appetit!"), "{thanks}");
        }
    }
    crate::helpers::drain(&app.stores().await).await;
    let (_, summary) = app
        .api(Method::GET, "/api/v1/surveys/lunch/summary", &key, None)
        .await;
    assert_eq!(summary["total"], 3, "one summary for every language");

    // Sent back without translations, a survey keeps them; with an empty map, it drops them.
    let mut plain = lunch();
    plain["title"] = json!("Lunch");
    plain["questions"][0]["options"] = json!(["Tea", "Coffee"]);
    plain["questions"][0]["text"] = json!("What did you drink?");
    plain["questions"][1]["rows"] = json!(["Food"]);
    plain["questions"][1]["columns"] = json!(["Good", "Poor"]);
    plain["thank_you"] = json!("Enjoy!");
    let (status, kept) = app
        .api(
            Method::PUT,
            "/api/v1/surveys/lunch",
            &key,
            Some(plain.clone()),
        )
        .await;
    assert_eq!(status, 200, "{kept}");
    assert_eq!(kept["translations"]["de"]["title"], "Mittagessen");
    plain["translations"] = json!({});
    let (_, dropped) = app
        .api(Method::PUT, "/api/v1/surveys/lunch", &key, Some(plain))
        .await;
    assert_eq!(dropped["translations"], json!({}));
}

#[tokio::test]
async fn a_text_per_language_without_the_default_or_in_another_language_is_refused() {
    let app = spawn_app().await;
    let owner = crate::owner::Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("languages").await;
    let refused = |survey: serde_json::Value| {
        let (app, key) = (&app, &key);
        async move {
            let (status, refused) = app
                .api(Method::POST, "/api/v1/surveys", key, Some(survey))
                .await;
            assert_eq!(status, 422, "{refused}");
            refused["fields"].clone()
        }
    };
    let mut survey = lunch();
    survey["questions"][0]["text"] = json!({"de": "Was?"});
    let fields = refused(survey).await;
    assert!(
        said(&fields, "questions[0].text", "give its en text too"),
        "{fields}"
    );
    let mut survey = lunch();
    survey["translations"] = json!({"fr": {"title": "Déjeuner"}, "de": {"q:nope:text": "?"}});
    let fields = refused(survey).await;
    assert!(
        said(
            &fields,
            "translations.fr",
            "not one of the survey's languages"
        ),
        "{fields}"
    );
    assert!(
        said(
            &fields,
            "translations.de.q:nope:text",
            "no text by this key"
        ),
        "{fields}"
    );
}

/// Whether the problem said of `field` has `words` in it.
fn said(fields: &serde_json::Value, field: &str, words: &str) -> bool {
    fields[field]
        .as_str()
        .is_some_and(|said| said.contains(words))
}

#[tokio::test]
async fn publishing_a_survey_with_untranslated_texts_says_which_languages_lack_how_many() {
    let app = spawn_app().await;
    let owner = crate::owner::Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("languages").await;
    let (status, _) = app
        .api(Method::POST, "/api/v1/surveys", &key, Some(lunch()))
        .await;
    assert_eq!(status, 201);
    let csrf = owner.csrf("/tenant/surveys/lunch").await;
    let published = owner
        .post("/tenant/surveys/lunch/publish", &[("csrf", csrf.as_str())])
        .await;
    assert_eq!(published.status(), 303, "published, not refused");
    let designer = owner.page("/tenant/surveys/lunch").await;
    assert!(
        designer.contains("Deutsch (de) lacks 4 of 10 texts; العربية (ar) lacks 8 of 10 texts"),
        "{designer}"
    );
}

#[tokio::test]
async fn answers_segment_by_the_language_they_were_given_in_even_those_before_a_second_language() {
    let app = spawn_app().await;
    let owner = crate::owner::Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("languages").await;
    let mut definition = json!({
        "title": "Trip",
        "questions": [{"id": "overall", "text": "How was it?", "type": "five_stars"}],
    });
    app.published_survey(&key, definition.clone()).await;
    for stars in ["5", "3"] {
        assert_eq!(
            app.answer("acme", "trip", &[("overall", stars)])
                .await
                .status(),
            303
        );
    }
    let stores = app.stores().await;
    crate::helpers::drain(&stores).await;
    let (status, body) = app
        .api(
            Method::GET,
            "/api/v1/surveys/trip/summary?segment=@language:en",
            &key,
            None,
        )
        .await;
    assert_eq!(status, 400, "one language, no language segments: {body}");
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains("one language")),
        "{body}"
    );

    // German is added after two English answers: they join the English segment.
    definition["languages"] = json!(["en", "de"]);
    let (status, body) = app
        .api(Method::PUT, "/api/v1/surveys/trip", &key, Some(definition))
        .await;
    assert_eq!(status, 200, "{body}");
    let (_, form) = page(&app, "/s/acme/trip?lang=de", "").await;
    let sent = app
        .client
        .post(format!("{}/s/acme/trip?lang=de", app.address))
        .form(&[("token", token_in(&form).as_str()), ("q-overall", "1")])
        .send()
        .await
        .expect("answered");
    assert_eq!(sent.status(), 303);
    crate::helpers::settle(&stores).await;
    let summary = |segment: &'static str| {
        let (app, key) = (&app, &key);
        async move {
            let path = format!("/api/v1/surveys/trip/summary?segment={segment}");
            app.api(Method::GET, &path, key, None).await
        }
    };
    let (status, english) = summary("@language:en").await;
    assert_eq!(status, 200, "{english}");
    assert_eq!(english["total"], 2, "{english}");
    assert_eq!(english["segment"]["complete"], true);
    assert_eq!(english["questions"][0]["mean"], 4.0, "{english}");
    let (_, german) = summary("@language:de").await;
    assert_eq!(german["total"], 1, "{german}");
    assert_eq!(german["questions"][0]["mean"], 1.0, "{german}");
    let listed: Vec<(&str, u64)> = german["segments"]
        .as_array()
        .expect("segments")
        .iter()
        .map(|s| {
            (
                s["id"].as_str().expect("an id"),
                s["total"].as_u64().expect("a count"),
            )
        })
        .collect();
    assert_eq!(listed, [("@language:en", 2), ("@language:de", 1)]);
    let (status, french) = summary("@language:fr").await;
    assert_eq!(status, 400, "{french}");
    assert!(
        french["error"]
            .as_str()
            .is_some_and(|e| e.contains("not offered in"))
    );

    // The responses list and the tenant's pages filter the same way.
    let (_, responses) = app
        .api(
            Method::GET,
            "/api/v1/surveys/trip/responses?segment=@language:de",
            &key,
            None,
        )
        .await;
    assert_eq!(responses["total"], 1, "{responses}");
    assert_eq!(responses["responses"][0]["language"], "de");
    let page = owner
        .page("/tenant/surveys/trip/summary?segment=%40language%3Ade")
        .await;
    assert!(page.contains(r#"<optgroup label="Language">"#), "{page}");
    assert!(page.contains(">Deutsch (de) (1)</option>"), "{page}");
    assert!(
        page.contains(
            "Respondents who answered in <strong>Deutsch (de)</strong>: <strong>1</strong>"
        ),
        "{page}"
    );
}
