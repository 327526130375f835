//! Email: the messages Canvass sends (invitations, password resets, new-response notices),
//! written here as plain text, and the SMTP sender the worker sends them with. Requests only
//! queue messages; workers send them, so a slow or failing mail server never holds a page.

mod messages;
mod once;
mod smtp;

pub use messages::{
    Letter, Mail, digest_message, invitation_message, letter, reset_message, responses_message,
};
pub use once::{Lane, Outcome};
pub use smtp::{MailError, Sender};

/// The sender of email when `CANVASS_MAIL_FROM` is not set.
pub const DEFAULT_FROM: &str = "Canvass <canvass@localhost>";
