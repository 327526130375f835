//! A tenant's look on its public pages: a logo checked from its bytes (type, weight and size;
//! never SVG) and served with a strong ETag, a day's caching and 304s; an accent colour
//! refused when white text on it would be hard to read.

use reqwest::multipart::{Form, Part};

use crate::helpers::spawn_app;
use crate::owner::{Owner, value_of};

/// A whole, valid PNG of `width` × `height` (one colour), made with no image library.
pub(crate) fn png(width: u32, height: u32) -> Vec<u8> {
    fn chunk(out: &mut Vec<u8>, kind: &[u8], data: &[u8]) {
        out.extend((data.len() as u32).to_be_bytes());
        let mut crc_input = kind.to_vec();
        crc_input.extend(data);
        out.extend(&crc_input);
        out.extend(crc32(&crc_input).to_be_bytes());
    }
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
    let mut header = Vec::new();
    header.extend(width.to_be_bytes());
    header.extend(height.to_be_bytes());
    header.extend([8, 0, 0, 0, 0]); // 8-bit greyscale
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut out, b"IHDR", &header);
    chunk(&mut out, b"IEND", &[]);
    out
}

async fn upload(
    owner: &Owner<'_>,
    accent: &str,
    logo: Option<(&str, Vec<u8>)>,
) -> reqwest::Response {
    let csrf = value_of(&owner.page("/tenant/settings").await, "csrf");
    let mut form = Form::new()
        .text("csrf", csrf)
        .text("accent", accent.to_owned());
    if let Some((name, bytes)) = logo {
        form = form.part("logo", Part::bytes(bytes).file_name(name.to_owned()));
    }
    owner
        .client
        .post(format!("{}/tenant/settings/branding", owner.address()))
        .multipart(form)
        .send()
        .await
        .expect("answered")
}

#[tokio::test]
async fn a_logo_is_checked_from_its_bytes_and_served_with_an_etag_and_a_days_caching() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Bistro", "bistro", "chef@bistro.example").await;
    assert_eq!(app.get("/b/bistro/logo").await.status(), 404, "no logo yet");
    assert_eq!(app.get("/b/nobody/logo").await.status(), 404);

    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#;
    let too_wide = png(2001, 10);
    let mut too_heavy = png(100, 100);
    too_heavy.resize(512 * 1024 + 10, 0);
    for (name, bytes, says) in [
        ("logo.png", svg.to_vec(), "PNG, JPEG or WebP image"),
        ("logo.svg", svg.to_vec(), "PNG, JPEG or WebP image"),
        (
            "wide.png",
            too_wide,
            "2000 × 2000 pixels; this one is 2001 × 10",
        ),
        ("heavy.png", too_heavy, "at most 512 KB"),
    ] {
        let response = upload(&owner, "", Some((name, bytes))).await;
        assert_eq!(response.status(), 422, "{name}");
        let html = response.text().await.expect("a body");
        assert!(html.contains(says), "{name}: {html}");
    }
    assert_eq!(
        app.get("/b/bistro/logo").await.status(),
        404,
        "nothing kept"
    );

    let logo = png(300, 80);
    // The name says JPEG; the bytes say PNG, and the bytes win.
    let saved = upload(&owner, "", Some(("logo.jpg", logo.clone()))).await;
    assert_eq!(saved.status(), 303);
    let response = app.get("/b/bistro/logo").await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "image/png");
    assert_eq!(response.headers()["cache-control"], "public, max-age=86400");
    let etag = response.headers()["etag"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(
        etag.starts_with('"') && !etag.starts_with("W/"),
        "a strong ETag: {etag}"
    );
    assert_eq!(
        response.bytes().await.expect("a body").as_ref(),
        logo.as_slice()
    );

    let again = app
        .client
        .get(format!("{}/b/bistro/logo", app.address))
        .header("if-none-match", &etag)
        .send()
        .await
        .expect("answered");
    assert_eq!(again.status(), 304);
    assert!(again.bytes().await.expect("a body").is_empty());
    let other = app
        .client
        .get(format!("{}/b/bistro/logo", app.address))
        .header("if-none-match", "\"something-else\"")
        .send()
        .await
        .expect("answered");
    assert_eq!(other.status(), 200);

    // It shows on the tenant's public pages.
    let public = app.get("/s/bistro").await.text().await.expect("a body");
    assert!(
        public.contains(r#"<img src="/b/bistro/logo?v="#),
        "{public}"
    );
}

#[tokio::test]
async fn an_accent_colour_too_light_for_white_text_is_refused_and_a_dark_one_styles_the_pages() {
    let app = spawn_app().await;
    let owner = Owner::signed_up(&app, "Bistro", "bistro", "chef@bistro.example").await;
    for (colour, says) in [("#ffd700", "contrast of 1.40:1"), ("gold", "#rrggbb")] {
        let response = upload(&owner, colour, None).await;
        assert_eq!(response.status(), 422, "{colour}");
        let html = response.text().await.expect("a body");
        assert!(html.contains(says), "{colour}: {html}");
        assert!(
            html.contains(&format!(r#"value="{colour}""#)),
            "the refused colour stays in the field to be corrected: {html}"
        );
    }
    assert_eq!(upload(&owner, "#1A5FB4", None).await.status(), 303);
    let public = app.get("/s/bistro").await.text().await.expect("a body");
    assert!(
        public.contains(r#"href="/b/bistro/style.css?v=1a5fb4""#),
        "{public}"
    );
    let style = app.get("/b/bistro/style.css?v=1a5fb4").await;
    assert_eq!(style.headers()["content-type"], "text/css; charset=utf-8");
    assert!(
        style
            .text()
            .await
            .expect("a body")
            .contains("--accent: #1a5fb4;")
    );
}
