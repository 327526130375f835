# The site's own words on the pages respondents see. Every id here must be in every other
# language's file (a test checks); arguments are in { $braces }.

language-name = English
language-switch = Language
site-footer = Canvass · self-hosted surveys

## The survey form

form-page = Page { $page } of { $pages }
form-step = Question { $step } of { $steps }
form-keys = Keys: a letter or number picks an answer, Enter goes on.
form-check-answers = { $count ->
    [one] Please check one answer
   *[other] Please check { $count } answers
}
form-question = Question { $number }
form-required = (required)
form-anonymous = Your answers are anonymous: they are stored without your name, email address or link, so nobody can tell which answers are yours.
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
quiz-score = Your score: { $score }
quiz-tally = { $right } of { $total } answers correct
quiz-answers = Your answers
quiz-right = Correct
quiz-wrong = Not correct
quiz-correct-answer = Correct answer: { $answer }
closed-title = This survey is closed
closed-message = It no longer takes answers. Thank you for your interest.
closed-others = Other surveys from { $tenant }
surveys-title = Surveys
surveys-none = { $tenant } has no open surveys right now.
surveys-answer = Answer this survey
surveys-pages = Pages of surveys
surveys-previous = Previous
surveys-next = Next

## Earlier answers recalled in a question's text

# A date answer: its day, its month (1 to 12) and its year.
recall-date = { $day } { $month ->
    [1] January
    [2] February
    [3] March
    [4] April
    [5] May
    [6] June
    [7] July
    [8] August
    [9] September
    [10] October
    [11] November
   *[12] December
} { $year }
# Between the parts of an answer of several (options ticked, a ranking, a matrix's rows).
recall-separator = { ", " }

## Saving to continue later

form-save = Save and continue later
save-not-offered = This survey cannot be saved to continue later.
save-too-many = You saved many times in a short while. Please wait { $minutes ->
    [one] a minute
   *[other] { $minutes } minutes
} and save again, or send your answers now.
save-too-large = Your answers are too long to save for later. Please send them now, or shorten the longest.
saved-title = Your answers are saved
saved-intro = To continue later, open this link on any device. Keep it to yourself: anyone with it can see and change your answers.
saved-until = The link works until { $date }.
saved-continue = Continue now
saved-email-label = Email me the link
saved-email-hint = Your address is used only to send this link.
saved-email-send = Send the link
saved-email-sent = The link is on its way to the address you gave.
saved-email-invalid = Please enter an email address, like name@example.com.
resume-gone-title = This link no longer works
resume-gone-message = The answers saved under it were sent, or the time to continue has passed.
resume-start-again = Start the survey again
resume-mail-subject = Continue "{ $title }"
resume-mail-body = You saved your answers to "{ $title }". Continue where you left off:
    { $link }

    The link works until { $date }. Keep it to yourself: anyone with it can see and change your answers. If you did not ask for this email, ignore it.

## Quotas

quota-full-title = Thank you for your time
quota-full-message = We already have all the answers we need from people like you, so the survey ends here. Your answers were not kept.

## File questions

file-kind-image = an image (JPEG, PNG, GIF, WebP or HEIC)
file-kind-pdf = a PDF
file-kind-office = an office document (Word, Excel, PowerPoint or OpenDocument)
problem-file-kind = This kind of file is not taken here: please choose { $kinds }.
problem-file-too-large = This file is too large: this question takes files of at most { $limit } MB.
problem-file-unknown = Please choose the file again.
problem-file-too-many = You uploaded many files in a short while. Please wait { $minutes } minutes and try again.
form-file-uploaded = Uploaded: { $name } ({ $size } MB).
form-file-replace = Choose another file to replace it.
form-file-remove = Remove this file
form-file-choose = Choose a file
form-file-limit = { $kinds }; at most { $limit } MB.

# A survey by invitation, and personal links.
invitation-only-title = This survey is by invitation
invitation-only-message = Only the people it was sent to can answer it, each through their personal link. If you were invited, open the link in your invitation.
link-answered-title = You have answered already
link-answered-message = Thank you: your answers were received. A personal link answers once.
link-unknown-title = This link does not open the survey
link-unknown-message = It may have been copied only in part, or it is no longer in use. Ask whoever sent it to you for a new one.
opt-out-title = No more email from { $tenant }?
opt-out-message = { $tenant } added your address to this survey and may email you about it. Stop it, and they cannot email you through Canvass again, about any survey.
opt-out-button = Stop the email
opted-out-title = You will get no more email from { $tenant }
opted-out-message = They can no longer email you through Canvass. Your personal link still opens the survey if you change your mind.
