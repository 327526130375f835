//! A home region out of reach: its storage (Azurite, behind a proxy this test switches off and
//! on) cannot be reached from the hosting region for a while. Respondents there are thanked
//! all the same, the answers wait (never poisoned), `canvass regions`' report says so, and once
//! home is back they move and are counted exactly.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::worker_crash::OwnAzurite;

/// A TCP proxy to `target` that can be cut: while down, it drops every connection it holds
/// and every new one at once.
struct Proxy {
    port: u16,
    up: Arc<AtomicBool>,
    cut: watch::Sender<u64>,
}

impl Proxy {
    async fn to(target: u16) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let port = listener.local_addr().expect("an address").port();
        let up = Arc::new(AtomicBool::new(true));
        let (cut, cuts) = watch::channel(0u64);
        let running = up.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut inbound, _)) = listener.accept().await else {
                    return;
                };
                if !running.load(Ordering::SeqCst) {
                    drop(inbound);
                    continue;
                }
                let mut cuts = cuts.clone();
                // Only a cut after this connection was made ends it.
                cuts.borrow_and_update();
                tokio::spawn(async move {
                    let Ok(mut outbound) = TcpStream::connect(("127.0.0.1", target)).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = cuts.changed() => {}
                    }
                });
            }
        });
        Self { port, up, cut }
    }

    fn down(&self) {
        self.up.store(false, Ordering::SeqCst);
        self.cut.send_modify(|n| *n += 1);
    }

    fn back(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}

/// The port of `endpoint` (`BlobEndpoint=http://127.0.0.1:PORT/account`) in a connection
/// string.
fn port_of(connection: &str, endpoint: &str) -> u16 {
    let start = connection
        .find(&format!("{endpoint}="))
        .expect("the endpoint")
        + endpoint.len()
        + 1;
    let url = connection[start..].split(';').next().expect("a value");
    url.split(':')
        .nth(2)
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse().ok())
        .expect("a port")
}

/// A two-region file in a new directory where region `azure` keeps its data on `azurite`
/// through two proxies (blob and queue) and the other region on local storage.
async fn behind_proxies(
    azurite: &OwnAzurite,
    azure: &str,
) -> (Proxy, Proxy, tempfile::TempDir, std::path::PathBuf) {
    let (blob_port, queue_port) = (
        port_of(&azurite.connection, "BlobEndpoint"),
        port_of(&azurite.connection, "QueueEndpoint"),
    );
    let blob = Proxy::to(blob_port).await;
    let queue = Proxy::to(queue_port).await;
    let proxied = azurite
        .connection
        .replace(&format!(":{blob_port}/"), &format!(":{}/", blob.port))
        .replace(&format!(":{queue_port}/"), &format!(":{}/", queue.port));
    let dir = tempfile::tempdir().expect("a temp dir");
    let local = dir.path().join("local");
    let entry = |name: &str, port: u16| match name == azure {
        true => format!(
            "[regions.{name}]\nstorage = \"azure\"\nazure_connection_string = \"{proxied}\"\npublic_url = \"http://127.0.0.1:{port}\"\n"
        ),
        false => format!(
            "[regions.{name}]\nstorage = \"local\"\ndata_dir = \"{}\"\npublic_url = \"http://127.0.0.1:{port}\"\n",
            local.display()
        ),
    };
    let file = dir.path().join("regions.toml");
    std::fs::write(
        &file,
        format!("{}\n{}", entry("us", 8080), entry("eu", 8081)),
    )
    .expect("written");
    (blob, queue, dir, file)
}

#[tokio::test]
async fn a_survey_published_while_its_hosting_region_is_out_of_reach_reaches_it_later() {
    let azurite = OwnAzurite::start();
    let (blob, queue, _dir, file) = behind_proxies(&azurite, "eu").await;
    let us = crate::regions::region_app(&file, "us").await;
    let eu = crate::regions::region_app(&file, "eu").await;
    let owner = crate::owner::Owner::signed_up(&us.app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("outage").await;
    blob.down();
    queue.down();
    // Publishing at home works; the push waits for the region.
    us.app
        .published_survey(&key, crate::regions::lunch_in_eu(serde_json::json!({})))
        .await;
    let syncs = us
        .stores
        .residency
        .hosting_syncs
        .clone()
        .expect("a sync queue");
    assert_eq!(
        syncs.waiting().await.expect("a length"),
        1,
        "a retry waits at home"
    );
    // A sign-up at home cannot learn whether eu has the address: it says so within the 5 s
    // eu has to answer (not after the storage client's own retries), and creates nothing.
    let newcomer = crate::owner::Owner::new(&us.app);
    let asked = std::time::Instant::now();
    let refused = newcomer.sign_up("Beta", "beta", "owner@beta.test").await;
    let waited = asked.elapsed();
    assert_eq!(refused.status(), 422);
    let page = refused.text().await.expect("a page");
    assert!(
        page.contains("could not be checked in every region"),
        "{page}"
    );
    assert!(waited < Duration::from_secs(20), "waited {waited:?}");
    let beta = canvass::domain::TenantSlug::parse("beta").expect("a slug");
    assert!(
        us.stores
            .catalog
            .tenants
            .get(&beta)
            .await
            .expect("read")
            .is_none()
    );
    blob.back();
    queue.back();
    let welcomed = newcomer.sign_up("Beta", "beta", "owner@beta.test").await;
    assert_eq!(welcomed.status(), 303, "signed up once eu answers");
    let mut worker = crate::helpers::worker(&us.stores, Duration::from_secs(1));
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        assert!(
            std::time::Instant::now() < deadline,
            "the push never arrived"
        );
        if let canvass::worker::StepOutcome::HostingSynced { regions } =
            worker.step().await.expect("a step")
        {
            assert_eq!(regions, 1);
            break;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert_eq!(syncs.waiting().await.expect("a length"), 0);
    let form = eu.app.get("/s/acme/lunch").await;
    assert_eq!(form.status(), 200, "served in eu once the push arrived");
}

#[tokio::test]
async fn answers_wait_while_home_is_out_of_reach_and_are_counted_once_when_it_is_back() {
    let azurite = OwnAzurite::start();
    let (blob, queue, _dir, file) = behind_proxies(&azurite, "us").await;
    let us = crate::regions::region_app(&file, "us").await;
    let eu = crate::regions::region_app(&file, "eu").await;
    let owner = crate::owner::Owner::signed_up(&us.app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("outage").await;
    us.app
        .published_survey(&key, crate::regions::lunch_in_eu(serde_json::json!({})))
        .await;

    // Home goes out of reach: eu keeps thanking respondents.
    blob.down();
    queue.down();
    for stars in ["5", "4", "3", "2", "1", "5"] {
        let thanked = eu.app.answer("acme", "lunch", &[("overall", stars)]).await;
        assert_eq!(thanked.status(), 303, "thanked while home is out of reach");
    }
    // The hosting region is ready all the same: its readiness is its own storage's.
    assert_eq!(eu.app.get("/readyz").await.status(), 200);
    let mut mover = crate::helpers::worker(&eu.stores, Duration::from_secs(1));
    for _ in 0..2 {
        let outcome = mover
            .step()
            .await
            .expect("a step (moving home fails on its own)");
        assert!(
            !matches!(outcome, canvass::worker::StepOutcome::TransferDone(_)),
            "moved while home was out of reach: {outcome:?}"
        );
        tokio::time::sleep(Duration::from_millis(1100)).await;
    }
    let acme = canvass::domain::TenantSlug::parse("acme").expect("a slug");
    let (waiting, oldest) = eu
        .stores
        .answering
        .queues
        .transfer_backlog(&acme)
        .await
        .expect("read in eu");
    assert_eq!(waiting, 6, "every answer waits");
    assert!(
        oldest.is_some_and(|age| age >= Duration::from_secs(1)),
        "{oldest:?}"
    );
    let poison = eu.stores.answering.queues.poison().clone();
    assert_eq!(
        eu.stores
            .operations
            .queue_length(&poison)
            .await
            .expect("a length"),
        0,
        "none poisoned"
    );

    // Home is back: everything moves and is counted once.
    blob.back();
    queue.back();
    let mut moved = 0;
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while moved < 6 {
        assert!(std::time::Instant::now() < deadline, "moved {moved} of 6");
        match mover.step().await.expect("a step") {
            canvass::worker::StepOutcome::TransferDone(step) => moved += step.moved,
            _ => tokio::time::sleep(Duration::from_millis(300)).await,
        }
    }
    assert_eq!(moved, 6);
    assert_eq!(crate::regions::counted_at_home(&us, &key, "lunch").await, 6);
    let (waiting, _) = eu
        .stores
        .answering
        .queues
        .transfer_backlog(&acme)
        .await
        .expect("read");
    assert_eq!(waiting, 0);
}

#[tokio::test]
async fn two_regions_on_two_azurite_accounts_move_an_answer_home_once() {
    let (home, hosting) = (OwnAzurite::start(), OwnAzurite::start());
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = dir.path().join("regions.toml");
    std::fs::write(
        &file,
        format!(
            "[regions.us]\nstorage = \"azure\"\nazure_connection_string = \"{}\"\npublic_url = \"http://127.0.0.1:8080\"\n\n\
             [regions.eu]\nstorage = \"azure\"\nazure_connection_string = \"{}\"\npublic_url = \"http://127.0.0.1:8081\"\n",
            home.connection, hosting.connection
        ),
    )
    .expect("written");
    let us = crate::regions::region_app(&file, "us").await;
    let eu = crate::regions::region_app(&file, "eu").await;
    let owner = crate::owner::Owner::signed_up(&us.app, "Acme", "acme", "owner@acme.test").await;
    let key = owner.api_key("azure").await;
    us.app
        .published_survey(&key, crate::regions::lunch_in_eu(serde_json::json!({})))
        .await;
    let token = crate::helpers::token_in(&eu.app.form("acme", "lunch").await);
    for _ in 0..2 {
        // Posted twice (a retry): one answer.
        let thanked = eu
            .app
            .submit("acme", "lunch", &token, &[("overall", "5")])
            .await;
        assert_eq!(thanked.status(), 303);
    }
    assert_eq!(crate::regions::move_once(&eu).await, 2);
    assert_eq!(crate::regions::counted_at_home(&us, &key, "lunch").await, 1);
    let left = eu
        .stores
        .operations
        .scan("answers/", None)
        .await
        .expect("listed");
    assert!(left.keys.is_empty(), "{:?}", left.keys);
}
