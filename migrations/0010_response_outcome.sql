-- What the survey computed for a response when it was sent: its variables ({"total": 7};
-- NULL: none had a value), the sum of the points of the options picked, how many quiz
-- answers were correct, and the ending reached (each NULL where the survey has none).
alter table canvass.response add column if not exists variables jsonb;
alter table canvass.response add column if not exists score double precision;
alter table canvass.response add column if not exists correct integer;
alter table canvass.response add column if not exists ending text;
