language-name = Polski
language-switch = Język
site-footer = Canvass · ankiety na własnym serwerze

## Formularz ankiety

form-page = Strona { $page } z { $pages }
form-step = Pytanie { $step } z { $steps }
form-keys = Klawisze: litera lub cyfra wybiera odpowiedź, Enter przechodzi dalej.
form-check-answers = { $count ->
    [one] Sprawdź jedną odpowiedź
    [few] Sprawdź { $count } odpowiedzi
    [many] Sprawdź { $count } odpowiedzi
   *[other] Sprawdź { $count } odpowiedzi
}
form-question = Pytanie { $number }
form-required = (wymagane)
form-anonymous = Twoje odpowiedzi są anonimowe: zapisujemy je bez Twojego imienia i nazwiska, adresu e-mail i linku, więc nikt nie może ustalić, które odpowiedzi są Twoje.
form-choose = Wybierz
form-choose-one = Wybierz jedną
form-stars = { $count ->
    [one] gwiazdka
    [few] gwiazdki
    [many] gwiazdek
   *[other] gwiazdki
}
form-other = Inne, proszę podać:
form-other-label = Inne: { $question }
form-nps-low = Zupełnie nieprawdopodobne
form-nps-high = Bardzo prawdopodobne
form-place = { $place }.
form-back = Wstecz
form-next = Dalej
form-send = Wyślij moje odpowiedzi
form-number-between = { $whole ->
    [yes] Liczba całkowita od { $min } do { $max }.
   *[no] Liczba od { $min } do { $max }.
}
form-number-at-least = { $whole ->
    [yes] Liczba całkowita co najmniej { $min }.
   *[no] Liczba co najmniej { $min }.
}
form-number-at-most = { $whole ->
    [yes] Liczba całkowita co najwyżej { $max }.
   *[no] Liczba co najwyżej { $max }.
}
form-whole-number = Liczba całkowita.
form-condition = Odpowiedz na to pytanie, jeśli { $condition }.
condition-your-answer = Twoja odpowiedź na „{ $question }”
condition-is = { $question } to „{ $value }”
condition-is-not = { $question } to nie „{ $value }”
condition-one-of = { $question } to jedno z „{ $value }”
condition-above = { $question } jest większa niż { $value }
condition-below = { $question } jest mniejsza niż { $value }
condition-answered = { $question } została udzielona
condition-not-answered = { $question } nie została udzielona
condition-contains = { $question } zawiera „{ $value }”
condition-and = i
condition-or = lub
form-not-accepted = Nie można przyjąć tego formularza: { $reason }. Otwórz ankietę ponownie i odpowiedz na nią.

## Co jest nie tak z odpowiedzią

problem-required = Odpowiedz na to pytanie.
problem-one-only = Podaj tylko jedną odpowiedź.
problem-control-characters = Usuń niewidoczne znaki sterujące z odpowiedzi (często pochodzą z wklejania).
problem-too-long = Skróć odpowiedź do { $limit } znaków (ma { $length }).
problem-response-too-long = Twoje odpowiedzi mają razem { $total } znaków; jedna odpowiedź może mieć najwyżej { $most }. Skróć tę.
problem-unknown-column = Wybierz jedną z podanych kolumn dla „{ $row }”.
problem-every-row = Odpowiedz w każdym wierszu.
problem-other-blank = Napisz, co oznacza „Inne”.
problem-other-too-long = Ogranicz „Inne” do { $limit } znaków, bez znaków sterujących.
problem-unknown-option = Wybierz jedną z podanych opcji.
problem-not-an-option = „{ $value }” nie jest jedną z podanych opcji.
problem-stars = Wystaw ocenę od 1 do 5 gwiazdek.
problem-ranking = Uporządkuj wszystkie opcje ({ $count }), każdą jeden raz.
problem-point = Wybierz wartość od { $from } do { $to }.
problem-date = Wpisz datę, np. 2026-07-14.
problem-date-too-early = Wpisz { $date } lub późniejszą datę.
problem-date-too-late = Wpisz { $date } lub wcześniejszą datę.
problem-number = Wpisz liczbę, np. 42 lub 3.5.
problem-number-huge = Wpisz liczbę z zakresu od -1 000 000 000 000 000 do 1 000 000 000 000 000.
problem-whole-number = Wpisz liczbę całkowitą.
problem-number-between = Wpisz liczbę od { $min } do { $max }.
problem-number-at-least = Wpisz { $min } lub więcej.
problem-number-at-most = Wpisz { $max } lub mniej.

## Podziękowanie, zamknięta, lista ankiet

thanks-title = Dziękujemy!
thanks-received = Twoje odpowiedzi zostały przyjęte.
thanks-reference = Twój numer referencyjny to { $reference }. Zachowaj go, jeśli chcesz odnieść się do swoich odpowiedzi w kontakcie z { $tenant }.
thanks-more = Więcej ankiet od { $tenant }
quiz-score = Twój wynik: { $score }
quiz-tally = Poprawne odpowiedzi: { $right } z { $total }
quiz-answers = Twoje odpowiedzi
quiz-right = Poprawnie
quiz-wrong = Niepoprawnie
quiz-correct-answer = Poprawna odpowiedź: { $answer }
closed-title = Ta ankieta jest zamknięta
closed-message = Nie przyjmuje już odpowiedzi. Dziękujemy za zainteresowanie.
closed-others = Inne ankiety od { $tenant }
surveys-title = Ankiety
surveys-none = { $tenant } nie ma teraz otwartych ankiet.
surveys-answer = Odpowiedz na tę ankietę
surveys-pages = Strony ankiet
surveys-previous = Poprzednia
surveys-next = Następna

## Earlier answers recalled in a question's text

# A date answer: its day, its month (1 to 12) and its year.
recall-date = { $day } { $month ->
    [1] stycznia
    [2] lutego
    [3] marca
    [4] kwietnia
    [5] maja
    [6] czerwca
    [7] lipca
    [8] sierpnia
    [9] września
    [10] października
    [11] listopada
   *[12] grudnia
} { $year }
# Between the parts of an answer of several (options ticked, a ranking, a matrix's rows).
recall-separator = { ", " }

## Saving to continue later

form-save = Zapisz i dokończ później
save-not-offered = Tej ankiety nie można zapisać, aby dokończyć później.
save-too-many = Zapisywano wiele razy w krótkim czasie. Odczekaj { $minutes ->
    [one] minutę
    [few] { $minutes } minuty
   *[other] { $minutes } minut
} i zapisz ponownie albo wyślij odpowiedzi teraz.
save-too-large = Odpowiedzi są zbyt długie, by je zapisać. Wyślij je teraz albo skróć najdłuższą.
saved-title = Twoje odpowiedzi są zapisane
saved-intro = Aby dokończyć później, otwórz ten link na dowolnym urządzeniu. Zachowaj go dla siebie: każdy, kto go ma, może zobaczyć i zmienić Twoje odpowiedzi.
saved-until = Link działa do { $date }.
saved-continue = Kontynuuj teraz
saved-email-label = Wyślij mi link e-mailem
saved-email-hint = Adres służy tylko do wysłania tego linku.
saved-email-send = Wyślij link
saved-email-sent = Link jest w drodze na podany adres.
saved-email-invalid = Wpisz adres e-mail, np. imie@example.com.
resume-gone-title = Ten link już nie działa
resume-gone-message = Zapisane odpowiedzi zostały wysłane albo minął czas na dokończenie.
resume-start-again = Zacznij ankietę od nowa
resume-mail-subject = Dokończ „{ $title }”
resume-mail-body = Zapisano Twoje odpowiedzi w ankiecie „{ $title }”. Kontynuuj tam, gdzie skończono:
    { $link }

    Link działa do { $date }. Zachowaj go dla siebie: każdy, kto go ma, może zobaczyć i zmienić Twoje odpowiedzi. Jeśli nie prosiłeś o tę wiadomość, zignoruj ją.

## Quotas

quota-full-title = Dziękujemy za poświęcony czas
quota-full-message = Mamy już wszystkie potrzebne odpowiedzi od osób takich jak Ty, więc ankieta kończy się tutaj. Twoje odpowiedzi nie zostały zapisane.

## File questions

file-kind-image = obraz (JPEG, PNG, GIF, WebP lub HEIC)
file-kind-pdf = plik PDF
file-kind-office = dokument biurowy (Word, Excel, PowerPoint lub OpenDocument)
problem-file-kind = Ten rodzaj pliku nie jest tu przyjmowany: wybierz { $kinds }.
problem-file-too-large = Ten plik jest za duży: to pytanie przyjmuje pliki najwyżej { $limit } MB.
problem-file-unknown = Wybierz plik ponownie.
problem-file-too-many = Wysłano wiele plików w krótkim czasie. Odczekaj { $minutes } min i spróbuj ponownie.
form-file-uploaded = Wysłano: { $name } ({ $size } MB).
form-file-replace = Wybierz inny plik, aby go zastąpić.
form-file-remove = Usuń ten plik
form-file-choose = Wybierz plik
form-file-limit = { $kinds }; najwyżej { $limit } MB.

# A survey by invitation, and personal links.
invitation-only-title = Ta ankieta jest tylko dla zaproszonych
invitation-only-message = Mogą na nią odpowiedzieć tylko osoby, do których ją wysłano, każda przez swój osobisty link. Jeśli otrzymałeś zaproszenie, otwórz link z zaproszenia.
link-answered-title = Odpowiedź została już udzielona
link-answered-message = Dziękujemy: otrzymaliśmy Twoje odpowiedzi. Osobisty link pozwala odpowiedzieć jeden raz.
link-unknown-title = Ten link nie otwiera ankiety
link-unknown-message = Mógł zostać skopiowany tylko częściowo albo nie jest już używany. Poproś osobę, która go wysłała, o nowy.
opt-out-title = Nie chcesz więcej e-maili od { $tenant }?
opt-out-message = { $tenant } dodał Twój adres do tej ankiety i może do Ciebie pisać w jej sprawie. Jeśli to zatrzymasz, { $tenant } nie będzie mógł już pisać do Ciebie przez Canvass w sprawie żadnej ankiety.
opt-out-button = Zatrzymaj e-maile
opted-out-title = Nie dostaniesz więcej e-maili od { $tenant }
opted-out-message = Nie mogą już pisać do Ciebie przez Canvass. Twój osobisty link nadal otwiera ankietę, jeśli zmienisz zdanie.
