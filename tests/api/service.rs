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
            .audit
            .page(&tenant, None)
            .await
            .expect("the log")
            .entries
    };

    let empty = survey("acme", "empty", "Empty", Vec::new());
    stores.surveys.save(&empty).await.expect("saved");
    match surveys::publish(&stores, actor, &empty).await {
        Err(PublishError::Incomplete(problem)) => assert!(problem.contains("question")),
        other => panic!("an empty survey was published: {other:?}"),
    }
    assert!(entries().await.is_empty(), "a refusal records nothing");

    let definition = canvass::domain::definition::Definition {
        title: "Lunch".into(),
        questions: vec![question("overall", false, QuestionKind::FiveStars)],
        ..Default::default()
    };
    let draft = surveys::create(&stores, actor, definition)
        .await
        .expect("stored")
        .expect("room for it");
    let published = surveys::publish(&stores, actor, &draft)
        .await
        .expect("published");
    assert!(published.published);
    let closed = surveys::unpublish(&stores, actor, &published)
        .await
        .expect("closed");
    assert!(!closed.published);
    surveys::delete(&stores, actor, &closed)
        .await
        .expect("deleted");
    assert!(
        stores
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
