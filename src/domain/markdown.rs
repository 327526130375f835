//! Owners' texts (a survey's introduction, thank-you and closing messages) in a small Markdown
//! subset: paragraphs, emphasis, links and lists. The HTML pulldown-cmark makes is sanitised by
//! ammonia down to those elements, so no owner can put a script, a style, an image or a form on
//! a respondent's page, whatever they write.

use std::collections::HashSet;
use std::sync::LazyLock;

use pulldown_cmark::{Options, Parser, html};

/// The elements the subset makes; everything else is dropped (its text kept).
const TAGS: [&str; 9] = ["p", "em", "strong", "a", "ul", "ol", "li", "br", "code"];

static CLEANER: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
    let mut cleaner = ammonia::Builder::empty();
    cleaner
        .tags(HashSet::from(TAGS))
        .tag_attributes([("a", HashSet::from(["href"]))].into())
        .url_schemes(HashSet::from(SCHEMES))
        .link_rel(Some("noopener noreferrer nofollow ugc"));
    cleaner
});

/// The URL schemes a link may have (others, and the links that have them, are dropped).
const SCHEMES: [&str; 3] = ["http", "https", "mailto"];

/// Whether a link's destination is one the cleaner keeps, judged as it judges: a relative one,
/// or an absolute one that parses with one of `SCHEMES`.
fn safe_destination(destination: &str) -> bool {
    match url::Url::parse(destination) {
        Ok(url) => SCHEMES.contains(&url.scheme()),
        Err(url::ParseError::RelativeUrlWithoutBase) => true,
        Err(_) => false,
    }
}

/// The safe HTML of `text`.
pub fn to_html(text: &str) -> String {
    use pulldown_cmark::{Event, Tag, TagEnd};
    // Whether each open link is kept: a link to an unsafe address becomes its text alone
    // (the cleaner would only strip its address and leave a link to nowhere).
    let mut links: Vec<bool> = Vec::new();
    // Raw HTML in the source is shown as text, not interpreted: the subset has none.
    let events = Parser::new_ext(text, Options::empty()).filter_map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
        Event::Start(Tag::Link { ref dest_url, .. }) => {
            let kept = safe_destination(dest_url);
            links.push(kept);
            kept.then_some(event)
        }
        Event::End(TagEnd::Link) => links.pop().unwrap_or(true).then_some(event),
        other => Some(other),
    });
    let mut unsafe_html = String::with_capacity(text.len() * 3 / 2);
    html::push_html(&mut unsafe_html, events);
    CLEANER.clean(&unsafe_html).to_string()
}

/// The plain text of `text`, as an email's plain-text part reads it: no Markdown marks left,
/// paragraphs apart by a blank line, list items as "- item", a link as its words and its
/// address ("Answer the survey: https://…", or the address alone when they are the same).
pub fn to_plain(text: &str) -> String {
    use pulldown_cmark::{Event, Tag, TagEnd};
    let mut out = String::with_capacity(text.len());
    // Each open link's address, and where its words start in `out`.
    let mut links: Vec<(String, usize)> = Vec::new();
    for event in Parser::new_ext(text, Options::empty()) {
        match event {
            Event::Text(words)
            | Event::Code(words)
            | Event::Html(words)
            | Event::InlineHtml(words) => {
                out.push_str(&words);
            }
            Event::SoftBreak | Event::HardBreak => out.push('\n'),
            Event::Start(Tag::Item) => out.push_str("- "),
            Event::End(TagEnd::Item) => out.push('\n'),
            Event::End(TagEnd::Paragraph) => out.push_str("\n\n"),
            Event::End(TagEnd::List(_)) => out.push('\n'),
            Event::Start(Tag::Link { dest_url, .. }) => {
                links.push((dest_url.to_string(), out.len()))
            }
            Event::End(TagEnd::Link) => {
                if let Some((address, start)) = links.pop() {
                    let words = out[start..].trim();
                    if words != address {
                        match words.is_empty() {
                            true => out.push_str(&address),
                            false => {
                                out.push_str(": ");
                                out.push_str(&address);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let lines: Vec<&str> = out.lines().map(str::trim_end).collect();
    let mut plain = lines.join("\n");
    while plain.contains("\n\n\n") {
        plain = plain.replace("\n\n\n", "\n\n");
    }
    plain.trim().to_owned()
}

#[cfg(test)]
mod tests {

    #[test]
    fn plain_text_has_no_markdown_marks_left() {
        let text = "Hello Ann,\n\nYou are invited to answer **Team day**.\n\n\
                    [Answer the survey](https://example.com/p/abc)\n\n- one\n- *two*\n\nThanks!";
        assert_eq!(
            to_plain(text),
            "Hello Ann,\n\nYou are invited to answer Team day.\n\n\
             Answer the survey: https://example.com/p/abc\n\n- one\n- two\n\nThanks!"
        );
        assert_eq!(to_plain("<https://example.com>"), "https://example.com");
        assert_eq!(to_plain(""), "", "nothing in, nothing out");
        assert_eq!(
            to_plain("[](https://example.com/x)"),
            "https://example.com/x",
            "a link without words"
        );
        assert_eq!(to_plain(r"A name with a \*star\*"), "A name with a *star*");
    }
    use super::*;

    #[test]
    fn the_subset_renders() {
        let html =
            to_html("Hello *you*, **thanks**.\n\n- one\n- two\n\n[Site](https://example.com)");
        assert!(html.contains("<em>you</em>"), "{html}");
        assert!(html.contains("<strong>thanks</strong>"), "{html}");
        assert!(html.contains("<ul>\n<li>one</li>"), "{html}");
        assert!(
            html.contains(
                r#"<a href="https://example.com" rel="noopener noreferrer nofollow ugc">Site</a>"#
            ),
            "{html}"
        );
    }

    #[test]
    fn scripts_images_styles_and_script_links_never_survive() {
        for hostile in [
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "[x](javascript:alert(1))",
            "![x](https://example.com/a.png)",
            "<a href=\"https://e.com\" onclick=\"alert(1)\">x</a>",
            "<style>body{}</style>",
            "# Heading\n\n<iframe src=https://e.com></iframe>",
        ] {
            let html = to_html(hostile);
            // Every tag left is one of the subset, with no attribute but a safe link's.
            for tag in html.split('<').skip(1).filter_map(|t| t.split('>').next()) {
                let name = tag.trim_start_matches('/').split(' ').next().unwrap_or("");
                assert!(TAGS.contains(&name), "{hostile} gave {html}");
                assert!(
                    !tag.contains("javascript") && !tag.contains(" on"),
                    "{hostile} gave {html}"
                );
            }
        }
    }

    proptest::proptest! {
        /// Whatever an owner writes (markup characters, HTML, links of any scheme), the HTML
        /// holds only the subset's tags and no attribute but a link's safe address.
        #[test]
        fn any_text_gives_only_the_subsets_tags(
            text in r#"([a-z <>/"'=:*_\[\]()#!\n-]|javascript:|<script>|<img src=x onerror=y>|https://e\.com){0,40}"#
        ) {
            let html = to_html(&text);
            for tag in html.split('<').skip(1).filter_map(|t| t.split('>').next()) {
                let name = tag.trim_start_matches('/').split([' ', '\n']).next().unwrap_or("");
                proptest::prop_assert!(TAGS.contains(&name), "{text:?} gave {html}");
                let attributes = tag.split_once(' ').map_or("", |(_, rest)| rest);
                // A link's address: up to the first colon, slash, `?` or `#` is its scheme,
                // if a colon comes first; only the safe schemes may.
                let href = attributes
                    .strip_prefix("href=\"")
                    .and_then(|rest| rest.split('"').next())
                    .unwrap_or("");
                let scheme = href
                    .split_once(':')
                    .filter(|(before, _)| !before.contains(['/', '?', '#']))
                    .map(|(scheme, _)| scheme.to_ascii_lowercase());
                proptest::prop_assert!(
                    attributes.is_empty()
                        || (name == "a"
                            && attributes.starts_with("href=\"")
                            && scheme.is_none_or(|s| ["http", "https", "mailto"].contains(&s.as_str()))
                            && !attributes.contains(" on")),
                    "{text:?} gave {html}"
                );
            }
        }
    }

    #[test]
    fn a_link_to_an_unsafe_address_is_its_text_alone() {
        assert_eq!(to_html("a<javascript:>"), "<p>ajavascript:</p>\n");
        assert_eq!(to_html("[x](javascript:alert(1))"), "<p>x</p>\n");
        assert!(to_html("[x](/relative)").contains(r#"href="/relative""#));
    }

    #[test]
    fn html_written_in_the_text_is_shown_as_text() {
        let html = to_html("Use <b>bold</b>");
        assert!(html.contains("&lt;b&gt;bold&lt;/b&gt;"), "{html}");
    }
}
