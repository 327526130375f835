//! The choice every choice question may add: "Other, please specify". Its own small module, so
//! questions, logic, answers and summaries can all name it without reaching into each other.

/// The name of the "Other, please specify" choice, as answers and summaries give it.
pub const OTHER: &str = "Other";
