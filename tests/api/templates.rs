//! The template gallery over HTTP: `GET /api/v1/templates` in each of the eight languages,
//! `POST /api/v1/surveys {"template": ID}` making a draft in the language asked for, what a
//! wrong template, language or key is told, and the site's gallery, preview and "use".

use reqwest::Method;
use serde_json::json;

use crate::helpers::spawn_app;
use crate::owner::Owner;

const LANGUAGES: [&str; 8] = ["en", "de", "fr", "es", "pt", "pl", "ja", "ar"];

#[tokio::test]
async fn the_api_lists_twelve_templates_in_each_language_with_their_questions() {
    let app = spawn_app().await;
    let key = app.api_tenant("gallery").await;

    let (status, english) = app.api(Method::GET, "/api/v1/templates", &key, None).await;
    assert_eq!(status, 200, "{english}");
    let templates = english["templates"].as_array().expect("a list");
    assert!(templates.len() >= 12, "{english}");
    let ids: Vec<&str> = templates
        .iter()
        .map(|t| t["id"].as_str().expect("an id"))
        .collect();
    for wanted in [
        "customer-satisfaction",
        "nps",
        "event-feedback",
        "course-evaluation",
        "employee-engagement",
        "product-market-fit",
        "market-research",
        "registration",
        "feedback-360",
        "website-feedback",
        "knowledge-check",
        "research-questionnaire",
    ] {
        assert!(ids.contains(&wanted), "{wanted} in {ids:?}");
    }
    for template in templates {
        let keys: Vec<&String> = template.as_object().expect("an object").keys().collect();
        assert_eq!(
            keys,
            ["description", "id", "languages", "questions", "title"],
            "exactly the documented keys"
        );
        assert_eq!(template["languages"], json!(LANGUAGES), "{template}");
        let questions = template["questions"].as_array().expect("questions");
        assert!(!questions.is_empty());
        for question in questions {
            assert!(question["text"].as_str().is_some_and(|t| !t.is_empty()));
            assert!(question["type"].as_str().is_some(), "{question}");
        }
    }
    let nps = &templates[ids.iter().position(|id| *id == "nps").expect("nps")];
    assert_eq!(nps["questions"][0]["type"], "nps");
    assert_eq!(
        nps["questions"][0]["text"],
        "How likely are you to recommend us to a friend or colleague?"
    );

    // Every language has its own texts.
    let mut titles = std::collections::BTreeSet::new();
    for language in LANGUAGES {
        let (status, list) = app
            .api(
                Method::GET,
                &format!("/api/v1/templates?language={language}"),
                &key,
                None,
            )
            .await;
        assert_eq!(status, 200, "{list}");
        let satisfaction = &list["templates"][0];
        assert_eq!(satisfaction["id"], "customer-satisfaction");
        titles.insert(satisfaction["title"].as_str().expect("a title").to_owned());
    }
    assert_eq!(titles.len(), 8, "eight different titles: {titles:?}");
    let (_, german) = app
        .api(Method::GET, "/api/v1/templates?language=de", &key, None)
        .await;
    assert_eq!(german["templates"][0]["title"], "Kundenzufriedenheit");
    assert_eq!(
        german["templates"][0]["questions"][0]["text"],
        "Wie zufrieden sind Sie insgesamt mit uns?"
    );

    let (status, refused) = app
        .api(Method::GET, "/api/v1/templates?language=sv", &key, None)
        .await;
    assert_eq!(status, 422, "{refused}");
    assert!(
        refused["fields"]["language"].as_str().is_some(),
        "{refused}"
    );

    let (status, _) = app
        .api(Method::GET, "/api/v1/templates", "wrong", None)
        .await;
    assert_eq!(status, 401, "the gallery needs a key like every call");
}

#[tokio::test]
async fn a_draft_is_made_from_a_template_in_the_language_and_title_asked_for() {
    let app = spawn_app().await;
    let key = app.api_tenant("gallery").await;

    let (status, english) = app
        .api(
            Method::POST,
            "/api/v1/surveys",
            &key,
            Some(json!({"template": "nps"})),
        )
        .await;
    assert_eq!(status, 201, "{english}");
    assert_eq!(english["state"], "draft");
    assert_eq!(english["title"], "Net Promoter Score");
    assert_eq!(english["languages"], json!(["en"]));
    assert_eq!(english["questions"][0]["type"], "nps");
    assert_eq!(
        english["questions"][1]["text"]
            .as_str()
            .map(|t| t.contains("{{q:score}}")),
        Some(true)
    );

    let (status, french) = app
        .api(
            Method::POST,
            "/api/v1/surveys",
            &key,
            Some(json!({"template": "research-questionnaire", "title": "Étude 2026", "language": "fr"})),
        )
        .await;
    assert_eq!(status, 201, "{french}");
    assert_eq!(french["title"], "Étude 2026");
    assert_eq!(french["languages"], json!(["fr"]));
    assert_eq!(french["pages"].as_array().map(Vec::len), Some(3));
    assert_eq!(french["pages"][0]["title"], "Consentement");
    assert_eq!(
        french["pages"][0]["jumps"][0]["if"],
        json!({"all": [{"question": "consent", "equals": "Non"}]}),
        "the skip rule tests the French option"
    );
    let slug = french["slug"].as_str().expect("a slug");
    let (status, published) = app
        .api(
            Method::POST,
            &format!("/api/v1/surveys/{slug}/publish"),
            &key,
            None,
        )
        .await;
    assert_eq!(
        status, 200,
        "a template's draft publishes as it is: {published}"
    );

    // Bad requests name their field; nothing is made.
    for (body, field) in [
        (json!({"template": "no-such"}), "template"),
        (json!({"template": "nps", "language": "sv"}), "language"),
        (json!({"template": "nps", "questions": []}), "questions"),
        (json!({"template": "nps", "title": ""}), "title"),
    ] {
        let (status, refused) = app
            .api(Method::POST, "/api/v1/surveys", &key, Some(body.clone()))
            .await;
        assert_eq!(status, 422, "{body}: {refused}");
        assert!(
            refused["fields"][field].as_str().is_some(),
            "{body}: {refused}"
        );
    }
    let (_, list) = app.api(Method::GET, "/api/v1/surveys", &key, None).await;
    assert_eq!(list["total"], 2, "{list}");
}

#[tokio::test]
async fn the_site_shows_the_gallery_previews_a_template_and_makes_a_draft_of_it() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;

    let dashboard = owner.page("/tenant").await;
    assert!(
        dashboard.contains(r#"href="/tenant/templates""#),
        "{dashboard}"
    );
    let gallery = owner.page("/tenant/templates").await;
    assert!(gallery.contains("Start from a template"));
    assert!(gallery.contains("Course evaluation"), "{gallery}");
    assert!(
        gallery.contains("5 questions on 3 pages"),
        "the research questionnaire: {gallery}"
    );
    let german = owner.page("/tenant/templates?language=de").await;
    assert!(german.contains("Kursbewertung"), "{german}");
    assert!(
        german.contains(r#"<ul class="gallery" lang="de""#),
        "{german}"
    );

    let preview = owner.page("/tenant/templates/nps?language=ja").await;
    assert!(
        preview.contains("友人や同僚に当社を勧める可能性はどのくらいありますか？"),
        "{preview}"
    );
    assert!(
        preview.contains("[友人や同僚に当社を勧める可能性はどのくらいありますか？]"),
        "a recall reads as its question's label, never its id: {preview}"
    );
    assert!(!preview.contains("{{q:"), "{preview}");
    let missing = owner.get("/tenant/templates/no-such").await;
    assert_eq!(missing.status(), 404);

    let csrf = owner.csrf("/tenant/templates/event-feedback").await;
    let made = owner
        .post(
            "/tenant/templates/event-feedback",
            &[
                ("csrf", &csrf),
                ("title", "Summer party"),
                ("language", "es"),
            ],
        )
        .await;
    assert_eq!(made.status(), 303);
    let location = made.headers()["location"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(location.starts_with("/tenant/surveys/"), "{location}");
    let designer = owner.page(&location).await;
    assert!(designer.contains("Summer party"), "{designer}");
    assert!(designer.contains("¿Qué partes disfrutó?"), "{designer}");
    assert!(designer.contains("Made from the template"), "{designer}");

    let refused = owner
        .post("/tenant/templates/event-feedback", &[("title", "No token")])
        .await;
    assert_eq!(refused.status(), 403, "the form's token is checked");
}
