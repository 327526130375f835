//! The messages themselves: who gets them, the subject and a plain-text body. Pure.

use serde::{Deserialize, Serialize};

use crate::domain::account::Email;
use crate::domain::member::Role;

/// One email to send.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mail {
    /// The recipient.
    pub to: Email,
    /// The subject line.
    pub subject: String,
    /// The plain-text body.
    pub body: String,
}

/// A mailing's message to one participant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Letter {
    pub to: Email,
    pub subject: String,
    pub text: String,
    pub html: String,
    /// Where one click stops further mail (the `List-Unsubscribe` address).
    pub opt_out: String,
    /// `<mailing.participant@host>`: the same for every try of the same message.
    pub message_id: String,
}

/// The letter of `filled` to `to`: its text and HTML, each with a footer saying why it came
/// and how to stop more.
pub fn letter(
    to: &Email,
    filled: &crate::domain::mailing::Filled,
    sent_by: &str,
    opt_out: &str,
    message_id: String,
) -> Letter {
    let why = format!("You get this message because {sent_by} added your address to a survey.");
    let text = format!(
        "{}\n\n-- \n{why}\nNo more email from them: {opt_out}\n",
        filled.text
    );
    let html = format!(
        "<!doctype html><html><body>{}<hr><p style=\"font-size:small;color:#555\">{}<br>\
         <a href=\"{}\">No more email from them</a></p></body></html>",
        crate::domain::markdown::to_html(&filled.markdown),
        ammonia::clean_text(&why),
        ammonia::clean_text(opt_out)
    );
    Letter {
        to: to.clone(),
        subject: filled.subject.clone(),
        text,
        html,
        opt_out: opt_out.to_owned(),
        message_id,
    }
}

/// A password-reset link.
pub fn reset_message(to: &Email, link: &str) -> Mail {
    Mail {
        to: to.clone(),
        subject: "Set a new Canvass password".into(),
        body: format!(
            "Someone (we hope you) asked to set a new password for {} on Canvass.\n\n\
             Set it here (the link works once, for an hour):\n{link}\n\n\
             Setting it signs out every other session of yours. If you did not ask, ignore \
             this message: your password stays as it is.\n",
            to.as_str()
        ),
    }
}

/// An invitation to join a tenant.
pub fn invitation_message(
    to: &Email,
    tenant: &str,
    role: Role,
    invited_by: &str,
    link: &str,
) -> Mail {
    Mail {
        to: to.clone(),
        subject: format!("Join {tenant} on Canvass"),
        body: format!(
            "{invited_by} invited you to {tenant} on Canvass as {}: {}.\n\n\
             Accept here (the link works once, for 7 days):\n{link}\n",
            role.with_article(),
            role.describe()
        ),
    }
}

/// New responses to a survey: `count` since the last notice (one, for a notice on each).
pub fn responses_message(to: &Email, survey: &str, count: u64, link: &str) -> Mail {
    let (subject, first) = if count == 1 {
        (
            format!("A new response to {survey}"),
            format!("{survey} has a new response."),
        )
    } else {
        (
            format!("{count} new responses to {survey}"),
            format!("{survey} has {count} new responses."),
        )
    };
    Mail {
        to: to.clone(),
        subject,
        body: format!(
            "{first}\n\nRead them here:\n{link}\n\n\
             You get these because of your notification setting; change it on your account \
             page.\n"
        ),
    }
}

/// A daily digest of one survey: `count` responses since the last one.
pub fn digest_message(to: &Email, survey: &str, count: u64, link: &str) -> Mail {
    let responses = if count == 1 { "response" } else { "responses" };
    Mail {
        to: to.clone(),
        subject: format!("Daily digest: {count} new {responses} to {survey}"),
        body: format!(
            "{survey} had {count} new {responses} since the last digest.\n\nRead them here:\n\
             {link}\n\nYou get this digest once a day because of your notification setting; \
             change it on your account page.\n"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_carry_their_link_and_say_what_it_does() {
        let to = Email::parse("ada@example.com").unwrap();
        let reset = reset_message(&to, "http://x/tenant/reset-password/abc");
        assert!(reset.body.contains("http://x/tenant/reset-password/abc"));
        assert!(reset.body.contains("an hour"));
        let invite = invitation_message(&to, "Acme", Role::Editor, "bo@example.com", "http://x/j");
        assert_eq!(invite.subject, "Join Acme on Canvass");
        assert!(invite.body.contains("as an editor") && invite.body.contains("http://x/j"));
        assert_eq!(
            responses_message(&to, "Team", 1, "l").subject,
            "A new response to Team"
        );
        assert_eq!(
            responses_message(&to, "Team", 3, "l").subject,
            "3 new responses to Team"
        );
    }
}
