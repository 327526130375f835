language-name = Português
language-switch = Idioma
site-footer = Canvass · inquéritos auto-hospedados

## O formulário

form-page = Página { $page } de { $pages }
form-check-answers = { $count ->
    [one] Verifique uma resposta
   *[other] Verifique { $count } respostas
}
form-question = Pergunta { $number }
form-required = (obrigatória)
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
closed-title = Este inquérito está fechado
closed-message = Já não aceita respostas. Obrigado pelo seu interesse.
closed-others = Outros inquéritos de { $tenant }
surveys-title = Inquéritos
surveys-none = { $tenant } não tem inquéritos abertos neste momento.
surveys-answer = Responder a este inquérito
surveys-pages = Páginas de inquéritos
surveys-previous = Anterior
surveys-next = Seguinte
