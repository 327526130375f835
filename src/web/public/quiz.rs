//! A respondent's quiz result on the thank-you page: their score and how many answers were
//! correct, and each quiz question with whether they had it right and the correct answer, as
//! far as the survey chooses to show them.

use crate::domain::Survey;
use crate::domain::outcome::Shown;
use crate::i18n::Words;

/// What the thank-you page shows of a quiz.
pub struct QuizResult {
    /// "Your score: 7", when the survey shows the score and has scores.
    pub score: Option<String>,
    /// "3 of 5 answers correct", when the survey shows the score.
    pub tally: Option<String>,
    /// Each quiz question, when the survey shows the answers.
    pub items: Vec<QuizItem>,
}

/// One quiz question on the thank-you page.
pub struct QuizItem {
    /// What was asked, in the page's language.
    pub text: String,
    /// Whether the respondent had it right.
    pub right: bool,
    /// "Correct answer: Paris".
    pub correct: String,
}

impl QuizResult {
    /// The result to show for `shown`, if the survey shows any.
    pub fn of(survey: &Survey, shown: &Shown<'_>, words: &Words) -> Option<Self> {
        if survey.quiz.is_off() || shown.right.len() != survey.quiz_questions() {
            return None;
        }
        let language = words.lang();
        let total = shown.right.len();
        let right = shown.right.iter().filter(|r| **r).count();
        let show = survey.quiz.show_score;
        let score = shown
            .score
            .filter(|_| show)
            .map(|score| words.s("quiz-score", "score", &number(score)));
        let tally = (show && total > 0).then(|| {
            words.with(
                "quiz-tally",
                &[("right", right.into()), ("total", total.into())],
            )
        });
        let quiz = survey
            .questions
            .iter()
            .filter(|q| !q.scoring.correct.is_empty());
        let items = match survey.quiz.show_answers {
            false => Vec::new(),
            true => quiz
                .zip(&shown.right)
                .map(|(question, right)| {
                    let options = question.kind.options();
                    let correct: Vec<&str> = question
                        .scoring
                        .correct
                        .iter()
                        .map(|c| {
                            let at = options.iter().position(|o| o == c).unwrap_or(0);
                            let key = format!("q:{}:option:{at}", question.id);
                            survey.text_in(language, &key, c)
                        })
                        .collect();
                    let key = format!("q:{}:text", question.id);
                    QuizItem {
                        text: survey.text_in(language, &key, &question.text).to_owned(),
                        right: *right,
                        correct: words.s("quiz-correct-answer", "answer", &correct.join("; ")),
                    }
                })
                .collect(),
        };
        Some(Self {
            score,
            tally,
            items,
        })
    }
}

/// A score as shown: whole numbers without a fraction.
fn number(score: f64) -> String {
    crate::domain::expression::shown(&serde_json::json!(score))
}
