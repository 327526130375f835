language-name = 日本語
language-switch = 言語
site-footer = Canvass · セルフホスト型アンケート

## アンケートフォーム

form-page = { $page } / { $pages } ページ
form-step = 質問 { $step } / { $steps }
form-keys = キー操作：文字または数字で回答を選び、Enter で次へ進みます。
form-check-answers = { $count ->
   *[other] { $count } 件の回答を確認してください
}
form-question = 質問 { $number }
form-required = (必須)
form-anonymous = 回答は匿名です。お名前、メールアドレス、リンクと結び付けずに保存されるため、どの回答があなたのものかは誰にも分かりません。
form-choose = 選択
form-choose-one = 1 つ選択してください
form-stars = { $count ->
   *[other] つ星
}
form-other = その他（具体的に）:
form-other-label = その他: { $question }
form-nps-low = まったく可能性がない
form-nps-high = 非常に可能性が高い
form-place = { $place } 位
form-back = 戻る
form-next = 次へ
form-send = 回答を送信
form-number-between = { $whole ->
    [yes] { $min } から { $max } までの整数。
   *[no] { $min } から { $max } までの数値。
}
form-number-at-least = { $whole ->
    [yes] { $min } 以上の整数。
   *[no] { $min } 以上の数値。
}
form-number-at-most = { $whole ->
    [yes] { $max } 以下の整数。
   *[no] { $max } 以下の数値。
}
form-whole-number = 整数。
form-condition = { $condition }場合に回答してください。
condition-your-answer = 「{ $question }」への回答
condition-is = { $question }が「{ $value }」の
condition-is-not = { $question }が「{ $value }」でない
condition-one-of = { $question }が「{ $value }」のいずれかの
condition-above = { $question }が { $value } より大きい
condition-below = { $question }が { $value } より小さい
condition-answered = { $question }がある
condition-not-answered = { $question }がない
condition-contains = { $question }に「{ $value }」が含まれる
condition-and = かつ
condition-or = または
form-not-accepted = このフォームは受け付けられません: { $reason }。アンケートを開き直して回答してください。

## 回答の問題

problem-required = この質問に回答してください。
problem-one-only = 回答は 1 つだけにしてください。
problem-control-characters = 回答から目に見えない制御文字を削除してください（貼り付けで入ることがあります）。
problem-too-long = 回答を { $limit } 文字以内にしてください（現在 { $length } 文字）。
problem-response-too-long = 回答の合計が { $total } 文字です。1 件の回答は最大 { $most } 文字です。この回答を短くしてください。
problem-unknown-column = 「{ $row }」には一覧の列から選んでください。
problem-every-row = すべての行に回答してください。
problem-other-blank = 「その他」の内容を入力してください。
problem-other-too-long = 「その他」は制御文字を含めず { $limit } 文字以内にしてください。
problem-unknown-option = 一覧の選択肢から選んでください。
problem-not-an-option = 「{ $value }」は一覧の選択肢にありません。
problem-stars = 1 から 5 つ星で評価してください。
problem-ranking = { $count } 個の選択肢すべてを、それぞれ 1 回ずつ並べてください。
problem-point = { $from } から { $to } の値を選んでください。
problem-date = 日付を入力してください（例: 2026-07-14）。
problem-date-too-early = { $date } 以降の日付を入力してください。
problem-date-too-late = { $date } 以前の日付を入力してください。
problem-number = 数値を入力してください（例: 42、3.5）。
problem-number-huge = -1,000,000,000,000,000 から 1,000,000,000,000,000 までの数値を入力してください。
problem-whole-number = 整数を入力してください。
problem-number-between = { $min } から { $max } までの数値を入力してください。
problem-number-at-least = { $min } 以上を入力してください。
problem-number-at-most = { $max } 以下を入力してください。

## お礼、終了、アンケート一覧

thanks-title = ありがとうございました！
thanks-received = 回答を受け付けました。
thanks-reference = 参照番号は { $reference } です。{ $tenant } に回答について問い合わせる際に使えるよう保管してください。
thanks-more = { $tenant } のほかのアンケート
quiz-score = あなたのスコア：{ $score }
quiz-tally = { $total } 問中 { $right } 問正解
quiz-answers = あなたの回答
quiz-right = 正解
quiz-wrong = 不正解
quiz-correct-answer = 正解：{ $answer }
closed-title = このアンケートは終了しました
closed-message = 回答の受付は終了しました。ご関心をお寄せいただきありがとうございます。
closed-others = { $tenant } のほかのアンケート
surveys-title = アンケート
surveys-none = { $tenant } には現在受付中のアンケートがありません。
surveys-answer = このアンケートに回答する
surveys-pages = アンケートのページ
surveys-previous = 前へ
surveys-next = 次へ

## Earlier answers recalled in a question's text

# A date answer: its day, its month (1 to 12) and its year.
recall-date = { $year }年{ $month }月{ $day }日
# Between the parts of an answer of several (options ticked, a ranking, a matrix's rows).
recall-separator = { "、" }

## Saving to continue later

form-save = 保存して後で続ける
save-not-offered = このアンケートは保存して後で続けることができません。
save-too-many = 短い間に何度も保存されました。{ $minutes }分待ってからもう一度保存するか、今すぐ回答を送信してください。
save-too-large = 回答が長すぎるため保存できません。今すぐ送信するか、最も長い回答を短くしてください。
saved-title = 回答を保存しました
saved-intro = 後で続けるには、どの端末からでもこのリンクを開いてください。リンクは他人に教えないでください。リンクを持つ人は誰でも回答を見て変更できます。
saved-until = このリンクは{ $date }まで有効です。
saved-continue = 今すぐ続ける
saved-email-label = リンクをメールで送る
saved-email-hint = メールアドレスはこのリンクの送信にのみ使用します。
saved-email-send = リンクを送信
saved-email-sent = 入力されたアドレスにリンクを送信しています。
saved-email-invalid = name@example.com のようなメールアドレスを入力してください。
resume-gone-title = このリンクは使用できません
resume-gone-message = 保存された回答は送信済みか、続ける期限が過ぎています。
resume-start-again = アンケートを最初から始める
resume-mail-subject = 「{ $title }」を続ける
resume-mail-body = 「{ $title }」の回答を保存しました。中断したところから続けるには:
    { $link }

    このリンクは{ $date }まで有効です。リンクは他人に教えないでください。リンクを持つ人は誰でも回答を見て変更できます。心当たりがない場合は、このメールを無視してください。

## Quotas

quota-full-title = ご協力ありがとうございました
quota-full-message = あなたと同じ条件の方からの回答はすでに十分に集まったため、アンケートはここで終了します。回答は保存されませんでした。

## File questions

file-kind-image = 画像(JPEG、PNG、GIF、WebP、HEIC)
file-kind-pdf = PDF
file-kind-office = Office 文書(Word、Excel、PowerPoint、OpenDocument)
problem-file-kind = この種類のファイルは受け付けていません。{ $kinds }を選んでください。
problem-file-too-large = このファイルは大きすぎます。この質問は最大 { $limit } MB までのファイルを受け付けます。
problem-file-unknown = もう一度ファイルを選んでください。
problem-file-too-many = 短い間に多くのファイルがアップロードされました。{ $minutes }分待ってからもう一度お試しください。
form-file-uploaded = アップロード済み: { $name }({ $size } MB)。
form-file-replace = 置き換えるには別のファイルを選んでください。
form-file-remove = このファイルを削除
form-file-choose = ファイルを選択
form-file-limit = { $kinds }、最大 { $limit } MB。

# A survey by invitation, and personal links.
invitation-only-title = このアンケートは招待制です
invitation-only-message = 送付された方だけが、それぞれの個人用リンクから回答できます。招待を受けた方は、招待状のリンクを開いてください。
link-answered-title = すでに回答済みです
link-answered-message = ありがとうございます。回答を受け付けました。個人用リンクで回答できるのは一度だけです。
link-unknown-title = このリンクではアンケートを開けません
link-unknown-message = 一部だけがコピーされたか、現在は使われていない可能性があります。送信者に新しいリンクを依頼してください。
opt-out-title = { $tenant } からのメールを停止しますか？
opt-out-message = { $tenant } はこのアンケートにあなたのアドレスを追加し、アンケートについてメールを送ることがあります。停止すると、{ $tenant } は Canvass を通じてどのアンケートについてもメールを送れなくなります。
opt-out-button = メールを停止する
opted-out-title = { $tenant } からのメールは届かなくなります
opted-out-message = Canvass を通じてメールが送られることはもうありません。気が変わったら、個人用リンクから引き続きアンケートを開けます。
