language-name = Français
language-switch = Langue
site-footer = Canvass · enquêtes auto-hébergées

## Le formulaire

form-page = Page { $page } sur { $pages }
form-step = Question { $step } sur { $steps }
form-keys = Touches : une lettre ou un chiffre choisit une réponse, Entrée passe à la suite.
form-check-answers = { $count ->
    [one] Veuillez vérifier une réponse
   *[other] Veuillez vérifier { $count } réponses
}
form-question = Question { $number }
form-required = (obligatoire)
form-anonymous = Vos réponses sont anonymes : elles sont enregistrées sans votre nom, votre adresse e-mail ni votre lien, si bien que personne ne peut savoir lesquelles sont les vôtres.
form-choose = Choisir
form-choose-one = Choisissez
form-stars = { $count ->
    [one] étoile
   *[other] étoiles
}
form-other = Autre, veuillez préciser :
form-other-label = Autre : { $question }
form-nps-low = Pas du tout probable
form-nps-high = Extrêmement probable
form-place = { NUMBER($place, type: "ordinal") ->
    [one] { $place }er
   *[other] { $place }e
}
form-back = Retour
form-next = Suivant
form-send = Envoyer mes réponses
form-number-between = { $whole ->
    [yes] Un nombre entier de { $min } à { $max }.
   *[no] Un nombre de { $min } à { $max }.
}
form-number-at-least = { $whole ->
    [yes] Un nombre entier d’au moins { $min }.
   *[no] Un nombre d’au moins { $min }.
}
form-number-at-most = { $whole ->
    [yes] Un nombre entier d’au plus { $max }.
   *[no] Un nombre d’au plus { $max }.
}
form-whole-number = Un nombre entier.
form-condition = Répondez à cette question si { $condition }.
condition-your-answer = votre réponse à « { $question } »
condition-is = { $question } est « { $value } »
condition-is-not = { $question } n’est pas « { $value } »
condition-one-of = { $question } est l’une de « { $value } »
condition-above = { $question } est supérieure à { $value }
condition-below = { $question } est inférieure à { $value }
condition-answered = { $question } est donnée
condition-not-answered = { $question } n’est pas donnée
condition-contains = { $question } contient « { $value } »
condition-and = et
condition-or = ou
form-not-accepted = Ce formulaire ne peut pas être accepté : { $reason }. Veuillez rouvrir l’enquête et y répondre.

## Ce qui ne va pas dans une réponse

problem-required = Veuillez répondre à cette question.
problem-one-only = Veuillez ne donner qu’une seule réponse.
problem-control-characters = Veuillez retirer les caractères de contrôle invisibles de votre réponse (ils viennent souvent d’un copier-coller).
problem-too-long = Veuillez raccourcir votre réponse à { $limit } caractères (elle en a { $length }).
problem-response-too-long = Vos réponses totalisent { $total } caractères ; une réponse peut en avoir au plus { $most }. Veuillez raccourcir celle-ci.
problem-unknown-column = Veuillez choisir l’une des colonnes proposées pour « { $row } ».
problem-every-row = Veuillez répondre à chaque ligne.
problem-other-blank = Veuillez préciser ce que vous entendez par « Autre ».
problem-other-too-long = Veuillez limiter « Autre » à { $limit } caractères, sans caractères de contrôle.
problem-unknown-option = Veuillez choisir l’une des options proposées.
problem-not-an-option = « { $value } » ne fait pas partie des options proposées.
problem-stars = Veuillez donner une note de 1 à 5 étoiles.
problem-ranking = Veuillez classer les { $count } options, chacune une seule fois.
problem-point = Veuillez choisir une valeur de { $from } à { $to }.
problem-date = Veuillez saisir une date, par exemple 2026-07-14.
problem-date-too-early = Veuillez saisir le { $date } ou une date ultérieure.
problem-date-too-late = Veuillez saisir le { $date } ou une date antérieure.
problem-number = Veuillez saisir un nombre, par exemple 42 ou 3.5.
problem-number-huge = Veuillez saisir un nombre entre -1 000 000 000 000 000 et 1 000 000 000 000 000.
problem-whole-number = Veuillez saisir un nombre entier.
problem-number-between = Veuillez saisir un nombre de { $min } à { $max }.
problem-number-at-least = Veuillez saisir { $min } ou plus.
problem-number-at-most = Veuillez saisir { $max } ou moins.

## Merci, fermée, la liste des enquêtes

thanks-title = Merci !
thanks-received = Vos réponses ont bien été reçues.
thanks-reference = Votre numéro de référence est { $reference }. Conservez-le si vous souhaitez évoquer vos réponses auprès de { $tenant }.
thanks-more = Autres enquêtes de { $tenant }
quiz-score = Votre score : { $score }
quiz-tally = { $right } réponses justes sur { $total }
quiz-answers = Vos réponses
quiz-right = Juste
quiz-wrong = Pas juste
quiz-correct-answer = Bonne réponse : { $answer }
closed-title = Cette enquête est fermée
closed-message = Elle n’accepte plus de réponses. Merci de votre intérêt.
closed-others = Autres enquêtes de { $tenant }
surveys-title = Enquêtes
surveys-none = { $tenant } n’a aucune enquête ouverte pour le moment.
surveys-answer = Répondre à cette enquête
surveys-pages = Pages d’enquêtes
surveys-previous = Précédente
surveys-next = Suivante

## Earlier answers recalled in a question's text

# A date answer: its day, its month (1 to 12) and its year.
recall-date = { $day } { $month ->
    [1] janvier
    [2] février
    [3] mars
    [4] avril
    [5] mai
    [6] juin
    [7] juillet
    [8] août
    [9] septembre
    [10] octobre
    [11] novembre
   *[12] décembre
} { $year }
# Between the parts of an answer of several (options ticked, a ranking, a matrix's rows).
recall-separator = { ", " }

## Saving to continue later

form-save = Enregistrer et continuer plus tard
save-not-offered = Ce questionnaire ne peut pas être enregistré pour être repris plus tard.
save-too-many = Vous avez enregistré souvent en peu de temps. Veuillez attendre { $minutes ->
    [one] une minute
   *[other] { $minutes } minutes
} puis enregistrer de nouveau, ou envoyer vos réponses maintenant.
save-too-large = Vos réponses sont trop longues pour être enregistrées. Veuillez les envoyer maintenant, ou raccourcir la plus longue.
saved-title = Vos réponses sont enregistrées
saved-intro = Pour continuer plus tard, ouvrez ce lien sur n’importe quel appareil. Gardez-le pour vous : toute personne qui l’a peut voir et modifier vos réponses.
saved-until = Le lien fonctionne jusqu’au { $date }.
saved-continue = Continuer maintenant
saved-email-label = M’envoyer le lien par e-mail
saved-email-hint = Votre adresse ne sert qu’à envoyer ce lien.
saved-email-send = Envoyer le lien
saved-email-sent = Le lien est en route vers l’adresse indiquée.
saved-email-invalid = Veuillez saisir une adresse e-mail, comme nom@example.com.
resume-gone-title = Ce lien ne fonctionne plus
resume-gone-message = Les réponses enregistrées ont été envoyées, ou le délai pour continuer est passé.
resume-start-again = Recommencer le questionnaire
resume-mail-subject = Continuer « { $title } »
resume-mail-body = Vous avez enregistré vos réponses à « { $title } ». Reprenez là où vous vous êtes arrêté :
    { $link }

    Le lien fonctionne jusqu’au { $date }. Gardez-le pour vous : toute personne qui l’a peut voir et modifier vos réponses. Si vous n’avez rien demandé, ignorez cet e-mail.

## Quotas

quota-full-title = Merci de votre temps
quota-full-message = Nous avons déjà toutes les réponses nécessaires de personnes comme vous : le questionnaire s’arrête donc ici. Vos réponses n’ont pas été conservées.

## File questions

file-kind-image = une image (JPEG, PNG, GIF, WebP ou HEIC)
file-kind-pdf = un PDF
file-kind-office = un document bureautique (Word, Excel, PowerPoint ou OpenDocument)
problem-file-kind = Ce type de fichier n’est pas accepté ici : veuillez choisir { $kinds }.
problem-file-too-large = Ce fichier est trop volumineux : cette question accepte des fichiers d’au plus { $limit } Mo.
problem-file-unknown = Veuillez choisir le fichier de nouveau.
problem-file-too-many = Vous avez envoyé beaucoup de fichiers en peu de temps. Veuillez attendre { $minutes } minutes et réessayer.
form-file-uploaded = Envoyé : { $name } ({ $size } Mo).
form-file-replace = Choisissez un autre fichier pour le remplacer.
form-file-remove = Retirer ce fichier
form-file-choose = Choisir un fichier
form-file-limit = { $kinds } ; au plus { $limit } Mo.

# A survey by invitation, and personal links.
invitation-only-title = Ce questionnaire est sur invitation
invitation-only-message = Seules les personnes à qui il a été envoyé peuvent y répondre, chacune par son lien personnel. Si vous avez été invité, ouvrez le lien de votre invitation.
link-answered-title = Vous avez déjà répondu
link-answered-message = Merci : vos réponses ont été reçues. Un lien personnel ne sert qu’à une réponse.
link-unknown-title = Ce lien n’ouvre pas le questionnaire
link-unknown-message = Il a peut-être été copié en partie seulement, ou il n’est plus utilisé. Demandez-en un nouveau à la personne qui vous l’a envoyé.
opt-out-title = Ne plus recevoir d’e-mails de { $tenant } ?
opt-out-message = { $tenant } a ajouté votre adresse à ce questionnaire et peut vous écrire à son sujet. Si vous arrêtez, { $tenant } ne pourra plus vous écrire par Canvass, pour aucun questionnaire.
opt-out-button = Arrêter les e-mails
opted-out-title = Vous ne recevrez plus d’e-mails de { $tenant }
opted-out-message = Ils ne peuvent plus vous écrire par Canvass. Votre lien personnel ouvre toujours le questionnaire si vous changez d’avis.
