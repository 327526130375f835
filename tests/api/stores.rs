//! The caches in front of tenants and surveys, across processes sharing one data directory.

use std::time::Duration;

use canvass::domain::{QuestionKind, SurveySlug, TenantSlug};
use canvass::storage::local;
use canvass::stores::{StoreSettings, Stores};

use crate::helpers::{question, survey};

async fn open(dir: &std::path::Path, ttl: Duration) -> Stores {
    let settings = StoreSettings {
        cache_ttl: ttl,
        ..StoreSettings::default()
    };
    Stores::open(local::storage(dir).await.expect("opens"), &settings)
        .await
        .expect("stores")
}

#[tokio::test]
async fn a_change_shows_at_once_in_its_own_process_and_within_the_ttl_in_another() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let ttl = Duration::from_secs(1);
    let (writer, reader) = (open(dir.path(), ttl).await, open(dir.path(), ttl).await);
    let (tenant, slug) = (
        TenantSlug::parse("acme").expect("slug"),
        SurveySlug::parse("s").expect("slug"),
    );
    let mut definition = survey(
        "acme",
        "s",
        "First title",
        vec![question("q", false, QuestionKind::ShortText)],
    );
    writer
        .catalog
        .surveys
        .save(&definition)
        .await
        .expect("saved");
    assert_eq!(
        reader
            .catalog
            .surveys
            .get(&tenant, &slug)
            .await
            .expect("read")
            .expect("found")
            .title,
        "First title"
    );
    assert_eq!(
        writer
            .catalog
            .surveys
            .get(&tenant, &slug)
            .await
            .expect("read")
            .expect("found")
            .title,
        "First title"
    );

    definition.title = "Second title".into();
    writer
        .catalog
        .surveys
        .save(&definition)
        .await
        .expect("saved");

    let own = writer
        .catalog
        .surveys
        .get(&tenant, &slug)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(
        own.title, "Second title",
        "the writer's cache was invalidated"
    );
    let cached = reader
        .catalog
        .surveys
        .get(&tenant, &slug)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(
        cached.title, "First title",
        "the other process serves its cache within the TTL"
    );
    tokio::time::sleep(ttl + Duration::from_millis(300)).await;
    let fresh = reader
        .catalog
        .surveys
        .get(&tenant, &slug)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(
        fresh.title, "Second title",
        "after the TTL the other process reads the change"
    );
}

#[tokio::test]
async fn cache_entries_of_one_tenant_never_answer_for_another() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let stores = open(dir.path(), Duration::from_secs(60)).await;
    stores
        .catalog
        .surveys
        .save(&survey("alpha", "same", "Alpha's", vec![]))
        .await
        .expect("saved");
    let slug = SurveySlug::parse("same").expect("slug");

    let alpha = stores
        .catalog
        .surveys
        .get(&TenantSlug::parse("alpha").expect("slug"), &slug)
        .await
        .expect("read");
    let beta = stores
        .catalog
        .surveys
        .get(&TenantSlug::parse("beta").expect("slug"), &slug)
        .await
        .expect("read");

    assert_eq!(alpha.expect("alpha's survey").title, "Alpha's");
    assert!(beta.is_none(), "beta has no survey of that slug");
}
