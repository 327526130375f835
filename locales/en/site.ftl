# The site's own words on the pages respondents see. Every id here must be in every other
# language's file (a test checks); arguments are in { $braces }.

language-name = English
language-switch = Language
site-footer = Canvass · self-hosted surveys

## The survey form

form-page = Page { $page } of { $pages }
form-check-answers = { $count ->
    [one] Please check one answer
   *[other] Please check { $count } answers
}
form-question = Question { $number }
form-required = (required)
form-choose = Choose
form-choose-one = Choose one
form-stars = { $count ->
    [one] star
   *[other] stars
}
form-other = Other, please specify:
form-other-label = Other: { $question }
form-nps-low = Not at all likely
form-nps-high = Extremely likely
form-place = { NUMBER($place, type: "ordinal") ->
    [one] { $place }st
    [two] { $place }nd
    [few] { $place }rd
   *[other] { $place }th
}
form-back = Back
form-next = Next
form-send = Send my answers
form-number-between = { $whole ->
    [yes] A whole number from { $min } to { $max }.
   *[no] A number from { $min } to { $max }.
}
form-number-at-least = { $whole ->
    [yes] A whole number of at least { $min }.
   *[no] A number of at least { $min }.
}
form-number-at-most = { $whole ->
    [yes] A whole number of at most { $max }.
   *[no] A number of at most { $max }.
}
form-whole-number = A whole number.
form-condition = Answer this if { $condition }.
condition-your-answer = your answer to "{ $question }"
condition-is = { $question } is "{ $value }"
condition-is-not = { $question } is not "{ $value }"
condition-one-of = { $question } is one of "{ $value }"
condition-above = { $question } is above { $value }
condition-below = { $question } is below { $value }
condition-answered = { $question } is answered
condition-not-answered = { $question } is not answered
condition-contains = { $question } contains "{ $value }"
condition-and = and
condition-or = or
form-not-accepted = This form cannot be accepted: { $reason }. Please open the survey again and answer it.

## What is wrong with an answer

problem-required = Please answer this question.
problem-one-only = Please give one answer only.
problem-control-characters = Please remove the invisible control characters from your answer (they may come from pasting).
problem-too-long = Please shorten your answer to { $limit } characters (it has { $length }).
problem-response-too-long = Your answers add up to { $total } characters; the most one response may have is { $most }. Please shorten this one.
problem-unknown-column = Please choose one of the columns listed for "{ $row }".
problem-every-row = Please answer every row.
problem-other-blank = Please say what you mean by "Other".
problem-other-too-long = Please keep "Other" to { $limit } characters, without control characters.
problem-unknown-option = Please choose one of the options listed.
problem-not-an-option = "{ $value }" is not one of the options listed.
problem-stars = Please give a rating from 1 to 5 stars.
problem-ranking = Please put all { $count } options in order, each once.
problem-point = Please choose a point from { $from } to { $to }.
problem-date = Please enter a date, like 2026-07-14.
problem-date-too-early = Please enter { $date } or later.
problem-date-too-late = Please enter { $date } or earlier.
problem-number = Please enter a number, like 42 or 3.5.
problem-number-huge = Please enter a number between -1,000,000,000,000,000 and 1,000,000,000,000,000.
problem-whole-number = Please enter a whole number.
problem-number-between = Please enter a number from { $min } to { $max }.
problem-number-at-least = Please enter { $min } or more.
problem-number-at-most = Please enter { $max } or less.

## Thanks, closed, the tenant's list

thanks-title = Thank you!
thanks-received = Your answers have been received.
thanks-reference = Your reference number is { $reference }. Keep it if you want to mention your answers to { $tenant }.
thanks-more = More surveys from { $tenant }
closed-title = This survey is closed
closed-message = It no longer takes answers. Thank you for your interest.
closed-others = Other surveys from { $tenant }
surveys-title = Surveys
surveys-none = { $tenant } has no open surveys right now.
surveys-answer = Answer this survey
surveys-pages = Pages of surveys
surveys-previous = Previous
surveys-next = Next
