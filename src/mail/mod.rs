//! Email: the messages Canvass sends (invitations, password resets, new-response notices),
//! written here as plain text, and the SMTP sender the worker sends them with. Requests only
//! queue messages; workers send them, so a slow or failing mail server never holds a page.

mod messages;
mod smtp;

pub use messages::{Mail, digest_message, invitation_message, reset_message, responses_message};
pub use smtp::{MailError, Sender};
