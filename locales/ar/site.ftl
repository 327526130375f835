language-name = العربية
language-switch = اللغة
site-footer = Canvass · استطلاعات مستضافة ذاتيًا

## نموذج الاستطلاع

form-page = الصفحة { $page } من { $pages }
form-step = السؤال { $step } من { $steps }
form-keys = المفاتيح: حرف أو رقم يختار إجابة، ومفتاح الإدخال ينتقل إلى التالي.
form-check-answers = { $count ->
    [zero] لا توجد إجابات للمراجعة
    [one] يرجى مراجعة إجابة واحدة
    [two] يرجى مراجعة إجابتين
    [few] يرجى مراجعة { $count } إجابات
    [many] يرجى مراجعة { $count } إجابة
   *[other] يرجى مراجعة { $count } إجابة
}
form-question = السؤال { $number }
form-required = (مطلوب)
form-anonymous = إجاباتك مجهولة الهوية: تُحفظ دون اسمك أو بريدك الإلكتروني أو رابطك، فلا يمكن لأحد معرفة أي الإجابات لك.
form-choose = اختر
form-choose-one = اختر واحدًا
form-stars = { $count ->
    [zero] نجوم
    [one] نجمة
    [two] نجمتان
    [few] نجوم
    [many] نجمة
   *[other] نجمة
}
form-other = أخرى، يرجى التحديد:
form-other-label = أخرى: { $question }
form-nps-low = غير محتمل على الإطلاق
form-nps-high = محتمل للغاية
form-place = المرتبة { $place }
form-back = السابق
form-next = التالي
form-send = إرسال إجاباتي
form-number-between = { $whole ->
    [yes] عدد صحيح من { $min } إلى { $max }.
   *[no] عدد من { $min } إلى { $max }.
}
form-number-at-least = { $whole ->
    [yes] عدد صحيح لا يقل عن { $min }.
   *[no] عدد لا يقل عن { $min }.
}
form-number-at-most = { $whole ->
    [yes] عدد صحيح لا يزيد على { $max }.
   *[no] عدد لا يزيد على { $max }.
}
form-whole-number = عدد صحيح.
form-condition = أجب عن هذا السؤال إذا { $condition }.
condition-your-answer = إجابتك عن «{ $question }»
condition-is = كانت { $question } «{ $value }»
condition-is-not = لم تكن { $question } «{ $value }»
condition-one-of = كانت { $question } إحدى «{ $value }»
condition-above = كانت { $question } أكبر من { $value }
condition-below = كانت { $question } أصغر من { $value }
condition-answered = أُعطيت { $question }
condition-not-answered = لم تُعطَ { $question }
condition-contains = احتوت { $question } على «{ $value }»
condition-and = و
condition-or = أو
form-not-accepted = لا يمكن قبول هذا النموذج: { $reason }. يرجى فتح الاستطلاع من جديد والإجابة عنه.

## ما الخطأ في الإجابة

problem-required = يرجى الإجابة عن هذا السؤال.
problem-one-only = يرجى تقديم إجابة واحدة فقط.
problem-control-characters = يرجى إزالة أحرف التحكم غير المرئية من إجابتك (قد تأتي من اللصق).
problem-too-long = يرجى اختصار إجابتك إلى { $limit } حرفًا (طولها { $length }).
problem-response-too-long = مجموع إجاباتك { $total } حرفًا؛ والحد الأقصى للرد الواحد { $most }. يرجى اختصار هذه الإجابة.
problem-unknown-column = يرجى اختيار أحد الأعمدة المدرجة لـ «{ $row }».
problem-every-row = يرجى الإجابة عن كل صف.
problem-other-blank = يرجى توضيح ما تقصده بـ «أخرى».
problem-other-too-long = يرجى ألا تتجاوز «أخرى» { $limit } حرفًا، دون أحرف تحكم.
problem-unknown-option = يرجى اختيار أحد الخيارات المدرجة.
problem-not-an-option = «{ $value }» ليس من الخيارات المدرجة.
problem-stars = يرجى التقييم من 1 إلى 5 نجوم.
problem-ranking = يرجى ترتيب كل الخيارات ({ $count })، كل خيار مرة واحدة.
problem-point = يرجى اختيار قيمة من { $from } إلى { $to }.
problem-date = يرجى إدخال تاريخ، مثل 2026-07-14.
problem-date-too-early = يرجى إدخال { $date } أو تاريخ بعده.
problem-date-too-late = يرجى إدخال { $date } أو تاريخ قبله.
problem-number = يرجى إدخال عدد، مثل 42 أو 3.5.
problem-number-huge = يرجى إدخال عدد بين -1,000,000,000,000,000 و1,000,000,000,000,000.
problem-whole-number = يرجى إدخال عدد صحيح.
problem-number-between = يرجى إدخال عدد من { $min } إلى { $max }.
problem-number-at-least = يرجى إدخال { $min } أو أكثر.
problem-number-at-most = يرجى إدخال { $max } أو أقل.

## الشكر، الإغلاق، قائمة الاستطلاعات

thanks-title = شكرًا لك!
thanks-received = تم استلام إجاباتك.
thanks-reference = رقمك المرجعي هو { $reference }. احتفظ به إن أردت الإشارة إلى إجاباتك لدى { $tenant }.
thanks-more = مزيد من استطلاعات { $tenant }
quiz-score = نتيجتك: { $score }
quiz-tally = { $right } من { $total } إجابات صحيحة
quiz-answers = إجاباتك
quiz-right = صحيحة
quiz-wrong = غير صحيحة
quiz-correct-answer = الإجابة الصحيحة: { $answer }
closed-title = هذا الاستطلاع مغلق
closed-message = لم يعد يقبل إجابات. شكرًا لاهتمامك.
closed-others = استطلاعات أخرى من { $tenant }
surveys-title = الاستطلاعات
surveys-none = ليس لدى { $tenant } استطلاعات مفتوحة حاليًا.
surveys-answer = أجب عن هذا الاستطلاع
surveys-pages = صفحات الاستطلاعات
surveys-previous = السابق
surveys-next = التالي

## Earlier answers recalled in a question's text

# A date answer: its day, its month (1 to 12) and its year.
recall-date = { $day } { $month ->
    [1] يناير
    [2] فبراير
    [3] مارس
    [4] أبريل
    [5] مايو
    [6] يونيو
    [7] يوليو
    [8] أغسطس
    [9] سبتمبر
    [10] أكتوبر
    [11] نوفمبر
   *[12] ديسمبر
} { $year }
# Between the parts of an answer of several (options ticked, a ranking, a matrix's rows).
recall-separator = { "، " }

## Saving to continue later

form-save = احفظ وتابع لاحقًا
save-not-offered = لا يمكن حفظ هذا الاستبيان لمتابعته لاحقًا.
save-too-many = حفظت مرات كثيرة في وقت قصير. يرجى الانتظار { $minutes ->
    [one] دقيقة واحدة
    [two] دقيقتين
    [few] { $minutes } دقائق
   *[other] { $minutes } دقيقة
} ثم الحفظ مرة أخرى، أو إرسال إجاباتك الآن.
save-too-large = إجاباتك أطول من أن تُحفظ لوقت لاحق. يرجى إرسالها الآن أو تقصير أطولها.
saved-title = تم حفظ إجاباتك
saved-intro = للمتابعة لاحقًا، افتح هذا الرابط على أي جهاز. احتفظ به لنفسك: يمكن لأي شخص لديه الرابط أن يرى إجاباتك ويغيّرها.
saved-until = يعمل الرابط حتى { $date }.
saved-continue = تابع الآن
saved-email-label = أرسل لي الرابط بالبريد الإلكتروني
saved-email-hint = يُستخدم عنوانك لإرسال هذا الرابط فقط.
saved-email-send = أرسل الرابط
saved-email-sent = الرابط في طريقه إلى العنوان الذي أدخلته.
saved-email-invalid = يرجى إدخال عنوان بريد إلكتروني مثل name@example.com.
resume-gone-title = لم يعد هذا الرابط يعمل
resume-gone-message = أُرسلت الإجابات المحفوظة به، أو انتهت مهلة المتابعة.
resume-start-again = ابدأ الاستبيان من جديد
resume-mail-subject = تابع «{ $title }»
resume-mail-body = حفظت إجاباتك على «{ $title }». تابع من حيث توقفت:
    { $link }

    يعمل الرابط حتى { $date }. احتفظ به لنفسك: يمكن لأي شخص لديه الرابط أن يرى إجاباتك ويغيّرها. إذا لم تطلب هذه الرسالة فتجاهلها.

## Quotas

quota-full-title = شكرًا على وقتك
quota-full-message = لدينا بالفعل كل الإجابات التي نحتاجها من أشخاص مثلك، لذا ينتهي الاستبيان هنا. لم يتم حفظ إجاباتك.

## File questions

file-kind-image = صورة (JPEG أو PNG أو GIF أو WebP أو HEIC)
file-kind-pdf = ملف PDF
file-kind-office = مستند مكتبي (Word أو Excel أو PowerPoint أو OpenDocument)
problem-file-kind = لا يُقبل هذا النوع من الملفات هنا: يرجى اختيار { $kinds }.
problem-file-too-large = هذا الملف كبير جدًا: يقبل هذا السؤال ملفات بحد أقصى { $limit } ميغابايت.
problem-file-unknown = يرجى اختيار الملف مرة أخرى.
problem-file-too-many = رفعت ملفات كثيرة في وقت قصير. يرجى الانتظار { $minutes } دقيقة ثم المحاولة مرة أخرى.
form-file-uploaded = تم الرفع: { $name } ({ $size } ميغابايت).
form-file-replace = اختر ملفًا آخر لاستبداله.
form-file-remove = إزالة هذا الملف
form-file-choose = اختر ملفًا
form-file-limit = { $kinds }؛ بحد أقصى { $limit } ميغابايت.

# A survey by invitation, and personal links.
invitation-only-title = هذا الاستبيان بالدعوة فقط
invitation-only-message = لا يمكن الإجابة عنه إلا لمن أُرسل إليهم، كلٌّ عبر رابطه الشخصي. إن كنت مدعوًا فافتح الرابط الوارد في دعوتك.
link-answered-title = لقد أجبت من قبل
link-answered-message = شكرًا لك: وصلتنا إجاباتك. يتيح الرابط الشخصي الإجابة مرة واحدة.
link-unknown-title = هذا الرابط لا يفتح الاستبيان
link-unknown-message = ربما نُسخ جزء منه فقط، أو لم يعد مستخدمًا. اطلب رابطًا جديدًا ممن أرسله إليك.
opt-out-title = إيقاف الرسائل من { $tenant }؟
opt-out-message = أضاف { $tenant } عنوانك إلى هذا الاستبيان وقد يراسلك بشأنه. إذا أوقفت ذلك، فلن يتمكن { $tenant } من مراسلتك عبر Canvass مرة أخرى بشأن أي استبيان.
opt-out-button = إيقاف الرسائل
opted-out-title = لن تصلك رسائل أخرى من { $tenant }
opted-out-message = لم يعد بإمكانهم مراسلتك عبر Canvass. لا يزال رابطك الشخصي يفتح الاستبيان إن غيّرت رأيك.
