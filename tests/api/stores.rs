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

/// A sweep visits every key under its prefix once, across pages, while it deletes some of
/// them, and counts exactly what it deleted; keys outside the prefix are left alone.
#[tokio::test]
async fn a_sweep_visits_every_key_once_across_pages_and_counts_what_it_deletes() {
    use canvass::storage::PutMode;
    let storage = canvass::storage::memory::storage();
    let stores = Stores::open(storage.clone(), &StoreSettings::default())
        .await
        .expect("opened");
    // More than two pages of keys (a page is at most MAX_LIST_PAGE).
    let count = 2 * canvass::storage::MAX_LIST_PAGE + 1;
    let put = |key: String| {
        let blobs = storage.blobs.clone();
        async move {
            blobs
                .put(&key, bytes::Bytes::from_static(b"x"), PutMode::Overwrite)
                .await
                .expect("written")
        }
    };
    for n in 0..count {
        put(format!("swept/{n:06}")).await;
    }
    put("swepttoo/left".into()).await;
    let mut sweep = stores.operations.sweep("swept/");
    let mut seen = Vec::new();
    while let Some((key, _)) = sweep.next().await.expect("a page") {
        let n: usize = key["swept/".len()..].parse().expect("a number");
        if n.is_multiple_of(2) {
            sweep.delete(&key).await.expect("deleted");
        }
        seen.push(n);
    }
    assert_eq!(
        seen,
        (0..count).collect::<Vec<_>>(),
        "each key once, in order"
    );
    assert_eq!(sweep.deleted(), count.div_ceil(2) as u64);
    let mut left = stores.operations.sweep("swept/");
    let mut kept = 0;
    while let Some((key, _)) = left.next().await.expect("a page") {
        assert!(key.ends_with(['1', '3', '5', '7', '9']), "{key} was kept");
        kept += 1;
    }
    assert_eq!(kept, count / 2);
    assert_eq!(left.deleted(), 0);
    let other = stores
        .operations
        .scan("swepttoo/", None)
        .await
        .expect("listed");
    assert_eq!(other.keys.len(), 1, "another prefix is not swept");
    // An empty prefix ends at once.
    let mut none = stores.operations.sweep("nothing/");
    assert!(none.next().await.expect("a page").is_none());
}
