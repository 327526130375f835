//! What is wrong with an answer, as data: the site words it in the respondent's language
//! (each problem is one message of the site's message files, its fields the message's
//! arguments).

/// Why an answer to one question was not accepted.
#[derive(Clone, Debug, PartialEq)]
pub enum AnswerProblem {
    /// A required question left blank.
    Required,
    /// Several answers where one is asked for.
    OneOnly,
    /// Invisible control characters (or bidirectional overrides) in a text.
    ControlCharacters,
    /// A text longer than its question allows.
    TooLong { limit: usize, length: usize },
    /// The texts of a whole response add up to more than one response may hold.
    ResponseTooLong { total: usize, most: usize },
    /// A matrix row answered with a column that is not listed.
    UnknownColumn { row: String },
    /// A required matrix with some rows unanswered.
    EveryRow,
    /// "Other" picked without saying what.
    OtherBlank,
    /// The text beside "Other" too long or with control characters.
    OtherTooLong { limit: usize },
    /// A choice that is not one of the options.
    UnknownOption,
    /// A ticked value that is not one of the options.
    NotAnOption { value: String },
    /// A star rating outside 1 to 5.
    Stars,
    /// A ranking that does not place every option once.
    Ranking { count: usize },
    /// A point outside the scale.
    Point { from: u8, to: u8 },
    /// Not a date.
    Date,
    /// A date before the earliest allowed (`YYYY-MM-DD`).
    DateTooEarly { earliest: String },
    /// A date after the latest allowed (`YYYY-MM-DD`).
    DateTooLate { latest: String },
    /// Not a number.
    Number,
    /// A number past what is kept exactly.
    NumberHuge,
    /// A fraction where a whole number is asked for.
    WholeNumber,
    /// A number outside its question's range.
    NumberBetween { min: f64, max: f64 },
    /// A number below its question's minimum.
    NumberAtLeast { min: f64 },
    /// A number above its question's maximum.
    NumberAtMost { max: f64 },
    /// A file of a kind its question does not take (told from its content).
    FileKind { allowed: Vec<FileKind> },
    /// A file larger than its question (or the operator) allows.
    FileTooLarge { limit: u64 },
    /// A file field that is not a file uploaded with this form.
    FileUnknown,
    /// An answer its question's validation refuses, with the owner's message.
    Refused { message: String },
}

use super::upload::FileKind;
