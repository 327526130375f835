-- The hidden fields' values the respondent's address gave ({"pid": "abc", "source": "mail"};
-- NULL: none given, or a survey without hidden fields).
alter table canvass.response add column if not exists hidden jsonb;
