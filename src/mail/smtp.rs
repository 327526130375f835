//! Sending through an SMTP server with lettre: `CANVASS_SMTP_URL` (`smtp://host:25`,
//! `smtp://host:587?tls=required`, `smtps://user:pass@host:465`) and `CANVASS_MAIL_FROM`.

use std::time::Duration;

use lettre::message::{Mailbox, header::ContentType};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use super::Mail;

/// Why a message was not sent.
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    /// The settings cannot be used.
    #[error("the mail settings are not valid: {0}")]
    Settings(String),
    /// The message could not be built (an address the mail library refuses).
    #[error("the message could not be built: {0}")]
    Message(String),
    /// The server refused it or could not be reached.
    #[error("the mail server did not take the message: {0}")]
    Send(String),
}

/// An SMTP connection pool and the sender's address.
#[derive(Clone)]
pub struct Sender {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl std::fmt::Debug for Sender {
    // The URL may hold a password: never print it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender")
            .field("from", &self.from.to_string())
            .finish()
    }
}

impl Sender {
    /// A sender for the server at `url`, sending as `from`.
    pub fn new(url: &str, from: &str) -> Result<Self, MailError> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|error| MailError::Settings(format!("CANVASS_SMTP_URL: {error}")))?
            .timeout(Some(Duration::from_secs(20)))
            .build();
        let from = from
            .parse()
            .map_err(|error| MailError::Settings(format!("CANVASS_MAIL_FROM: {error}")))?;
        Ok(Self { transport, from })
    }

    /// Whether `from` is an address (with an optional name) mail can be sent as.
    pub fn check_from(from: &str) -> Result<(), String> {
        from.parse::<Mailbox>()
            .map(|_| ())
            .map_err(|error| format!("CANVASS_MAIL_FROM: {error}"))
    }

    /// Sends one message.
    pub async fn send(&self, mail: &Mail) -> Result<(), MailError> {
        let to: Mailbox =
            mail.to
                .as_str()
                .parse()
                .map_err(|error: lettre::address::AddressError| {
                    MailError::Message(error.to_string())
                })?;
        let message = Message::builder()
            .message_id(None)
            .from(self.from.clone())
            .to(to)
            .subject(&mail.subject)
            .header(ContentType::TEXT_PLAIN)
            .body(mail.body.clone())
            .map_err(|error| MailError::Message(error.to_string()))?;
        self.transport
            .send(message)
            .await
            .map_err(|error| MailError::Send(crate::telemetry::error_chain(&error)))?;
        Ok(())
    }
}
