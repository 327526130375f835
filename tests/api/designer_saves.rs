//! Saving in the designer: a save made from a version someone else replaced meanwhile is a
//! conflict that keeps the owner's changes, and without JavaScript the page names every change
//! not saved yet.

use serde_json::json;

use crate::helpers::spawn_app;
use crate::owner::{Owner, form_fields};

/// Sets field `name` of a posted form to `value` (the only value under that name).
pub(crate) fn set(form: &mut Vec<(String, String)>, name: &str, value: &str) {
    form.retain(|(n, _)| n != name);
    form.push((name.to_owned(), value.to_owned()));
}

#[tokio::test]
async fn a_save_from_a_version_changed_elsewhere_is_refused_with_the_changes_kept() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let slug = owner.design("Team day").await;
    let path = format!("/tenant/surveys/{slug}");
    let mut mine = form_fields(&owner.page(&path).await, r#"<form class="designer"#);
    // Meanwhile someone saves another version through the API.
    let key = owner.api_key("colleague").await;
    let (status, body) = app
        .api(
            reqwest::Method::PUT,
            &format!("/api/v1/surveys/{slug}"),
            &key,
            Some(json!({"title": "Their title", "questions": [{"text": "Theirs?", "type": "short_text"}]})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    set(&mut mine, "title", "My title");
    set(&mut mine, "action", "save");
    let refused = owner.post_owned(&path, &mine).await;
    assert_eq!(refused.status(), 409);
    let page = refused.text().await.expect("a page");
    assert!(page.contains("this survey was changed elsewhere"), "{page}");
    assert!(
        page.contains(r#"value="My title""#),
        "the owner's changes are kept: {page}"
    );
    let (_, saved) = app
        .api(
            reqwest::Method::GET,
            &format!("/api/v1/surveys/{slug}"),
            &key,
            None,
        )
        .await;
    assert_eq!(saved["title"], "Their title", "nothing was overwritten");
    // Saving again, knowingly, replaces theirs.
    let mut again = form_fields(&page, r#"<form class="designer"#);
    set(&mut again, "action", "save");
    assert_eq!(owner.post_owned(&path, &again).await.status(), 303);
    let (_, saved) = app
        .api(
            reqwest::Method::GET,
            &format!("/api/v1/surveys/{slug}"),
            &key,
            None,
        )
        .await;
    assert_eq!(saved["title"], "My title");
}

#[tokio::test]
async fn without_javascript_the_page_names_what_is_not_saved_yet() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let slug = owner.design("Team day").await;
    let path = format!("/tenant/surveys/{slug}");
    let mut form = form_fields(&owner.page(&path).await, r#"<form class="designer"#);
    // As a browser sends them: a textarea's lines (the options) end with CR LF.
    for (_, value) in form.iter_mut() {
        *value = value.replace('\n', "\r\n");
    }
    set(&mut form, "title", "Team day out");
    set(&mut form, "action", "remove-1");
    let page = owner.post_owned(&path, &form).await;
    assert_eq!(page.status(), 200);
    let page = page.text().await.expect("a page");
    assert!(
        page.contains("Unsaved: the title, \u{201c}Comments\u{201d} (removed)."),
        "{page}"
    );
    // A save from that form is no conflict: it stands on the version it was made from.
    let mut save = form_fields(&page, r#"<form class="designer"#);
    set(&mut save, "action", "save");
    assert_eq!(owner.post_owned(&path, &save).await.status(), 303);
}

/// Whether the page draws block `index`'s card unfolded.
fn unfolded(page: &str, index: usize) -> bool {
    let folded = format!(r#"<details class="card-fold" id="q{index}-card">"#);
    let open = format!(r#"<details class="card-fold" id="q{index}-card" open>"#);
    assert!(
        page.contains(&folded) || page.contains(&open),
        "no card {index}: {page}"
    );
    page.contains(&open)
}

#[tokio::test]
async fn saved_cards_fold_to_a_line_and_unfold_when_changed_wrong_or_acted_on() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let slug = owner.design("Team day").await;
    let path = format!("/tenant/surveys/{slug}");
    let page = owner.page(&path).await;
    assert!(
        (0..6).all(|i| !unfolded(&page, i)),
        "a saved survey's cards are folded: {page}"
    );
    assert!(
        page.contains(r#"<span class="card-text">Where?</span> <span class="card-meta">Single choice · Required</span>"#),
        "a folded card says its text, type and whether it is required: {page}"
    );
    // Without JavaScript the fields are posted all the same: a save of the folded form keeps
    // every question.
    let mut form = form_fields(&page, r#"<form class="designer"#);
    set(&mut form, "q3.text", "What would you do?");
    set(&mut form, "action", "duplicate-0");
    let page = owner
        .post_owned(&path, &form)
        .await
        .text()
        .await
        .expect("a page");
    // Block 1 is the copy (acted on), block 4 the changed question (moved down by the copy);
    // the others still hold their saved questions.
    let open: Vec<usize> = (0..7).filter(|i| unfolded(&page, *i)).collect();
    assert_eq!(open, vec![1, 4], "{page}");
    let mut form = form_fields(&page, r#"<form class="designer"#);
    set(&mut form, "q6.min", "lots");
    set(&mut form, "action", "save");
    let refused = owner.post_owned(&path, &form).await;
    assert_eq!(refused.status(), 422);
    let page = refused.text().await.expect("a page");
    let open: Vec<usize> = (0..7).filter(|i| unfolded(&page, *i)).collect();
    assert_eq!(open, vec![1, 4, 6], "a wrong card unfolds too: {page}");
    set(&mut form, "q6.min", "1");
    assert_eq!(owner.post_owned(&path, &form).await.status(), 303);
    let page = owner.page(&path).await;
    assert!((0..7).all(|i| !unfolded(&page, i)), "all saved: {page}");
    assert!(page.contains("What would you do?"), "{page}");
}
