//! Members and roles: every route of the tenant site and of the API refuses a role below its
//! own (403 page or JSON error) and serves the rest; the last owner stays; invitations and
//! reset links work once; a removed member's sessions and keys die with the membership; the
//! audit log records it all; the shell commands print their links alone on the last line.

use canvass::domain::member::Role;
use canvass::web::route_table::Access;
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app, spawn_app_with};
use crate::owner::{MEMBER_PASSWORD, Owner, between};

const OWNER: &str = "owner@acme.test";
const EDITOR: &str = "editor@acme.test";
const VIEWER: &str = "viewer@acme.test";

/// A tenant with an owner (who signed it up), an editor and a viewer (who accepted
/// invitations), and one published survey with one response; returns the three clients and
/// the survey's slug.
async fn team(app: &TestApp) -> (Owner<'_>, Owner<'_>, Owner<'_>, String) {
    let owner = Owner::signed_up(app, "Acme", "acme", OWNER).await;
    let editor_link = owner.invite(EDITOR, "editor").await;
    let viewer_link = owner.invite(VIEWER, "viewer").await;
    let editor = Owner::joined(&app.address, &editor_link).await;
    let viewer = Owner::joined(&app.address, &viewer_link).await;
    let survey = owner.design("Team day").await;
    let csrf = owner.csrf(&format!("/tenant/surveys/{survey}")).await;
    let published = owner
        .post(
            &format!("/tenant/surveys/{survey}/publish"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(published.status(), 303);
    (owner, editor, viewer, survey)
}

/// A route of the app's own table that a member of at least some role may use: method,
/// full path with `{name}` parameters, least role. The same table mounts the routes.
pub(crate) struct Guarded {
    pub(crate) method: Method,
    pub(crate) path: String,
    pub(crate) role: Role,
}

/// The app's routes under `prefix` that need a member.
pub(crate) fn guarded(prefix: &str) -> Vec<Guarded> {
    let routes: Vec<Guarded> = canvass::web::mounted_routes()
        .into_iter()
        .filter(|route| route.path.starts_with(prefix))
        .filter_map(|route| match route.access {
            Access::Member(role) => Some(Guarded {
                method: Method::from_bytes(route.method.as_str().as_bytes()).expect("a method"),
                path: route.path,
                role,
            }),
            Access::Anyone => None,
        })
        .collect();
    assert!(routes.len() > 15, "{prefix}: {}", routes.len());
    routes
}

/// `path` with each `{name}` parameter replaced by `value(name)`.
pub(crate) fn filled(path: &str, value: impl Fn(&str) -> String) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}').expect("a closed parameter");
        out.push_str(&rest[..open]);
        out.push_str(&value(&rest[open + 1..close]));
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// Routes the role walk calls on a survey that does not exist, since a member allowed to
/// use them would change what the later requests meet.
const ON_NO_SURVEY: &[(&str, &str)] = &[
    ("POST", "/tenant/surveys/{slug}/unpublish"),
    ("PUT", "/api/v1/surveys/{slug}"),
    ("DELETE", "/api/v1/surveys/{slug}"),
    ("POST", "/api/v1/surveys/{slug}/unpublish"),
];

/// A guarded route's address for the role walk: the team's survey, an id that names nothing,
/// the first response, the CSV download.
fn walked(route: &Guarded, survey: &str) -> String {
    let away = ON_NO_SURVEY.contains(&(route.method.as_str(), route.path.as_str()));
    filled(&route.path, |name| match name {
        "slug" if away => "nosuch".to_owned(),
        "slug" => survey.to_owned(),
        "n" | "reference" => "1".to_owned(),
        "format" => "csv".to_owned(),
        _ => "nosuch".to_owned(),
    })
}

/// A form a member may post to `path` without changing anything worth keeping.
pub(crate) fn harmless_form(path: &str, csrf: &str) -> Vec<(String, String)> {
    let mut form = vec![("csrf".to_owned(), csrf.to_owned())];
    let extra: &[(&str, &str)] = match path {
        "/tenant/account/notify" => &[("notify", "off")],
        "/tenant/account/password" => &[("current", "not the password"), ("password", "x")],
        "/tenant/members/invite" => &[("email", "not an address"), ("role", "viewer")],
        "/tenant/members/role" | "/tenant/members/remove" => {
            &[("email", "nobody@acme.test"), ("role", "viewer")]
        }
        "/tenant/api-keys" => &[("label", "walked")],
        "/tenant/settings/sso" => &[("action", "remove")],
        _ => &[],
    };
    form.extend(
        extra
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    );
    form
}

#[tokio::test]
async fn every_route_refuses_a_role_below_its_own_and_serves_the_rest() {
    let app = spawn_app().await;
    let (owner, editor, viewer, survey) = team(&app).await;
    let keys = [
        (Role::Viewer, viewer.api_key("viewer's key").await),
        (Role::Editor, editor.api_key("editor's key").await),
        (Role::Owner, owner.api_key("owner's key").await),
    ];
    // Least role first: a refused request changes nothing, so each role meets the same data.
    for (role, member) in [
        (Role::Viewer, &viewer),
        (Role::Editor, &editor),
        (Role::Owner, &owner),
    ] {
        let csrf = member.csrf("/tenant/account").await;
        for route in guarded("/tenant/") {
            if route.path == "/tenant/sign-out" {
                continue;
            }
            let (method, needed) = (&route.method, route.role);
            let path = walked(&route, &survey);
            let response = match *method {
                Method::GET => member.get(&path).await,
                _ => member.post_owned(&path, &harmless_form(&path, &csrf)).await,
            };
            let status = response.status().as_u16();
            let body = response.text().await.expect("a body");
            if role < needed {
                assert_eq!(status, 403, "{role} {method} {path}");
                assert!(body.contains("Only "), "{role} {method} {path}: {body}");
            } else {
                assert!(
                    status != 403 && status < 500 && status != 401,
                    "{role} {method} {path}: {status} {body}"
                );
            }
        }
    }
    for (role, key) in &keys {
        for route in guarded("/api/") {
            let (method, needed) = (route.method.clone(), route.role);
            let path = walked(&route, &survey);
            let body = matches!(method, Method::POST | Method::PUT).then(|| json!({}));
            let (status, answer) = app.api(method.clone(), &path, key, body).await;
            if *role < needed {
                assert_eq!(status, 403, "{role}'s key {method} {path}");
                assert!(
                    answer["error"]
                        .as_str()
                        .is_some_and(|e| e.contains("your role is")),
                    "{role}'s key {method} {path}: {answer}"
                );
            } else {
                assert!(
                    status != 403 && status != 401 && status < 500,
                    "{role}'s key {method} {path}: {status} {answer}"
                );
            }
        }
    }
    // Every member may sign out.
    for member in [&viewer, &editor, &owner] {
        let csrf = member.csrf("/tenant/account").await;
        let out = member.post("/tenant/sign-out", &[("csrf", &csrf)]).await;
        assert_eq!(out.headers()["location"], "/tenant/sign-in");
    }
}

#[tokio::test]
async fn pages_offer_each_role_only_what_it_may_do() {
    let app = spawn_app().await;
    let (owner, editor, viewer, survey) = team(&app).await;
    let responses = format!("/tenant/surveys/{survey}/responses");
    let dashboard = viewer.page("/tenant").await;
    assert!(!dashboard.contains("New survey") && !dashboard.contains("/tenant/members"));
    assert!(dashboard.contains(&format!("/tenant/surveys/{survey}/summary\"")));
    assert!(!viewer.page(&responses).await.contains("Delete selected"));
    assert!(
        !viewer
            .page(&format!("/tenant/surveys/{survey}/summary"))
            .await
            .contains(">Design<")
    );
    let editors = editor.page("/tenant").await;
    assert!(editors.contains("New survey") && editors.contains("/tenant/webhooks"));
    assert!(!editors.contains("/tenant/members") && !editors.contains("/tenant/settings"));
    let owners = owner.page("/tenant").await;
    assert!(owners.contains("/tenant/members") && owners.contains("/tenant/settings"));
}

#[tokio::test]
async fn the_last_owner_stays_and_a_removed_member_loses_sessions_keys_and_address() {
    let app = spawn_app().await;
    let (owner, editor, _viewer, _survey) = team(&app).await;
    let editor_key = editor.api_key("ci").await;
    let csrf = owner.csrf("/tenant/members").await;
    for (path, extra) in [
        ("/tenant/members/role", ("role", "editor")),
        ("/tenant/members/remove", ("role", "")),
    ] {
        let refused = owner
            .post(path, &[("csrf", &csrf), ("email", OWNER), extra])
            .await;
        assert_eq!(refused.headers()["location"], "/tenant/members");
        let page = owner.page("/tenant/members").await;
        assert!(page.contains("at least one owner"), "{page}");
    }
    // The editor becomes an owner; now the first owner may step down to viewer.
    let promoted = owner
        .post(
            "/tenant/members/role",
            &[("csrf", &csrf), ("email", EDITOR), ("role", "owner")],
        )
        .await;
    assert_eq!(promoted.status(), 303);
    assert_eq!(editor.get("/tenant/members").await.status(), 200);
    let stepped_down = owner
        .post(
            "/tenant/members/role",
            &[("csrf", &csrf), ("email", OWNER), ("role", "viewer")],
        )
        .await;
    assert_eq!(stepped_down.headers()["location"], "/tenant");
    assert_eq!(owner.get("/tenant/members").await.status(), 403);

    // The new owner removes the old one: their session and keys stop working at once.
    let (status, _) = app
        .api(Method::GET, "/api/v1/surveys", &editor_key, None)
        .await;
    assert_eq!(status, 200);
    let csrf = editor.csrf("/tenant/members").await;
    let removed = editor
        .post(
            "/tenant/members/remove",
            &[("csrf", &csrf), ("email", OWNER)],
        )
        .await;
    assert_eq!(removed.status(), 303);
    let gone = owner.get("/tenant").await;
    assert_eq!(gone.headers()["location"], "/tenant/sign-in");
    let signed_in = owner.sign_in(OWNER, "a long enough password").await;
    assert_eq!(signed_in.status(), 401, "a removed member cannot sign in");
    // The address is free again: it can be invited anew.
    let link = editor.invite(OWNER, "viewer").await;
    let back = Owner::joined(&app.address, &link).await;
    assert_eq!(back.get("/tenant").await.status(), 200);

    // A member's keys die with them.
    let viewer_key = back.api_key("mine").await;
    let csrf = editor.csrf("/tenant/members").await;
    editor
        .post(
            "/tenant/members/remove",
            &[("csrf", &csrf), ("email", OWNER)],
        )
        .await;
    let (status, _) = app
        .api(Method::GET, "/api/v1/surveys", &viewer_key, None)
        .await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn removing_a_member_asks_first_and_the_only_owner_is_offered_neither_removal_nor_a_role() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", OWNER).await;
    let page = owner.page("/tenant/members").await;
    assert!(page.contains("the only owner"), "{page}");
    assert!(
        !page.contains("members/remove?email="),
        "no Remove for the only owner: {page}"
    );
    assert!(
        !page.contains(r#"id="role-1""#),
        "no role to pick for the only owner: {page}"
    );
    // Asking to remove them anyway is answered, and nothing changes.
    let asked = owner
        .get(&format!("/tenant/members/remove?email={OWNER}"))
        .await;
    assert_eq!(asked.headers()["location"], "/tenant/members");
    assert!(
        owner
            .page("/tenant/members")
            .await
            .contains("is the only owner")
    );

    let link = owner.invite(EDITOR, "editor").await;
    let editor = Owner::joined(&app.address, &link).await;
    let page = owner.page("/tenant/members").await;
    assert!(
        page.contains("members/remove?email=editor%40acme.test"),
        "{page}"
    );
    // Remove asks first, saying what it does; only the confirmation removes.
    let confirm = owner
        .page("/tenant/members/remove?email=editor%40acme.test")
        .await;
    assert!(confirm.contains("signed out at once"), "{confirm}");
    assert!(confirm.contains("Keep them"), "{confirm}");
    assert_eq!(
        editor.get("/tenant").await.status(),
        200,
        "asking removed nothing"
    );
    let csrf = crate::owner::value_of(&confirm, "csrf");
    let removed = owner
        .post(
            "/tenant/members/remove",
            &[("csrf", &csrf), ("email", EDITOR)],
        )
        .await;
    assert_eq!(removed.status(), 303);
    assert_eq!(
        editor.get("/tenant").await.headers()["location"],
        "/tenant/sign-in"
    );
}

#[tokio::test]
async fn an_invitation_shows_its_link_with_a_copy_button() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", OWNER).await;
    let csrf = owner.csrf("/tenant/members").await;
    let page = owner
        .post(
            "/tenant/members/invite",
            &[("csrf", &csrf), ("email", EDITOR), ("role", "editor")],
        )
        .await
        .text()
        .await
        .expect("a page");
    let link = crate::owner::between(
        &page,
        r#"<code class="secret" id="invitation-link">"#,
        "</code>",
    );
    assert!(
        page.contains(&format!(
            r#"class="button secondary small copy" data-copy="{link}""#
        )),
        "{page}"
    );
}

#[tokio::test]
async fn an_invitation_works_once_and_a_withdrawn_one_not_at_all() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Acme", "acme", OWNER).await;
    let link = owner.invite(EDITOR, "editor").await;
    let page = Owner::at(&app.address).page(&link).await;
    assert!(
        page.contains("Join Acme") && page.contains("an editor"),
        "{page}"
    );
    let first = Owner::at(&app.address);
    let weak = first.accept(&link, "password").await;
    assert_eq!(weak.status(), 422, "a common password is refused");
    assert_eq!(first.accept(&link, MEMBER_PASSWORD).await.status(), 303);
    let second = Owner::at(&app.address);
    assert_eq!(second.get(&link).await.status(), 410);
    // Inviting a member again is refused.
    let csrf = owner.csrf("/tenant/members").await;
    let again = owner
        .post(
            "/tenant/members/invite",
            &[("csrf", &csrf), ("email", EDITOR), ("role", "viewer")],
        )
        .await;
    assert_eq!(again.status(), 422);
    assert!(again.text().await.unwrap().contains("is a member already"));

    // A withdrawn invitation's link leads nowhere.
    let link = owner.invite(VIEWER, "viewer").await;
    let members = owner.page("/tenant/members").await;
    let withdraw = between(&members, "/tenant/members/invitations/", "/withdraw");
    let withdrawn = owner
        .post(
            &format!("/tenant/members/invitations/{withdraw}/withdraw"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(withdrawn.status(), 303);
    assert_eq!(Owner::at(&app.address).get(&link).await.status(), 410);
    // A made-up token leads nowhere either.
    let made_up = format!("/tenant/join/{}", "ab".repeat(32));
    assert_eq!(Owner::at(&app.address).get(&made_up).await.status(), 410);
}

#[tokio::test]
async fn the_audit_log_records_who_did_what_and_pages_through_the_api() {
    let app = spawn_app().await;
    let (owner, editor, viewer, survey) = team(&app).await;
    let key = owner.api_key("audit").await;
    let viewer_key = viewer.api_key("reader").await;
    let (status, _) = app
        .api(Method::GET, "/api/v1/audit", &viewer_key, None)
        .await;
    assert_eq!(status, 403);
    // 60 more entries: publishing through the editor's key, over and over.
    let editor_key = editor.api_key("publisher").await;
    for _ in 0..30 {
        for action in ["unpublish", "publish"] {
            let (status, _) = app
                .api(
                    Method::POST,
                    &format!("/api/v1/surveys/{survey}/{action}"),
                    &editor_key,
                    None,
                )
                .await;
            assert_eq!(status, 200);
        }
    }
    let mut entries: Vec<Value> = Vec::new();
    let mut page: Option<String> = None;
    loop {
        let path = match &page {
            Some(token) => format!("/api/v1/audit?page={}", urlencode(token)),
            None => "/api/v1/audit".into(),
        };
        let (status, body) = app.api(Method::GET, &path, &key, None).await;
        assert_eq!(status, 200, "{body}");
        let got = body["entries"].as_array().expect("entries").clone();
        assert!(got.len() <= 50);
        entries.extend(got);
        match body["next"].as_str() {
            Some(next) => page = Some(next.to_owned()),
            None => break,
        }
    }
    let actions: Vec<&str> = entries
        .iter()
        .map(|entry| entry["action"].as_str().expect("an action"))
        .collect();
    // Newest first: the last publish through the editor's key.
    assert_eq!(actions[0], "survey-published");
    assert_eq!(
        entries[0]["actor"],
        "API key \"publisher\" of editor@acme.test"
    );
    for wanted in [
        "member-invited",
        "member-joined",
        "survey-created",
        "key-created",
    ] {
        assert!(actions.contains(&wanted), "{wanted} in {actions:?}");
    }
    assert_eq!(
        actions
            .iter()
            .filter(|a| **a == "survey-unpublished")
            .count(),
        30
    );
    assert_eq!(
        actions.iter().filter(|a| **a == "survey-published").count(),
        31
    );
    let times: Vec<&str> = entries.iter().map(|e| e["at"].as_str().unwrap()).collect();
    let mut sorted = times.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(times, sorted, "newest first");
    // The page shows the same, 50 at a time.
    let shown = owner.page("/tenant/audit").await;
    assert!(
        shown.contains("survey-published") && shown.contains("Older"),
        "{shown}"
    );
    let (status, body) = app
        .api(
            Method::GET,
            &format!("/api/v1/audit?page={}", "x".repeat(2000)),
            &key,
            None,
        )
        .await;
    assert_eq!(status, 400, "{body}");
}

fn urlencode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// Runs `canvass` with `args` on the data directory; its standard output.
fn canvass(dir: &std::path::Path, args: &[&str]) -> String {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_canvass"))
        .args(args)
        .env("CANVASS_DATA_DIR", dir)
        .env("CANVASS_PUBLIC_URL", "https://surveys.example.com")
        .env("CANVASS_LOG", "warn")
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "canvass {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8")
}

#[tokio::test]
async fn the_shell_prints_invitation_and_reset_links_alone_on_the_last_line() {
    let dir = tempfile::tempdir().expect("a temp dir");
    canvass(
        dir.path(),
        &[
            "tenant", "create", "--slug", "acme", "--name", "Acme", "--plan", "standard",
        ],
    );
    let printed = canvass(
        dir.path(),
        &[
            "member", "invite", "--tenant", "acme", "--email", OWNER, "--role", "owner",
        ],
    );
    let link = printed.lines().last().expect("a last line").to_owned();
    let path = link
        .strip_prefix("https://surveys.example.com")
        .unwrap_or_else(|| panic!("{printed}"))
        .to_owned();
    assert!(
        path.starts_with("/tenant/join/") && !path.contains(' '),
        "{printed}"
    );

    let storage = canvass::storage::local::storage(dir.path())
        .await
        .expect("opens");
    let app = spawn_app_with(storage).await;
    let first = Owner::joined(&app.address, &path).await;
    assert_eq!(first.get("/tenant/members").await.status(), 200, "an owner");
    let other = Owner::at(&app.address);
    assert_eq!(other.sign_in(OWNER, MEMBER_PASSWORD).await.status(), 303);

    let printed = canvass(dir.path(), &["member", "reset-link", OWNER]);
    let link = printed.lines().last().expect("a last line");
    let path = link
        .strip_prefix("https://surveys.example.com")
        .unwrap_or_else(|| panic!("{printed}"))
        .to_owned();
    assert!(path.starts_with("/tenant/reset-password/"), "{printed}");
    let resetting = Owner::at(&app.address);
    let csrf = resetting.csrf(&path).await;
    let weak = resetting
        .post(&path, &[("csrf", &csrf), ("password", "12345678")])
        .await;
    assert_eq!(weak.status(), 422);
    let csrf = resetting.csrf(&path).await;
    let reset = resetting
        .post(
            &path,
            &[("csrf", &csrf), ("password", "a brand new password")],
        )
        .await;
    assert_eq!(reset.status(), 303);
    assert_eq!(resetting.get("/tenant").await.status(), 200, "signed in");
    // Every other session ended; the old password no longer works; the link works once.
    for session in [&first, &other] {
        assert_eq!(
            session.get("/tenant").await.headers()["location"],
            "/tenant/sign-in"
        );
    }
    assert_eq!(other.sign_in(OWNER, MEMBER_PASSWORD).await.status(), 401);
    assert_eq!(
        other.sign_in(OWNER, "a brand new password").await.status(),
        303
    );
    assert_eq!(Owner::at(&app.address).get(&path).await.status(), 410);
    let unknown = std::process::Command::new(env!("CARGO_BIN_EXE_canvass"))
        .args(["member", "reset-link", "nobody@acme.test"])
        .env("CANVASS_DATA_DIR", dir.path())
        .output()
        .expect("runs");
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no account"));
}
