language-name = Deutsch
language-switch = Sprache
site-footer = Canvass · selbst gehostete Umfragen

## Das Umfrageformular

form-page = Seite { $page } von { $pages }
form-step = Frage { $step } von { $steps }
form-keys = Tasten: ein Buchstabe oder eine Zahl wählt eine Antwort, Eingabe geht weiter.
form-check-answers = { $count ->
    [one] Bitte prüfen Sie eine Antwort
   *[other] Bitte prüfen Sie { $count } Antworten
}
form-question = Frage { $number }
form-required = (Pflichtfeld)
form-anonymous = Ihre Antworten sind anonym: Sie werden ohne Ihren Namen, Ihre E-Mail-Adresse und Ihren Link gespeichert, sodass niemand erkennen kann, welche Antworten von Ihnen sind.
form-choose = Auswählen
form-choose-one = Bitte auswählen
form-stars = { $count ->
    [one] Stern
   *[other] Sterne
}
form-other = Sonstiges, bitte angeben:
form-other-label = Sonstiges: { $question }
form-nps-low = Überhaupt nicht wahrscheinlich
form-nps-high = Äußerst wahrscheinlich
form-place = { $place }.
form-back = Zurück
form-next = Weiter
form-send = Antworten absenden
form-number-between = { $whole ->
    [yes] Eine ganze Zahl von { $min } bis { $max }.
   *[no] Eine Zahl von { $min } bis { $max }.
}
form-number-at-least = { $whole ->
    [yes] Eine ganze Zahl von mindestens { $min }.
   *[no] Eine Zahl von mindestens { $min }.
}
form-number-at-most = { $whole ->
    [yes] Eine ganze Zahl von höchstens { $max }.
   *[no] Eine Zahl von höchstens { $max }.
}
form-whole-number = Eine ganze Zahl.
form-condition = Beantworten Sie diese Frage, wenn { $condition }.
condition-your-answer = Ihre Antwort auf „{ $question }“
condition-is = { $question } „{ $value }“ ist
condition-is-not = { $question } nicht „{ $value }“ ist
condition-one-of = { $question } eines von „{ $value }“ ist
condition-above = { $question } über { $value } liegt
condition-below = { $question } unter { $value } liegt
condition-answered = { $question } gegeben wurde
condition-not-answered = { $question } nicht gegeben wurde
condition-contains = { $question } „{ $value }“ enthält
condition-and = und
condition-or = oder
form-not-accepted = Dieses Formular kann nicht angenommen werden: { $reason }. Bitte öffnen Sie die Umfrage erneut und beantworten Sie sie.

## Was an einer Antwort nicht stimmt

problem-required = Bitte beantworten Sie diese Frage.
problem-one-only = Bitte geben Sie nur eine Antwort.
problem-control-characters = Bitte entfernen Sie die unsichtbaren Steuerzeichen aus Ihrer Antwort (sie stammen oft aus dem Einfügen).
problem-too-long = Bitte kürzen Sie Ihre Antwort auf { $limit } Zeichen (sie hat { $length }).
problem-response-too-long = Ihre Antworten haben zusammen { $total } Zeichen; eine Antwort darf höchstens { $most } haben. Bitte kürzen Sie diese.
problem-unknown-column = Bitte wählen Sie eine der aufgeführten Spalten für „{ $row }“.
problem-every-row = Bitte beantworten Sie jede Zeile.
problem-other-blank = Bitte geben Sie an, was Sie mit „Sonstiges“ meinen.
problem-other-too-long = Bitte halten Sie „Sonstiges“ bei höchstens { $limit } Zeichen, ohne Steuerzeichen.
problem-unknown-option = Bitte wählen Sie eine der aufgeführten Optionen.
problem-not-an-option = „{ $value }“ ist keine der aufgeführten Optionen.
problem-stars = Bitte vergeben Sie 1 bis 5 Sterne.
problem-ranking = Bitte bringen Sie alle { $count } Optionen in eine Reihenfolge, jede genau einmal.
problem-point = Bitte wählen Sie einen Wert von { $from } bis { $to }.
problem-date = Bitte geben Sie ein Datum ein, z. B. 2026-07-14.
problem-date-too-early = Bitte geben Sie { $date } oder später ein.
problem-date-too-late = Bitte geben Sie { $date } oder früher ein.
problem-number = Bitte geben Sie eine Zahl ein, z. B. 42 oder 3.5.
problem-number-huge = Bitte geben Sie eine Zahl zwischen -1.000.000.000.000.000 und 1.000.000.000.000.000 ein.
problem-whole-number = Bitte geben Sie eine ganze Zahl ein.
problem-number-between = Bitte geben Sie eine Zahl von { $min } bis { $max } ein.
problem-number-at-least = Bitte geben Sie { $min } oder mehr ein.
problem-number-at-most = Bitte geben Sie { $max } oder weniger ein.

## Danke, geschlossen, die Liste des Anbieters

thanks-title = Vielen Dank!
thanks-received = Ihre Antworten sind eingegangen.
thanks-reference = Ihre Referenznummer ist { $reference }. Bewahren Sie sie auf, wenn Sie { $tenant } auf Ihre Antworten ansprechen möchten.
thanks-more = Weitere Umfragen von { $tenant }
quiz-score = Ihre Punktzahl: { $score }
quiz-tally = { $right } von { $total } Antworten richtig
quiz-answers = Ihre Antworten
quiz-right = Richtig
quiz-wrong = Nicht richtig
quiz-correct-answer = Richtige Antwort: { $answer }
closed-title = Diese Umfrage ist geschlossen
closed-message = Sie nimmt keine Antworten mehr an. Vielen Dank für Ihr Interesse.
closed-others = Andere Umfragen von { $tenant }
surveys-title = Umfragen
surveys-none = { $tenant } hat gerade keine offenen Umfragen.
surveys-answer = Diese Umfrage beantworten
surveys-pages = Seiten der Umfragen
surveys-previous = Zurück
surveys-next = Weiter

## Earlier answers recalled in a question's text

# A date answer: its day, its month (1 to 12) and its year.
recall-date = { $day }. { $month ->
    [1] Januar
    [2] Februar
    [3] März
    [4] April
    [5] Mai
    [6] Juni
    [7] Juli
    [8] August
    [9] September
    [10] Oktober
    [11] November
   *[12] Dezember
} { $year }
# Between the parts of an answer of several (options ticked, a ranking, a matrix's rows).
recall-separator = { ", " }

## Saving to continue later

form-save = Speichern und später fortfahren
save-not-offered = Diese Umfrage kann nicht gespeichert werden, um später fortzufahren.
save-too-many = Sie haben in kurzer Zeit oft gespeichert. Bitte warten Sie { $minutes ->
    [one] eine Minute
   *[other] { $minutes } Minuten
} und speichern Sie erneut, oder senden Sie Ihre Antworten jetzt.
save-too-large = Ihre Antworten sind zu lang, um sie für später zu speichern. Bitte senden Sie sie jetzt oder kürzen Sie die längste.
saved-title = Ihre Antworten sind gespeichert
saved-intro = Um später fortzufahren, öffnen Sie diesen Link auf einem beliebigen Gerät. Behalten Sie ihn für sich: Wer ihn hat, kann Ihre Antworten sehen und ändern.
saved-until = Der Link funktioniert bis zum { $date }.
saved-continue = Jetzt fortfahren
saved-email-label = Link per E-Mail senden
saved-email-hint = Ihre Adresse wird nur für diesen Link verwendet.
saved-email-send = Link senden
saved-email-sent = Der Link ist an die angegebene Adresse unterwegs.
saved-email-invalid = Bitte geben Sie eine E-Mail-Adresse ein, z. B. name@example.com.
resume-gone-title = Dieser Link funktioniert nicht mehr
resume-gone-message = Die darunter gespeicherten Antworten wurden gesendet, oder die Zeit zum Fortfahren ist abgelaufen.
resume-start-again = Umfrage neu beginnen
resume-mail-subject = „{ $title }“ fortsetzen
resume-mail-body = Sie haben Ihre Antworten zu „{ $title }“ gespeichert. Hier geht es weiter:
    { $link }

    Der Link funktioniert bis zum { $date }. Behalten Sie ihn für sich: Wer ihn hat, kann Ihre Antworten sehen und ändern. Wenn Sie diese E-Mail nicht angefordert haben, ignorieren Sie sie.

## Quotas

quota-full-title = Vielen Dank für Ihre Zeit
quota-full-message = Wir haben bereits alle Antworten, die wir von Personen wie Ihnen brauchen, daher endet die Umfrage hier. Ihre Antworten wurden nicht gespeichert.

## File questions

file-kind-image = ein Bild (JPEG, PNG, GIF, WebP oder HEIC)
file-kind-pdf = ein PDF
file-kind-office = ein Office-Dokument (Word, Excel, PowerPoint oder OpenDocument)
problem-file-kind = Diese Art von Datei wird hier nicht angenommen: Bitte wählen Sie { $kinds }.
problem-file-too-large = Diese Datei ist zu groß: Diese Frage nimmt Dateien bis höchstens { $limit } MB an.
problem-file-unknown = Bitte wählen Sie die Datei erneut.
problem-file-too-many = Sie haben in kurzer Zeit viele Dateien hochgeladen. Bitte warten Sie { $minutes } Minuten und versuchen Sie es erneut.
form-file-uploaded = Hochgeladen: { $name } ({ $size } MB).
form-file-replace = Wählen Sie eine andere Datei, um sie zu ersetzen.
form-file-remove = Diese Datei entfernen
form-file-choose = Datei auswählen
form-file-limit = { $kinds }; höchstens { $limit } MB.

# A survey by invitation, and personal links.
invitation-only-title = Diese Umfrage ist nur auf Einladung
invitation-only-message = Nur die Personen, an die sie gesendet wurde, können sie beantworten, jeweils über ihren persönlichen Link. Wenn Sie eingeladen wurden, öffnen Sie den Link in Ihrer Einladung.
link-answered-title = Sie haben bereits geantwortet
link-answered-message = Vielen Dank: Ihre Antworten sind eingegangen. Ein persönlicher Link kann einmal antworten.
link-unknown-title = Dieser Link öffnet die Umfrage nicht
link-unknown-message = Vielleicht wurde er nur teilweise kopiert, oder er wird nicht mehr verwendet. Bitten Sie die Person, die ihn Ihnen geschickt hat, um einen neuen.
opt-out-title = Keine E-Mails mehr von { $tenant }?
opt-out-message = { $tenant } hat Ihre Adresse zu dieser Umfrage hinzugefügt und kann Ihnen dazu schreiben. Wenn Sie das beenden, kann { $tenant } Ihnen über Canvass keine E-Mails mehr senden, zu keiner Umfrage.
opt-out-button = E-Mails beenden
opted-out-title = Sie erhalten keine E-Mails mehr von { $tenant }
opted-out-message = Sie können Ihnen über Canvass keine E-Mails mehr senden. Ihr persönlicher Link öffnet die Umfrage weiterhin, falls Sie es sich anders überlegen.
