-- The orders drawn for the respondent, as shown: a question's id to its options, "page:N" to
-- that page's question ids ({"drink": ["Tea", "Coffee"], "page:1": ["q2", "q1"]}; NULL: none
-- drawn).
alter table canvass.response add column if not exists shown_order jsonb;
