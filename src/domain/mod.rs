//! The language of the service: tenants, surveys, questions, answers, references. Pure code:
//! no I/O, so every rule here is unit-tested on its own.

pub mod account;
pub mod answer;
pub mod answer_value;
pub mod arrangement;
pub mod audit;
pub mod branding;
pub mod calculation;
pub mod choice;
pub mod definition;
pub mod expression;
pub mod funnel;
pub mod hidden;
mod ids;
pub mod iteration;
pub mod language;
pub mod lifecycle;
pub mod logic;
pub mod looping;
pub mod mailing;
pub mod markdown;
pub mod member;
pub mod order;
pub mod outcome;
pub mod participant;
pub mod private_link;
pub mod problem;
pub mod progress;
pub mod question;
pub mod quota;
pub mod recall;
pub mod redirect;
pub mod reference;
pub mod region;
pub mod segment;
pub mod slug;
pub mod submission;
pub mod summary;
pub mod survey;
pub mod template;
pub mod tenant;
pub mod translation;
pub mod upload;
pub mod walk;
pub mod webhook;
pub mod zone;

#[cfg(test)]
mod flow_tests;
#[cfg(test)]
mod looping_tests;
#[cfg(test)]
mod recall_tests;

pub use account::Email;
pub use answer::{Answer, AnswerValue, RawAnswers};
pub use lifecycle::{Closure, SurveyState};
pub use logic::{Condition, Jump, PageLayout, Target};
pub use private_link::PrivateLink;
pub use problem::AnswerProblem;
pub use question::{Question, QuestionId, QuestionKind};
pub use reference::{IdRange, Reference};
pub use segment::SegmentId;
pub use slug::{SlugError, SurveySlug, TenantSlug};
pub use submission::{SigningKey, SubmissionToken, TokenError, thanks_signature, thanks_signed};
pub use summary::{QuestionSummary, SurveySummary};
pub use survey::{Survey, SurveyId, SurveyRef};
pub use tenant::{Subscription, Tenant};
pub use walk::FieldErrors;
pub use zone::Zone;
