//! The survey use cases the JSON API and the pages share: publishing refuses a survey that
//! cannot be answered and records nothing; creating, publishing, closing and deleting each
//! leave one audit entry naming who did it and which survey.

use canvass::domain::audit::AuditAction;
use canvass::domain::{QuestionKind, TenantSlug};
use canvass::service::Actor;
use canvass::service::surveys::{self, PublishError};

use crate::helpers::{question, spawn_app, survey};

#[tokio::test]
async fn creating_publishing_closing_and_deleting_each_leave_one_audit_entry() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    let tenant = TenantSlug::parse("acme").expect("a slug");
    let actor = Actor {
        tenant: &tenant,
        name: "ada@acme.test",
    };
    let entries = || async {
        stores
            .membership
            .audit
            .page(&tenant, None)
            .await
            .expect("the log")
            .entries
    };

    let empty = survey("acme", "empty", "Empty", Vec::new());
    stores.catalog.surveys.save(&empty).await.expect("saved");
    match surveys::publish(&canvass::service::App::new(stores.clone()), actor, &empty).await {
        Err(PublishError::Incomplete(problem)) => assert!(problem.contains("question")),
        other => panic!("an empty survey was published: {other:?}"),
    }
    assert!(entries().await.is_empty(), "a refusal records nothing");

    let definition = canvass::domain::definition::Definition {
        title: "Lunch".into(),
        questions: vec![question("overall", false, QuestionKind::FiveStars)],
        ..Default::default()
    };
    let draft = surveys::create(
        &canvass::service::App::new(stores.clone()),
        actor,
        canvass::domain::definition::checked::for_one_region(definition).expect("checked"),
    )
    .await
    .expect("stored")
    .expect("room for it");
    let published = surveys::publish(&canvass::service::App::new(stores.clone()), actor, &draft)
        .await
        .expect("published");
    assert!(published.published);
    let closed = surveys::unpublish(
        &canvass::service::App::new(stores.clone()),
        actor,
        &published,
    )
    .await
    .expect("closed");
    assert!(!closed.published);
    surveys::delete(&canvass::service::App::new(stores.clone()), actor, &closed)
        .await
        .expect("deleted");
    assert!(
        stores
            .catalog
            .surveys
            .get(&tenant, &closed.slug)
            .await
            .expect("read")
            .is_none()
    );

    let log = entries().await;
    let said: Vec<(AuditAction, &str, &str)> = log
        .iter()
        .map(|e| (e.action, e.actor.as_str(), e.detail.as_str()))
        .collect();
    assert_eq!(
        said,
        [
            (
                AuditAction::SurveyDeleted,
                "ada@acme.test",
                "\"Lunch\" (lunch)"
            ),
            (
                AuditAction::SurveyUnpublished,
                "ada@acme.test",
                "\"Lunch\" (lunch)"
            ),
            (
                AuditAction::SurveyPublished,
                "ada@acme.test",
                "\"Lunch\" (lunch)"
            ),
            (
                AuditAction::SurveyCreated,
                "ada@acme.test",
                "\"Lunch\" (lunch)"
            ),
        ]
    );
}

#[tokio::test]
async fn exports_downloads_and_deletions_leave_their_audit_entries() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    let tenant = TenantSlug::parse("acme").expect("a slug");
    let actor = Actor {
        tenant: &tenant,
        name: "API key \"ci\" of ada@acme.test",
    };
    let lunch = survey(
        "acme",
        "lunch",
        "Lunch",
        vec![question("overall", false, QuestionKind::FiveStars)],
    );
    stores.catalog.surveys.save(&lunch).await.expect("saved");
    let job = canvass::service::responses::request_export(
        &canvass::service::App::new(stores.clone()),
        actor,
        &lunch,
    )
    .await
    .expect("queued");
    canvass::service::responses::downloaded(
        &canvass::service::App::new(stores.clone()),
        actor,
        &lunch,
        "csv",
    )
    .await
    .expect("recorded");
    let references = [canvass::domain::Reference(7), canvass::domain::Reference(9)];
    canvass::service::responses::request_deletion(
        &canvass::service::App::new(stores.clone()),
        actor,
        &lunch,
        &references,
    )
    .await
    .expect("queued");
    assert_eq!(
        stores
            .operations
            .deletions
            .queue()
            .waiting()
            .await
            .expect("a length"),
        1,
        "the deletion is queued for a worker"
    );
    let (said, log) = said(&stores, &tenant).await;
    assert_eq!(
        said,
        [
            (
                AuditAction::ResponsesDeleted,
                "2 of \"lunch\": 7, 9".to_owned()
            ),
            (
                AuditAction::ResponsesExported,
                "lunch downloaded as csv".to_owned()
            ),
            (
                AuditAction::ResponsesExported,
                format!("lunch to PostgreSQL (job {})", job.id)
            ),
        ]
    );
    assert!(
        log.iter()
            .all(|e| e.actor == "API key \"ci\" of ada@acme.test")
    );
}

#[tokio::test]
async fn an_invitation_leaves_one_audit_entry_and_a_refused_one_none() {
    let app = spawn_app().await;
    let stores = app.stores().await;
    // A tenant whose owner signed up, as on the site.
    let _owner = crate::owner::Owner::signed_up(&app, "Acme", "acme", "owner@acme.test").await;
    let slug = TenantSlug::parse("acme").expect("a slug");
    let tenant = stores
        .catalog
        .tenants
        .get(&slug)
        .await
        .expect("read")
        .expect("the tenant");
    let operator = Actor {
        tenant: &slug,
        name: "operator",
    };
    let before = stores
        .membership
        .audit
        .page(&slug, None)
        .await
        .expect("the log")
        .entries
        .len();
    let ada = canvass::domain::account::Email::parse("ada@acme.test").expect("an address");
    let token = canvass::service::members::invite(
        &canvass::service::App::new(stores.clone()),
        operator,
        &tenant,
        &ada,
        canvass::domain::member::Role::Editor,
    )
    .await
    .expect("stored")
    .expect("invited");
    assert!(token.len() >= 20, "{token}");
    // The owner is a member already: refused, and nothing recorded.
    let owner = canvass::domain::account::Email::parse("owner@acme.test").expect("an address");
    let refused = canvass::service::members::invite(
        &canvass::service::App::new(stores.clone()),
        operator,
        &tenant,
        &owner,
        canvass::domain::member::Role::Viewer,
    )
    .await
    .expect("stored");
    assert!(refused.is_err(), "{refused:?}");
    let log = stores
        .membership
        .audit
        .page(&slug, None)
        .await
        .expect("the log")
        .entries;
    assert_eq!(log.len(), before + 1);
    assert_eq!(
        (log[0].action, log[0].actor.as_str(), log[0].detail.as_str()),
        (
            AuditAction::MemberInvited,
            "operator",
            "ada@acme.test as editor"
        )
    );
}

#[tokio::test]
async fn webhooks_and_copies_go_through_one_rule_each_with_their_audit_entries() {
    use canvass::service::webhooks::{self, Refusal};
    let app = spawn_app().await;
    let stores = app.stores().await;
    let tenant = TenantSlug::parse("acme").expect("a slug");
    let actor = Actor {
        tenant: &tenant,
        name: "ada@acme.test",
    };
    let none = canvass::outbound::AllowedHosts::default();
    let local = canvass::outbound::AllowedHosts::parse("127.0.0.1");

    // The operator's rule decides, for the API and the page alike.
    let refused = webhooks::add(
        &canvass::service::App::new(stores.clone()),
        actor,
        &none,
        "https://127.0.0.1:9/hook",
    )
    .await
    .expect("stored");
    assert!(
        matches!(&refused, Err(Refusal::Address(problem)) if problem.contains("127.0.0.1")),
        "{refused:?}"
    );
    let (endpoint, secret) = webhooks::add(
        &canvass::service::App::new(stores.clone()),
        actor,
        &local,
        "http://127.0.0.1:9/hook",
    )
    .await
    .expect("stored")
    .expect("allowed by the rule");
    assert!(secret.as_str().starts_with("whsec_"), "a signing secret");
    let queued = webhooks::send_test(
        &canvass::service::App::new(stores.clone()),
        actor,
        &endpoint.id,
    )
    .await
    .expect("stored");
    assert!(queued.is_some_and(|id| id.starts_with("msg_test_")));
    assert_eq!(
        webhooks::send_test(
            &canvass::service::App::new(stores.clone()),
            actor,
            "nothing"
        )
        .await
        .expect("read"),
        None
    );
    assert!(
        webhooks::remove(
            &canvass::service::App::new(stores.clone()),
            actor,
            &endpoint.id
        )
        .await
        .expect("removed")
    );
    assert!(
        !webhooks::remove(
            &canvass::service::App::new(stores.clone()),
            actor,
            &endpoint.id
        )
        .await
        .expect("read")
    );

    let lunch = survey(
        "acme",
        "lunch",
        "Lunch",
        vec![question("overall", false, QuestionKind::FiveStars)],
    );
    stores.catalog.surveys.save(&lunch).await.expect("saved");
    let copy = surveys::duplicate(&canvass::service::App::new(stores.clone()), actor, &lunch)
        .await
        .expect("stored")
        .expect("checked")
        .expect("room for it");
    assert_eq!(copy.title, "Copy of Lunch");
    assert!(!copy.published, "a copy is a draft");

    let (said, _) = said(&stores, &tenant).await;
    assert_eq!(
        said,
        [
            (
                AuditAction::SurveyCreated,
                format!("\"Copy of Lunch\" ({}), a copy of lunch", copy.slug)
            ),
            (
                AuditAction::WebhookRemoved,
                format!("endpoint {}", endpoint.id)
            ),
            (
                AuditAction::WebhookAdded,
                "http://127.0.0.1:9/hook".to_owned()
            ),
        ],
        "a refusal records nothing; each change one entry"
    );
}

/// The tenant's audit log, newest first: each entry's action and detail, and the entries.
async fn said(
    stores: &canvass::stores::Stores,
    tenant: &TenantSlug,
) -> (
    Vec<(AuditAction, String)>,
    Vec<canvass::domain::audit::AuditEntry>,
) {
    let log = stores
        .membership
        .audit
        .page(tenant, None)
        .await
        .expect("the log")
        .entries;
    let said = log.iter().map(|e| (e.action, e.detail.clone())).collect();
    (said, log)
}
