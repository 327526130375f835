language-name = Español
language-switch = Idioma
site-footer = Canvass · encuestas autoalojadas

## El formulario

form-page = Página { $page } de { $pages }
form-step = Pregunta { $step } de { $steps }
form-keys = Teclas: una letra o un número elige una respuesta; Intro continúa.
form-check-answers = { $count ->
    [one] Revise una respuesta
   *[other] Revise { $count } respuestas
}
form-question = Pregunta { $number }
form-required = (obligatoria)
form-anonymous = Sus respuestas son anónimas: se guardan sin su nombre, su correo electrónico ni su enlace, así que nadie puede saber cuáles son las suyas.
form-choose = Elegir
form-choose-one = Elija una opción
form-stars = { $count ->
    [one] estrella
   *[other] estrellas
}
form-other = Otro, especifique:
form-other-label = Otro: { $question }
form-nps-low = Nada probable
form-nps-high = Muy probable
form-place = { $place }.º
form-back = Atrás
form-next = Siguiente
form-send = Enviar mis respuestas
form-number-between = { $whole ->
    [yes] Un número entero de { $min } a { $max }.
   *[no] Un número de { $min } a { $max }.
}
form-number-at-least = { $whole ->
    [yes] Un número entero de al menos { $min }.
   *[no] Un número de al menos { $min }.
}
form-number-at-most = { $whole ->
    [yes] Un número entero de como máximo { $max }.
   *[no] Un número de como máximo { $max }.
}
form-whole-number = Un número entero.
form-condition = Responda a esta pregunta si { $condition }.
condition-your-answer = su respuesta a «{ $question }»
condition-is = { $question } es «{ $value }»
condition-is-not = { $question } no es «{ $value }»
condition-one-of = { $question } es una de «{ $value }»
condition-above = { $question } es mayor que { $value }
condition-below = { $question } es menor que { $value }
condition-answered = { $question } está respondida
condition-not-answered = { $question } no está respondida
condition-contains = { $question } contiene «{ $value }»
condition-and = y
condition-or = o
form-not-accepted = No se puede aceptar este formulario: { $reason }. Abra de nuevo la encuesta y respóndala.

## Qué falla en una respuesta

problem-required = Responda a esta pregunta.
problem-one-only = Dé una sola respuesta.
problem-control-characters = Quite los caracteres de control invisibles de su respuesta (suelen venir de pegar texto).
problem-too-long = Acorte su respuesta a { $limit } caracteres (tiene { $length }).
problem-response-too-long = Sus respuestas suman { $total } caracteres; una respuesta puede tener como máximo { $most }. Acorte esta.
problem-unknown-column = Elija una de las columnas indicadas para «{ $row }».
problem-every-row = Responda a cada fila.
problem-other-blank = Indique a qué se refiere con «Otro».
problem-other-too-long = Limite «Otro» a { $limit } caracteres, sin caracteres de control.
problem-unknown-option = Elija una de las opciones indicadas.
problem-not-an-option = «{ $value }» no es una de las opciones indicadas.
problem-stars = Dé una valoración de 1 a 5 estrellas.
problem-ranking = Ordene las { $count } opciones, cada una una sola vez.
problem-point = Elija un valor de { $from } a { $to }.
problem-date = Introduzca una fecha, por ejemplo 2026-07-14.
problem-date-too-early = Introduzca { $date } o una fecha posterior.
problem-date-too-late = Introduzca { $date } o una fecha anterior.
problem-number = Introduzca un número, por ejemplo 42 o 3.5.
problem-number-huge = Introduzca un número entre -1.000.000.000.000.000 y 1.000.000.000.000.000.
problem-whole-number = Introduzca un número entero.
problem-number-between = Introduzca un número de { $min } a { $max }.
problem-number-at-least = Introduzca { $min } o más.
problem-number-at-most = Introduzca { $max } o menos.

## Gracias, cerrada, la lista de encuestas

thanks-title = ¡Gracias!
thanks-received = Hemos recibido sus respuestas.
thanks-reference = Su número de referencia es { $reference }. Consérvelo si quiere referirse a sus respuestas ante { $tenant }.
thanks-more = Más encuestas de { $tenant }
quiz-score = Tu puntuación: { $score }
quiz-tally = { $right } de { $total } respuestas correctas
quiz-answers = Tus respuestas
quiz-right = Correcta
quiz-wrong = Incorrecta
quiz-correct-answer = Respuesta correcta: { $answer }
closed-title = Esta encuesta está cerrada
closed-message = Ya no acepta respuestas. Gracias por su interés.
closed-others = Otras encuestas de { $tenant }
surveys-title = Encuestas
surveys-none = { $tenant } no tiene encuestas abiertas en este momento.
surveys-answer = Responder a esta encuesta
surveys-pages = Páginas de encuestas
surveys-previous = Anterior
surveys-next = Siguiente

## Earlier answers recalled in a question's text

# A date answer: its day, its month (1 to 12) and its year.
recall-date = { $day } de { $month ->
    [1] enero
    [2] febrero
    [3] marzo
    [4] abril
    [5] mayo
    [6] junio
    [7] julio
    [8] agosto
    [9] septiembre
    [10] octubre
    [11] noviembre
   *[12] diciembre
} de { $year }
# Between the parts of an answer of several (options ticked, a ranking, a matrix's rows).
recall-separator = { ", " }

## Saving to continue later

form-save = Guardar y continuar más tarde
save-not-offered = Esta encuesta no se puede guardar para continuar más tarde.
save-too-many = Ha guardado muchas veces en poco tiempo. Espere { $minutes ->
    [one] un minuto
   *[other] { $minutes } minutos
} y vuelva a guardar, o envíe sus respuestas ahora.
save-too-large = Sus respuestas son demasiado largas para guardarlas. Envíelas ahora o acorte la más larga.
saved-title = Sus respuestas están guardadas
saved-intro = Para continuar más tarde, abra este enlace en cualquier dispositivo. Guárdelo para usted: quien lo tenga puede ver y cambiar sus respuestas.
saved-until = El enlace funciona hasta el { $date }.
saved-continue = Continuar ahora
saved-email-label = Enviarme el enlace por correo
saved-email-hint = Su dirección solo se usa para enviar este enlace.
saved-email-send = Enviar el enlace
saved-email-sent = El enlace va de camino a la dirección que indicó.
saved-email-invalid = Escriba una dirección de correo, como nombre@example.com.
resume-gone-title = Este enlace ya no funciona
resume-gone-message = Las respuestas guardadas se enviaron, o ya pasó el plazo para continuar.
resume-start-again = Empezar la encuesta de nuevo
resume-mail-subject = Continuar «{ $title }»
resume-mail-body = Guardó sus respuestas a «{ $title }». Continúe donde lo dejó:
    { $link }

    El enlace funciona hasta el { $date }. Guárdelo para usted: quien lo tenga puede ver y cambiar sus respuestas. Si no pidió este correo, ignórelo.

## Quotas

quota-full-title = Gracias por su tiempo
quota-full-message = Ya tenemos todas las respuestas que necesitamos de personas como usted, así que la encuesta termina aquí. Sus respuestas no se guardaron.

## File questions

file-kind-image = una imagen (JPEG, PNG, GIF, WebP o HEIC)
file-kind-pdf = un PDF
file-kind-office = un documento de oficina (Word, Excel, PowerPoint u OpenDocument)
problem-file-kind = Este tipo de archivo no se acepta aquí: elija { $kinds }.
problem-file-too-large = Este archivo es demasiado grande: esta pregunta acepta archivos de { $limit } MB como máximo.
problem-file-unknown = Vuelva a elegir el archivo.
problem-file-too-many = Ha subido muchos archivos en poco tiempo. Espere { $minutes } minutos y vuelva a intentarlo.
form-file-uploaded = Subido: { $name } ({ $size } MB).
form-file-replace = Elija otro archivo para reemplazarlo.
form-file-remove = Quitar este archivo
form-file-choose = Elegir un archivo
form-file-limit = { $kinds }; como máximo { $limit } MB.

# A survey by invitation, and personal links.
invitation-only-title = Esta encuesta es solo por invitación
invitation-only-message = Solo pueden responderla las personas a quienes se envió, cada una con su enlace personal. Si le invitaron, abra el enlace de su invitación.
link-answered-title = Ya ha respondido
link-answered-message = Gracias: hemos recibido sus respuestas. Un enlace personal sirve para una sola respuesta.
link-unknown-title = Este enlace no abre la encuesta
link-unknown-message = Puede que se haya copiado solo en parte o que ya no esté en uso. Pida uno nuevo a quien se lo envió.
opt-out-title = ¿No recibir más correos de { $tenant }?
opt-out-message = { $tenant } añadió su dirección a esta encuesta y puede escribirle sobre ella. Si lo detiene, { $tenant } no podrá volver a escribirle a través de Canvass, sobre ninguna encuesta.
opt-out-button = Detener los correos
opted-out-title = No recibirá más correos de { $tenant }
opted-out-message = Ya no pueden escribirle a través de Canvass. Su enlace personal sigue abriendo la encuesta si cambia de opinión.
