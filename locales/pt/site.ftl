language-name = Português
language-switch = Idioma
site-footer = Canvass · inquéritos auto-hospedados

## O formulário

form-page = Página { $page } de { $pages }
form-step = Pergunta { $step } de { $steps }
form-keys = Teclas: uma letra ou um número escolhe uma resposta; Enter continua.
form-check-answers = { $count ->
    [one] Verifique uma resposta
   *[other] Verifique { $count } respostas
}
form-question = Pergunta { $number }
form-required = (obrigatória)
form-anonymous = As suas respostas são anónimas: são guardadas sem o seu nome, endereço de e-mail ou link, por isso ninguém consegue saber quais são as suas.
form-choose = Escolher
form-choose-one = Escolha uma opção
form-stars = { $count ->
    [one] estrela
   *[other] estrelas
}
form-other = Outro, especifique:
form-other-label = Outro: { $question }
form-nps-low = Nada provável
form-nps-high = Extremamente provável
form-place = { $place }.º
form-back = Voltar
form-next = Seguinte
form-send = Enviar as minhas respostas
form-number-between = { $whole ->
    [yes] Um número inteiro de { $min } a { $max }.
   *[no] Um número de { $min } a { $max }.
}
form-number-at-least = { $whole ->
    [yes] Um número inteiro de pelo menos { $min }.
   *[no] Um número de pelo menos { $min }.
}
form-number-at-most = { $whole ->
    [yes] Um número inteiro de no máximo { $max }.
   *[no] Um número de no máximo { $max }.
}
form-whole-number = Um número inteiro.
form-condition = Responda a esta pergunta se { $condition }.
condition-your-answer = a sua resposta a «{ $question }»
condition-is = { $question } for «{ $value }»
condition-is-not = { $question } não for «{ $value }»
condition-one-of = { $question } for uma de «{ $value }»
condition-above = { $question } for superior a { $value }
condition-below = { $question } for inferior a { $value }
condition-answered = { $question } estiver dada
condition-not-answered = { $question } não estiver dada
condition-contains = { $question } contiver «{ $value }»
condition-and = e
condition-or = ou
form-not-accepted = Este formulário não pode ser aceite: { $reason }. Abra o inquérito de novo e responda-lhe.

## O que está errado numa resposta

problem-required = Responda a esta pergunta.
problem-one-only = Dê apenas uma resposta.
problem-control-characters = Remova os caracteres de controlo invisíveis da sua resposta (costumam vir de colar texto).
problem-too-long = Encurte a sua resposta para { $limit } caracteres (tem { $length }).
problem-response-too-long = As suas respostas somam { $total } caracteres; uma resposta pode ter no máximo { $most }. Encurte esta.
problem-unknown-column = Escolha uma das colunas indicadas para «{ $row }».
problem-every-row = Responda a todas as linhas.
problem-other-blank = Indique o que quer dizer com «Outro».
problem-other-too-long = Limite «Outro» a { $limit } caracteres, sem caracteres de controlo.
problem-unknown-option = Escolha uma das opções indicadas.
problem-not-an-option = «{ $value }» não é uma das opções indicadas.
problem-stars = Dê uma classificação de 1 a 5 estrelas.
problem-ranking = Ordene as { $count } opções, cada uma uma só vez.
problem-point = Escolha um valor de { $from } a { $to }.
problem-date = Introduza uma data, por exemplo 2026-07-14.
problem-date-too-early = Introduza { $date } ou uma data posterior.
problem-date-too-late = Introduza { $date } ou uma data anterior.
problem-number = Introduza um número, por exemplo 42 ou 3.5.
problem-number-huge = Introduza um número entre -1 000 000 000 000 000 e 1 000 000 000 000 000.
problem-whole-number = Introduza um número inteiro.
problem-number-between = Introduza um número de { $min } a { $max }.
problem-number-at-least = Introduza { $min } ou mais.
problem-number-at-most = Introduza { $max } ou menos.

## Obrigado, fechado, a lista de inquéritos

thanks-title = Obrigado!
thanks-received = As suas respostas foram recebidas.
thanks-reference = O seu número de referência é { $reference }. Guarde-o se quiser mencionar as suas respostas a { $tenant }.
thanks-more = Mais inquéritos de { $tenant }
quiz-score = A sua pontuação: { $score }
quiz-tally = { $right } de { $total } respostas certas
quiz-answers = As suas respostas
quiz-right = Certa
quiz-wrong = Errada
quiz-correct-answer = Resposta certa: { $answer }
closed-title = Este inquérito está fechado
closed-message = Já não aceita respostas. Obrigado pelo seu interesse.
closed-others = Outros inquéritos de { $tenant }
surveys-title = Inquéritos
surveys-none = { $tenant } não tem inquéritos abertos neste momento.
surveys-answer = Responder a este inquérito
surveys-pages = Páginas de inquéritos
surveys-previous = Anterior
surveys-next = Seguinte

## Earlier answers recalled in a question's text

# A date answer: its day, its month (1 to 12) and its year.
recall-date = { $day } de { $month ->
    [1] janeiro
    [2] fevereiro
    [3] março
    [4] abril
    [5] maio
    [6] junho
    [7] julho
    [8] agosto
    [9] setembro
    [10] outubro
    [11] novembro
   *[12] dezembro
} de { $year }
# Between the parts of an answer of several (options ticked, a ranking, a matrix's rows).
recall-separator = { ", " }

## Saving to continue later

form-save = Guardar e continuar mais tarde
save-not-offered = Este inquérito não pode ser guardado para continuar mais tarde.
save-too-many = Guardou muitas vezes em pouco tempo. Aguarde { $minutes ->
    [one] um minuto
   *[other] { $minutes } minutos
} e guarde de novo, ou envie as suas respostas agora.
save-too-large = As suas respostas são demasiado longas para guardar. Envie-as agora ou encurte a mais longa.
saved-title = As suas respostas estão guardadas
saved-intro = Para continuar mais tarde, abra esta ligação em qualquer dispositivo. Guarde-a para si: quem a tiver pode ver e alterar as suas respostas.
saved-until = A ligação funciona até { $date }.
saved-continue = Continuar agora
saved-email-label = Enviar-me a ligação por e-mail
saved-email-hint = O seu endereço só é usado para enviar esta ligação.
saved-email-send = Enviar a ligação
saved-email-sent = A ligação está a caminho do endereço indicado.
saved-email-invalid = Introduza um endereço de e-mail, como nome@example.com.
resume-gone-title = Esta ligação já não funciona
resume-gone-message = As respostas guardadas foram enviadas, ou o prazo para continuar terminou.
resume-start-again = Começar o inquérito de novo
resume-mail-subject = Continuar «{ $title }»
resume-mail-body = Guardou as suas respostas a «{ $title }». Continue onde parou:
    { $link }

    A ligação funciona até { $date }. Guarde-a para si: quem a tiver pode ver e alterar as suas respostas. Se não pediu este e-mail, ignore-o.

## Quotas

quota-full-title = Obrigado pelo seu tempo
quota-full-message = Já temos todas as respostas de que precisamos de pessoas como você, por isso o inquérito termina aqui. As suas respostas não foram guardadas.

## File questions

file-kind-image = uma imagem (JPEG, PNG, GIF, WebP ou HEIC)
file-kind-pdf = um PDF
file-kind-office = um documento de escritório (Word, Excel, PowerPoint ou OpenDocument)
problem-file-kind = Este tipo de ficheiro não é aceite aqui: escolha { $kinds }.
problem-file-too-large = Este ficheiro é demasiado grande: esta pergunta aceita ficheiros de no máximo { $limit } MB.
problem-file-unknown = Escolha o ficheiro de novo.
problem-file-too-many = Carregou muitos ficheiros em pouco tempo. Aguarde { $minutes } minutos e tente de novo.
form-file-uploaded = Carregado: { $name } ({ $size } MB).
form-file-replace = Escolha outro ficheiro para o substituir.
form-file-remove = Remover este ficheiro
form-file-choose = Escolher um ficheiro
form-file-limit = { $kinds }; no máximo { $limit } MB.

# A survey by invitation, and personal links.
invitation-only-title = Este inquérito é apenas por convite
invitation-only-message = Só as pessoas a quem foi enviado podem responder, cada uma pelo seu link pessoal. Se foi convidado, abra o link do seu convite.
link-answered-title = Já respondeu
link-answered-message = Obrigado: as suas respostas foram recebidas. Um link pessoal serve para uma resposta.
link-unknown-title = Este link não abre o inquérito
link-unknown-message = Talvez tenha sido copiado só em parte, ou já não está em uso. Peça um novo a quem lho enviou.
opt-out-title = Não receber mais e-mails de { $tenant }?
opt-out-message = { $tenant } adicionou o seu endereço a este inquérito e pode escrever-lhe sobre ele. Se parar, { $tenant } não poderá voltar a escrever-lhe através do Canvass, sobre nenhum inquérito.
opt-out-button = Parar os e-mails
opted-out-title = Não receberá mais e-mails de { $tenant }
opted-out-message = Já não lhe podem escrever através do Canvass. A sua ligação pessoal continua a abrir o inquérito se mudar de ideias.
