//! A survey owner's browser, for tests of the tenant site: cookies kept, redirects seen, and
//! the steps an owner takes (sign up, sign in, design a survey) as helpers.

use crate::helpers::TestApp;

/// The password members who accept an invitation in tests choose.
pub const MEMBER_PASSWORD: &str = "a member's own password";

/// The text between `start` and the next `end` on a page.
pub fn between(page: &str, start: &str, end: &str) -> String {
    let from = page
        .find(start)
        .unwrap_or_else(|| panic!("no {start} in {page}"))
        + start.len();
    let to = from + page[from..].find(end).expect("it ends");
    page[from..to].to_owned()
}

/// A browser-like client of the tenant site.
pub struct Owner<'a> {
    /// The app's address (`http://127.0.0.1:PORT`).
    address: &'a str,
    /// The client, with its cookie jar.
    pub client: reqwest::Client,
}

/// The value of the form field `name` on a page (its `value` attribute, wherever it stands in
/// the tag).
pub fn value_of(html: &str, name: &str) -> String {
    let marker = format!(r#"name="{name}""#);
    let at = html
        .find(&marker)
        .unwrap_or_else(|| panic!("no {name} in {html}"));
    // The attribute may stand before or after the name, within the same tag.
    let tag_start = html[..at].rfind('<').expect("inside a tag");
    let tag_end = at + html[at..].find('>').expect("the tag ends");
    let tag = &html[tag_start..tag_end];
    let value = tag
        .find(r#"value=""#)
        .unwrap_or_else(|| panic!("{name} has no value: {tag}"))
        + r#"value=""#.len();
    tag[value..value + tag[value..].find('"').expect("the value ends")].to_owned()
}

impl<'a> Owner<'a> {
    /// The app's address (`http://127.0.0.1:PORT`).
    pub fn address(&self) -> &str {
        self.address
    }

    pub fn new(app: &'a TestApp) -> Self {
        Self::at(&app.address)
    }

    /// An owner of the site at `address` (a `canvass serve` process, say).
    pub fn at(address: &'a str) -> Self {
        Self::with(address, reqwest::Client::builder())
    }

    /// A new owner who has just signed up (and so is signed in).
    pub async fn signed_up(app: &'a TestApp, name: &str, slug: &str, email: &str) -> Self {
        let owner = Self::new(app);
        let response = owner.sign_up(name, slug, email).await;
        assert_eq!(response.status(), 303, "{email} signs up");
        owner
    }

    /// An owner whose requests leave from `source` (a loopback address such as 127.0.0.2) and
    /// carry `forwarded_for` as `X-Forwarded-For`, if given.
    pub fn from_address(app: &'a TestApp, source: &str, forwarded_for: Option<&str>) -> Self {
        let mut headers = reqwest::header::HeaderMap::new();
        if let Some(forwarded) = forwarded_for {
            headers.insert(
                "x-forwarded-for",
                forwarded.parse().expect("a header value"),
            );
        }
        let builder = reqwest::Client::builder()
            .local_address(source.parse::<std::net::IpAddr>().expect("an address"))
            .default_headers(headers);
        Self::with(&app.address, builder)
    }

    /// A visitor of the site at `address` whose every request carries these headers (a forged
    /// `Host`, say).
    pub fn sending(address: &'a str, headers: &[(&'static str, &str)]) -> Self {
        let mut map = reqwest::header::HeaderMap::new();
        for (name, value) in headers {
            map.insert(*name, value.parse().expect("a header value"));
        }
        Self::with(address, reqwest::Client::builder().default_headers(map))
    }

    fn with(address: &'a str, builder: reqwest::ClientBuilder) -> Self {
        let client = builder
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            // No idle connections: one reused just as the server's keep-alive (5 s) closes it
            // fails the request (seen after a 5 s wait in a test).
            .pool_max_idle_per_host(0)
            .build()
            .expect("a client");
        Self { address, client }
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{path}", self.address))
            .send()
            .await
            .expect("answered")
    }

    pub async fn post(&self, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
        self.client
            .post(format!("{}{path}", self.address))
            .form(form)
            .send()
            .await
            .expect("answered")
    }

    pub async fn post_owned(&self, path: &str, form: &[(String, String)]) -> reqwest::Response {
        let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        self.post(path, &pairs).await
    }

    pub async fn page(&self, path: &str) -> String {
        let response = self.get(path).await;
        assert_eq!(response.status(), 200, "GET {path}");
        response.text().await.expect("a body")
    }

    /// The CSRF token of the page at `path`.
    pub async fn csrf(&self, path: &str) -> String {
        value_of(&self.page(path).await, "csrf")
    }

    pub async fn sign_up(&self, name: &str, slug: &str, email: &str) -> reqwest::Response {
        let csrf = self.csrf("/tenant/sign-up").await;
        self.post(
            "/tenant/sign-up",
            &[
                ("csrf", &csrf),
                ("name", name),
                ("slug", slug),
                ("plan", "standard"),
                ("email", email),
                ("password", "a long enough password"),
            ],
        )
        .await
    }

    pub async fn sign_in(&self, email: &str, password: &str) -> reqwest::Response {
        let csrf = self.csrf("/tenant/sign-in").await;
        self.post(
            "/tenant/sign-in",
            &[("csrf", &csrf), ("email", email), ("password", password)],
        )
        .await
    }

    /// Invites `email` as `role` from the members page; returns the invitation link shown
    /// (its path on the site).
    pub async fn invite(&self, email: &str, role: &str) -> String {
        let csrf = self.csrf("/tenant/members").await;
        let response = self
            .post(
                "/tenant/members/invite",
                &[("csrf", &csrf), ("email", email), ("role", role)],
            )
            .await;
        assert_eq!(response.status(), 200, "{email} is invited");
        let page = response.text().await.expect("a page");
        let link = between(
            &page,
            r#"<code class="secret" id="invitation-link">"#,
            "</code>",
        );
        // On this site, or (when email is set up) on the configured site's address.
        let at = link
            .find("/tenant/join/")
            .unwrap_or_else(|| panic!("{link} is an invitation link"));
        link[at..].to_owned()
    }

    /// Accepts the invitation at `link` (a path) with `password`, as a new browser would.
    pub async fn accept(&self, link: &str, password: &str) -> reqwest::Response {
        let csrf = self.csrf(link).await;
        self.post(link, &[("csrf", &csrf), ("password", password)])
            .await
    }

    /// A new member who accepted the invitation at `link` (and so is signed in).
    pub async fn joined(address: &'a str, link: &str) -> Self {
        let member = Self::at(address);
        let response = member.accept(link, MEMBER_PASSWORD).await;
        assert_eq!(
            response.status(),
            303,
            "the invitation at {link} is accepted"
        );
        member
    }

    /// Sets when this member is emailed about new responses (`each`, `daily`, `off`).
    pub async fn notify(&self, choice: &str) {
        let csrf = self.csrf("/tenant/account").await;
        let saved = self
            .post(
                "/tenant/account/notify",
                &[("csrf", &csrf), ("notify", choice)],
            )
            .await;
        assert_eq!(saved.status(), 303);
    }

    /// A new API key made on the API keys page by this member.
    pub async fn api_key(&self, label: &str) -> String {
        let csrf = self.csrf("/tenant/api-keys").await;
        let response = self
            .post("/tenant/api-keys", &[("csrf", &csrf), ("label", label)])
            .await;
        assert_eq!(response.status(), 200, "a key is made");
        between(
            &response.text().await.expect("a page"),
            r#"<code class="secret">"#,
            "</code>",
        )
    }

    /// Creates a survey in the designer with one question of each type; returns its slug.
    pub async fn design(&self, title: &str) -> String {
        let csrf = self.csrf("/tenant/surveys/new").await;
        let mut form: Vec<(String, String)> = vec![
            ("csrf".into(), csrf),
            ("title".into(), title.into()),
            ("description".into(), "Tell us".into()),
            ("count".into(), "6".into()),
            ("action".into(), "save".into()),
        ];
        let questions = [
            ("Your name", "short_text", ""),
            ("Comments", "long_text", ""),
            ("Where?", "single_choice", "Beach\nMountains"),
            ("Activities", "multiple_choice", "Hiking\nSwimming"),
            ("Rating", "five_stars", ""),
            ("Budget", "numeric", ""),
        ];
        for (i, (text, kind, options)) in questions.iter().enumerate() {
            form.push((format!("q{i}.text"), (*text).into()));
            form.push((format!("q{i}.type"), (*kind).into()));
            form.push((format!("q{i}.options"), (*options).into()));
        }
        form.push(("q2.required".into(), "on".into()));
        let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let response = self.post("/tenant/surveys", &pairs).await;
        assert_eq!(response.status(), 303, "the survey is created");
        let location = response.headers()["location"]
            .to_str()
            .expect("ascii")
            .to_owned();
        location
            .trim_start_matches("/tenant/surveys/")
            .trim_end_matches("?saved=1")
            .to_owned()
    }
}

/// The value of field `name` among a form's fields.
pub fn field_of(fields: &[(String, String)], name: &str) -> String {
    fields
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| panic!("no {name} in {fields:?}"))
}

/// The fields a browser would send from the first form on `html` whose tag contains
/// `marker`: inputs (checkboxes and radios only when checked), each select's chosen option,
/// and textareas, with their values unescaped. Submit buttons are left out.
pub fn form_fields(html: &str, marker: &str) -> Vec<(String, String)> {
    let start = html.find(marker).expect("the form is on the page");
    let end = start + html[start..].find("</form>").expect("the form ends");
    let form = &html[start..end];
    let attribute = |tag: &str, name: &str| -> Option<String> {
        let key = format!(r#" {name}=""#);
        let at = tag.find(&key)? + key.len();
        Some(unescape(&tag[at..at + tag[at..].find('"')?]))
    };
    let mut fields = Vec::new();
    let mut rest = form;
    while let Some(open) = rest.find('<') {
        rest = &rest[open..];
        let tag_end = rest.find('>').expect("the tag ends");
        let tag = &rest[..tag_end];
        let name = attribute(tag, "name");
        if tag.starts_with("<input") {
            let kind = attribute(tag, "type").unwrap_or_else(|| "text".into());
            let checked = tag.contains(" checked");
            if let Some(name) = name
                && kind != "submit"
                && (!matches!(kind.as_str(), "checkbox" | "radio") || checked)
            {
                fields.push((name, attribute(tag, "value").unwrap_or_default()));
            }
        } else if tag.starts_with("<select") {
            let close = rest.find("</select>").expect("the select ends");
            let options: Vec<&str> = rest[..close].split("<option").skip(1).collect();
            let chosen = options
                .iter()
                .find(|o| o[..o.find('>').unwrap_or(0)].contains(" selected"))
                .or(options.first());
            if let (Some(name), Some(option)) = (name, chosen) {
                let option_tag = &option[..option.find('>').unwrap_or(0)];
                fields.push((name, attribute(option_tag, "value").unwrap_or_default()));
            }
            rest = &rest[close..];
            continue;
        } else if tag.starts_with("<textarea") {
            let close = rest.find("</textarea>").expect("the textarea ends");
            if let Some(name) = name {
                fields.push((name, unescape(&rest[tag_end + 1..close])));
            }
            rest = &rest[close..];
            continue;
        }
        rest = &rest[tag_end..];
    }
    fields
}

/// Text as it reads once the page's HTML escapes are undone.
pub fn unescape(value: &str) -> String {
    value
        .replace("&#34;", "\"")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}
