language-name = Deutsch
language-switch = Sprache
site-footer = Canvass · selbst gehostete Umfragen

## Das Umfrageformular

form-page = Seite { $page } von { $pages }
form-check-answers = { $count ->
    [one] Bitte prüfen Sie eine Antwort
   *[other] Bitte prüfen Sie { $count } Antworten
}
form-question = Frage { $number }
form-required = (Pflichtfeld)
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
closed-title = Diese Umfrage ist geschlossen
closed-message = Sie nimmt keine Antworten mehr an. Vielen Dank für Ihr Interesse.
closed-others = Andere Umfragen von { $tenant }
surveys-title = Umfragen
surveys-none = { $tenant } hat gerade keine offenen Umfragen.
surveys-answer = Diese Umfrage beantworten
surveys-pages = Seiten der Umfragen
surveys-previous = Zurück
surveys-next = Weiter
